#include "compile/nvcc_compiler.hpp"

#include "compile/name_errors.hpp"

#include "compile/diagnostics.hpp"
#include "compile/lto_link.hpp"
#include "compile/name_errors.hpp"
#include "compile/nvcc_workspace.hpp"
#include "compile/wheel_toolkit.hpp"
#include "format/target.hpp"
#include "util/diagnostic.hpp"
#include "util/file_io.hpp"
#include "util/plain_names.hpp"
#include "image/cubin_reader.hpp"
#include "ptx/ptx_reader.hpp"

#include <chrono>
#include <fstream>
#include <optional>
#include <set>
#include <sstream>
#include <system_error>

namespace kiln::compile {

namespace fs = std::filesystem;

namespace {

bool write_text(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out << text;
  return static_cast<bool>(out.flush());
}

// A C string literal for #line: backslashes and quotes escaped, control bytes (a line break would end
// the directive) as octal escapes, which the preprocessor turns back into the name's bytes.
std::string string_literal(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
    const auto byte = static_cast<unsigned char>(c);
    if (byte < 0x20 || byte == 0x7f) {
      out += {'\\', static_cast<char>('0' + (byte >> 6)), static_cast<char>('0' + ((byte >> 3) & 7)),
              static_cast<char>('0' + (byte & 7))};
      continue;
    }
    if (c == '\\' || c == '"') out += '\\';
    out += c;
  }
  return out + "\"";
}

bool is_under(const fs::path& path, const fs::path& dir) {
  const fs::path relative = path.lexically_relative(dir);
  return !relative.empty() && *relative.begin() != "..";
}

// nvcc -MD lists every header the preprocessor opened, the host compiler's own included. Only the
// project's headers and the toolkit's are inputs worth recording: system headers would put paths
// like ../../usr/include/stdio.h into the package, different for every checkout depth.
std::vector<std::string> project_headers(const CompileJob& job, const NvccWorkspace& workspace,
                                         const std::vector<std::string>& prerequisites) {
  std::vector<fs::path> dirs = {job.root, job.nvcc.parent_path().parent_path()};
  for (const std::string& option : job.nvcc_options)
    if (option.rfind("-I", 0) == 0) dirs.push_back((job.root / option.substr(2)).lexically_normal());
  std::vector<std::string> headers;
  for (const std::string& prerequisite : prerequisites) {
    const std::optional<fs::path> named = workspace.project_path(prerequisite);
    if (!named) continue;   // the workspace's own (the copy of the source, the macros header)
    const fs::path path = named->is_absolute() ? *named : (job.root / *named).lexically_normal();
    // nvcc lists the names of its line markers too: a copy's #line names the source as the
    // preprocessor escapes it ("a\nb.cu" for a name with a line break), which is no file.
    std::error_code ec;
    if (!fs::exists(path, ec) || path == (job.root / job.source).lexically_normal()) continue;
    for (const fs::path& dir : dirs) {
      if (is_under(path, dir)) {
        headers.push_back(path.string());
        break;
      }
    }
  }
  return headers;
}

std::vector<std::byte> to_image(const std::string& bytes, bool ptx) {
  std::vector<std::byte> image(bytes.size() + (ptx ? 1 : 0), std::byte{0});
  for (std::size_t i = 0; i < bytes.size(); ++i) image[i] = static_cast<std::byte>(bytes[i]);
  return image;
}

constexpr const char* k_macros_name = "macros.h";
constexpr const char* k_arch_list_name = "arch_list.h";

// nvcc defines __CUDA_ARCH_LIST__ as every architecture of its run ("800,900"), and CUB and Thrust
// name their namespaces after it (cub::CUB_300001_SM_800_900::...). So that an image is the same
// whichever targets share its run (and whichever of them the cache already held), each
// architecture's device code sees itself alone, as `nvcc -cubin -arch=sm_80` has it.
std::string arch_list_header(const std::vector<format::Target>& targets) {
  std::set<int> arches;
  for (const format::Target& target : targets) arches.insert(target.arch * 10);
  std::string text = "#if defined(__CUDA_ARCH__)\n#undef __CUDA_ARCH_LIST__\n";
  bool first = true;
  for (const int arch : arches) {
    text += std::string(first ? "#if" : "#elif") + " __CUDA_ARCH__ == " + std::to_string(arch) +
            "\n#define __CUDA_ARCH_LIST__ " + std::to_string(arch) + "\n";
    first = false;
  }
  return text + "#endif\n#endif\n";
}
// nvcc's intermediate files (-keep): each target's image when one run builds several, and the
// preprocessed device code, whose line markers name every header the image was compiled from. They
// replace -MD, which costs nvcc a preprocessing pass of its own (a fifth of a small compile).
constexpr const char* k_kept_name = "kept";

// What one nvcc run writes. A job nvJitLink links (compiles_directly) gets LTO-IR; one target a
// cubin or PTX directly; several targets a fatbin whose images nvcc keeps apart (-keep).
enum class NvccOutput { lto_ir, cubin, ptx, per_target };

NvccOutput nvcc_output(std::span<const CompileJob> jobs) {
  if (!compiles_directly(jobs.front())) {
    // nvJitLink 13.0 writes ".target sm_XY" for compute_XYf PTX (nvrtc_compiler.cpp): nvcc writes it.
    const std::optional<format::Target> target = format::parse_target(jobs.front().target);
    if (target && target->kind == format::TargetKind::ptx && target->variant == format::TargetVariant::family)
      return NvccOutput::ptx;
    return NvccOutput::lto_ir;
  }
  if (jobs.size() > 1) return NvccOutput::per_target;
  const std::optional<format::Target> target = format::parse_target(jobs.front().target);
  return target && target->kind == format::TargetKind::ptx ? NvccOutput::ptx : NvccOutput::cubin;
}

std::string output_name(NvccOutput output) {
  switch (output) {
    case NvccOutput::cubin: return "image.cubin";
    case NvccOutput::ptx: return "image.ptx";
    case NvccOutput::lto_ir:
    case NvccOutput::per_target: break;
  }
  return "image.fatbin";
}

// Every file the preprocessed device code in `dir` (nvcc's kept *.ii, one per virtual architecture)
// came from, in order, each once: the names of its line markers.
std::vector<std::string> preprocessed_files(const fs::path& dir) {
  std::vector<std::string> files;
  std::set<std::string> seen;
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec)) {
    if (entry.path().extension() != ".ii") continue;
    if (const std::optional<std::string> text = read_text_file(entry.path()))
      for (std::string& file : line_marker_files(*text))
        if (seen.insert(file).second) files.push_back(std::move(file));
  }
  return files;
}

