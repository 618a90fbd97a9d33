#include "writer/package_contents.hpp"

#include <string>

namespace kiln::format {

namespace {

std::string text(std::string_view view) { return std::string(view); }

Status read_units(const PackageReader& reader, PackageContents& out) {
  for (std::uint32_t u = 0; u < reader.unit_count(); ++u) {
    const UnitView view = reader.unit(u);
    PackageUnit unit{text(view.source), {}};
    const UnitKind kind = reader.unit_kind(u);
    if (kind != UnitKind::source) {
      for (const std::string_view source : reader.unit_sources(u)) unit.sources.push_back(text(source));
      unit.variant = kind == UnitKind::variant;
    }
    for (std::uint32_t i = 0; i < view.image_count; ++i) {
      const ImageView image = reader.image(view.first_image + i);
      Result<std::vector<std::byte>> bytes = reader.read_image(image.index);
      if (!bytes) return std::move(bytes).error();
      unit.images.push_back(PackageImage{text(reader.target(image.target).name), std::move(*bytes), image.ptx_version});
    }
    out.units.push_back(std::move(unit));
  }
  return {};
}

void read_kernels(const PackageReader& reader, PackageContents& out) {
  for (std::uint32_t k = 0; k < reader.kernel_count(); ++k) {
    const KernelView view = reader.kernel(k);
    PackageKernel kernel;
    kernel.lowered_name = text(view.stored_name);
    kernel.canonical_name = text(view.canonical_name);
    kernel.unit_source = text(reader.unit(view.unit).source);
    kernel.flags = view.flags;
    if ((view.flags & k_kernel_params_known) != 0) {
      for (std::uint32_t p = 0; p < view.param_count; ++p) kernel.params.push_back(view.param(p));
    }
    if (!reader.kernel_in_every_image(k)) {
      for (const std::uint32_t t : reader.kernel_targets(k)) kernel.targets.push_back(text(reader.target(t).name));
    }
    out.kernels.push_back(std::move(kernel));
  }
  // The writer adds every kernel's lowered and canonical names itself; the rest are aliases.
  for (std::uint32_t n = 0; n < reader.name_count(); ++n) {
    const NameView name = reader.name(n);
    out.kernels[name.kernel].names.push_back(text(name.name));
  }
}

Status read_carried(const PackageReader& reader, PackageContents& out) {
  const auto file = [&](const CarriedEntryView& entry, PackageCarriedFile& into) -> Status {
    into.path = text(entry.value);
    Result<std::string> read = reader.read_source_text(entry.text);
    if (!read) return std::move(read).error();
    into.text = std::move(*read);
    return {};
  };
  for (std::uint32_t c = 0; c < reader.carried_unit_count(); ++c) {
    const CarriedUnitView view = reader.carried_unit(c);
    PackageCarriedUnit unit;
    unit.unit_source = text(reader.unit(view.unit).source);
    unit.nvrtc_version = text(view.nvrtc_version);
    for (std::uint32_t e = view.first_entry; e < view.first_entry + view.entry_count; ++e) {
      const CarriedEntryView entry = reader.carried_entry(e);
      Status read;
      switch (entry.kind) {
        case CarriedEntryKind::source: read = file(entry, unit.source); break;
        case CarriedEntryKind::header: read = file(entry, unit.headers.emplace_back()); break;
        case CarriedEntryKind::include_dir: unit.include_dirs.push_back(text(entry.value)); break;
        case CarriedEntryKind::option: unit.options.push_back(text(entry.value)); break;
        case CarriedEntryKind::link_option: unit.link_options.push_back(text(entry.value)); break;
        case CarriedEntryKind::kernel_template: unit.kernel_templates.push_back(text(entry.value)); break;
      }
      KILN_TRY(read);
    }
    out.carried.push_back(std::move(unit));
  }
  return {};
}

}  // namespace

Result<PackageContents> read_contents(const PackageReader& reader) {
  PackageContents out;
  for (std::uint32_t t = 0; t < reader.target_count(); ++t) out.targets.push_back(text(reader.target(t).name));
  KILN_TRY(read_units(reader, out));
  read_kernels(reader, out);
  for (std::uint32_t v = 0; v < reader.variable_count(); ++v) {
    const VariableView view = reader.variable(v);
    out.variables.push_back(PackageVariable{text(view.name), text(view.lowered_name),
                                            text(reader.unit(view.unit).source), view.kind, view.size});
  }
  for (std::uint32_t s = 0; s < reader.source_count(); ++s) {
    const SourceView view = reader.source(s);
    out.sources.push_back(PackageSource{text(view.path), view.role, view.content_hash});
  }
  for (std::uint32_t m = 0; m < reader.metadata_count(); ++m) {
    const MetadataView view = reader.metadata(m);
    out.metadata.emplace_back(text(view.key), text(view.value));
  }
  KILN_TRY(read_carried(reader, out));
  return out;
}

bool any_image_compressed(const PackageReader& reader) {
  for (std::uint32_t i = 0; i < reader.image_count(); ++i) {
    if (reader.image(i).encoding == ImageEncoding::zstd) return true;
  }
  return false;
}

}  // namespace kiln::format
