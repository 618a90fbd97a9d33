#include "scan/header_tracker.hpp"

#include "format/checksum.hpp"
#include "scan/ast_names.hpp"
#include "scan/source_text.hpp"

#include <clang/Basic/SourceManager.h>
#include <clang/Lex/PPCallbacks.h>

#include <span>
#include <unordered_set>

namespace kiln::scan::detail {

namespace {

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
    if (m_facts.is_user_file(file)) check_architectures(*entry, *text);
    const llvm::StringRef name = entry->getName();
    if (file == sources.getMainFileID() || name.starts_with(k_support_dir)) return;
    const auto bytes = std::as_bytes(std::span(text->data(), text->size()));
    m_output.found.headers.push_back({name.str(), format::checksum(bytes)});
  }

  void InclusionDirective(clang::SourceLocation hash, const clang::Token&, llvm::StringRef file_name, bool,
                          clang::CharSourceRange, clang::OptionalFileEntryRef, llvm::StringRef, llvm::StringRef,
                          const clang::Module*, bool, clang::SrcMgr::CharacteristicKind) override {
    if ((file_name == "cuda_runtime.h" || file_name == "cuda_runtime_api.h") && m_facts.is_user(hash))
      m_output.cuda_runtime_included = true;
  }

private:
  // Textual, so branches in skipped blocks count too (PPCallbacks::If never sees those).
  void check_architectures(clang::FileEntryRef entry, llvm::StringRef text) {
    ArchFacts arch;
    try {   // nothing may unwind through the preprocessor, which is built without exceptions
      arch = arch_facts(std::string_view(text.data(), text.size()));
    } catch (const std::exception&) {
      return;
    }
    m_output.arch_conditionals = m_output.arch_conditionals || arch.conditional;
    for (int line : arch.unseen_lines)
      m_output.found.diagnostics.push_back(
          {Diagnostic::Severity::warning, {entry.getName().str(), line, 1},
           "a branch for sm_100 or later (__CUDA_ARCH__ >= 1000) is not scanned: clang 19 parses CUDA for "
           "sm_90 at most, so kernels, launches and requests that exist only there are not found"});
  }

  const SourceFacts& m_facts;
  ParseOutput& m_output;
  std::unordered_set<const clang::FileEntry*> m_seen;
};

}  // namespace

std::unique_ptr<clang::PPCallbacks> make_header_tracker(const SourceFacts& facts, ParseOutput& output) {
  return std::make_unique<HeaderTracker>(facts, output);
}

}  // namespace kiln::scan::detail
