#include "scan/ast_names.hpp"

#include "scan/compile_args.hpp"

#include <clang/AST/ASTContext.h>
#include <clang/AST/Attr.h>
#include <clang/AST/Decl.h>
#include <clang/AST/DeclCXX.h>
#include <clang/AST/DeclTemplate.h>
#include <clang/AST/GlobalDecl.h>
#include <clang/AST/Mangle.h>
#include <clang/AST/PrettyPrinter.h>
#include <clang/Basic/SourceManager.h>
#include <llvm/ADT/SmallString.h>
#include <llvm/Support/raw_ostream.h>

#include <algorithm>
#include <memory>
#include <system_error>

namespace kiln::scan::detail {

namespace fs = std::filesystem;

namespace {

bool path_under(std::string_view path, const fs::path& root) {
  if (root.empty()) return false;
  const std::string r = root.lexically_normal().string();
  const std::string p = fs::path(path).lexically_normal().string();
  const std::string prefix = r.back() == '/' ? r : r + "/";
  return p.rfind(prefix, 0) == 0;
}

clang::PrintingPolicy name_policy(const clang::ASTContext& context) {
  clang::PrintingPolicy p(context.getLangOpts());
  p.SuppressTagKeyword = true;
  p.SuppressUnwrittenScope = true;        // anonymous namespaces; inline ones go when unambiguous
  p.SuppressDefaultTemplateArgs = false;  // spell every argument, as the mangled name does
  p.PrintCanonicalTypes = true;
  p.SplitTemplateClosers = false;
  p.Bool = true;
  return p;
}

std::string printed_name(const clang::NamedDecl& decl, const clang::PrintingPolicy& policy) {
  std::string out;
  llvm::raw_string_ostream os(out);
  decl.printQualifiedName(os, policy);
  return out;
}

class ArgumentPrinter {
public:
  // `enum_values`: enumerators as "(Enum)value", as a demangler spells them, rather than by name.
  explicit ArgumentPrinter(const clang::ASTContext& context, bool enum_values = false)
      : m_policy(name_policy(context)), m_enum_values(enum_values) {}

  // Appends the spelling of `arg` (a pack appends each element) to `out`; false if it has none.
  bool print(const clang::TemplateArgument& arg, bool typed, std::vector<std::string>& out) {
    using K = clang::TemplateArgument::ArgKind;
    switch (arg.getKind()) {
      case K::Pack:
        for (const clang::TemplateArgument& element : arg.pack_elements())
          if (!print(element, typed, out)) return false;
        return true;
      case K::Type: {
        const clang::QualType type = arg.getAsType().getCanonicalType();
        if (!nameable(type, 0)) return false;
        out.push_back(type.getAsString(m_policy));
        return true;
      }
      case K::Integral: out.push_back(integral(arg.getAsIntegral(), arg.getIntegralType(), typed)); return true;
      case K::NullPtr: out.push_back("nullptr"); return true;
      case K::Declaration: {
        const clang::ValueDecl* decl = arg.getAsDecl();
        if (llvm::isa<clang::TemplateParamObjectDecl>(decl)) return fail("a class-type value");
        const bool reference = arg.getParamTypeForDecl()->isReferenceType();
        out.push_back((reference ? "" : "&") + printed_name(*decl, m_policy));
        return true;
      }
      case K::Template:
      case K::TemplateExpansion:
        if (const clang::TemplateDecl* t = arg.getAsTemplateOrTemplatePattern().getAsTemplateDecl()) {
          out.push_back(printed_name(*t, m_policy));
          return true;
        }
        return fail("a dependent template");
      default: return fail("a value clang cannot spell as source");
    }
  }

  const std::string& why_not() const { return m_why_not; }

private:
  bool fail(std::string why) {
    m_why_not = "an argument is " + std::move(why);
    return false;
  }

