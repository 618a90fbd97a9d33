// Runs clang's driver and front end on one command line (ToolInvocation, over a file system that
// serves the support headers and probe files from memory and resolves relative paths against the
// job's directory), collects its errors, and walks the AST when there are none.
#include "scan/parse.hpp"
#include "scan/parser_module.hpp"

#include "scan/ast_names.hpp"
#include "scan/collectors.hpp"
#include "scan/header_tracker.hpp"
#include "scan/regular_files.hpp"
#include "scan/tolerated_errors.hpp"
#include "util/diagnostic.hpp"

#include <clang/AST/ASTConsumer.h>
#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/FileManager.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendAction.h>
#include <clang/Frontend/FrontendActions.h>
#include <clang/Lex/Preprocessor.h>
#include <clang/Tooling/Tooling.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/Path.h>
#include <llvm/Support/VirtualFileSystem.h>

namespace kiln::scan::detail {

namespace {

// As many errors as clang reports by default: the parse has no error limit (compile_args.cpp), so
// that tolerated errors never stop it, and the limit is applied here instead.
constexpr std::size_t k_max_errors = 20;

// Keeps errors (with file:line:col) and drops everything else; nothing reaches stderr. An error
// nvcc accepts (tolerated_errors.hpp) becomes a warning and does not count as an error.
class ErrorCollector final : public clang::DiagnosticConsumer {
public:
  ErrorCollector(const ParseJob& job, ParseOutput& output) : m_job(job), m_output(output) {}

  void HandleDiagnostic(clang::DiagnosticsEngine::Level level, const clang::Diagnostic& info) override {
    if (level == clang::DiagnosticsEngine::Note) {
      // "in instantiation of ... requested here" ties an error inside the source to a probe line.
      if (m_in_error && m_output.errors.back().probe_line == 0)
        m_output.errors.back().probe_line = probe_line(where(info));
      return;
    }
    m_in_error = false;
    if (level < clang::DiagnosticsEngine::Error) return;
    llvm::SmallString<256> message;
    info.FormatDiagnostic(message);
    const Location location = where(info);
    const std::string_view why = level == clang::DiagnosticsEngine::Error ? tolerated_error(info) : "";
    if (!why.empty()) {
      m_output.found.diagnostics.push_back(
          {Diagnostic::Severity::warning, location,
           message.str().str() + " (clang 19 rejects this, the scan goes on: " + std::string(why) + ")"});
      return;
    }
    clang::DiagnosticConsumer::HandleDiagnostic(level, info);   // counts the error: the action fails
    if (m_output.errors.size() >= k_max_errors) {
      if (m_output.errors.size() == k_max_errors)
        m_output.errors.push_back({{Diagnostic::Severity::error, {}, "too many errors; the rest are not shown"}, 0});
      return;
    }
    m_in_error = true;
    m_output.errors.push_back({{Diagnostic::Severity::error, location, message.str().str()}, probe_line(location)});
  }

private:
  static Location where(const clang::Diagnostic& info) {
    if (!info.hasSourceManager() || info.getLocation().isInvalid()) return {};
    const clang::SourceManager& sources = info.getSourceManager();
    const clang::PresumedLoc p = sources.getPresumedLoc(sources.getFileLoc(info.getLocation()));
    if (p.isInvalid()) return {};
    return place(p.getFilename(), static_cast<int>(p.getLine()), static_cast<int>(p.getColumn()));
  }

  int probe_line(const Location& location) const {
    return !m_job.probe_file.empty() && location.file == m_job.probe_file ? location.line : 0;
  }

  const ParseJob& m_job;
  ParseOutput& m_output;
  bool m_in_error = false;
};

class CollectConsumer final : public clang::ASTConsumer {
public:
  CollectConsumer(clang::CompilerInstance& compiler, const SourceFacts& facts, const ParseJob& job,
                  ParseOutput& output)
      : m_compiler(compiler), m_facts(facts), m_job(job), m_output(output) {}