// Each job's image among the files nvcc kept in `dir`: a cubin whose toolkit note names the job's
// target (-arch sm_90a), or the PTX whose .target is the job's architecture. Found by what the files
// hold, not by nvcc's names for them, which change with the number of codes per architecture.
std::vector<std::optional<std::vector<std::byte>>> kept_images(const fs::path& dir, std::span<const CompileJob> jobs) {
  std::vector<std::optional<std::vector<std::byte>>> images(jobs.size());
  std::error_code ec;
  for (const fs::directory_entry& entry : fs::directory_iterator(dir, ec)) {
    const std::string extension = entry.path().extension().string();
    if (extension != ".cubin" && extension != ".ptx") continue;
    const std::optional<std::string> text = read_text_file(entry.path());
    if (!text || text->empty()) continue;
    std::string arch;   // "sm_90a"
    if (extension == ".cubin") {
      const std::vector<std::byte> bytes = to_image(*text, false);
      if (Result<image::CubinInfo> info = image::read_cubin(bytes, entry.path().string())) arch = info->toolkit_arch;
    } else {
      if (Result<image::PtxInfo> info = image::read_ptx(*text, entry.path().string())) arch = info->target;
    }
    for (std::size_t i = 0; i < jobs.size(); ++i) {
      const std::optional<format::Target> target = format::parse_target(jobs[i].target);
      if (!target || images[i]) continue;
      const bool ptx = target->kind == format::TargetKind::ptx;
      format::Target as_sass = *target;
      as_sass.kind = format::TargetKind::sass;
      if ((extension == ".ptx") == ptx && arch == as_sass.name()) images[i] = to_image(*text, ptx);
    }
  }
  return images;
}

