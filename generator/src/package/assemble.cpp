#include "package/assemble.hpp"

#include "format/checksum.hpp"
#include "format/names.hpp"
#include "package/carried_sources.hpp"
#include "package/kernel_names.hpp"
#include "package/unit_kernels.hpp"
#include "package/unit_names.hpp"
#include "util/diagnostic.hpp"
#include "util/file_io.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace kiln::package {

namespace fs = std::filesystem;

namespace {

struct KernelEntry {
  format::PackageKernel kernel;
  std::string unit_display;            // for messages
  std::string source_of_unit;          // source and variant of a one-source unit: its image parts share them
};

std::string source_of_unit(const plan::PlannedUnit& unit) {
  return unit.members.empty() ? unit.source + '\n' + unit.variant : std::string();
}

struct NameClaim {
  std::string lowered;
  std::string unit_display;
  bool explicit_name;                  // asked for in the manifest (an error to clash), not derived
  bool plain_alias = false;            // a variant's kernel by its name without the variant
};

// A variable one unit can record: several units may offer the same name (a header's variable is
// one copy per unit), and resolve_variables() decides.
struct VariableOffer {
  format::PackageVariable variable;
  std::string unit_display;
  bool from_manifest;
};

// "prefix/file:line" as the user opens it; an absolute file (a generated manifest) without the prefix.
std::string where_from(const std::string& prefix, const plan::PlannedName& name) {
  return position_text(place((name.where.file.starts_with('/') ? "" : prefix) + name.where.file, name.where.line));
}

bool resolves_to(const ResolvedNames& resolved, const std::string& symbol) {
  for (const auto& [expression, lowered] : resolved.kernels)
    if (lowered == symbol) return true;
  return false;
}

std::string join(const std::vector<std::string>& parts, const char* separator) {
  std::string out;
  for (const std::string& p : parts) out += (out.empty() ? "" : separator) + p;
  return out;
}

class Assembler {
public:
  Assembler(const manifest::Manifest& manifest, const plan::BuildPlan& plan, const compile::Toolkit& toolkit,
            const AssembleSettings& settings)
      : m_manifest(manifest), m_plan(plan), m_toolkit(toolkit), m_settings(settings) {}

