#include "rtc/direct_records.hpp"

#include "format/layout.hpp"
#include "format/names.hpp"
#include "nvrtc/compiler_loader.hpp"
#include "platform/library.hpp"
#include "store/direct_record.hpp"

#include <chrono>
#include <cstring>

namespace kiln::rtc {

void write_direct_record(CompiledCache& cache, const format::PackageReader& reader, std::string_view request,
                         const std::string& target, const std::string& entry_key, const std::string& expression,
                         std::span<const std::byte> compiled, const CompilerIdentity& compiler) {
  // Compiler::files names NVRTC's and nvJitLink's; a stand-in compiler names none, and leaves no record.
  if (cache.directory().empty() || compiler.files.size() != 2) return;
  format::FileHeader header;
  if (reader.bytes().size() < sizeof header) return;
  std::memcpy(&header, reader.bytes().data(), sizeof header);
  // The loader's query (core/direct_hits.cpp), from the same package bytes and the same process.
  const std::string query = store::direct_query({header.toc_checksum, header.file_size, format::normalize_name(request),
                                                  target, jit::process_search_settings().directories});
  store::DirectRecord record{query, entry_key, expression, {}, compiled};
  const std::int64_t now_ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                                  std::chrono::system_clock::now().time_since_epoch()).count();
  // How each library was found: every place the search tries by path before the one that holds the
  // file loaded (which must still hold nothing, or what it held), then that one; or, when the dynamic
  // loader's own search found it, all of them and the file it found.
  const jit::SearchedFiles searched = jit::searched_files(jit::process_search_settings());
  for (const auto& [loaded, places] : {std::pair{&compiler.files[0], &searched.nvrtc},
                                       std::pair{&compiler.files[1], &searched.nvjitlink}}) {
    const store::FileIdentity file = store::identity_of(*loaded);
    if (!file.present || !store::settled(file, now_ns)) return;
    bool found = false;
    for (const std::string& place : *places) {
      store::FileIdentity identity = store::identity_of(place);
      if (!store::settled(identity, now_ns)) return;
      found = identity.present && identity.status.device == file.status.device && identity.status.file == file.status.file;
      record.files.push_back(std::move(identity));
      if (found) break;
    }
    if (!found) record.files.push_back(file);
  }
  // The compile library's own file (libkiln_jit.so.0, or the module that links it): another build
  // of it may compile the same request to other bytes, so a record of this one must not answer for it.
  const std::string own_file = platform::module_of(reinterpret_cast<const void*>(&write_direct_record)).path;
  if (own_file.empty()) return;
  const store::FileIdentity own = store::identity_of(own_file);
  if (!own.present || !store::settled(own, now_ns)) return;
  record.files.push_back(own);
  cache.put(store::direct_key(query), bytes_of(store::encode_direct_record(record)));
}

}  // namespace kiln::rtc
