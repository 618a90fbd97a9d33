// Found only through the scanned target's include directory.
#pragma once
#include <kiln/kiln.hpp>