  Result<AssembledPackage> run(const std::vector<compile::CompileOutput>& outputs) {
    m_out.contents.targets = m_plan.targets;
    const std::size_t target_count = m_plan.targets.size();
    for (std::size_t u = 0; u < m_plan.sources.size(); ++u) {
      const plan::PlannedUnit& planned = m_plan.units[u];
      const std::string display = unit_display(planned);
      format::PackageUnit unit{planned.name, {}};
      for (const plan::PlannedUnit& member : planned.members) unit.sources.push_back(member.source);
      // An image part is recorded as a variant of its source (docs/package-format.md, "Image parts").
      if (!planned.variant.empty() || planned.part > 0) {
        unit.sources.push_back(planned.source);
        unit.variant = true;
      }
      std::vector<UnitImage> images;
      std::map<std::string, std::string> lowered;   // expression -> lowered, equal across targets
      std::set<std::string> headers;
      for (std::size_t t = 0; t < target_count; ++t) {
        const compile::CompileOutput& out = outputs[u * target_count + t];
        // A link group has no PTX image when the device runtime it needs cannot be PTX (link_group.hpp).
        if (!out.image.empty()) {
          unit.images.push_back({m_plan.targets[t], out.image, 0});
          images.push_back({m_plan.targets[t], out.image});
        }
        for (const compile::LoweredName& n : out.lowered_names) {
          auto [it, inserted] = lowered.emplace(n.expression, n.lowered);
          if (!inserted && it->second != n.lowered)
            return Error{display + ": '" + n.expression + "' names " + it->second + " for one target and " +
                         n.lowered + " for another"};
        }
        headers.insert(out.headers.begin(), out.headers.end());
      }
      Result<UnitContents> contents = read_unit(display, images);
      if (!contents) return contents.error();
      for (format::PackageImage& image : unit.images) {
        auto v = contents->ptx_versions.find(image.target);
        if (v != contents->ptx_versions.end()) image.ptx_version = v->second;
      }
      // The CUDA device runtime, linked into a group for dynamic parallelism, brings kernels of its
      // own (memcpy_3d_device<...>, internal to its cuda_device_runtime.cu): not the user's.
      if (!planned.members.empty())
        std::erase_if(contents->kernels, [](const auto& kernel) { return is_device_runtime_symbol(kernel.first); });
      // nvcc's whole-program cubins bind template instantiations globally; they are still one
      // kernel wherever they are instantiated, as NVRTC's weak ones are.
      if (planned.compiler == compile::Compiler::nvcc)
        for (auto& [name, kernel] : contents->kernels) kernel.weak = kernel.weak || is_template_instance(name);
      const ResolvedNames resolved = resolve_unit_names(planned, lowered, *contents);
      // A part after the first holds its own names' kernels; whatever else its images hold (the
      // source's plain kernels, where no link dropped them: family PTX, nvcc) is the first part's.
      if (planned.part > 0) std::erase_if(contents->kernels, [&](const auto& kernel) { return !resolves_to(resolved, kernel.first); });
      if (Status s = add_kernels(planned, display, *contents, resolved); !s) return s.error();
      if (Status s = add_variables(planned, display, *contents, resolved); !s) return s.error();
      if (planned.members.empty()) {
        if (Status s = add_sources(planned.source, headers); !s) return s.error();
      }
      if (planned.carry_sources) {
        if (Status s = carry_sources(planned, headers); !s) return s.error();
      }
      for (std::size_t m = 0; m < planned.members.size(); ++m) {
        // Headers are the group's together; recording them with the first member records them once.
        if (Status s = add_sources(planned.members[m].source, m == 0 ? headers : std::set<std::string>{}); !s)
          return s.error();
      }
      m_out.contents.units.push_back(std::move(unit));
    }
    if (Status s = resolve_names(); !s) return s.error();
    if (Status s = resolve_variables(); !s) return s.error();
    for (auto& [lowered, entry] : m_kernels) m_out.contents.kernels.push_back(std::move(entry.kernel));
    if (Status s = add_manifest_source(); !s) return s.error();
    add_toolkit_headers_record();
    add_metadata();
    return std::move(m_out);
  }

private:
  // How messages name a unit: its source, a variant with its source, or a link group with its own.
  std::string unit_display(const plan::PlannedUnit& unit) const {
    const std::string& prefix = m_settings.display_prefix;
    const std::string part = unit.part > 0 ? ", image part " + std::to_string(unit.part + 1) : "";
    if (!unit.variant.empty()) return prefix + unit.source + " (variant " + unit.variant + part + ")";
    if (unit.part > 0) return prefix + unit.source + " (image part " + std::to_string(unit.part + 1) + ")";
    if (unit.members.empty()) return prefix + unit.source;
    std::string sources;
    for (const plan::PlannedUnit& m : unit.members) sources += (sources.empty() ? "" : ", ") + prefix + m.source;
    return "link group '" + unit.name + "' (" + sources + ")";
  }

  // A warning of Kiln's about the package as a whole ("kiln: warning: ...").
  void warn(std::string message) { m_out.warnings.push_back({Location{}, std::move(message)}); }

  // A variant's kernels and variables are its own, kept apart from the same source's other
  // variants: stored and named "<variant>/<name>" (the package format's variant kernels).
  static std::string in_unit(const plan::PlannedUnit& unit, const std::string& name) {
    return unit.variant.empty() ? name : unit.variant + "/" + name;
  }

