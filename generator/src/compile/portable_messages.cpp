#include "compile/portable_messages.hpp"

namespace kiln::compile {

namespace {

// A link group's job has no prefix of its own: its messages are its members'.
const std::string& display_prefix_of(const CompileJob& job) {
  return job.members.empty() ? job.display_prefix : job.members.front().display_prefix;
}

void replace_all(std::string& text, std::string_view from, std::string_view to) {
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size()))
    text.replace(at, from.size(), to);
}

}  // namespace

CompileJob with_display_token(const CompileJob& job) {
  CompileJob portable = job;
  // The manifest entry's file is the prefix and the manifest's path when the path is relative.
  if (!job.manifest_file.starts_with('/') && job.manifest_entry.file.starts_with(job.display_prefix))
    portable.manifest_entry.file = std::string(k_display_token) + job.manifest_entry.file.substr(job.display_prefix.size());
  if (job.members.empty()) portable.display_prefix = k_display_token;
  for (CompileJob& member : portable.members) member = with_display_token(member);
  return portable;
}

std::string portable_log(const std::string& log, const NamedRoots& roots) { return roots.tokenize_text(log); }

std::string rendered_log(const std::string& portable, const CompileJob& job, const NamedRoots& roots) {
  std::string log = roots.expand_text(portable);
  replace_all(log, k_display_token, display_prefix_of(job));
  return log;
}

std::string portable_context(const CompileJob& job, const NamedRoots& roots) {
  // The manifest's path (relative to the root, or absolute: one kiln_add_cache generated), and the
  // line of the entry.
  std::string context = roots.tokenize(job.manifest_file) + ":" +
                        std::to_string(job.manifest_entry.line) + "\n";
  for (const Origin& o : job.expression_origins)
    context += roots.tokenize(o.file) + ":" + std::to_string(o.line) + ":" + std::to_string(o.column) +
               (o.label.empty() ? "" : " " + o.label) + "\n";
  for (const CompileJob& member : job.members) context += portable_context(member, roots);
  return context;
}

}  // namespace kiln::compile
