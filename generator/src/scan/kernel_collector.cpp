// The declarations side of the AST: kernels (with their redeclarations merged), the explicit
// instantiations and specializations of kernel templates, __device__/__constant__/__managed__
// variables, whether the user's files define host functions, and request probes.
#include "scan/ast_names.hpp"
#include "scan/collectors.hpp"

#include <clang/AST/ASTContext.h>
#include <clang/AST/Attr.h>
#include <clang/AST/RecursiveASTVisitor.h>
#include <clang/Basic/SourceManager.h>
#include <clang/Lex/Lexer.h>

#include <algorithm>
#include <map>
#include <vector>

namespace kiln::scan::detail {

namespace {

constexpr llvm::StringLiteral k_probe_prefix = "__kiln_probe_";

class DeclarationVisitor : public clang::RecursiveASTVisitor<DeclarationVisitor> {
public:
  DeclarationVisitor(clang::ASTContext& context, const SourceFacts& facts, const ParseJob& job, ParseOutput& output)
      : m_context(context), m_facts(facts), m_job(job), m_output(output) {}

  bool VisitFunctionDecl(clang::FunctionDecl* fd) {
    note_host_definition(*fd);
    if (!m_job.declarations || !fd->hasAttr<clang::CUDAGlobalAttr>()) return true;
    if (fd->getTemplatedKind() == clang::FunctionDecl::TK_NonTemplate)
      remember(m_kernels, fd->getCanonicalDecl());
    else if (const clang::FunctionTemplateDecl* t = fd->getDescribedFunctionTemplate())
      remember(m_templates, t->getCanonicalDecl());
    return true;
  }

  bool VisitVarDecl(clang::VarDecl* vd) {
    if (!m_job.probe_file.empty() && vd->getName().starts_with(k_probe_prefix)) {
      read_probe(*vd);
      return true;
    }
    if (!m_job.declarations || !vd->hasGlobalStorage() || vd->isStaticLocal() || vd->isTemplated() ||
        vd->getDescribedVarTemplate() || llvm::isa<clang::VarTemplateSpecializationDecl>(vd))
      return true;
    std::optional<Variable::Kind> kind;
    for (const clang::AnnotateAttr* a : vd->specific_attrs<clang::AnnotateAttr>())
      if (a->getAnnotation() == llvm::StringRef(k_managed_annotation.data(), k_managed_annotation.size()))
        kind = Variable::Kind::managed;
    // clang marks namespace-scope constexpr variables __constant__ implicitly: those are not the user's.
    if (const auto* a = vd->getAttr<clang::CUDAConstantAttr>(); !kind && a && !a->isImplicit())
      kind = Variable::Kind::constant;
    if (const auto* a = vd->getAttr<clang::CUDADeviceAttr>(); !kind && a && !a->isImplicit())
      kind = Variable::Kind::device;
    if (!kind) return true;
    const clang::VarDecl* canonical = vd->getCanonicalDecl();
    remember(m_variable_order, canonical);
    Variable::Kind& k = m_variable_kinds.try_emplace(canonical, *kind).first->second;
    if (*kind == Variable::Kind::managed) k = *kind;
    return true;
  }

  void finish() {
    for (const clang::FunctionDecl* fd : m_kernels) add_kernel(*fd, nullptr);
    for (const clang::FunctionTemplateDecl* t : m_templates) add_kernel(*t->getTemplatedDecl(), t);
    for (const clang::VarDecl* vd : m_variable_order) add_variable(*vd, m_variable_kinds[vd]);
  }

private:
  template <typename T>
  static void remember(std::vector<const T*>& list, const T* decl) {
    if (std::find(list.begin(), list.end(), decl) == list.end()) list.push_back(decl);
  }

  // A definition of a host-only function in the user's files: such a source cannot go through NVRTC.
  void note_host_definition(const clang::FunctionDecl& fd) {
    if (m_output.host_definitions || !fd.doesThisDeclarationHaveABody() || fd.isImplicit() || fd.isDefaulted() ||
        fd.isDeleted() || fd.hasAttr<clang::CUDADeviceAttr>() || fd.hasAttr<clang::CUDAGlobalAttr>())
      return;
    if (const auto* m = llvm::dyn_cast<clang::CXXMethodDecl>(&fd); m && m->getParent()->isLambda()) return;
    if (m_facts.is_user(fd.getLocation())) m_output.host_definitions = true;
  }