  Status add_kernels(const plan::PlannedUnit& unit, const std::string& display, const UnitContents& contents,
                     const ResolvedNames& resolved) {
    for (const plan::PlannedName& k : unit.kernels) {
      const auto it = resolved.kernels.find(k.expression);
      if (it != resolved.kernels.end() && contents.kernels.count(it->second)) continue;
      if (k.origin == plan::NameOrigin::manifest) {
        // At the `instantiate` entry that asked for it, where the user can fix it.
        const std::string file = (k.where.file.starts_with('/') ? "" : m_settings.display_prefix) + k.where.file;
        // A manifest string's column is its opening quote; the expression starts after it.
        const int column = k.where.column > 0 ? k.where.column + 1 : 0;
        // A kiln_add_cache() call's name says so with CMake's keyword for it (plan/listed_names.hpp).
        const std::string subject = k.where.label.empty() ? "'" + k.expression + "'" : k.where.label + ":";
        return Error(subject + " is not a kernel in the compiled images of " + display,
                     place(file, k.where.line, column), KILN_STATUS_KERNEL_NOT_FOUND);
      }
      warn(display + ": '" + k.expression + "' (from " + where_from(m_settings.display_prefix, k) +
           ") matches no kernel in the compiled images; it is not recorded");
    }
    for (const auto& [symbol, kernel] : contents.kernels) {
      const std::string name = in_unit(unit, symbol);   // the kernel's key: its symbol, in a variant prefixed
      auto existing = m_kernels.find(name);
      if (existing != m_kernels.end()) {
        // One template instantiation in several units is one kernel: keep the first unit's copy.
        if (kernel.weak && (existing->second.kernel.flags & format::k_kernel_template)) {
          add_names(unit, resolved, symbol, display);
          continue;
        }
        // So is a kernel two image parts of one source hold: one the source's text makes, which a part
        // names too where the scan did not see the text make it (the first part keeps every kernel).
        if (!existing->second.source_of_unit.empty() && existing->second.source_of_unit == source_of_unit(unit)) {
          add_names(unit, resolved, symbol, display);
          continue;
        }
        return Error{"kernel " + existing->second.kernel.canonical_name + " (" + symbol + ") is defined in both " +
                     existing->second.unit_display + " and " + display};
      }
      KernelEntry k;
      k.unit_display = display;
      k.source_of_unit = source_of_unit(unit);
      k.kernel.lowered_name = name;
      k.kernel.canonical_name = in_unit(unit, canonical_kernel_name(symbol));
      k.kernel.unit_source = unit.name;
      if (!unit.variant.empty()) {
        k.kernel.flags |= format::k_kernel_variant;
        // By its plain names too, where no other kernel has them (resolve_names decides, silently).
        claim(canonical_kernel_name(symbol), name, display, false, /*plain_alias=*/true);
        claim(symbol, name, display, false, /*plain_alias=*/true);
      }
      if (symbol.rfind("_Z", 0) != 0) k.kernel.flags |= format::k_kernel_extern_c;
      if (kernel.weak) k.kernel.flags |= format::k_kernel_template;
      if (kernel.params_known) {
        k.kernel.flags |= format::k_kernel_params_known;
        k.kernel.params = kernel.params;
      }
      if (kernel.targets.size() != m_plan.targets.size()) k.kernel.targets = kernel.targets;
      claim(k.kernel.canonical_name, name, display, false);
      claim(name, name, display, false);
      add_names(unit, resolved, symbol, display);
      m_kernels.emplace(name, std::move(k));
    }
    return Ok{};
  }

  // Every name the unit was asked for that resolved to `kernel` becomes its name.
  // `symbol` is the kernel's symbol in the unit's images; in a variant, names are prefixed.
  void add_names(const plan::PlannedUnit& unit, const ResolvedNames& resolved, const std::string& symbol,
                 const std::string& display) {
    const std::string kernel = in_unit(unit, symbol);
    for (const plan::PlannedName& k : unit.kernels) {
      auto it = resolved.kernels.find(k.expression);
      if (it == resolved.kernels.end() || it->second != symbol) continue;
      claim(in_unit(unit, k.expression), kernel, display, k.origin == plan::NameOrigin::manifest);
      for (const std::string& written : k.written) claim(in_unit(unit, written), kernel, display, false);
      if (unit.variant.empty()) continue;
      claim(k.expression, kernel, display, false, /*plain_alias=*/true);
      for (const std::string& written : k.written) claim(written, kernel, display, false, /*plain_alias=*/true);
    }
  }

