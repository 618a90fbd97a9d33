#include "rtc/direct_records.hpp"

#include "format/layout.hpp"
#include "format/names.hpp"
#include "nvrtc/compiler_loader.hpp"
#include "store/direct_record.hpp"

#include <algorithm>
#include <chrono>
#include <cstring>

namespace kiln::rtc {

void write_direct_record(CompiledCache& cache, const format::PackageReader& reader, std::string_view request,
                         const std::string& target, const std::string& entry_key, const std::string& expression,
                         const CompilerIdentity& compiler) {
  if (cache.directory().empty() || compiler.files.empty()) return;
  format::FileHeader header;
  if (reader.bytes().size() < sizeof header) return;
  std::memcpy(&header, reader.bytes().data(), sizeof header);
  // The loader's query (core/direct_hits.cpp), from the same package bytes and the same process.
  const std::string query = store::direct_query({header.toc_checksum, header.file_size, format::normalize_name(request),
                                                  target, jit::process_search_settings().directories});
  store::DirectRecord record{query, entry_key, expression, {}};
  const std::int64_t now_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                  std::chrono::system_clock::now().time_since_epoch()).count();
  // The files loaded (as the dynamic loader resolved them), and every place the search tries by path,
  // which must hold what it held: how they were found.
  std::vector<std::string> files = compiler.files;
  for (std::string& searched : jit::searched_files(jit::process_search_settings())) {
    if (std::find(files.begin(), files.end(), searched) == files.end()) files.push_back(std::move(searched));
  }
  for (std::size_t i = 0; i < files.size(); ++i) {
    store::FileIdentity identity = store::identity_of(files[i]);
    const bool loaded = i < compiler.files.size();
    if ((loaded && !identity.present) || !store::settled(identity, now_ns)) return;
    record.files.push_back(std::move(identity));
  }
  cache.put(store::direct_key(query), bytes_of(store::encode_direct_record(record)));
}

}  // namespace kiln::rtc
