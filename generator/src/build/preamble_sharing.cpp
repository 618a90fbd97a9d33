#include "build/preamble_sharing.hpp"

#include <cstdint>
#include <cstdlib>
#include <map>
#include <string>
#include <string_view>

namespace kiln::build {

std::vector<std::filesystem::path> share_preambles(std::vector<scan::ScanInput>& inputs,
                                                   const std::vector<std::size_t>& candidates,
                                                   const ProcessPoolSettings& pool) {
  if (const char* setting = std::getenv("KILN_SCAN_PCH"); setting && std::string_view(setting) == "0") return {};
  if (pool.scratch_dir.empty()) return {};
  std::map<std::string, std::vector<std::size_t>> groups;
  for (const std::size_t i : candidates)
    if (std::string key = scan::preamble_key(inputs[i]); !key.empty()) groups[std::move(key)].push_back(i);
  std::vector<const std::vector<std::size_t>*> shared;
  std::vector<std::filesystem::path> pchs;
  for (const auto& [key, members] : groups) {
    if (members.size() < 2) continue;   // one source gains nothing from a PCH
    shared.push_back(&members);
    pchs.push_back(pool.scratch_dir / ("scan-preamble-" + std::to_string(pchs.size()) + ".pch"));
  }
  std::vector<bool> made(pchs.size(), false);
  const auto make = [&](std::size_t k) { return scan::make_preamble_pch(inputs[shared[k]->front()], pchs[k]); };
  if (pool.parallel <= 1 || pchs.size() <= 1) {
    for (std::size_t k = 0; k < pchs.size(); ++k) made[k] = make(k).ok();
  } else {
    scan::load_parser();   // once, here: the workers inherit it
    run_in_processes(
        pchs.size(), pool,
        // A worker answers one byte: 1 when the PCH was written (why not is of no use here: the
        // sources are parsed without it).
        [&](std::size_t k) { return std::vector<std::byte>{std::byte{make(k).ok() ? std::uint8_t{1} : std::uint8_t{0}}}; },
        [&](std::size_t k, WorkerResult result) {
          made[k] = result.bytes && result.bytes->size() == 1 && result.bytes->front() == std::byte{1};
        });
  }
  std::vector<std::filesystem::path> written;
  for (std::size_t k = 0; k < pchs.size(); ++k) {
    if (!made[k]) continue;
    for (const std::size_t i : *shared[k]) inputs[i].preamble_pch = pchs[k];
    written.push_back(pchs[k]);
  }
  return written;
}

}  // namespace kiln::build
