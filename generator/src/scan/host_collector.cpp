// The references side of the AST: which kernel template specializations code launches (<<<>>>)
// or takes the address of (&k<float>, cudaLaunchKernel((void*)k<float>, ...)), including inside
// instantiated host templates, and which kernels and variables it asks the Kiln runtime for by name.
#include "scan/ast_names.hpp"
#include "scan/collectors.hpp"

#include <clang/AST/ASTContext.h>
#include <clang/AST/Attr.h>
#include <clang/AST/ExprCXX.h>
#include <clang/AST/RecursiveASTVisitor.h>

#include <map>
#include <set>
#include <vector>

namespace kiln::scan::detail {

namespace {

// The literal behind a request's name argument: "k" as a const char*, std::string("k"), a
// constexpr array or pointer. Nothing when it is not a compile-time constant.
std::optional<std::string> constant_string(const clang::Expr* e, clang::ASTContext& context) {
  for (int depth = 0; depth < 16; ++depth) {
    e = e->IgnoreParens();
    if (const auto* x = llvm::dyn_cast<clang::FullExpr>(e)) e = x->getSubExpr();
    else if (const auto* m = llvm::dyn_cast<clang::MaterializeTemporaryExpr>(e)) e = m->getSubExpr();
    else if (const auto* b = llvm::dyn_cast<clang::CXXBindTemporaryExpr>(e)) e = b->getSubExpr();
    else if (const auto* i = llvm::dyn_cast<clang::ImplicitCastExpr>(e); i && !e->getType()->isPointerType())
      e = i->getSubExpr();
    else if (const auto* c = llvm::dyn_cast<clang::ExplicitCastExpr>(e); c && e->getType()->isRecordType())
      e = c->getSubExpr();
    else if (const auto* k = llvm::dyn_cast<clang::CXXConstructExpr>(e); k && k->getNumArgs() >= 1)
      e = k->getArg(0);   // the std::string the kiln.hpp signature takes, built from a const char*
    else
      break;
  }
  if (const auto* s = llvm::dyn_cast<clang::StringLiteral>(e))
    return s->getCharByteWidth() == 1 ? std::optional<std::string>(s->getString().str()) : std::nullopt;
  if (e->isValueDependent() || e->isTypeDependent() || !e->getType()->isPointerType()) return std::nullopt;
  return e->tryEvaluateString(context);
}

class ReferenceVisitor : public clang::RecursiveASTVisitor<ReferenceVisitor> {
  using Base = clang::RecursiveASTVisitor<ReferenceVisitor>;

public:
  ReferenceVisitor(clang::ASTContext& context, const SourceFacts& facts, ParseOutput& output)
      : m_context(context), m_facts(facts), m_output(output) {}

  // Launches inside host templates exist, with concrete arguments, only in their instantiations.
  bool shouldVisitTemplateInstantiations() const { return true; }

  bool TraverseDecl(clang::Decl* d) {
    const auto* fd = llvm::dyn_cast_or_null<clang::FunctionDecl>(d);
    if (fd) m_functions.push_back(fd);
    const bool result = Base::TraverseDecl(d);
    if (fd) m_functions.pop_back();
    return result;
  }

  bool VisitCUDAKernelCallExpr(clang::CUDAKernelCallExpr* e) {
    if (m_facts.is_user(e->getBeginLoc()) && in_host_function()) m_output.launches = true;
    if (const auto* ref = llvm::dyn_cast<clang::DeclRefExpr>(e->getCallee()->IgnoreParenImpCasts()))
      m_launched.insert(ref);
    if (const clang::FunctionDecl* fd = e->getDirectCallee(); fd && !e->isInstantiationDependent())
      add(*fd, FoundBy::launch, e->getBeginLoc());
    return true;
  }

  bool VisitDeclRefExpr(clang::DeclRefExpr* e) {
    if (m_launched.count(e) || e->isInstantiationDependent()) return true;
    if (const auto* fd = llvm::dyn_cast<clang::FunctionDecl>(e->getDecl()); fd && fd->hasAttr<clang::CUDAGlobalAttr>())
      add(*fd, FoundBy::address_taken, e->getLocation());
    return true;
  }