// "-DNAME=VALUE" as "#define NAME VALUE" ("-DNAME" defines it as 1, as the compilers do; "-UNAME": #undef).
Result<std::string> macro_directive(const std::string& option) {
  const std::string body = option.substr(2);
  if (body.find_first_of("\r\n") != std::string::npos) {
    return Error{"macro '" + body + "' holds a line break, which no compiler takes in a definition"};
  }
  if (option[1] == 'U') return "#undef " + body + "\n";
  const std::size_t equals = body.find('=');
  if (equals == std::string::npos) return "#define " + body + " 1\n";
  return "#define " + body.substr(0, equals) + " " + body.substr(equals + 1) + "\n";
}

// The job's nvcc options as nvcc may be given them: include directories and pre-included files by
// names its shell reads as they are (NvccWorkspace::name_for), macros on the command line when every
// one of them is plain, else all of them, in order, in a header of the workspace's that the host
// compiler includes before anything else (-Xcompiler -include: before nvcc's own cuda_runtime.h, so
// macros that configure the toolkit's headers still do). Any other option must be plain already.
Result<std::vector<std::string>> plain_options(const CompileJob& job, NvccWorkspace& workspace) {
  const auto is_macro = [](const std::string& o) { return o.starts_with("-D") || o.starts_with("-U"); };
  bool macros_plain = true;
  for (const std::string& option : job.nvcc_options) macros_plain = macros_plain && (!is_macro(option) || is_plain_option(option));
  std::vector<std::string> out;
  std::string macros;
  for (const std::string& option : job.nvcc_options) {
    const std::string_view names_a_file = option.starts_with("-I")               ? "-I"
                                          : option.starts_with("--pre-include=") ? "--pre-include="
                                                                                 : "";
    if (!names_a_file.empty()) {
      Result<std::string> named = workspace.name_for(option.substr(names_a_file.size()));
      if (!named) return named.error();
      out.push_back(std::string(names_a_file) + *named);
    } else if (is_macro(option) && !macros_plain) {
      Result<std::string> directive = macro_directive(option);
      if (!directive) return directive.error();
      macros += *directive;
    } else if (is_plain_option(option)) {
      out.push_back(option);
    } else {
      return Error{"option '" + option + "' holds characters that nvcc's shell would read (nvcc runs its steps "
                   "through a shell), and nvcc compiles this source"};
    }
  }
  if (!macros.empty()) {
    const fs::path header = workspace.directory() / k_macros_name;
    if (!write_text(header, macros)) return Error{"cannot write " + header.string()};
    out.insert(out.begin(), {"-Xcompiler", "-include," + workspace.own(k_macros_name)});
  }
  return out;
}

void replace_all(std::string& text, const std::string& from, const std::string& to) {
  if (from.empty()) return;
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
}

}  // namespace

std::string instantiation_wrapper(std::string_view source_text, const CompileJob& job) {
  std::string text = "#line 1 " + string_literal(job.source) + "\n" + std::string(source_text);
  if (job.name_expressions.empty()) return text;
  if (!text.empty() && text.back() != '\n') text += '\n';
  // Taking a kernel's address in host code makes nvcc instantiate it for the device. A static
  // array of addresses is host-only data that nothing uses: it never reaches the cubin.
  text += "__attribute__((unused)) static void* const __kiln_instantiations[] = {\n";
  for (std::size_t i = 0; i < job.name_expressions.size(); ++i) {
    if (i < job.expression_origins.size() && job.expression_origins[i].line > 0) {
      const Origin& origin = job.expression_origins[i];
      text += "#line " + std::to_string(origin.line) + " " + string_literal(origin.file) + "\n";
    }
    text += "  (void*)&" + job.name_expressions[i] + ",\n";
  }
  return text + "};\n";
}

bool compiles_directly(const CompileJob& job) {
  return job.compiler == Compiler::nvcc && job.members.empty() && !job.relocatable && !job.link_named_kernels_only;
}

