#include "nvrtc/compiler_loader.hpp"

#include "image/shared_object.hpp"
#include "platform/files.hpp"
#include "platform/library.hpp"
#include "platform/text.hpp"
#include "util/path_variables.hpp"

#include <filesystem>
#include <mutex>

namespace kiln::jit {

namespace {

std::mutex g_directories_mutex;
std::vector<std::string> g_directories;

struct Candidate {
  std::string file;          // a path, or a bare soname for the dynamic loader
  std::string where;         // for messages: "KILN_NVRTC", "$CUDA_PATH", "the dynamic loader's search path"
  Status usable;             // why it is not even opened (a relative path from a variable), if it is not
};

// Every place to look for `stem` ("nvrtc"), in order, without repeats.
std::vector<Candidate> candidates(const SearchSettings& settings, const char* variable, const std::string& stem) {
  std::vector<Candidate> out;
  const auto add = [&](std::string file, std::string where, Status usable = {}) {
    for (const Candidate& c : out)
      if (c.file == file) return;
    out.push_back(Candidate{std::move(file), std::move(where), std::move(usable)});
  };
  const auto in_directory = [&](const std::string& dir, const std::string& where) {
    for (int major : settings.majors) {
      add(platform::utf8_of(platform::path_of_utf8(dir) / platform::versioned_library_name(stem, major)), where);
    }
  };
  if (std::optional<std::string> file = settings.environment(variable); file && !file->empty())
    add(*file, variable, check_rooted_path(variable, *file));
  for (const std::string& dir : settings.directories) in_directory(dir, "a registered directory");
  for (const char* root_variable : {"CUDA_PATH", "CUDA_HOME"}) {
    std::optional<std::string> root = settings.environment(root_variable);
    if (!root || root->empty()) continue;
    if (Status rooted = check_rooted_path(root_variable, *root); !rooted) {
      add(*root, std::string("$") + root_variable, std::move(rooted));
      continue;
    }
    for (const char* const* sub = platform::toolkit_library_directories(); *sub; ++sub) {
      in_directory(platform::utf8_of(platform::path_of_utf8(*root) / *sub), std::string("$") + root_variable);
    }
  }
  for (int major : settings.majors) add(platform::versioned_library_name(stem, major), "the dynamic loader's search path");
  return out;
}

// A library by name, through the system's search.
Result<void*> open_named(const std::string& name) {
  platform::OpenedLibrary opened = platform::open_library(name);
  if (!opened.handle) return Error(std::move(opened.error));
  return opened.handle;
}

// The symbols bound from one library, and those it lacks ("a, b").
class Binder {
public:
  explicit Binder(void* library) : m_library(library) {}