  void claim(const std::string& name, const std::string& lowered, const std::string& display, bool explicit_name,
             bool plain_alias = false) {
    m_claims[format::normalize_name(name)].push_back({lowered, display, explicit_name, plain_alias});
  }

  // A name asked for in the manifest that means two kernels is an error; a derived (canonical) name
  // that two kernels share, e.g. two anonymous-namespace kernels in different units, is dropped with
  // a warning: those kernels stay reachable by their other names.
  Status resolve_names() {
    for (auto& [name, all_claims] : m_claims) {
      // A variant's plain alias yields to any other claim, and several such aliases to each other:
      // "scale<float>" of variants f32 and f64 is found only as "f32/..." and "f64/...".
      std::vector<NameClaim> claims;
      std::set<std::string> aliased;
      for (const NameClaim& c : all_claims) {
        if (c.plain_alias) aliased.insert(c.lowered);
        else claims.push_back(c);
      }
      if (claims.empty() && aliased.size() == 1) claims.push_back(all_claims.front());
      if (claims.empty()) continue;
      std::set<std::string> kernels;
      for (const NameClaim& c : claims) kernels.insert(c.lowered);
      if (kernels.size() == 1) {
        m_kernels.at(*kernels.begin()).kernel.names.push_back(name);
        continue;
      }
      std::vector<std::string> described;
      bool any_explicit = false;
      std::set<std::string> seen;
      for (const NameClaim& c : claims) {
        any_explicit = any_explicit || c.explicit_name;
        if (seen.insert(c.lowered).second) described.push_back(c.lowered + " (" + c.unit_display + ")");
      }
      if (any_explicit)
        return Error{"name '" + name + "' is claimed by different kernels: " + join(described, " and ")};
      warn("name '" + name + "' is ambiguous and is not recorded; it could mean " + join(described, " or "));
      // A kernel whose canonical spelling is the ambiguous name goes by its lowered name instead
      // (two unnamed-namespace kernels of one name, in two units).
      for (const std::string& lowered : kernels) {
        format::PackageKernel& kernel = m_kernels.at(lowered).kernel;
        if (format::normalize_name(kernel.canonical_name) == name) kernel.canonical_name = lowered;
      }
    }
    return Ok{};
  }

  Status add_variables(const plan::PlannedUnit& unit, const std::string& display, const UnitContents& contents,
                       const ResolvedNames& resolved) {
    // A unit the scan left unread: each variable its image holds, by its symbol's demangled name,
    // as the scan would have named the ones its source declares.
    if (unit.image_only) {
      for (const auto& [lowered, variable] : contents.variables) {
        const std::string name = image_variable_name(lowered);
        if (name.empty()) continue;
        const std::string recorded = in_unit(unit, name);
        m_variable_offers[format::normalize_name(recorded)].push_back(
            {{recorded, lowered, unit.name, variable.kind, variable.size}, display, false});
      }
    }
    for (const plan::PlannedName& v : unit.variables) {
      const auto name = resolved.variables.find(v.expression);
      const auto symbol = name == resolved.variables.end() ? contents.variables.end() : contents.variables.find(name->second);
      const bool from_manifest = v.origin == plan::NameOrigin::manifest;
      if (symbol == contents.variables.end()) {
        if (from_manifest) {
          // Where it is listed: the [[source]] entry, the top-level element or the kiln_add_cache() call.
          const std::string file = (v.where.file.starts_with('/') ? "" : m_settings.display_prefix) + v.where.file;
          const int column = v.where.column > 0 ? v.where.column + 1 : 0;
          return Error((v.where.label.empty() ? display + ": variable '" + v.expression + "'" : v.where.label + ":") +
                           " is not in the compiled images" + (v.where.label.empty() ? "" : " of " + display),
                       place(file, v.where.line, column));
        }
        warn(display + ": variable '" + v.expression + "' (" + where_from(m_settings.display_prefix, v) +
             ") is not in the compiled images; it is not recorded" +
             (v.managed && v.symbol.empty() ? " (NVRTC cannot keep a __managed__ variable of an unnamed namespace)"
                                            : ""));
        continue;
      }
      // The request's own spelling of an unnamed namespace is one more record of the same symbol.
      std::vector<std::string> spellings{v.expression};
      spellings.insert(spellings.end(), v.written.begin(), v.written.end());
      for (const std::string& spelling : spellings) {
        const std::string recorded = in_unit(unit, spelling);   // a variant's copy: "f64/table"
        m_variable_offers[format::normalize_name(recorded)].push_back(
            {{recorded, name->second, unit.name, symbol->second.kind, symbol->second.size}, display, from_manifest});
      }
    }
    return Ok{};
  }

