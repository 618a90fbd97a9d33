#include "core/split_companions.hpp"

#include "format/split_files.hpp"
#include "platform/files.hpp"
#include "platform/text.hpp"

#include <cerrno>
#include <filesystem>

namespace kiln::core {

namespace {

std::string family(std::uint16_t major) { return "compute capability " + std::to_string(major) + ".x"; }

Error mismatched(std::string why) { return fail(KILN_STATUS_CORRUPT, std::move(why)); }

// Whether a companion is of the split its main file names: the same split id, the tag of its
// major, the same units, kernels and variables (the indices the loader shares between them), and
// the content id the main file lists for it. CORRUPT saying what differs ("it is not ...") otherwise.
Status check_companion(const format::PackageReader& main, const format::PackageReader& companion, std::uint16_t major,
                       const std::string& content_id) {
  const std::string_view id = main.metadata_value(format::k_split_id_key).value_or("");
  const std::string_view its_id = companion.metadata_value(format::k_split_id_key).value_or("");
  if (its_id != id) {
    return mismatched("it is not from the same split (split.id " +
                      (its_id.empty() ? std::string("none") : std::string(its_id)) + ", the main file's " +
                      std::string(id) + ")");
  }
  const std::string tag = format::companion_tag(major);
  if (companion.metadata_value(format::k_split_file_key).value_or("") != tag)
    return mismatched("it is not the split's " + tag + " file");
  if (companion.unit_count() != main.unit_count() || companion.kernel_count() != main.kernel_count() ||
      companion.variable_count() != main.variable_count()) {
    return mismatched("its units, kernels or variables are not the main file's");
  }
  for (std::uint32_t u = 0; u < main.unit_count(); ++u) {
    if (companion.unit(u).source != main.unit(u).source) return mismatched("its units are not the main file's");
  }
  // A kernel is chosen an image by its index in the companion: the index must name the same kernel.
  for (std::uint32_t k = 0; k < main.kernel_count(); ++k) {
    if (companion.kernel(k).stored_name != main.kernel(k).stored_name ||
        companion.kernel(k).unit != main.kernel(k).unit) {
      return mismatched("its kernels are not the main file's (kernel " + std::to_string(k) + ")");
    }
  }
  if (const std::string its = format::content_id(companion); its != content_id) {
    return mismatched("its contents are not the ones the main file lists (content id " + its + ", the main file's " +
                      content_id + "): it is from another build of the package");
  }
  return {};
}

// The content id the main file lists for each companion, by split.files' order: CORRUPT when the
// main file lacks them or they do not match split.files.
Status listed_contents(const format::PackageReader& main, std::string_view main_label,
                       const std::vector<std::uint16_t>& majors, std::vector<std::string>& out) {
  const std::optional<std::string_view> list = main.metadata_value(format::k_split_contents_key);
  if (!list && majors.empty()) return {};
  const auto corrupt = [&] {
    return fail(KILN_STATUS_CORRUPT, std::string(main_label) + ": METADATA split.contents '" +
                                         std::string(list.value_or("").substr(0, 200)) +
                                         "' does not give a content id for each file split.files lists");
  };
  const std::optional<std::vector<format::CompanionContent>> contents = format::parse_companion_contents(list.value_or(""));
  if (!list || !contents || contents->size() != majors.size()) return corrupt();
  for (std::size_t i = 0; i < majors.size(); ++i) {
    if ((*contents)[i].major != majors[i]) return corrupt();
    out.push_back((*contents)[i].id);
  }
  return {};
}

// Companions lie beside the main file itself: a symbolic link to it (an install's link to a
// versioned directory) finds them beside its target. The path as given when it cannot be resolved.
std::string real_path(std::string_view path) {
  std::error_code error;
  const std::filesystem::path resolved = std::filesystem::canonical(platform::path_of_utf8(path), error);
  return error ? std::string(path) : platform::utf8_of(resolved);
}

}  // namespace

SplitCompanions::SplitCompanions(const format::PackageReader& main, std::string main_label, std::string main_path,
                                 bool log)
    : m_main(main), m_main_label(std::move(main_label)), m_main_path(std::move(main_path)), m_log(log) {}

SplitCompanions::~SplitCompanions() = default;

Status SplitCompanions::of(const format::PackageReader& main, std::string_view main_label, std::string_view main_path,
                           bool log, std::unique_ptr<SplitCompanions>& out) {
  out.reset();
  const std::optional<std::string_view> list = main.metadata_value(format::k_split_files_key);
  if (!list || !main.metadata_value(format::k_split_id_key)) return {};
  const std::optional<std::vector<std::uint16_t>> majors = format::parse_companion_list(*list);
  if (!majors) {
    return fail(KILN_STATUS_CORRUPT, std::string(main_label) + ": METADATA split.files '" + std::string(list->substr(0, 200)) +
                                         "' is not a list of companion files such as 'cc8 cc9'");
  }
  std::vector<std::string> content_ids;
  KILN_TRY(listed_contents(main, main_label, *majors, content_ids));
  const std::string beside = main_path.empty() ? std::string() : real_path(main_path);
  std::unique_ptr<SplitCompanions> companions(new SplitCompanions(main, std::string(main_label), beside, log));
  for (std::size_t i = 0; i < majors->size(); ++i) {
    auto entry = std::make_unique<Entry>();
    entry->major = (*majors)[i];
    if (!beside.empty()) entry->path = format::companion_path(beside, entry->major);
    entry->content_id = content_ids[i];
    companions->m_entries.push_back(std::move(entry));
  }
  out = std::move(companions);
  return {};
}

SplitCompanions::Entry* SplitCompanions::entry_for(std::uint16_t arch) const {
  for (const std::unique_ptr<Entry>& entry : m_entries) {
    if (entry->major == arch / 10) return entry.get();
  }
  return nullptr;
}

Status SplitCompanions::open_entry(Entry& entry) const {
  if (entry.path.empty()) return {};   // in memory: nowhere to look
  platform::FileStatus status;
  if (!platform::status_of(platform::path_of_utf8(entry.path.c_str()), status) && (errno == ENOENT || errno == ENOTDIR)) {
    return {};   // not installed
  }
  auto file = std::make_unique<ImageFile>();
  file->label = entry.path;
  const std::string what = m_main_label + ": its cubins for " + family(entry.major) + ", ";
  if (Status read = file->source.read_file(entry.path.c_str()); !read.ok()) return fail(read.error().status, what + error_text(read.error()));
  if (Status opened = file->open(m_log); !opened.ok()) return fail(opened.error().status, what + error_text(opened.error()));
  // Its units are used by index without a kernel's checks: a deferred index is checked whole now.
  if (Status checked = file->checked_index(); !checked.ok()) return fail(checked.error().status, what + error_text(checked.error()));
  if (const Status matched = check_companion(m_main, file->reader, entry.major, entry.content_id); !matched.ok()) {
    // What to do, said for the common case too: a package manager's provider of another release.
    return fail(matched.error().status, what + entry.path + ", cannot be used: " + matched.error().message +
                                            "; install the " + format::companion_tag(entry.major) +
                                            " file that came with " + m_main_label +
                                            " (from wheels: the provider wheel of the same version as the main one)");
  }
  entry.file = std::move(file);
  return {};
}

Status SplitCompanions::for_arch(std::uint16_t arch, const ImageFile*& out) {
  out = nullptr;
  Entry* entry = entry_for(arch);
  if (!entry) return {};
  entry->once.run([&] { entry->failure = open_entry(*entry); });
  if (!entry->failure.ok()) return entry->failure;
  out = entry->file.get();
  return {};
}

std::string SplitCompanions::missing_hint(std::uint16_t arch) const {
  const Entry* entry = entry_for(arch);
  if (!entry) return {};
  if (entry->path.empty()) {
    return "; its cubins for " + family(entry->major) + " are in the split's " + format::companion_tag(entry->major) +
           " file, which a package opened from memory cannot find (open it from its file)";
  }
  return "; its cubins for " + family(entry->major) + " are in " + entry->path + ", which is not installed";
}

void SplitCompanions::unload_all(driver::DriverApi& driver) {
  for (const std::unique_ptr<Entry>& entry : m_entries) {
    if (entry->file) entry->file->libraries->unload_all(driver);
  }
}

}  // namespace kiln::core