  void HandleTranslationUnit(clang::ASTContext& context) override {
    // After any error the AST is unreliable: report nothing from it. Tolerated errors are not in
    // `errors` (their recovery leaves the AST whole).
    if (!m_output.errors.empty()) return;
    if (!m_job.include_pch.empty()) track_precompiled_files(m_compiler, m_facts, m_job.preamble_file, m_output);
    collect_declarations(context, m_facts, m_job, m_output);
    if (m_job.references) collect_references(context, m_facts, m_output);
  }

private:
  clang::CompilerInstance& m_compiler;
  const SourceFacts& m_facts;
  const ParseJob& m_job;
  ParseOutput& m_output;
};

class CollectAction final : public clang::ASTFrontendAction {
public:
  CollectAction(const ParseJob& job, ParseOutput& output, std::optional<SourceFacts>& facts)
      : m_job(job), m_output(output), m_facts(facts) {}

protected:
  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance& compiler, llvm::StringRef) override {
    m_facts.emplace(compiler.getSourceManager(), m_job.cuda_root);
    compiler.getPreprocessor().addPPCallbacks(make_header_tracker(*m_facts, m_output));
    return std::make_unique<CollectConsumer>(compiler, *m_facts, m_job, m_output);
  }

private:
  const ParseJob& m_job;
  ParseOutput& m_output;
  std::optional<SourceFacts>& m_facts;   // owned by run_parse: outlives the compiler instance
};

// Each file the preamble reads, by the absolute name a PCH records for it and by the name the
// preprocessor spelled it with (the name a parse without the PCH reports).
class SpellingRecorder final : public clang::PPCallbacks {
public:
  SpellingRecorder(clang::FileManager& files, std::map<std::string, std::string>& spellings)
      : m_files(files), m_spellings(spellings) {}

  void InclusionDirective(clang::SourceLocation, const clang::Token&, llvm::StringRef, bool, clang::CharSourceRange,
                          clang::OptionalFileEntryRef entry, llvm::StringRef, llvm::StringRef, const clang::Module*,
                          bool, clang::SrcMgr::CharacteristicKind) override {
    if (!entry) return;
    const std::string spelled = entry->getName().str();
    llvm::SmallString<256> absolute(spelled);
    m_files.makeAbsolutePath(absolute);
    for (const bool dot_dot : {false, true}) {
      llvm::SmallString<256> clean(absolute);
      llvm::sys::path::remove_dots(clean, dot_dot);
      if (clean.str() != spelled) m_spellings.emplace(clean.str().str(), spelled);
    }
  }

private:
  clang::FileManager& m_files;
  std::map<std::string, std::string>& m_spellings;
};

// Writes a PCH to a file of our choosing (the command line is the scan's own, -fsyntax-only), and
// records how the preprocessor spelled each file it read.
class MakePchAction final : public clang::GeneratePCHAction {
public:
  MakePchAction(std::string output, std::map<std::string, std::string>& spellings)
      : m_output(std::move(output)), m_spellings(spellings) {}

protected:
  bool BeginInvocation(clang::CompilerInstance& compiler) override {
    compiler.getFrontendOpts().OutputFile = m_output;
    return clang::GeneratePCHAction::BeginInvocation(compiler);
  }

  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance& compiler, llvm::StringRef file) override {
    compiler.getPreprocessor().addPPCallbacks(std::make_unique<SpellingRecorder>(compiler.getFileManager(), m_spellings));
    return clang::GeneratePCHAction::CreateASTConsumer(compiler, file);
  }

private:
  std::string m_output;
  std::map<std::string, std::string>& m_spellings;
};