  std::string source_text(clang::SourceRange range) const {
    const clang::CharSourceRange chars = clang::CharSourceRange::getTokenRange(range);
    return clang::Lexer::getSourceText(chars, m_context.getSourceManager(), m_context.getLangOpts()).str();
  }

  std::string expression_text(const clang::Expr* e) const {
    std::string text = source_text(e->getSourceRange());
    if (!text.empty()) return text;
    llvm::raw_string_ostream os(text);
    e->printPretty(os, nullptr, m_context.getPrintingPolicy());
    return text;
  }

  std::optional<std::string> default_text(const clang::TemplateArgumentLoc& arg) const {
    std::string text = source_text(arg.getSourceRange());
    if (text.empty()) {
      llvm::raw_string_ostream os(text);
      arg.getArgument().print(m_context.getPrintingPolicy(), os, true);
    }
    return text;
  }

  TemplateParameter template_parameter(const clang::NamedDecl& p) const {
    TemplateParameter out;
    out.name = p.getName().str();
    if (const auto* t = llvm::dyn_cast<clang::TemplateTypeParmDecl>(&p)) {
      out.kind = TemplateParameter::Kind::type;
      out.pack = t->isParameterPack();
      if (t->hasDefaultArgument()) out.default_argument = default_text(t->getDefaultArgument());
    } else if (const auto* n = llvm::dyn_cast<clang::NonTypeTemplateParmDecl>(&p)) {
      out.kind = TemplateParameter::Kind::non_type;
      out.type = n->getType().getAsString(m_context.getPrintingPolicy());
      out.pack = n->isParameterPack();
      if (n->hasDefaultArgument()) out.default_argument = default_text(n->getDefaultArgument());
    } else if (const auto* tt = llvm::dyn_cast<clang::TemplateTemplateParmDecl>(&p)) {
      out.kind = TemplateParameter::Kind::template_template;
      out.pack = tt->isParameterPack();
      if (tt->hasDefaultArgument()) out.default_argument = default_text(tt->getDefaultArgument());
    }
    return out;
  }

  void add_kernel(const clang::FunctionDecl& any, const clang::FunctionTemplateDecl* tmpl) {
    const clang::FunctionDecl* definition = any.getDefinition();
    const clang::FunctionDecl& shown = definition ? *definition : *any.getCanonicalDecl();
    if (!m_facts.is_user(shown.getLocation())) return;
    Kernel k;
    k.qualified_name = qualified_name(tmpl ? static_cast<const clang::NamedDecl&>(*tmpl) : shown);
    for (const clang::ParmVarDecl* p : shown.parameters())
      k.parameters.push_back({p->getName().str(), p->getType().getAsString(m_context.getPrintingPolicy())});
    if (tmpl) {
      const clang::FunctionTemplateDecl* shown_template = shown.getDescribedFunctionTemplate();
      for (const clang::NamedDecl* p : *(shown_template ? shown_template : tmpl)->getTemplateParameters())
        k.template_parameters.push_back(template_parameter(*p));
    }
    k.is_template = tmpl != nullptr;
    k.extern_c = shown.isExternC();
    k.internal_linkage = !shown.isExternallyVisible();
    if (const auto* bounds = shown.getAttr<clang::CUDALaunchBoundsAttr>()) {
      std::string text = expression_text(bounds->getMaxThreads());
      if (const clang::Expr* min_blocks = bounds->getMinBlocks()) text += ", " + expression_text(min_blocks);
      if (const clang::Expr* max_blocks = bounds->getMaxBlocks()) text += ", " + expression_text(max_blocks);
      k.launch_bounds = text;
    }
    k.defined = definition != nullptr;
    k.location = m_facts.location(shown.getLocation());
    m_output.found.kernels.push_back(std::move(k));
    if (tmpl) add_explicit_instantiations(*tmpl);
  }

