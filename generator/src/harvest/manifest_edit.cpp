#include "harvest/manifest_edit.hpp"

#include "harvest/fragment_writer.hpp"
#include "manifest/paths.hpp"

#include <toml++/toml.h>

#include <algorithm>
#include <map>

namespace kiln::harvest {

namespace {

// toml++'s positions count lines and code points from 1; the byte offset of one in `text`.
std::size_t offset_of(std::string_view text, const toml::source_position& at) {
  std::size_t offset = 0;
  for (std::uint32_t line = 1; line < at.line && offset < text.size(); ++line) {
    const std::size_t newline = text.find('\n', offset);
    if (newline == std::string_view::npos) return text.size();
    offset = newline + 1;
  }
  for (std::uint32_t column = 1; column < at.column && offset < text.size(); ++column) {
    ++offset;   // past a code point's lead byte and its continuation bytes
    while (offset < text.size() && (static_cast<unsigned char>(text[offset]) & 0xC0) == 0x80) ++offset;
  }
  return offset;
}

struct Insertion {
  std::size_t offset;
  std::string text;
};

Error error_at(std::string_view path, const toml::source_position& at, std::string message) {
  return fail(KILN_STATUS_INVALID_ARGUMENT, std::move(message),
              Location{std::string(path), static_cast<int>(at.line), static_cast<int>(at.column), {}, {}});
}

// Lines of "  # from ...\n  \"name\",\n" for one source's names.
std::string entries(const std::vector<const HarvestedName*>& names, std::string_view newline) {
  std::string text;
  for (const HarvestedName* name : names)
    text += "  " + origin_comment(*name) + std::string(newline) + "  " + toml_string(name->expression) + "," +
            std::string(newline);
  return text;
}

// Where the names go in an existing `instantiate` array, and what goes there.
std::vector<Insertion> into_array(std::string_view text, const toml::array& array,
                                  const std::vector<const HarvestedName*>& names, std::string_view newline) {
  std::vector<Insertion> insertions;
  const std::size_t close = offset_of(text, array.source().end) - 1;   // the ']': the end is one past it
  if (!array.empty()) {
    // Only blanks, a comma and comments stand between the last element and the ']'.
    const std::size_t last = offset_of(text, array.back().source().end);
    bool comma = false;
    for (std::size_t i = last; i < close; ++i) {
      if (text[i] == ',') comma = true;
      if (text[i] == '#') i = text.find('\n', i);
    }
    if (!comma) insertions.push_back({last, ","});
  }
  const std::size_t line_start = text.rfind('\n', close) == std::string_view::npos ? 0 : text.rfind('\n', close) + 1;
  const bool alone = std::all_of(text.begin() + static_cast<std::ptrdiff_t>(line_start),
                                 text.begin() + static_cast<std::ptrdiff_t>(close), [](char c) { return c == ' ' || c == '\t'; });
  // A ']' on a line of its own keeps it; one after the elements gets the names on lines before it.
  if (alone) insertions.push_back({line_start, entries(names, newline)});
  else insertions.push_back({close, std::string(newline) + entries(names, newline)});
  return insertions;
}

}  // namespace

Result<std::string> add_to_manifest(std::string_view text, std::string_view path,
                                    const std::vector<HarvestedName>& names) {
  toml::table document;
  try {
    document = toml::parse(text, path);
  } catch (const toml::parse_error& error) {
    return error_at(path, error.source().begin, std::string(error.description()));
  }
  const std::string newline = text.find("\r\n") != std::string_view::npos ? "\r\n" : "\n";
  std::map<std::string, std::vector<const HarvestedName*>> by_source;
  for (const HarvestedName& name : names) by_source[name.source].push_back(&name);
  const toml::array* sources = document["source"].as_array();
  std::vector<Insertion> insertions;
  for (const auto& [source, its_names] : by_source) {
    // The first [[source]] of the path without a variant, else the first (fragment_reader.cpp's choice).
    const toml::table* chosen = nullptr;
    for (std::size_t i = 0; sources && i < sources->size(); ++i) {
      const toml::table* table = sources->get(i)->as_table();
      const std::optional<std::string> given = table ? (*table)["path"].value<std::string>() : std::nullopt;
      if (!given || manifest::detail::normalize_relative(*given) != source) continue;
      if (!chosen) chosen = table;
      if (!table->contains("variant")) {
        chosen = table;
        break;
      }
    }
    if (!chosen) return Error{std::string(path) + ": no [[source]] has path '" + source + "'"};
    if (chosen->is_inline()) {
      return error_at(path, chosen->source().begin,
                      "the source '" + source + "' is an inline table, which cannot take a comment per name: "
                      "write a fragment (-o FILE) and build with --add FILE");
    }
    if (const toml::node* instantiate = chosen->get("instantiate")) {
      const toml::array* array = instantiate->as_array();
      if (!array)
        return error_at(path, instantiate->source().begin, "'instantiate' of '" + source + "' is not an array");
      std::vector<Insertion> more = into_array(text, *array, its_names, newline);
      insertions.insert(insertions.end(), more.begin(), more.end());
    } else {
      // After the path's line: "instantiate = [" with the names, then "]".
      const std::size_t after = offset_of(text, chosen->get("path")->source().end);
      const std::size_t newline_at = text.find('\n', after);
      const std::size_t line_end = newline_at == std::string_view::npos ? text.size() : newline_at + 1;
      std::string block = newline_at == std::string_view::npos ? newline : "";
      block += "instantiate = [" + newline + entries(its_names, newline) + "]" + newline;
      insertions.push_back({line_end, std::move(block)});
    }
  }
  // From the end, so that every offset still points where it did; of two at one offset the later
  // goes in first, so that the text reads in the order the insertions were made.
  std::reverse(insertions.begin(), insertions.end());
  std::stable_sort(insertions.begin(), insertions.end(),
                   [](const Insertion& a, const Insertion& b) { return a.offset > b.offset; });
  std::string edited(text);
  for (const Insertion& insertion : insertions) edited.insert(insertion.offset, insertion.text);
  try {
    (void)toml::parse(edited, path);
  } catch (const toml::parse_error& error) {
    return Error{std::string(path) + ": the edited manifest would not parse (" + std::string(error.description()) +
                 "); nothing written: write a fragment (-o FILE) and build with --add FILE"};
  }
  return edited;
}

}  // namespace kiln::harvest