  // Whether `type` can be written in a name expression at global scope.
  bool nameable(clang::QualType type, int depth) {
    if (depth > 64) return true;
    const clang::Type* t = type.getCanonicalType().getTypePtr();
    if (const auto* p = llvm::dyn_cast<clang::PointerType>(t)) return nameable(p->getPointeeType(), depth + 1);
    if (const auto* r = llvm::dyn_cast<clang::ReferenceType>(t)) return nameable(r->getPointeeType(), depth + 1);
    if (const auto* a = llvm::dyn_cast<clang::ArrayType>(t)) return nameable(a->getElementType(), depth + 1);
    if (const auto* m = llvm::dyn_cast<clang::MemberPointerType>(t))
      return nameable(m->getPointeeType(), depth + 1) && nameable(clang::QualType(m->getClass(), 0), depth + 1);
    if (const auto* f = llvm::dyn_cast<clang::FunctionProtoType>(t)) {
      if (!nameable(f->getReturnType(), depth + 1)) return false;
      return std::all_of(f->param_type_begin(), f->param_type_end(),
                         [&](clang::QualType p) { return nameable(p, depth + 1); });
    }
    const auto* tag = llvm::dyn_cast<clang::TagType>(t);
    if (!tag) return true;
    const clang::TagDecl* decl = tag->getDecl();
    if (const auto* record = llvm::dyn_cast<clang::CXXRecordDecl>(decl); record && record->isLambda())
      return fail("a lambda's type");
    if (!decl->getIdentifier() && !decl->getTypedefNameForAnonDecl()) return fail("an unnamed type");
    if (decl->getParentFunctionOrMethod()) return fail("a type local to a function");
    if (const auto* spec = llvm::dyn_cast<clang::ClassTemplateSpecializationDecl>(decl)) {
      for (const clang::TemplateArgument& a : spec->getTemplateArgs().asArray()) {
        std::vector<std::string> ignored;
        if (!print(a, false, ignored)) return false;
      }
    }
    return true;
  }

  std::string integral(const llvm::APSInt& value, clang::QualType type, bool typed) {
    if (type->isBooleanType()) return value.getBoolValue() ? "true" : "false";
    llvm::SmallString<32> digits;
    value.toString(digits, 10);
    const std::string number(digits.str());
    const std::string type_name = type.getCanonicalType().getAsString(m_policy);
    if (const auto* e = type->getAs<clang::EnumType>()) {
      if (m_enum_values) return "(" + type_name + ")" + number;
      for (const clang::EnumConstantDecl* c : e->getDecl()->enumerators())
        if (llvm::APSInt::isSameValue(c->getInitVal(), value)) return printed_name(*c, m_policy);
      return "static_cast<" + type_name + ">(" + number + ")";
    }
    // A parameter of deduced type (`auto N`) takes the argument's type from its spelling.
    if (typed) {
      const auto* builtin = type->getAs<clang::BuiltinType>();
      switch (builtin ? builtin->getKind() : clang::BuiltinType::Void) {
        case clang::BuiltinType::Int: return number;
        case clang::BuiltinType::UInt: return number + "u";
        case clang::BuiltinType::Long: return number + "l";
        case clang::BuiltinType::ULong: return number + "ul";
        case clang::BuiltinType::LongLong: return number + "ll";
        case clang::BuiltinType::ULongLong: return number + "ull";
        default: return "static_cast<" + type_name + ">(" + number + ")";
      }
    }
    // Decimal literals above LLONG_MAX have no signed type to take.
    if (value.isUnsigned() && value.getActiveBits() > 63) return number + "u";
    return number;
  }