Result<std::vector<std::string>> nvcc_arguments(std::span<const CompileJob> jobs, int threads, NvccWorkspace& workspace,
                                                const std::string& input, bool copied) {
  const CompileJob& job = jobs.front();
  std::vector<format::Target> targets;
  for (const CompileJob& each : jobs) {
    const std::optional<format::Target> target = format::parse_target(each.target);
    if (!target) return Error{"unknown target '" + each.target + "'"};
    targets.push_back(*target);
  }
  std::vector<std::string> args = {job.nvcc.string()};
  const NvccOutput output = nvcc_output(jobs);
  if (output == NvccOutput::lto_ir) {
    // compute_XY and sm_XY both compile to lto_XY; the link makes PTX or a cubin of it.
    format::Target virtual_arch = targets.front();
    virtual_arch.kind = format::TargetKind::ptx;
    format::Target lto = targets.front();
    lto.kind = format::TargetKind::sass;
    args.insert(args.end(), {"-fatbin", "-dc", "-gencode", "arch=" + virtual_arch.name() + ",code=lto_" + lto.name().substr(3)});
  } else if (output == NvccOutput::cubin) {
    args.insert(args.end(), {"-cubin", "-arch=" + targets.front().name()});
  } else if (output == NvccOutput::ptx) {
    args.insert(args.end(), {"-ptx", "-arch=" + targets.front().name()});
  } else {
    // One -gencode per target: nvcc runs its front end and cicc once per virtual architecture, so
    // sm_90 and compute_90 share them, and keeps each image in the workspace for Kiln to take.
    args.push_back("-fatbin");
    const fs::path header = workspace.directory() / k_arch_list_name;
    if (!write_text(header, arch_list_header(targets))) return Error{"cannot write " + header.string()};
    args.insert(args.end(), {"-Xcompiler", "-include," + workspace.own(k_arch_list_name)});
    if (threads > 1) args.insert(args.end(), {"--threads", std::to_string(threads)});
    for (const format::Target& target : targets) {
      format::Target virtual_arch = target;
      virtual_arch.kind = format::TargetKind::ptx;
      args.insert(args.end(), {"-gencode", "arch=" + virtual_arch.name() + ",code=" + target.name()});
    }
  }
  // Fixed names and seeds (see the header), spelt plainly: nvcc passes both to its steps unquoted.
  const std::string seed = plain_spelling(job.source);
  args.insert(args.end(), {"-o", workspace.own(output_name(output)), "-keep", "-keep-dir", workspace.own(k_kept_name),
                           "-frandom-seed=" + seed, "-Xcicc", "--orig_src_path_name=" + seed});
  if (copied) {
    // The copy in the workspace still finds the source's neighbours first for #include "...". A
    // relative directory keeps __FILE__ in those headers relative, as when the source itself is compiled.
    const fs::path dir = fs::path(job.source).parent_path();
    Result<std::string> named = workspace.name_for(dir.empty() ? fs::path(".") : dir);
    if (!named) return named.error();
    args.push_back("-Xcompiler");
    args.push_back("-iquote," + *named);
  }
  Result<std::vector<std::string>> options = plain_options(job, workspace);
  if (!options) return options.error();
  args.insert(args.end(), options->begin(), options->end());
  args.push_back(input);
  return args;
}

Result<std::vector<std::string>> nvcc_arguments(const CompileJob& job, NvccWorkspace& workspace, const std::string& input,
                                                bool copied) {
  return nvcc_arguments(std::span(&job, 1), 1, workspace, input, copied);
}

std::vector<std::string> depfile_prerequisites(std::string_view text) {
  std::vector<std::string> paths;
  std::string current;
  bool after_colon = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\\' && i + 1 < text.size() && (text[i + 1] == ' ' || text[i + 1] == '#' || text[i + 1] == ':')) {
      current += text[++i];  // an escaped space, '#' or ':' belongs to the path
    } else if (c == '\\' && i + 1 < text.size() && (text[i + 1] == '\n' || text[i + 1] == '\r')) {
      ++i;                   // a line continuation
    } else if (c == '$' && i + 1 < text.size() && text[i + 1] == '$') {
      current += text[++i];
    } else if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      if (after_colon && !current.empty()) paths.push_back(current);
      current.clear();
    } else if (c == ':' && !after_colon && (i + 1 == text.size() || text[i + 1] == ' ' || text[i + 1] == '\n')) {
      after_colon = true;    // the end of the target; "C:" inside a path has no space after it
      current.clear();
    } else {
      current += c;
    }
  }
  if (after_colon && !current.empty()) paths.push_back(current);
  return paths;
}

