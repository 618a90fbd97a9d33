/* Stand-ins for libkiln that the binding must refuse: one of another major version
 * (FAKE_VERSION 10000, 1.0.0) and one of the right version that lacks the functions the binding
 * calls (FAKE_VERSION: the version being built). Only kiln_version is defined. */
#include <stdint.h>

__attribute__((visibility("default"))) uint32_t kiln_version(void) { return FAKE_VERSION; }
