// Runs clang's driver and front end on one command line (ToolInvocation, over a file system that
// serves the support headers and probe files from memory and resolves relative paths against the
// job's directory), collects its errors, and walks the AST when there are none.
#include "scan/parse.hpp"

#include "scan/ast_names.hpp"
#include "scan/collectors.hpp"
#include "scan/header_tracker.hpp"
#include "scan/tolerated_errors.hpp"

#include <clang/AST/ASTConsumer.h>
#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/FileManager.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/FrontendAction.h>
#include <clang/Lex/Preprocessor.h>
#include <clang/Tooling/Tooling.h>
#include <llvm/Support/MemoryBuffer.h>
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
    return {p.getFilename(), static_cast<int>(p.getLine()), static_cast<int>(p.getColumn())};
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

}  // namespace

ParseOutput run_parse(const ParseJob& job) {
  ParseOutput output;
  auto memory = llvm::makeIntrusiveRefCnt<llvm::vfs::InMemoryFileSystem>();
  for (const VirtualFile& f : job.virtual_files)
    memory->addFile(f.path, 0, llvm::MemoryBuffer::getMemBufferCopy(f.content, f.path));
  // A physical file system of its own, so the working directory is this job's, not the process's.
  auto overlay = llvm::makeIntrusiveRefCnt<llvm::vfs::OverlayFileSystem>(llvm::vfs::createPhysicalFileSystem());
  overlay->pushOverlay(memory);
  if (std::error_code ec = overlay->setCurrentWorkingDirectory(job.directory.string())) {
    output.failed = true;
    output.errors.push_back({{Diagnostic::Severity::error, {}, "cannot use directory " + job.directory.string() +
                                                                   ": " + ec.message()}, 0});
    return output;
  }
  auto files = llvm::makeIntrusiveRefCnt<clang::FileManager>(clang::FileSystemOptions(), overlay);

  std::optional<SourceFacts> facts;
  ErrorCollector errors(job, output);
  clang::tooling::ToolInvocation invocation(job.arguments, std::make_unique<CollectAction>(job, output, facts),
                                            files.get());
  invocation.setDiagnosticConsumer(&errors);
  const bool ran = invocation.run();
  if (!output.errors.empty() || !ran) {
    output.failed = true;
    if (output.errors.empty())
      output.errors.push_back({{Diagnostic::Severity::error, {}, "clang could not parse the source"}, 0});
    output.found = {};
    output.probes.clear();
  }
  return output;
}

}  // namespace kiln::scan::detail