// The job's files: the disk seen from its directory (regular files only: regular_files.hpp), its
// virtual files over it (and the main file as `main_text` where given).
Result<llvm::IntrusiveRefCntPtr<clang::FileManager>> job_files(const ParseJob& job) {
  auto memory = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
  for (const VirtualFile& f : job.virtual_files)
    memory->addFile(f.path, 0, llvm::MemoryBuffer::getMemBufferCopy(f.content, f.path));
  if (job.main_text) {
    const std::string main = (job.directory / job.arguments.back()).lexically_normal().string();
    memory->addFile(main, 0, llvm::MemoryBuffer::getMemBufferCopy(*job.main_text, main));
  }
  // A physical file system of its own, so the working directory is this job's, not the process's.
  auto overlay = llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(regular_files_only(llvm::vfs::createPhysicalFileSystem()));
  overlay->pushOverlay(memory);
  if (std::error_code ec = overlay->setCurrentWorkingDirectory(job.directory.string()))
    return fail(KILN_STATUS_IO_ERROR, "cannot use directory " + job.directory.string() + ": " + ec.message());
  return llvm::makeIntrusiveRefCnt<clang::FileManager>(clang::FileSystemOptions(), overlay);
}

std::vector<std::string> job_arguments(const ParseJob& job) {
  std::vector<std::string> arguments = job.arguments;
  if (!job.include_pch.empty()) arguments.insert(arguments.end() - 1, {"-include-pch", job.include_pch});
  return arguments;
}

}  // namespace

Status make_pch(const ParseJob& job, const std::filesystem::path& output,
                std::map<std::string, std::string>& spellings) {
  const Result<llvm::IntrusiveRefCntPtr<clang::FileManager>> files = job_files(job);
  if (!files) return files.error();
  ParseOutput collected;
  ErrorCollector errors(job, collected);
  clang::tooling::ToolInvocation invocation(job_arguments(job),
                                            std::make_unique<MakePchAction>(output.string(), spellings), files->get());
  invocation.setDiagnosticConsumer(&errors);
  const bool ran = invocation.run();
  // A tolerated error (a warning here) would be reported by every source the PCH serves, and not
  // again by the PCH: such a preamble is parsed with each source instead.
  if (ran && collected.errors.empty() && collected.found.diagnostics.empty()) return Ok{};
  std::error_code ignored;
  std::filesystem::remove(output, ignored);
  const auto refused = [](const Diagnostic& first) { return fail(KILN_STATUS_INVALID_ARGUMENT, first.message, first.location); };
  if (!collected.errors.empty()) return refused(collected.errors.front().diagnostic);
  if (!collected.found.diagnostics.empty()) return refused(collected.found.diagnostics.front());
  return fail(KILN_STATUS_INTERNAL_ERROR, "clang could not make the precompiled header");
}

namespace {

// Instantiations inside an #if block that tests __CUDA_ARCH__: the host parse saw them, a device
// compile may not.
void mark_arch_tested(ParseOutput& output) {
  for (Instantiation& inst : output.found.instantiations) {
    const auto blocks = output.arch_blocks.find(inst.location.file);
    if (blocks == output.arch_blocks.end()) continue;
    for (const LineSpan& span : blocks->second)
      if (inst.location.line >= span.first && inst.location.line <= span.last) inst.under_arch_test = true;
  }
}

}  // namespace

ParseOutput run_parse(const ParseJob& job) {
  ParseOutput output;
  const Result<llvm::IntrusiveRefCntPtr<clang::FileManager>> files = job_files(job);
  if (!files) {
    output.failed = true;
    output.errors.push_back({{Diagnostic::Severity::error, {}, files.error().message}, 0});
    return output;
  }

  std::optional<SourceFacts> facts;
  ErrorCollector errors(job, output);
  clang::tooling::ToolInvocation invocation(job_arguments(job), std::make_unique<CollectAction>(job, output, facts),
                                            files->get());
  invocation.setDiagnosticConsumer(&errors);
  const bool ran = invocation.run();
  if (!output.errors.empty() || !ran) {
    output.failed = true;
    if (output.errors.empty())
      output.errors.push_back({{Diagnostic::Severity::error, {}, "clang could not parse the source"}, 0});
    output.found = {};
    output.probes.clear();
  }
  mark_arch_tested(output);
  return output;
}

}  // namespace kiln::scan::detail

extern "C" __attribute__((visibility("default"))) const kiln::scan::detail::ParserModule* kiln_scan_parser_module() {
  static const kiln::scan::detail::ParserModule module{&kiln::scan::detail::run_parse, &kiln::scan::detail::make_pch};
  return &module;
}