  template <class Function>
  void bind(const char* name, Function& out) {
    out = reinterpret_cast<Function>(platform::library_symbol(m_library, name));
    if (!out) m_missing += (m_missing.empty() ? "" : ", ") + std::string(name);
  }
  // "lacks a, b" when any was missing.
  Status status() const {
    if (m_missing.empty()) return {};
    return Error("lacks " + m_missing);
  }

private:
  void* m_library;
  std::string m_missing;
};

// Opens `c`, a file by path only once its bytes show that it is a library of this machine that
// exports `entry_point` (none of its code runs otherwise).
Result<void*> open_library(const Candidate& c, const char* entry_point) {
  if (!c.usable) return c.usable.error();
  if (platform::names_a_path(c.file)) return image::open_library_exporting(c.file, entry_point);
  Result<void*> library = open_named(c.file);
  if (library) return library;
  const std::string& why = library.error().message;
  if (why.find("No such file") != std::string::npos || why.find("not found") != std::string::npos)
    return Error("not found");
  return library;
}

std::string describe(const Candidate& c) { return c.file + " (" + c.where + ")"; }

// NVRTC opens its builtins (libnvrtc-builtins.so.13.0) by name when it first compiles, through the
// system loader's search, which knows a system toolkit's lib/ (ld.so.conf.d) but not NVIDIA's wheels'
// (libnvrtc has no RUNPATH): every compile then fails, or finds another toolkit's copy. Opened here by
// path from NVRTC's own directory, it is already loaded under that name when NVRTC asks. Only the file
// of NVRTC's own version, and only once its bytes show it exports that version's entry point; where
// there is none, NVRTC's own error says so at the compile.
void preload_nvrtc_builtins(const std::string& nvrtc_file, int major, int minor) {
  const std::string name = platform::nvrtc_builtins_name(major, minor);
  if (name.empty() || !platform::names_a_path(nvrtc_file)) return;   // a bare soname: the loader's search found it
  std::error_code ec;
  const std::filesystem::path directory = std::filesystem::canonical(platform::path_of_utf8(nvrtc_file), ec).parent_path();
  if (ec) return;
  const std::string builtins = platform::utf8_of(directory / name);
  const std::string entry_point =
      "__nvrtc_builtins__" + std::to_string(major) + "_" + std::to_string(minor) + "_getArchBuiltins";
  (void)image::open_library_exporting(builtins, entry_point.c_str());   // kept for the process, as NVRTC keeps it
}

Status bind_nvrtc(void* library, NvrtcApi& api) {
  Binder binder(library);
  binder.bind("nvrtcVersion", api.version);
  binder.bind("nvrtcGetErrorString", api.error_string);
  binder.bind("nvrtcCreateProgram", api.create_program);
  binder.bind("nvrtcDestroyProgram", api.destroy_program);
  binder.bind("nvrtcAddNameExpression", api.add_name_expression);
  binder.bind("nvrtcCompileProgram", api.compile_program);
  binder.bind("nvrtcGetProgramLogSize", api.get_program_log_size);
  binder.bind("nvrtcGetProgramLog", api.get_program_log);
  binder.bind("nvrtcGetLoweredName", api.get_lowered_name);
  binder.bind("nvrtcGetLTOIRSize", api.get_ltoir_size);
  binder.bind("nvrtcGetLTOIR", api.get_ltoir);
  binder.bind("nvrtcGetPTXSize", api.get_ptx_size);
  binder.bind("nvrtcGetPTX", api.get_ptx);
  binder.bind("nvrtcGetNumSupportedArchs", api.get_num_supported_archs);
  binder.bind("nvrtcGetSupportedArchs", api.get_supported_archs);
  return binder.status();
}

Status bind_nvjitlink(void* library, NvJitLinkApi& api) {
  Binder binder(library);
  binder.bind("nvJitLinkVersion", api.version);
  binder.bind("nvJitLinkCreate", api.create);
  binder.bind("nvJitLinkDestroy", api.destroy);
  binder.bind("nvJitLinkAddData", api.add_data);
  binder.bind("nvJitLinkAddFile", api.add_file);
  binder.bind("nvJitLinkComplete", api.complete);
  binder.bind("nvJitLinkGetLinkedCubinSize", api.get_linked_cubin_size);
  binder.bind("nvJitLinkGetLinkedCubin", api.get_linked_cubin);
  binder.bind("nvJitLinkGetLinkedPtxSize", api.get_linked_ptx_size);
  binder.bind("nvJitLinkGetLinkedPtx", api.get_linked_ptx);
  binder.bind("nvJitLinkGetErrorLogSize", api.get_error_log_size);
  binder.bind("nvJitLinkGetErrorLog", api.get_error_log);
  binder.bind("nvJitLinkGetInfoLogSize", api.get_info_log_size);
  binder.bind("nvJitLinkGetInfoLog", api.get_info_log);
  return binder.status();
}

// NVRTC at `c` bound into `api` (its path, version and major filled in), when it reads options
// written for NVRTC `required_major` (0: any).
Status use_nvrtc(const Candidate& c, int required_major, CompilerApi& api) {
  Result<void*> library = open_library(c, "nvrtcVersion");
  if (!library) return std::move(library).error();
  KILN_TRY(bind_nvrtc(*library, api.nvrtc));
  int major = 0, minor = 0;
  if (api.nvrtc.version(&major, &minor) != 0) return Error("nvrtcVersion failed");
  if (required_major != 0 && major != required_major) {
    return Error("NVRTC " + std::to_string(major) + "." + std::to_string(minor) +
                 " cannot read options written for NVRTC " + std::to_string(required_major) + " (skipped)");
  }
  api.nvrtc_path = c.file;
  api.nvrtc_version = std::to_string(major) + "." + std::to_string(minor);
  api.major = major;
  preload_nvrtc_builtins(c.file, major, minor);
  return {};
}

// nvJitLink at `l` bound into `api` (path and version filled in), when it links the LTO-IR of the
// NVRTC `api` holds.
Status use_nvjitlink(const Candidate& l, CompilerApi& api) {
  Result<void*> library = open_library(l, "nvJitLinkVersion");
  if (!library) return std::move(library).error();
  KILN_TRY(bind_nvjitlink(*library, api.nvjitlink));
  unsigned major = 0, minor = 0;
  if (api.nvjitlink.version(&major, &minor) != 0) return Error("nvJitLinkVersion failed");
  if (static_cast<int>(major) != api.major) {
    return Error("nvJitLink " + std::to_string(major) + "." + std::to_string(minor) +
                 " cannot link the LTO-IR of NVRTC " + api.nvrtc_version + " (skipped)");
  }
  api.nvjitlink_path = l.file;
  api.nvjitlink_version = std::to_string(major) + "." + std::to_string(minor);
  return {};
}

}  // namespace

SearchSettings process_search_settings() {
  SearchSettings settings;
  settings.environment = [](const char* name) -> std::optional<std::string> {
    const char* value = platform::environment(name);
    return value ? std::optional<std::string>(value) : std::nullopt;
  };
  std::lock_guard lock(g_directories_mutex);
  settings.directories = g_directories;
  return settings;
}

void add_search_directory(const std::string& directory) {
  std::lock_guard lock(g_directories_mutex);
  for (const std::string& d : g_directories)
    if (d == directory) return;
  g_directories.push_back(directory);
}

SearchedFiles searched_files(const SearchSettings& settings) {
  const auto by_path = [&settings](const char* variable, const std::string& stem) {
    std::vector<std::string> files;
    for (const Candidate& c : candidates(settings, variable, stem))
      if (c.usable.ok() && platform::names_a_path(c.file)) files.push_back(c.file);
    return files;
  };
  return SearchedFiles{by_path("KILN_NVRTC", "nvrtc"), by_path("KILN_NVJITLINK", "nvJitLink")};
}

Result<CompilerApi> load_compiler_files(const std::string& nvrtc_file, const std::string& nvjitlink_file) {
  const Result<void*> nvrtc = open_named(nvrtc_file);
  if (!nvrtc) return Error{"cannot load " + nvrtc_file + ": " + nvrtc.error().message};
  const Result<void*> nvjitlink = open_named(nvjitlink_file);
  if (!nvjitlink) return Error{"cannot load " + nvjitlink_file + ": " + nvjitlink.error().message};
  CompilerApi api;
  if (Status bound = bind_nvrtc(*nvrtc, api.nvrtc); !bound)
    return Error{"cannot bind " + nvrtc_file + ": it " + bound.error().message};
  if (Status bound = bind_nvjitlink(*nvjitlink, api.nvjitlink); !bound)
    return Error{"cannot bind " + nvjitlink_file + ": it " + bound.error().message};
  api.nvrtc_path = nvrtc_file;
  api.nvjitlink_path = nvjitlink_file;
  // Versions as far as the libraries tell them; what to make of one that does not is the caller's.
  if (int major = 0, minor = 0; api.nvrtc.version(&major, &minor) == 0) {
    api.nvrtc_version = std::to_string(major) + "." + std::to_string(minor);
    api.major = major;
    preload_nvrtc_builtins(nvrtc_file, major, minor);
  }
  if (unsigned major = 0, minor = 0; api.nvjitlink.version(&major, &minor) == 0)
    api.nvjitlink_version = std::to_string(major) + "." + std::to_string(minor);
  return api;
}

Result<CompilerApi> load_compiler(const SearchSettings& settings, int required_major) {
  std::vector<std::string> looked;
  const std::vector<Candidate> linkers = candidates(settings, "KILN_NVJITLINK", "nvJitLink");
  std::vector<std::string> linker_notes;   // reported once, however many NVRTCs were tried with them
  for (const Candidate& c : candidates(settings, "KILN_NVRTC", "nvrtc")) {
    CompilerApi api;
    if (Status usable = use_nvrtc(c, required_major, api); !usable) {
      looked.push_back("libnvrtc at " + describe(c) + ": " + usable.error().message);
      continue;
    }
    for (const Candidate& l : linkers) {
      const Status usable = use_nvjitlink(l, api);
      if (usable) return api;
      const std::string note = "libnvJitLink at " + describe(l) + ": " + usable.error().message;
      bool seen = false;
      for (const std::string& n : linker_notes) seen = seen || n == note;
      if (!seen) linker_notes.push_back(note);
    }
    looked.push_back("libnvrtc at " + describe(c) + ": NVRTC " + api.nvrtc_version +
                     ", but no nvJitLink of the same major version");
  }
  looked.insert(looked.end(), linker_notes.begin(), linker_notes.end());
  std::string message = "no usable NVRTC and nvJitLink (set KILN_NVRTC and KILN_NVJITLINK, CUDA_PATH, or install the "
                        "nvidia-cuda-nvrtc and nvidia-nvjitlink wheels); looked at:";
  for (const std::string& l : looked) message += "\n  " + l;
  return Error{message};
}

}  // namespace kiln::jit