  void add_explicit_instantiations(const clang::FunctionTemplateDecl& tmpl) {
    for (const clang::FunctionDecl* spec : tmpl.specializations()) {
      const clang::TemplateSpecializationKind kind = spec->getTemplateSpecializationKind();
      clang::SourceLocation where;
      FoundBy found_by;
      if (kind == clang::TSK_ExplicitInstantiationDefinition) {
        where = spec->getPointOfInstantiation();
        found_by = FoundBy::explicit_instantiation;
      } else if (kind == clang::TSK_ExplicitSpecialization) {
        const clang::FunctionDecl* definition = spec->getDefinition();
        where = (definition ? definition : spec)->getLocation();
        found_by = FoundBy::explicit_specialization;
      } else {
        continue;   // implicit: the references walk finds what caused it
      }
      const Result<std::string> name = name_expression(*spec);
      if (!name) {
        m_output.found.diagnostics.push_back({Diagnostic::Severity::warning, m_facts.location(where),
                                              "an instantiation of '" + qualified_name(tmpl) +
                                                  "' cannot be named in an NVRTC name expression: " +
                                                  name.error().message});
        continue;
      }
      m_output.found.instantiations.push_back(
          {qualified_name(tmpl), *name, found_by, m_facts.location(where), symbol_form(*spec),
           mangled_name(*spec)});
    }
  }

  void add_variable(const clang::VarDecl& canonical, Variable::Kind kind) {
    const clang::VarDecl* definition = canonical.getDefinition();
    const clang::VarDecl& shown = definition ? *definition : canonical;
    if (!m_facts.is_user(shown.getLocation())) return;
    m_output.found.variables.push_back({qualified_name(shown), kind,
                                        shown.getType().getAsString(m_context.getPrintingPolicy()),
                                        !shown.hasExternalFormalLinkage(), m_facts.location(shown.getLocation())});
  }

  void read_probe(const clang::VarDecl& vd) {
    ProbeResult probe;
    // No exceptions here: they would unwind through clang, which is built without them.
    if (vd.getName().substr(k_probe_prefix.size()).getAsInteger(10, probe.index)) return;
    const clang::Expr* init = vd.getInit() ? vd.getInit()->IgnoreParenImpCasts() : nullptr;
    const auto* address = llvm::dyn_cast_or_null<clang::UnaryOperator>(init);
    const auto* ref = address ? llvm::dyn_cast<clang::DeclRefExpr>(address->getSubExpr()->IgnoreParenImpCasts())
                              : nullptr;
    const auto* fd = ref ? llvm::dyn_cast<clang::FunctionDecl>(ref->getDecl()) : nullptr;
    if (!fd || !fd->hasAttr<clang::CUDAGlobalAttr>()) {
      probe.why_not = "it does not name a kernel";
    } else if (const clang::FunctionTemplateDecl* primary = fd->getPrimaryTemplate()) {
      probe.kernel = qualified_name(*primary);
      if (Result<std::string> named = name_expression(*fd)) probe.name_expression = std::move(*named);
      else probe.why_not = std::move(named).error().message;
      probe.symbol_form = symbol_form(*fd);
      probe.mangled_name = mangled_name(*fd);
    } else {
      probe.kernel = qualified_name(*fd);
      probe.why_not = "it names a kernel that is not a template";
    }
    m_output.probes.push_back(std::move(probe));
  }

  clang::ASTContext& m_context;
  const SourceFacts& m_facts;
  const ParseJob& m_job;
  ParseOutput& m_output;
  std::vector<const clang::FunctionDecl*> m_kernels;
  std::vector<const clang::FunctionTemplateDecl*> m_templates;
  std::vector<const clang::VarDecl*> m_variable_order;
  std::map<const clang::VarDecl*, Variable::Kind> m_variable_kinds;
};

}  // namespace

void collect_declarations(clang::ASTContext& context, const SourceFacts& facts, const ParseJob& job,
                          ParseOutput& output) {
  DeclarationVisitor visitor(context, facts, job, output);
  visitor.TraverseDecl(context.getTranslationUnitDecl());
  visitor.finish();
}

}  // namespace kiln::scan::detail