  // A name the manifest lists for one unit is that unit's. A discovered one offered by several units
  // (a header's variable: each unit has its own copy) would be a guess, so none is recorded.
  Status resolve_variables() {
    for (auto& [key, offers] : m_variable_offers) {
      std::vector<const VariableOffer*> listed;
      std::set<std::string> units;
      for (const VariableOffer& o : offers) {
        if (o.from_manifest) listed.push_back(&o);
        units.insert(o.unit_display);
      }
      if (listed.size() > 1 && listed[0]->unit_display != listed[1]->unit_display)
        return Error{"variable '" + listed[0]->variable.name + "' is listed for both " + listed[0]->unit_display +
                     " and " + listed[1]->unit_display};
      if (!listed.empty()) {
        m_out.contents.variables.push_back(listed[0]->variable);
      } else if (units.size() == 1) {
        m_out.contents.variables.push_back(offers.front().variable);
      } else {
        std::vector<std::string> names(units.begin(), units.end());
        warn("variable '" + offers.front().variable.name + "' is declared in " + join(names, " and ") +
             ", each with its own copy; it is not recorded (list it under one source's 'variables')");
      }
    }
    return Ok{};
  }

  // The unit's sources for run-time compiles, or a warning at its manifest entry saying why not.
  Status carry_sources(const plan::PlannedUnit& planned, const std::set<std::string>& headers) {
    Result<CarriedOrWhy> carried = carry_unit_sources(planned, headers, m_manifest.root, m_toolkit, m_plan.roots);
    if (!carried) return carried.error();
    if (carried->carried) {
      m_out.contents.carried.push_back(std::move(*carried->carried));
      return Ok{};
    }
    const std::string what = planned.members.empty() ? "source '" + planned.source + "'" : "link group '" + planned.name + "'";
    m_out.warnings.push_back({place(m_manifest.path.string(), planned.manifest_line, planned.manifest_column),
                              what + " is not carried: " + carried->why_not +
                                  "; its kernels cannot be compiled at run time"});
    return Ok{};
  }

  // Records a file with its content hash, by a path that does not depend on where the tree is.
  Status record_file(const fs::path& absolute, std::string recorded, format::SourceRole role) {
    if (!m_recorded.insert(recorded).second) return Ok{};
    Result<std::vector<std::byte>> bytes = read_binary_file(absolute);
    if (!bytes) return bytes.error();
    m_out.contents.sources.push_back({recorded, role, format::checksum(*bytes)});
    m_out.inputs.push_back(fs::absolute(absolute).lexically_normal());
    return Ok{};
  }

  Status add_sources(const std::string& source, const std::set<std::string>& headers) {
    if (Status s = record_file(m_manifest.root / source, source, format::SourceRole::source); !s) return s;
    const fs::path root = fs::absolute(m_manifest.root).lexically_normal();
    for (const std::string& header : headers) {
      const fs::path path(header);
      const fs::path absolute = (path.is_absolute() ? path : root / path).lexically_normal();
      const std::string token = m_plan.roots.tokenize(absolute);
      if (token.rfind("<cuda>", 0) == 0) {
        if (Status s = record_toolkit_header(absolute, token); !s) return s;
        continue;
      }
      // Under the build directory or Kiln's include directory: by their names (a generated header
      // is the same file in every build directory); else relative to the root.
      const bool named = token.starts_with("<build>/") || token.starts_with("<kiln>/");
      const std::string recorded = named ? token : absolute.lexically_relative(root).generic_string();
      if (Status s = record_file(absolute, recorded, format::SourceRole::header); !s) return s;
    }
    return Ok{};
  }