  bool VisitCallExpr(clang::CallExpr* e) {
    const clang::FunctionDecl* callee = e->getDirectCallee();
    const clang::IdentifierInfo* id = callee ? callee->getIdentifier() : nullptr;
    if (!id) return true;
    const llvm::StringRef name = id->getName();
    std::optional<RuntimeRequest::What> what;
    unsigned argument = 0;
    if (llvm::isa<clang::CXXMemberCallExpr>(e) && (is_kernel_member(name) || name == "global") &&
        callee->getQualifiedNameAsString() == "kiln::Package::" + name.str()) {
      what = name == "global" ? RuntimeRequest::What::variable : RuntimeRequest::What::kernel;
    } else if ((is_kernel_function(name) || name == "kiln_package_get_global") && callee->isExternC()) {
      what = name == "kiln_package_get_global" ? RuntimeRequest::What::variable : RuntimeRequest::What::kernel;
      argument = 1;
    }
    if (!what || e->getNumArgs() <= argument || inside_kiln()) return true;
    const clang::Expr* arg = e->getArg(argument);
    if (arg->isValueDependent() || arg->isTypeDependent()) return true;   // its instantiations tell
    const Location where = m_facts.location(arg->getBeginLoc());
    if (std::optional<std::string> text = constant_string(arg, m_context)) {
      m_output.found.requests.push_back({*what, std::move(*text), where});
    } else {
      const char* noun = *what == RuntimeRequest::What::kernel ? "kernel" : "variable";
      m_output.found.diagnostics.push_back(
          {Diagnostic::Severity::warning, where,
           std::string("the ") + noun + " name in this request to the Kiln runtime is not a compile-time "
               "constant string: the scan cannot tell which " + noun + " it asks for"});
    }
    return true;
  }

private:
  // Every call of the runtime's API that takes a kernel name asks for that kernel: loading it, its
  // image for another loader, its index or how it runs on an architecture (kiln.hpp, kiln.h).
  static bool is_kernel_member(llvm::StringRef name) {
    return name == "kernel" || name == "image" || name == "image_for_arch" || name == "find_kernel" ||
           name == "coverage";
  }
  static bool is_kernel_function(llvm::StringRef name) {
    return name == "kiln_package_get_kernel" || name == "kiln_package_select_image" ||
           name == "kiln_package_select_image_for_arch" || name == "kiln_package_find_kernel";
  }

  // A launch from device code (dynamic parallelism) is no sign of host code.
  bool in_host_function() const {
    return m_functions.empty() || (!m_functions.back()->hasAttr<clang::CUDADeviceAttr>() &&
                                   !m_functions.back()->hasAttr<clang::CUDAGlobalAttr>());
  }

  // The runtime's own wrappers (kiln.hpp) pass names through; only their callers' names count.
  bool inside_kiln() const {
    if (m_functions.empty()) return false;
    for (const clang::DeclContext* dc = m_functions.back()->getDeclContext(); dc; dc = dc->getParent())
      if (const auto* ns = llvm::dyn_cast<clang::NamespaceDecl>(dc);
          ns && ns->getParent()->isTranslationUnit() && ns->getName() == "kiln")
        return true;
    return false;
  }

  bool user_template(const clang::FunctionTemplateDecl& tmpl) {
    const clang::FunctionTemplateDecl* canonical = tmpl.getCanonicalDecl();
    auto [it, inserted] = m_user_templates.try_emplace(canonical, false);
    if (inserted) {
      const clang::FunctionDecl* pattern = canonical->getTemplatedDecl();
      const clang::FunctionDecl* definition = pattern->getDefinition();
      it->second = m_facts.is_user((definition ? definition : pattern)->getLocation());
    }
    return it->second;
  }

  void add(const clang::FunctionDecl& fd, FoundBy found_by, clang::SourceLocation where) {
    const clang::FunctionTemplateDecl* tmpl = fd.getPrimaryTemplate();
    if (!tmpl || !user_template(*tmpl)) return;
    const Result<std::string> name = name_expression(fd);
    if (name)
      m_output.found.instantiations.push_back(
          {qualified_name(*tmpl), *name, found_by, m_facts.location(where), symbol_form(fd),
           mangled_name(fd)});
    else
      m_output.found.diagnostics.push_back({Diagnostic::Severity::warning, m_facts.location(where),
                                            "this instantiation of '" + qualified_name(*tmpl) +
                                                "' cannot be named in an NVRTC name expression: " + name.error().message});
  }

  clang::ASTContext& m_context;
  const SourceFacts& m_facts;
  ParseOutput& m_output;
  std::vector<const clang::FunctionDecl*> m_functions;
  std::set<const clang::DeclRefExpr*> m_launched;
  std::map<const clang::FunctionTemplateDecl*, bool> m_user_templates;
};

}  // namespace

void collect_references(clang::ASTContext& context, const SourceFacts& facts, ParseOutput& output) {
  ReferenceVisitor visitor(context, facts, output);
  visitor.TraverseDecl(context.getTranslationUnitDecl());
}

}  // namespace kiln::scan::detail
