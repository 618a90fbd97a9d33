#include "nvrtc/compiler_loader.hpp"

#include "image/shared_object.hpp"
#include "platform/files.hpp"
#include "platform/library.hpp"
#include "platform/text.hpp"

#include <mutex>

namespace kiln::jit {

namespace {

std::mutex g_directories_mutex;
std::vector<std::string> g_directories;

struct Candidate {
  std::string file;          // a path, or a bare soname for the dynamic loader
  std::string where;         // for messages: "KILN_NVRTC", "$CUDA_PATH", "the dynamic loader's search path"
  std::string refused;       // why it is not even opened (a relative path from a variable); "" to try it
};

// Every place to look for `stem` ("nvrtc"), in order, without repeats.
std::vector<Candidate> candidates(const SearchSettings& settings, const char* variable, const std::string& stem) {
  std::vector<Candidate> out;
  const auto add = [&](std::string file, std::string where, std::string refused = {}) {
    for (const Candidate& c : out)
      if (c.file == file) return;
    out.push_back(Candidate{std::move(file), std::move(where), std::move(refused)});
  };
  const auto in_directory = [&](const std::string& dir, const std::string& where) {
    for (int major : settings.majors) {
      add(platform::utf8_of(platform::path_of_utf8(dir) / platform::versioned_library_name(stem, major)), where);
    }
  };
  if (std::optional<std::string> file = settings.environment(variable); file && !file->empty())
    add(*file, variable, platform::unrooted_path_problem(variable, *file));
  for (const std::string& dir : settings.directories) in_directory(dir, "a registered directory");
  for (const char* root_variable : {"CUDA_PATH", "CUDA_HOME"}) {
    std::optional<std::string> root = settings.environment(root_variable);
    if (!root || root->empty()) continue;
    if (std::string problem = platform::unrooted_path_problem(root_variable, *root); !problem.empty()) {
      add(*root, std::string("$") + root_variable, std::move(problem));
      continue;
    }
    for (const char* const* sub = platform::toolkit_library_directories(); *sub; ++sub) {
      in_directory(platform::utf8_of(platform::path_of_utf8(*root) / *sub), std::string("$") + root_variable);
    }
  }
  for (int major : settings.majors) add(platform::versioned_library_name(stem, major), "the dynamic loader's search path");
  return out;
}

// Binds `name`; a symbol the library lacks is added to `missing` ("a, b").
template <class Function>
bool bind(void* library, const char* name, Function& out, std::string& missing) {
  out = reinterpret_cast<Function>(platform::library_symbol(library, name));
  if (!out) missing += (missing.empty() ? "" : ", ") + std::string(name);
  return out != nullptr;
}

// Opens `c`, a file by path only once its bytes show that it is a library of this machine that
// exports `entry_point` (none of its code runs otherwise); nullptr with `why` set when it cannot be.
void* open_library(const Candidate& c, const char* entry_point, std::string& why) {
  if (!c.refused.empty()) {
    why = c.refused;
    return nullptr;
  }
  const bool is_path = platform::names_a_path(c.file);
  void* library = is_path ? image::open_library_exporting(c.file, entry_point, why) : platform::open_library(c.file, why);
  if (!library && !is_path && (why.find("No such file") != std::string::npos || why.find("not found") != std::string::npos)) {
    why = "not found";
  }
  return library;
}

std::string describe(const Candidate& c) { return c.file + " (" + c.where + ")"; }

bool bind_nvrtc(void* library, NvrtcApi& api, std::string& missing) {
  bind(library, "nvrtcVersion", api.version, missing);
  bind(library, "nvrtcGetErrorString", api.error_string, missing);
  bind(library, "nvrtcCreateProgram", api.create_program, missing);
  bind(library, "nvrtcDestroyProgram", api.destroy_program, missing);
  bind(library, "nvrtcAddNameExpression", api.add_name_expression, missing);
  bind(library, "nvrtcCompileProgram", api.compile_program, missing);
  bind(library, "nvrtcGetProgramLogSize", api.get_program_log_size, missing);
  bind(library, "nvrtcGetProgramLog", api.get_program_log, missing);
  bind(library, "nvrtcGetLoweredName", api.get_lowered_name, missing);
  bind(library, "nvrtcGetLTOIRSize", api.get_ltoir_size, missing);
  bind(library, "nvrtcGetLTOIR", api.get_ltoir, missing);
  bind(library, "nvrtcGetPTXSize", api.get_ptx_size, missing);
  bind(library, "nvrtcGetPTX", api.get_ptx, missing);
  bind(library, "nvrtcGetNumSupportedArchs", api.get_num_supported_archs, missing);
  bind(library, "nvrtcGetSupportedArchs", api.get_supported_archs, missing);
  return missing.empty();
}

bool bind_nvjitlink(void* library, NvJitLinkApi& api, std::string& missing) {
  bind(library, "nvJitLinkVersion", api.version, missing);
  bind(library, "nvJitLinkCreate", api.create, missing);
  bind(library, "nvJitLinkDestroy", api.destroy, missing);
  bind(library, "nvJitLinkAddData", api.add_data, missing);
  bind(library, "nvJitLinkAddFile", api.add_file, missing);
  bind(library, "nvJitLinkComplete", api.complete, missing);
  bind(library, "nvJitLinkGetLinkedCubinSize", api.get_linked_cubin_size, missing);
  bind(library, "nvJitLinkGetLinkedCubin", api.get_linked_cubin, missing);
  bind(library, "nvJitLinkGetLinkedPtxSize", api.get_linked_ptx_size, missing);
  bind(library, "nvJitLinkGetLinkedPtx", api.get_linked_ptx, missing);
  bind(library, "nvJitLinkGetErrorLogSize", api.get_error_log_size, missing);
  bind(library, "nvJitLinkGetErrorLog", api.get_error_log, missing);
  return missing.empty();
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
      if (c.refused.empty() && platform::names_a_path(c.file)) files.push_back(c.file);
    return files;
  };
  return SearchedFiles{by_path("KILN_NVRTC", "nvrtc"), by_path("KILN_NVJITLINK", "nvJitLink")};
}

Result<CompilerApi> load_compiler_files(const std::string& nvrtc_file, const std::string& nvjitlink_file) {
  std::string why;
  void* nvrtc = platform::open_library(nvrtc_file, why);
  if (!nvrtc) return Error{"cannot load " + nvrtc_file + ": " + why};
  void* nvjitlink = platform::open_library(nvjitlink_file, why);
  if (!nvjitlink) return Error{"cannot load " + nvjitlink_file + ": " + why};
  CompilerApi api;
  if (std::string missing; !bind_nvrtc(nvrtc, api.nvrtc, missing))
    return Error{"cannot bind " + nvrtc_file + ": it lacks " + missing};
  if (std::string missing; !bind_nvjitlink(nvjitlink, api.nvjitlink, missing))
    return Error{"cannot bind " + nvjitlink_file + ": it lacks " + missing};
  api.nvrtc_path = nvrtc_file;
  api.nvjitlink_path = nvjitlink_file;
  // Versions as far as the libraries tell them; what to make of one that does not is the caller's.
  if (int major = 0, minor = 0; api.nvrtc.version(&major, &minor) == 0) {
    api.nvrtc_version = std::to_string(major) + "." + std::to_string(minor);
    api.major = major;
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
    std::string why;
    void* library = open_library(c, "nvrtcVersion", why);
    CompilerApi api;
    int major = 0, minor = 0;
    if (library && !bind_nvrtc(library, api.nvrtc, why)) why = "lacks " + why;
    if (library && why.empty() && api.nvrtc.version(&major, &minor) != 0) why = "nvrtcVersion failed";
    if (why.empty() && required_major != 0 && major != required_major) {
      why = "NVRTC " + std::to_string(major) + "." + std::to_string(minor) + " cannot read options written for NVRTC " +
            std::to_string(required_major) + " (skipped)";
    }
    if (!why.empty()) {
      looked.push_back("libnvrtc at " + describe(c) + ": " + why);
      continue;
    }
    api.nvrtc_path = c.file;
    api.nvrtc_version = std::to_string(major) + "." + std::to_string(minor);
    api.major = major;
    for (const Candidate& l : linkers) {
      std::string linker_why;
      void* linker = open_library(l, "nvJitLinkVersion", linker_why);
      unsigned linker_major = 0, linker_minor = 0;
      if (linker && !bind_nvjitlink(linker, api.nvjitlink, linker_why)) linker_why = "lacks " + linker_why;
      if (linker && linker_why.empty() && api.nvjitlink.version(&linker_major, &linker_minor) != 0)
        linker_why = "nvJitLinkVersion failed";
      if (linker_why.empty() && static_cast<int>(linker_major) != major) {
        linker_why = "nvJitLink " + std::to_string(linker_major) + "." + std::to_string(linker_minor) +
                     " cannot link the LTO-IR of NVRTC " + api.nvrtc_version + " (skipped)";
      }
      if (linker_why.empty()) {
        api.nvjitlink_path = l.file;
        api.nvjitlink_version = std::to_string(linker_major) + "." + std::to_string(linker_minor);
        return api;
      }
      const std::string note = "libnvJitLink at " + describe(l) + ": " + linker_why;
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