  Status record_toolkit_header(const fs::path& absolute, const std::string& token) {
    if (m_toolkit_headers.count(token)) return Ok{};
    Result<std::vector<std::byte>> bytes = read_binary_file(absolute);
    if (!bytes) return bytes.error();
    m_toolkit_headers.emplace(token, format::checksum(*bytes));
    m_out.inputs.push_back(fs::absolute(absolute).lexically_normal());
    return Ok{};
  }

  // One record for all toolkit headers (layout.hpp, SourceRole::toolkit_headers).
  void add_toolkit_headers_record() {
    if (m_toolkit_headers.empty()) return;
    std::vector<std::byte> digest_input;
    for (const auto& [path, hash] : m_toolkit_headers) {
      for (char c : path) digest_input.push_back(static_cast<std::byte>(c));
      digest_input.push_back(std::byte{0});
      for (int i = 0; i < 8; ++i) digest_input.push_back(static_cast<std::byte>((hash >> (8 * i)) & 0xff));
    }
    m_out.contents.sources.push_back({"<cuda>", format::SourceRole::toolkit_headers, format::checksum(digest_input)});
  }

  Status add_manifest_source() {
    // The manifest itself, by its file name only: with `kiln build --root` it lies outside the root.
    return record_file(m_manifest.path, m_manifest.path.filename().generic_string(), format::SourceRole::manifest);
  }

  void add_metadata() {
    auto& meta = m_out.contents.metadata;
    meta.emplace_back("generator", "kiln");
    meta.emplace_back("generator.version", m_settings.generator_version);
    meta.emplace_back("nvrtc.version", m_toolkit.nvrtc_version());
    meta.emplace_back("nvjitlink.version", m_toolkit.nvjitlink_version());
    meta.emplace_back("package.name", m_manifest.name);
    meta.emplace_back("targets", join(m_plan.targets, " "));
    meta.emplace_back("toolkit.headers", std::to_string(m_toolkit_headers.size()));
    meta.emplace_back("options", join(m_plan.package_options, " "));
    for (const manifest::SourceEntry& s : m_manifest.sources) {
      std::vector<std::string> extra;
      for (const std::string& dir : s.include_dirs) extra.push_back("-I" + dir);
      for (const std::string& d : s.defines) extra.push_back("-D" + d);
      extra.insert(extra.end(), s.options.begin(), s.options.end());
      // By the unit's name where a variant has one: two variants of a file have options of their own.
      if (!extra.empty()) meta.emplace_back("options." + (s.variant.empty() ? s.path : s.variant), join(extra, " "));
    }
    for (const plan::PlannedUnit& unit : m_plan.units)
      if (!unit.members.empty()) meta.emplace_back("link_group." + unit.name, "-rdc=true");
  }

  const manifest::Manifest& m_manifest;
  const plan::BuildPlan& m_plan;
  const compile::Toolkit& m_toolkit;
  const AssembleSettings& m_settings;
  AssembledPackage m_out;
  std::map<std::string, KernelEntry> m_kernels;          // by lowered name
  std::map<std::string, std::vector<NameClaim>> m_claims;  // by normalized name
  std::map<std::string, std::vector<VariableOffer>> m_variable_offers;  // by normalized name
  std::set<std::string> m_recorded;
  std::map<std::string, std::uint64_t> m_toolkit_headers;   // "<cuda>/..." -> content hash, sorted
};

}  // namespace

Result<AssembledPackage> assemble(const manifest::Manifest& manifest, const plan::BuildPlan& plan,
                                  const std::vector<compile::CompileOutput>& outputs,
                                  const compile::Toolkit& toolkit, const AssembleSettings& settings) {
  if (outputs.size() != plan.jobs.size()) return Error{"internal error: outputs do not match the plan"};
  return Assembler(manifest, plan, toolkit, settings).run(outputs);
}

}  // namespace kiln::package
