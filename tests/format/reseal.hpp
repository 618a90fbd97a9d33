// Making a package's checksums right again after a test or the fuzzer edited its bytes, so that the
// edit reaches the reader's index checks instead of its checksums. No test framework: the fuzzer
// links it too.
#pragma once

#include <cstddef>
#include <vector>

namespace kiln::format::testing {

// Recomputes every section checksum, the TOC checksum and the header checksum; first INDEX_PAGES
// over the index as it now lies, unless `index_pages` is false (an edit of INDEX_PAGES itself). Skips anything out of bounds, and leaves INDEX_PAGES alone when it is not a section after
// BLOBS with a page size the format allows and room for exactly the pages the index now fills.
// True when INDEX_PAGES was redone.
bool reseal(std::vector<std::byte>& file, bool index_pages = true);

}  // namespace kiln::format::testing
