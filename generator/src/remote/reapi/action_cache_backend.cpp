#include "remote/reapi/action_cache_backend.hpp"

#include "remote/entry_signing.hpp"
#include "remote/reapi/digests.hpp"
#include "store/size_spec.hpp"

#include <algorithm>

namespace kiln::remote::reapi {

namespace {

Reply::Kind reply_kind(Outcome::Kind kind) {
  switch (kind) {
    case Outcome::Kind::ok: return Reply::Kind::found;
    case Outcome::Kind::not_found: return Reply::Kind::absent;
    case Outcome::Kind::unreachable: return Reply::Kind::unreachable;
    case Outcome::Kind::failed: break;
  }
  return Reply::Kind::failed;
}

Reply reply_of(const Outcome& outcome) {
  Reply reply;
  reply.kind = reply_kind(outcome.kind);
  reply.message = outcome.message;
  return reply;
}

class ActionCacheBackend final : public RemoteBackend {
public:
  ActionCacheBackend(std::unique_ptr<CacheService> service, const RemoteSettings& settings)
      : m_service(std::move(service)), m_settings(settings) {}

  Reply get(std::string_view key, std::chrono::milliseconds limit) override {
    if (limit.count() <= 0) return out_of_time();
    const Deadline deadline = deadline_of(limit);
    std::vector<OutputFile> files;
    if (const Outcome asked = m_service->get_action_result(action_digest(key), files, deadline); !asked.ok())
      return reply_of(asked);
    const auto entry = entry_file(files);
    if (entry == files.end()) return failed("the action result of entry " + std::string(key) + " has no file " +
                                            std::string(k_entry_path));
    const Digest blob = entry->digest;
    if (!valid_digest(blob, static_cast<std::int64_t>(k_max_remote_entry_size)))
      return failed("the action result of entry " + std::string(key) + " names blob " + shown(blob) +
                    (blob.size > static_cast<std::int64_t>(k_max_remote_entry_size)
                         ? ", larger than any entry (at most " + store::format_size(k_max_remote_entry_size) + ")"
                         : ", not a SHA-256 digest") +
                    "; refused");
    Reply reply;
    if (const Outcome read = m_service->read_blob(blob, reply.bytes, deadline); !read.ok()) return reply_of(read);
    if (const Digest got = digest_of(reply.bytes); !(got == blob))
      return failed("the blob " + shown(blob) + " of entry " + std::string(key) + " does not match its digest (" +
                    std::to_string(got.size) + " bytes, SHA-256 " + got.hash.substr(0, 16) + "...); ignored");
    reply.kind = Reply::Kind::found;
    return reply;
  }

  Reply put(std::string_view key, std::span<const std::byte> value, bool only_if_missing,
            std::chrono::milliseconds limit) override {
    if (limit.count() <= 0) return out_of_time();
    const Deadline deadline = deadline_of(limit);
    const KeyAction action = key_action(key);
    if (only_if_missing) {
      std::vector<OutputFile> files;
      const Outcome asked = m_service->get_action_result(action.action.digest, files, deadline);
      if (!asked.ok() && asked.kind != Outcome::Kind::not_found) return reply_of(asked);
      // A result is left as it is while the CAS has its blob; one whose blob is gone (the spec asks
      // servers to drop such results, and not all do) would be a miss for every build: replaced.
      if (asked.ok()) {
        const auto entry = entry_file(files);
        bool gone = entry == files.end();
        if (!gone) {
          std::vector<Digest> missing;
          if (const Outcome found = m_service->find_missing({&entry->digest, 1}, missing, deadline); !found.ok())
            return reply_of(found);
          gone = !missing.empty();
        }
        if (!gone) return stored();
      }
    }
    // The entry's blob, and the Action and Command the spec asks for before the result: those the
    // CAS lacks, in one batch call where they fit together.
    const BlobToWrite blobs[] = {{digest_of(value), value},
                                 {action.command.digest, action.command.bytes},
                                 {action.action.digest, action.action.bytes}};
    const Digest digests[] = {blobs[0].digest, blobs[1].digest, blobs[2].digest};
    std::vector<Digest> missing;
    if (const Outcome found = m_service->find_missing(digests, missing, deadline); !found.ok()) return reply_of(found);
    std::vector<BlobToWrite> to_write;
    for (const BlobToWrite& blob : blobs)
      if (std::find(missing.begin(), missing.end(), blob.digest) != missing.end()) to_write.push_back(blob);
    if (!to_write.empty()) {
      if (const Outcome written = m_service->write_blobs(to_write, deadline); !written.ok()) return reply_of(written);
    }
    if (const Outcome updated = m_service->update_action_result(action.action.digest, blobs[0].digest, deadline);
        !updated.ok())
      return reply_of(updated);
    return stored();
  }

private:
  static std::vector<OutputFile>::const_iterator entry_file(const std::vector<OutputFile>& files) {
    return std::find_if(files.begin(), files.end(), [](const OutputFile& f) { return f.path == k_entry_path; });
  }

  Deadline deadline_of(std::chrono::milliseconds limit) const {
    return std::chrono::steady_clock::now() + std::min(limit, m_settings.timeout);
  }

  static std::string shown(const Digest& blob) { return server_text(blob.hash, 64) + "/" + std::to_string(blob.size); }

  Reply failed(const std::string& why) const {
    Reply reply;
    reply.kind = Reply::Kind::failed;
    reply.message = why + " (" + m_settings.shown_url + ")";
    return reply;
  }

  Reply out_of_time() const {
    Reply reply;
    reply.kind = Reply::Kind::unreachable;
    reply.message = "timed out (" + m_settings.shown_url + ")";
    return reply;
  }

  static Reply stored() {
    Reply reply;
    reply.kind = Reply::Kind::found;
    return reply;
  }

  std::unique_ptr<CacheService> m_service;
  RemoteSettings m_settings;
};

}  // namespace

std::unique_ptr<RemoteBackend> make_action_cache_backend(std::unique_ptr<CacheService> service,
                                                         const RemoteSettings& settings) {
  return std::make_unique<ActionCacheBackend>(std::move(service), settings);
}

}  // namespace kiln::remote::reapi
