#include "compile/nvcc_compiler.hpp"

#include "compile/diagnostics.hpp"
#include "compile/lto_link.hpp"
#include "format/target.hpp"
#include "util/file_io.hpp"

#include <chrono>
#include <fstream>
#include <optional>
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

// A C string literal for #line: backslashes and quotes escaped.
std::string string_literal(std::string_view text) {
  std::string out = "\"";
  for (const char c : text) {
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
std::vector<std::string> project_headers(const CompileJob& job, const std::vector<std::string>& prerequisites) {
  std::vector<fs::path> dirs = {job.root, job.nvcc.parent_path().parent_path()};
  for (const std::string& option : job.nvcc_options)
    if (option.rfind("-I", 0) == 0) dirs.push_back((job.root / option.substr(2)).lexically_normal());
  std::vector<std::string> headers;
  // The first prerequisite is the compiled file itself (the source, or its copy in work_dir).
  for (std::size_t i = 1; i < prerequisites.size(); ++i) {
    const fs::path path = (job.root / prerequisites[i]).lexically_normal();
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

// nvJitLink 13.0 writes ".target sm_XY" for compute_XYf PTX (nvrtc_compiler.cpp): nvcc writes it.
bool direct_ptx(const format::Target& target) {
  return target.kind == format::TargetKind::ptx && target.variant == format::TargetVariant::family;
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

std::vector<std::string> nvcc_arguments(const CompileJob& job, const fs::path& input, const fs::path& output,
                                        const fs::path& deps) {
  const std::optional<format::Target> target = format::parse_target(job.target);
  std::vector<std::string> args = {job.nvcc.string()};
  if (target && direct_ptx(*target)) {
    args.insert(args.end(), {"-ptx", "-arch=" + job.target});
  } else if (target) {
    // compute_XY and sm_XY both compile to lto_XY; the link makes PTX or a cubin of it.
    format::Target virtual_arch = *target;
    virtual_arch.kind = format::TargetKind::ptx;
    format::Target lto = *target;
    lto.kind = format::TargetKind::sass;
    args.insert(args.end(), {"-fatbin", "-dc", "-gencode",
                             "arch=" + virtual_arch.name() + ",code=lto_" + lto.name().substr(3)});
  }
  args.insert(args.end(), {"-o", output.string(), "-MD", "-MF", deps.string(),
                           // Fixed names and seeds: see the header.
                           "-frandom-seed=" + job.source, "-Xcicc", "--orig_src_path_name=" + job.source});
  if (input != fs::path(job.source)) {
    // The copy in work_dir still finds the source's neighbours first for #include "...". A relative
    // directory keeps __FILE__ in those headers relative, as when the source itself is compiled.
    const fs::path dir = fs::path(job.source).parent_path();
    args.push_back("-Xcompiler");
    args.push_back("-iquote," + (dir.empty() ? std::string(".") : dir.string()));
  }
  args.insert(args.end(), job.nvcc_options.begin(), job.nvcc_options.end());
  args.push_back(input.string());
  return args;
}

std::vector<std::string> depfile_prerequisites(std::string_view text) {
  std::vector<std::string> paths;
  std::string current;
  bool after_colon = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\\' && i + 1 < text.size() && (text[i + 1] == ' ' || text[i + 1] == '#')) {
      current += text[++i];  // an escaped space or '#' belongs to the path
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

CompileOutput compile_with_nvcc(const CompileJob& job, ChildRunner& runner) {
  const auto start = std::chrono::steady_clock::now();
  CompileOutput out;
  const std::string where = job.display_prefix + job.source;
  const std::optional<format::Target> target = job_target(job, out);
  if (!target) return out;
  std::error_code ec;
  if (!fs::is_regular_file(job.nvcc, ec)) {
    out.log = where + ": error: nvcc compiles this source, and there is no nvcc at " + job.nvcc.string() +
              " (nvcc compiles sources with host code, and those NVRTC cannot compile)";
    return out;
  }
  fs::create_directories(job.work_dir, ec);
  const bool ptx = direct_ptx(*target);
  const fs::path output = job.work_dir / (ptx ? "image.ptx" : "image.fatbin");
  const fs::path deps = job.work_dir / "image.d";
  fs::path input = job.source;  // relative: nvcc runs in the manifest directory
  if (!job.name_expressions.empty()) {
    const std::optional<std::string> source = read_text_file(job.root / job.source);
    input = job.work_dir / "src" / job.source;
    fs::create_directories(input.parent_path(), ec);
    if (!source || !write_text(input, instantiation_wrapper(*source, job))) {
      out.log = where + ": error: cannot prepare the source for nvcc in " + job.work_dir.string();
      return out;
    }
  }

  Result<ChildOutput> ran = runner.run(nvcc_arguments(job, input, output, deps));
  if (!ran) {
    out.log = where + ": error: " + ran.error().message;
    return out;
  }
  // Messages name the copy's path where nvcc itself names the input ("in the compilation of ...").
  std::string log = ran->output;
  replace_all(log, input.string(), job.source);
  out.log = rewrite_diagnostics(prefix_gcc_locations(log, job.display_prefix), job.display_prefix);
  if (ran->exit_code != 0) {
    if (out.log.empty()) out.log = where + ": error: nvcc failed with exit code " + std::to_string(ran->exit_code);
    return out;
  }
  const std::optional<std::string> image = read_text_file(output);
  if (!image || image->empty()) {
    out.log += (out.log.empty() ? "" : "\n") + where + ": error: nvcc wrote no " + (ptx ? "PTX" : "LTO-IR");
    return out;
  }
  if (ptx) {
    out.image = to_image(*image, true);
  } else {
    std::vector<std::byte> fatbin = to_image(*image, false);
    if (job.relocatable) {
      out.image = std::move(fatbin);   // -dc LTO-IR in a fatbin: the group's link makes the image
    } else if (!link_lto(job, *target, {{{fatbin, LinkInput::fatbin, job.source}}, job.keep_symbols, job.trim_variables},
                         out)) {
      return out;
    }
  }
  if (const std::optional<std::string> text = read_text_file(deps)) out.headers = project_headers(job, depfile_prerequisites(*text));
  fs::remove_all(job.work_dir, ec);
  out.ok = true;
  out.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return out;
}

CompileOutput compile_with_nvcc(const CompileJob& job) {
  const std::unique_ptr<ChildRunner> runner = make_child_runner();
  return compile_with_nvcc(job, *runner);
}

}  // namespace kiln::compile