std::vector<CompileOutput> compile_with_nvcc(std::span<const CompileJob> jobs, int threads, ChildRunner& runner) {
  const auto start = std::chrono::steady_clock::now();
  const CompileJob& job = jobs.front();
  std::vector<CompileOutput> outs(jobs.size());
  const auto fail_all = [&](const std::string& log) {
    for (CompileOutput& out : outs) {
      out.ok = false;
      out.log = log;
    }
    return outs;
  };
  const Location where = job_location(job);
  const auto failure = [&](std::string_view message) { return diagnostic(where, "error", message); };
  const auto add_note = [&](std::string& log, std::string_view message) {
    if (!log.empty() && log.back() != '\n') log += '\n';
    log += diagnostic(where, "note", message);
  };
  for (std::size_t i = 0; i < jobs.size(); ++i)
    if (!job_target(jobs[i], outs[i])) return fail_all(outs[i].log);
  std::error_code ec;
  if (!fs::is_regular_file(job.nvcc, ec)) {
    // From NVIDIA's wheels: which ones to install (job.nvcc is <root>/bin/nvcc).
    if (std::string wheels = missing_wheel_nvcc(job.nvcc.parent_path().parent_path()); !wheels.empty())
      return fail_all(failure(wheels));
    return fail_all(failure("nvcc compiles this source, and there is no nvcc at " + job.nvcc.string() +
                            " (nvcc compiles sources with host code, and those NVRTC cannot compile)"));
  }
  Result<NvccWorkspace> workspace = NvccWorkspace::create(job);
  if (!workspace) return fail_all(failure(workspace.error().message));
  // The source itself where nvcc may be given its name as it is, else a copy with a plain name whose
  // #line gives the source's own name back (so does the copy that adds instantiations).
  const bool copied = !job.name_expressions.empty() || !is_plain_name(job.source) || job.source.starts_with('-') ||
                      workspace->working_directory() != fs::absolute(job.root).lexically_normal();
  std::string input = job.source;   // relative: nvcc runs in the manifest directory
  if (copied) {
    const std::string copy = "src/" + plain_spelling(job.source);
    const std::optional<std::string> source = read_text_file(job.root / job.source);
    fs::create_directories((workspace->directory() / copy).parent_path(), ec);
    if (!source || !write_text(workspace->directory() / copy, instantiation_wrapper(*source, job)))
      return fail_all(failure("cannot prepare the source for nvcc in " + workspace->directory().string()));
    input = workspace->own(copy);
  }
  const NvccOutput output = nvcc_output(jobs);
  if (!fs::create_directories(workspace->directory() / k_kept_name, ec))
    return fail_all(failure("cannot make " + (workspace->directory() / k_kept_name).string() + ": " +
                            (ec ? ec.message() : "it exists")));
  Result<std::vector<std::string>> arguments = nvcc_arguments(jobs, threads, *workspace, input, copied);
  if (!arguments) return fail_all(failure(arguments.error().message));
  // nvcc's temporary files go to the workspace too: its TMPDIR reaches its shell as well.
  const ChildSettings settings{workspace->working_directory(), {"TMPDIR=" + (workspace->directory() / "tmp").string()}};
  Result<ChildOutput> ran = runner.run(*arguments, settings);
  if (!ran) return fail_all(failure(ran.error().message));
  // Messages name the copy's path where nvcc itself names the input ("in the compilation of ..."),
  // and the workspace's links where the user's files are.
  std::string log = ran->output;
  if (copied) replace_all(log, input, job.source);
  log = workspace->unlinked(std::move(log));
  log = rewrite_diagnostics(prefix_gcc_locations(log, job.display_prefix), job.display_prefix, job.root);
  log = label_wrapper_errors(log, job);
  if (ran->exit_code != 0) {
    if (log.empty()) return fail_all(failure("nvcc failed with exit code " + std::to_string(ran->exit_code)));
    // A CCCL header not found where NVIDIA's wheels lack CCCL: which wheel to install.
    if (std::string wheel = missing_wheel_cccl(job.nvcc.parent_path().parent_path());
        !wheel.empty() && names_a_cccl_header(log))
      add_note(log, wheel);
    return fail_all(log);
  }
  const std::vector<std::string> headers =
      project_headers(job, *workspace, preprocessed_files(workspace->directory() / k_kept_name));
  std::vector<std::optional<std::vector<std::byte>>> images(jobs.size());
  if (output == NvccOutput::per_target) {
    images = kept_images(workspace->directory() / k_kept_name, jobs);
  } else if (const std::optional<std::string> image = read_text_file(workspace->directory() / output_name(output));
             image && !image->empty()) {
    images.front() = to_image(*image, output == NvccOutput::ptx);
    // The image goes into the package as it is: what nvcc wrote must read as a cubin for the target.
    if (output == NvccOutput::cubin) {
      Result<image::CubinInfo> info = image::read_cubin(*images.front(), where.file + " [" + job.target + "]");
      if (!info || info->toolkit_arch != job.target) {
        outs.front().log = log;
        add_failure(outs.front().log, where, "nvcc wrote no cubin for " + job.target + " (" +
                                                 (info ? "it is for " + info->toolkit_arch : info.error().message) + ")");
        return outs;
      }
    }
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  for (std::size_t i = 0; i < jobs.size(); ++i) {
    CompileOutput& out = outs[i];
    out.log = log;
    if (!images[i]) {
      add_failure(out.log, where, "nvcc wrote no " + (output == NvccOutput::lto_ir ? "LTO-IR" : "image for " + jobs[i].target));
      continue;
    }
    if (output == NvccOutput::lto_ir) {
      std::vector<std::byte> fatbin = std::move(*images[i]);
      const std::optional<format::Target> target = format::parse_target(jobs[i].target);
      if (job.relocatable) {
        out.image = std::move(fatbin);   // -dc LTO-IR in a fatbin: the group's link makes the image
      } else if (!link_lto(job, *target, {{{fatbin, LinkInput::fatbin, job.source}}, job.keep_symbols, job.trim_variables},
                           out)) {
        continue;
      }
    } else {
      out.image = std::move(*images[i]);
    }
    out.headers = headers;
    out.ok = true;
    // The run's time, shared: the build's sum of compile times stays the time spent.
    out.seconds = seconds / static_cast<double>(jobs.size());
  }
  return outs;
}

CompileOutput compile_with_nvcc(const CompileJob& job, ChildRunner& runner) {
  return std::move(compile_with_nvcc(std::span(&job, 1), 1, runner).front());
}

std::vector<std::string> line_marker_files(std::string_view text) {
  std::vector<std::string> files;
  std::set<std::string> seen;
  for (std::size_t at = 0; at < text.size();) {
    std::size_t end = text.find('\n', at);
    if (end == std::string_view::npos) end = text.size();
    std::string_view line = text.substr(at, end - at);
    at = end + 1;
    // # 12 "name" 3 4, or #line 12 "name"
    const bool marker = (line.starts_with("# ") && line.size() > 2 && line[2] >= '0' && line[2] <= '9') ||
                        line.starts_with("#line ");
    if (!marker) continue;
    const std::size_t open = line.find('"');
    if (open == std::string_view::npos) continue;
    std::string name;
    std::size_t i = open + 1;
    for (; i < line.size() && line[i] != '"'; ++i) {
      if (line[i] != '\\' || i + 1 == line.size()) {
        name += line[i];
      } else if (line[i + 1] >= '0' && line[i + 1] <= '7') {   // \NNN: a byte, in octal
        int value = 0, digits = 0;
        while (digits < 3 && i + 1 < line.size() && line[i + 1] >= '0' && line[i + 1] <= '7')
          value = value * 8 + (line[++i] - '0'), ++digits;
        name += static_cast<char>(value);
      } else {
        name += line[++i];
      }
    }
    if (i == line.size() || name.empty() || name.front() == '<') continue;   // <built-in>, <command-line>
    if (seen.insert(name).second) files.push_back(std::move(name));
  }
  return files;
}

CompileOutput compile_with_nvcc(const CompileJob& job) {
  const std::unique_ptr<ChildRunner> runner = make_child_runner();
  return compile_with_nvcc(job, *runner);
}

}  // namespace kiln::compile