  clang::PrintingPolicy m_policy;
  bool m_enum_values = false;
  std::string m_why_not;
};

// The name of `specialization` with each argument as `printer` spells it; the error says why not.
Result<std::string> spelled(const clang::FunctionDecl& specialization, ArgumentPrinter& printer) {
  const clang::FunctionTemplateDecl* primary = specialization.getPrimaryTemplate();
  const clang::TemplateArgumentList* args = specialization.getTemplateSpecializationArgs();
  if (!primary || !args) return fail(KILN_STATUS_INVALID_ARGUMENT, "not a template specialization");
  const clang::TemplateParameterList* parameters = primary->getTemplateParameters();
  std::vector<std::string> arguments;
  for (unsigned i = 0; i < args->size(); ++i) {
    bool typed = false;
    if (i < parameters->size())
      if (const auto* p = llvm::dyn_cast<clang::NonTypeTemplateParmDecl>(parameters->getParam(i)))
        typed = p->getType()->getContainedDeducedType() != nullptr;
    if (!printer.print(args->get(i), typed, arguments)) return fail(KILN_STATUS_INVALID_ARGUMENT, printer.why_not());
  }
  std::string out = printed_name(*primary, name_policy(specialization.getASTContext())) + "<";
  for (std::size_t i = 0; i < arguments.size(); ++i) out += (i ? ", " : "") + arguments[i];
  return out + ">";
}

}  // namespace

SourceFacts::SourceFacts(const clang::SourceManager& sources, const fs::path& cuda_root)
    : m_sources(sources), m_cuda_root(cuda_root) {
  std::error_code ec;
  m_cuda_root_canonical = fs::weakly_canonical(cuda_root, ec);
}

bool SourceFacts::is_user(clang::SourceLocation loc) const {
  if (loc.isInvalid()) return false;
  return is_user_file(m_sources.getFileID(m_sources.getFileLoc(loc)));
}

bool SourceFacts::is_user_file(clang::FileID file) const {
  if (file.isInvalid()) return false;
  auto [it, inserted] = m_user.try_emplace(file.getHashValue(), false);
  if (!inserted) return it->second;
  const clang::SrcMgr::SLocEntry& entry = m_sources.getSLocEntry(file);
  if (!entry.isFile() || clang::SrcMgr::isSystem(entry.getFile().getFileCharacteristic())) return false;
  const clang::OptionalFileEntryRef ref = m_sources.getFileEntryRefForID(file);
  if (!ref) return false;
  const llvm::StringRef real = ref->getFileEntry().tryGetRealPathName();
  it->second = is_user_path(std::string_view(ref->getName().data(), ref->getName().size()),
                            std::string_view(real.data(), real.size()), false);
  return it->second;
}

bool SourceFacts::is_user_path(std::string_view name, std::string_view real_path, bool system) const {
  return !system && name.rfind(k_support_dir, 0) != 0 && !path_under(name, m_cuda_root) &&
         !(!real_path.empty() && path_under(real_path, m_cuda_root_canonical));
}

Location SourceFacts::location(clang::SourceLocation loc) const {
  if (loc.isInvalid()) return {};
  const clang::PresumedLoc p = m_sources.getPresumedLoc(m_sources.getFileLoc(loc));
  if (p.isInvalid()) return {};
  return place(p.getFilename(), static_cast<int>(p.getLine()), static_cast<int>(p.getColumn()));
}

std::string qualified_name(const clang::NamedDecl& decl) { return decl.getQualifiedNameAsString(); }

Result<std::string> name_expression(const clang::FunctionDecl& specialization) {
  ArgumentPrinter printer(specialization.getASTContext());
  return spelled(specialization, printer);
}

std::string symbol_form(const clang::FunctionDecl& specialization) {
  ArgumentPrinter readable(specialization.getASTContext()), valued(specialization.getASTContext(), true);
  const Result<std::string> name = spelled(specialization, readable);
  const Result<std::string> symbol = spelled(specialization, valued);
  return name && symbol && *name != *symbol ? *symbol : std::string();
}

std::string mangled_name(const clang::FunctionDecl& kernel) {
  if (!kernel.hasAttr<clang::CUDAGlobalAttr>()) return "";
  const std::unique_ptr<clang::MangleContext> mangler(kernel.getASTContext().createMangleContext());
  if (!mangler->shouldMangleDeclName(&kernel)) return "";
  std::string out;
  llvm::raw_string_ostream os(out);
  mangler->mangleName(clang::GlobalDecl(&kernel, clang::KernelReferenceKind::Kernel), os);
  return out;
}

}  // namespace kiln::scan::detail
