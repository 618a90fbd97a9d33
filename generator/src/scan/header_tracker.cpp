#include "scan/header_tracker.hpp"

#include "format/checksum.hpp"
#include "scan/ast_names.hpp"
#include "scan/source_text.hpp"
#include "util/diagnostic.hpp"

#include <clang/Basic/FileManager.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Lex/PPCallbacks.h>
#include <clang/Serialization/ASTReader.h>
#include <clang/Serialization/ModuleManager.h>

#include <span>
#include <unordered_set>

namespace kiln::scan::detail {

namespace {

bool is_cuda_runtime_header(std::string_view name) {
  return name == "cuda_runtime.h" || name == "cuda_runtime_api.h";
}

// Textual, so branches in skipped blocks count too (PPCallbacks::If never sees those).
void check_architectures(std::string_view file, std::string_view text, ParseOutput& output) {
  ArchFacts arch;
  try {   // nothing may unwind through the preprocessor, which is built without exceptions
    arch = arch_facts(text);
  } catch (const std::exception&) {
    return;
  }
  output.arch_conditionals = output.arch_conditionals || arch.conditional;
  if (!arch.arch_blocks.empty()) output.arch_blocks[std::string(file)] = std::move(arch.arch_blocks);
  for (int line : arch.unseen_lines)
    output.found.diagnostics.push_back(
        {Diagnostic::Severity::warning, place(std::string(file), line, 1),
         "a branch for sm_100 or later (__CUDA_ARCH__ >= 1000) is not scanned: clang 19 parses CUDA for "
         "sm_90 at most, so kernels, launches and requests that exist only there are not found"});
}

void add_header(std::string_view name, std::string_view text, ParseOutput& output) {
  const auto bytes = std::as_bytes(std::span(text.data(), text.size()));
  output.found.headers.push_back({std::string(name), format::checksum(bytes)});
}

class HeaderTracker final : public clang::PPCallbacks {
public:
  HeaderTracker(const SourceFacts& facts, ParseOutput& output) : m_facts(facts), m_output(output) {}

  void FileChanged(clang::SourceLocation loc, FileChangeReason reason, clang::SrcMgr::CharacteristicKind,
                   clang::FileID) override {
    if (reason != EnterFile) return;
    const clang::SourceManager& sources = m_facts.sources();
    const clang::FileID file = sources.getFileID(loc);
    const clang::OptionalFileEntryRef entry = sources.getFileEntryRefForID(file);
    if (!entry || !m_seen.insert(&entry->getFileEntry()).second) return;
    const std::optional<llvm::StringRef> text = sources.getBufferDataOrNone(file);
    if (!text) return;
    const llvm::StringRef name = entry->getName();
    if (m_facts.is_user_file(file)) check_architectures(name, *text, m_output);
    if (file == sources.getMainFileID() || name.starts_with(k_support_dir)) return;
    add_header(name, *text, m_output);
  }

  void InclusionDirective(clang::SourceLocation hash, const clang::Token&, llvm::StringRef file_name, bool,
                          clang::CharSourceRange, clang::OptionalFileEntryRef, llvm::StringRef, llvm::StringRef,
                          const clang::Module*, bool, clang::SrcMgr::CharacteristicKind) override {
    if (is_cuda_runtime_header(file_name) && m_facts.is_user(hash)) m_output.cuda_runtime_included = true;
  }

private:
  const SourceFacts& m_facts;
  ParseOutput& m_output;
  std::unordered_set<const clang::FileEntry*> m_seen;
};

}  // namespace

std::unique_ptr<clang::PPCallbacks> make_header_tracker(const SourceFacts& facts, ParseOutput& output) {
  return std::make_unique<HeaderTracker>(facts, output);
}

void track_precompiled_files(clang::CompilerInstance& compiler, const SourceFacts& facts, std::string_view skip,
                             ParseOutput& output) {
  const llvm::IntrusiveRefCntPtr<clang::ASTReader> reader = compiler.getASTReader();
  if (!reader) return;
  std::unordered_set<std::string> seen;
  for (clang::serialization::ModuleFile& module : reader->getModuleManager()) {
    reader->visitInputFiles(module, true, false,
                            [&](const clang::serialization::InputFile& input, bool system) {
      const clang::OptionalFileEntryRef entry = input.getFile();
      if (!entry) return;
      const llvm::StringRef name = entry->getName();
      if (name == llvm::StringRef(skip.data(), skip.size()) || !seen.insert(name.str()).second) return;
      const llvm::ErrorOr<std::unique_ptr<llvm::MemoryBuffer>> buffer = compiler.getFileManager().getBufferForFile(*entry);
      if (!buffer) return;
      const std::string_view text((*buffer)->getBufferStart(), (*buffer)->getBufferSize());
      const llvm::StringRef real = entry->getFileEntry().tryGetRealPathName();
      if (facts.is_user_path(std::string_view(name.data(), name.size()), std::string_view(real.data(), real.size()),
                             system)) {
        check_architectures(std::string_view(name.data(), name.size()), text, output);
        for (const IncludeDirective& include : include_directives(text))
          if (is_cuda_runtime_header(include.name)) output.cuda_runtime_included = true;
      }
      if (!name.starts_with(k_support_dir)) add_header(std::string_view(name.data(), name.size()), text, output);
    });
  }
}

}  // namespace kiln::scan::detail
