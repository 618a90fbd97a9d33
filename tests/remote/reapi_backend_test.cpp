// The REAPI backend's use of the action cache and the CAS (reapi/action_cache_backend.hpp) against a
// server in memory, and the names and choices of reapi/digests.hpp. The calls themselves, over gRPC
// to a real server: tests/remote/test_reapi_cache.py.
#include "remote/entry_signing.hpp"
#include "remote/reapi/action_cache_backend.hpp"
#include "remote/reapi/cache_service.hpp"
#include "remote/reapi/digests.hpp"
#include "remote/reapi/proto/remote_execution.pb.h"

#include <gtest/gtest.h>

#include <algorithm>

#include <map>
#include <set>

namespace kiln::remote::reapi {
namespace {

std::vector<std::byte> bytes_of(std::string_view text) {
  const auto* begin = reinterpret_cast<const std::byte*>(text.data());
  return {begin, begin + text.size()};
}

const std::string k_key = "0123456789abcdef0123456789abcdef";

namespace rex = build::bazel::remote::execution::v2;

std::string text_of(const std::vector<std::byte>& bytes) {
  return {reinterpret_cast<const char*>(bytes.data()), bytes.size()};
}

std::string hex_of(const std::vector<std::byte>& bytes) {
  std::string hex;
  for (const std::byte b : bytes) {
    hex += "0123456789abcdef"[std::to_integer<int>(b) >> 4];
    hex += "0123456789abcdef"[std::to_integer<int>(b) & 15];
  }
  return hex;
}

Digest digest_in(const rex::Digest& digest) { return {digest.hash(), digest.size_bytes()}; }

// A REAPI cache in memory that records the calls made to it, and can be told to fail one kind of call.
class MemoryCacheService final : public CacheService {
public:
  std::map<std::string, std::vector<OutputFile>> results;   // by action hash
  std::map<std::string, std::vector<std::byte>> blobs;      // by blob hash
  std::vector<std::string> calls;                          // "get", "update", "find", "read", "write"
  std::vector<std::vector<Digest>> found;                  // what each find asked about
  std::vector<std::vector<Digest>> written;                // what each write stored
  std::map<std::string, Outcome> failing;                  // a call's name -> what it answers instead
  Deadline last_deadline{};

  Outcome get_action_result(const Digest& action, std::vector<OutputFile>& files, Deadline deadline) override {
    if (std::optional<Outcome> early = enter("get", deadline)) return *early;
    const auto it = results.find(action.hash);
    if (it == results.end()) return {Outcome::Kind::not_found, "NOT_FOUND from ActionCache.GetActionResult"};
    files = it->second;
    return {};
  }
  Outcome update_action_result(const Digest& action, const Digest& blob, Deadline deadline) override {
    if (std::optional<Outcome> early = enter("update", deadline)) return *early;
    results[action.hash] = {OutputFile{std::string(k_entry_path), blob}};
    return {};
  }
  Outcome find_missing(std::span<const Digest> asked, std::vector<Digest>& missing, Deadline deadline) override {
    if (std::optional<Outcome> early = enter("find", deadline)) return *early;
    found.emplace_back(asked.begin(), asked.end());
    for (const Digest& blob : asked)
      if (!blobs.count(blob.hash)) missing.push_back(blob);
    return {};
  }
  Outcome read_blob(const Digest& blob, std::vector<std::byte>& bytes, Deadline deadline) override {
    if (std::optional<Outcome> early = enter("read", deadline)) return *early;
    const auto it = blobs.find(blob.hash);
    if (it == blobs.end()) return {Outcome::Kind::not_found, "NOT_FOUND from ContentAddressableStorage.BatchReadBlobs"};
    bytes = it->second;
    return {};
  }
  Outcome write_blobs(std::span<const BlobToWrite> stored, Deadline deadline) override {
    if (std::optional<Outcome> early = enter("write", deadline)) return *early;
    written.emplace_back();
    for (const BlobToWrite& blob : stored) {
      blobs[blob.digest.hash].assign(blob.bytes.begin(), blob.bytes.end());
      written.back().push_back(blob.digest);
    }
    return {};
  }

private:
  std::optional<Outcome> enter(const std::string& call, Deadline deadline) {
    calls.push_back(call);
    last_deadline = deadline;
    if (const auto it = failing.find(call); it != failing.end()) return it->second;
    return std::nullopt;
  }
};

struct Fixture {
  MemoryCacheService* server = nullptr;
  std::unique_ptr<RemoteBackend> backend;

  Fixture() {
    RemoteSettings settings;
    settings.shown_url = "grpc://cache.example:9092/main";
    settings.timeout = std::chrono::milliseconds(5000);
    auto service = std::make_unique<MemoryCacheService>();
    server = service.get();
    backend = make_action_cache_backend(std::move(service), settings);
  }
};

constexpr std::chrono::milliseconds k_limit{2000};

TEST(ReapiDigests, Sha256) {
  EXPECT_EQ(digest_of(bytes_of("abc")),
            (Digest{"ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad", 3}));
  EXPECT_EQ(digest_of({}), (Digest{"e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855", 0}));
}

// The bytes are written on servers: these must never change (digests.hpp). The golden values are
// Python's protobuf (BuildGrid's messages, SerializeToString(deterministic=True)) and hashlib.
TEST(ReapiDigests, TheActionOfAKeyIsStable) {
  const KeyAction action = key_action(k_key);
  EXPECT_EQ(hex_of(action.command.bytes),
            "0a0a6b696c6e2d656e7472790a01310a2030313233343536373839616263646566303132333435363738396162636465663a0a6b69"
            "6c6e2d656e747279");
  EXPECT_EQ(action.command.digest,
            (Digest{"c414f4e99aa38dae7a775506713c7929b6c1e004d7931b7122dd0cfddffa0b59", 61}));
  EXPECT_EQ(action.action.digest,
            (Digest{"a687bdcb634c65fb15793fd3e89376f2c5e69358cd9684d7d766ae4175948a40", 138}));
  EXPECT_EQ(action_digest(k_key), action.action.digest);
  EXPECT_EQ(digest_of(action.action.bytes), action.action.digest);
  EXPECT_EQ(digest_of(action.command.bytes), action.command.digest);
  // The same every time; another key, another action.
  EXPECT_EQ(key_action(k_key).action.bytes, action.action.bytes);
  EXPECT_NE(action_digest("fedcba9876543210fedcba9876543210"), action.action.digest);
}

TEST(ReapiDigests, TheActionDecodesToWhatDigestsHppSays) {
  const KeyAction action = key_action(k_key);
  rex::Action decoded;
  ASSERT_TRUE(decoded.ParseFromString(text_of(action.action.bytes)));
  EXPECT_EQ(digest_in(decoded.command_digest()), action.command.digest);
  EXPECT_EQ(digest_in(decoded.input_root_digest()), digest_of({}));   // the empty Directory
  // Nothing else: the message of these fields alone is the same bytes (a field this .proto leaves
  // out would have been kept as unknown by the parse, and be missing here).
  rex::Action only;
  *only.mutable_command_digest() = decoded.command_digest();
  *only.mutable_input_root_digest() = decoded.input_root_digest();
  EXPECT_EQ(only.SerializeAsString(), text_of(action.action.bytes));

  rex::Command command;
  ASSERT_TRUE(command.ParseFromString(text_of(action.command.bytes)));
  EXPECT_EQ(std::vector<std::string>(command.arguments().begin(), command.arguments().end()),
            (std::vector<std::string>{"kiln-entry", "1", k_key}));
  EXPECT_EQ(std::vector<std::string>(command.output_paths().begin(), command.output_paths().end()),
            (std::vector<std::string>{"kiln-entry"}));
  rex::Command command_only;
  *command_only.mutable_arguments() = command.arguments();
  *command_only.mutable_output_paths() = command.output_paths();
  EXPECT_EQ(command_only.SerializeAsString(), text_of(action.command.bytes));
}

TEST(ReapiDigests, WhatCountsAsADigest) {
  const Digest good = digest_of(bytes_of("x"));
  EXPECT_TRUE(valid_digest(good, 1));
  EXPECT_FALSE(valid_digest(good, 0));   // larger than allowed
  Digest upper = good;
  for (char& c : upper.hash) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  EXPECT_FALSE(valid_digest(upper, 10));
  EXPECT_FALSE(valid_digest({good.hash.substr(1), 1}, 10));
  EXPECT_FALSE(valid_digest({good.hash, -1}, 10));
  EXPECT_FALSE(valid_digest({"../" + good.hash.substr(3), 1}, 10));
}

TEST(ReapiDigests, BatchOrByteStreamBySize) {
  const std::int64_t most = k_default_batch_limit - k_batch_overhead;
  // A server without a limit of its own: gRPC's 4 MiB message.
  EXPECT_TRUE(fits_in_batch(most, 0, 0));
  EXPECT_FALSE(fits_in_batch(most + 1, 0, 0));
  EXPECT_FALSE(fits_in_batch(most, 0, 4));   // the instance name travels in the call too
  EXPECT_FALSE(fits_in_batch(most + 1, -5, 0));
  // A server's smaller limit holds; a larger one is capped at 4 MiB.
  EXPECT_TRUE(fits_in_batch(16 * 1024 - k_batch_overhead, 16 * 1024, 0));
  EXPECT_FALSE(fits_in_batch(16 * 1024 - k_batch_overhead + 1, 16 * 1024, 0));
  EXPECT_FALSE(fits_in_batch(most + 1, std::int64_t{64} << 20, 0));
  EXPECT_FALSE(fits_in_batch(static_cast<std::int64_t>(k_max_remote_entry_size), 0, 0));
}

TEST(ReapiDigests, TheBlobsOfOneBatchCall) {
  const std::int64_t most = k_default_batch_limit - k_batch_overhead;
  using Sizes = std::vector<std::int64_t>;
  using Indices = std::vector<std::size_t>;
  // A put's three blobs: all in one call while they fit together.
  EXPECT_EQ(batched_blobs(Sizes{1000, 61, 138}, 0, 0), (Indices{0, 1, 2}));
  EXPECT_EQ(batched_blobs(Sizes{most - 199, 61, 138}, 0, 0), (Indices{0, 1, 2}));
  // The largest goes by byte stream when it fits alone but not with the others; the smallest first.
  EXPECT_EQ(batched_blobs(Sizes{most - 198, 61, 138}, 0, 0), (Indices{1, 2}));
  EXPECT_EQ(batched_blobs(Sizes{61, most, 138}, 0, 0), (Indices{0, 2}));
  EXPECT_EQ(batched_blobs(Sizes{2000, 61, 138}, 3072, 2), (Indices{1, 2}));
  EXPECT_EQ(batched_blobs(Sizes{1800, 61, 138}, 3072, 2), (Indices{0, 1, 2}));
  EXPECT_EQ(batched_blobs(Sizes{most + 1}, 0, 0), Indices{});
  EXPECT_EQ(batched_blobs(Sizes{}, 0, 0), Indices{});
  EXPECT_EQ(batched_blobs(Sizes{0, 0}, 0, 0), (Indices{0, 1}));
}

TEST(ReapiDigests, ByteStreamResourceNames) {
  const Digest blob = digest_of(bytes_of("abc"));
  EXPECT_EQ(read_resource("main", blob), "main/blobs/" + blob.hash + "/3");
  EXPECT_EQ(read_resource("", blob), "blobs/" + blob.hash + "/3");
  EXPECT_EQ(read_resource("a/b", blob), "a/b/blobs/" + blob.hash + "/3");
  EXPECT_EQ(write_resource("main", "u-1", blob), "main/uploads/u-1/blobs/" + blob.hash + "/3");
  EXPECT_EQ(write_resource("", "u-1", blob), "uploads/u-1/blobs/" + blob.hash + "/3");
}

TEST(ReapiDigests, UploadIdsAreVersion4Uuids) {
  std::set<std::string> seen;
  for (int i = 0; i < 64; ++i) {
    const std::string id = new_upload_id();
    ASSERT_EQ(id.size(), 36u) << id;
    for (const std::size_t dash : {8, 13, 18, 23}) EXPECT_EQ(id[dash], '-') << id;
    EXPECT_EQ(id[14], '4') << id;
    EXPECT_NE(std::string("89ab").find(id[19]), std::string::npos) << id;
    seen.insert(id);
  }
  EXPECT_EQ(seen.size(), 64u);
}

TEST(ReapiBackend, PutStoresTheBlobBeforeTheResultThatNamesIt) {
  Fixture f;
  const std::vector<std::byte> entry = bytes_of("an entry's bytes");
  const Reply put = f.backend->put(k_key, entry, true, k_limit);
  ASSERT_EQ(put.kind, Reply::Kind::found) << put.message;
  EXPECT_EQ(f.server->calls, (std::vector<std::string>{"get", "find", "write", "update"}));
  const Digest blob = digest_of(entry);
  EXPECT_EQ(f.server->blobs.at(blob.hash), entry);
  // One FindMissingBlobs for the entry, the Command and the Action; one write for the three.
  const KeyAction action = key_action(k_key);
  const std::vector<Digest> three{blob, action.command.digest, action.action.digest};
  EXPECT_EQ(f.server->found, std::vector<std::vector<Digest>>{three});
  EXPECT_EQ(f.server->written, std::vector<std::vector<Digest>>{three});
  EXPECT_EQ(f.server->blobs.size(), 3u);
  // What the server holds, read as a server would: the result's action is an Action in the CAS,
  // whose Command is in the CAS and names the entry.
  rex::Action stored_action;
  ASSERT_TRUE(stored_action.ParseFromString(text_of(f.server->blobs.at(action_digest(k_key).hash))));
  const Digest command_digest = digest_in(stored_action.command_digest());
  rex::Command stored_command;
  ASSERT_TRUE(stored_command.ParseFromString(text_of(f.server->blobs.at(command_digest.hash))));
  EXPECT_EQ(digest_of(f.server->blobs.at(command_digest.hash)), command_digest);
  ASSERT_EQ(stored_command.arguments_size(), 3);
  EXPECT_EQ(stored_command.arguments(2), k_key);
  EXPECT_EQ(stored_command.output_paths(0), "kiln-entry");
  const std::vector<OutputFile>& files = f.server->results.at(action_digest(k_key).hash);
  ASSERT_EQ(files.size(), 1u);
  EXPECT_EQ(files[0].path, "kiln-entry");
  EXPECT_EQ(files[0].digest, blob);

  f.server->calls.clear();
  const Reply got = f.backend->get(k_key, k_limit);
  ASSERT_EQ(got.kind, Reply::Kind::found) << got.message;
  EXPECT_EQ(got.bytes, entry);
  EXPECT_EQ(f.server->calls, (std::vector<std::string>{"get", "read"}));
}

TEST(ReapiBackend, AnEntryThatIsThereIsLeftAlone) {
  Fixture f;
  ASSERT_EQ(f.backend->put(k_key, bytes_of("first"), true, k_limit).kind, Reply::Kind::found);
  f.server->calls.clear();
  EXPECT_EQ(f.backend->put(k_key, bytes_of("second"), true, k_limit).kind, Reply::Kind::found);
  EXPECT_EQ(f.server->calls, (std::vector<std::string>{"get", "find"}));   // the result, and its blob
  EXPECT_EQ(f.backend->get(k_key, k_limit).bytes, bytes_of("first"));
  // Not only if missing (a damaged entry is replaced): the result is written again.
  f.server->calls.clear();
  EXPECT_EQ(f.backend->put(k_key, bytes_of("second"), false, k_limit).kind, Reply::Kind::found);
  EXPECT_EQ(f.server->calls, (std::vector<std::string>{"find", "write", "update"}));
  EXPECT_EQ(f.backend->get(k_key, k_limit).bytes, bytes_of("second"));
}

TEST(ReapiBackend, AResultWhoseBlobIsGoneIsReplaced) {
  Fixture f;
  const std::vector<std::byte> entry = bytes_of("an entry");
  ASSERT_EQ(f.backend->put(k_key, entry, true, k_limit).kind, Reply::Kind::found);
  f.server->blobs.clear();   // the CAS dropped the blob, the action cache kept the result
  EXPECT_EQ(f.backend->get(k_key, k_limit).kind, Reply::Kind::absent);
  f.server->calls.clear();
  EXPECT_EQ(f.backend->put(k_key, entry, true, k_limit).kind, Reply::Kind::found);
  EXPECT_EQ(f.server->calls, (std::vector<std::string>{"get", "find", "find", "write", "update"}));
  EXPECT_EQ(f.backend->get(k_key, k_limit).bytes, entry);
  // A result without Kiln's file is replaced too.
  f.server->results[action_digest(k_key).hash] = {OutputFile{"other", digest_of(entry)}};
  f.server->calls.clear();
  EXPECT_EQ(f.backend->put(k_key, entry, true, k_limit).kind, Reply::Kind::found);
  EXPECT_EQ(f.server->calls, (std::vector<std::string>{"get", "find", "update"}));
  EXPECT_EQ(f.server->results.at(action_digest(k_key).hash)[0].path, "kiln-entry");
}

TEST(ReapiBackend, ABlobTheServerHasIsNotSentAgain) {
  Fixture f;
  const std::vector<std::byte> entry = bytes_of("shared bytes");
  f.server->blobs[digest_of(entry).hash] = entry;
  ASSERT_EQ(f.backend->put(k_key, entry, true, k_limit).kind, Reply::Kind::found);
  EXPECT_EQ(f.server->calls, (std::vector<std::string>{"get", "find", "write", "update"}));
  const KeyAction action = key_action(k_key);
  EXPECT_EQ(f.server->written,
            (std::vector<std::vector<Digest>>{{action.command.digest, action.action.digest}}));
  // All three there (a result written again): no write at all.
  f.server->calls.clear();
  ASSERT_EQ(f.backend->put(k_key, entry, false, k_limit).kind, Reply::Kind::found);
  EXPECT_EQ(f.server->calls, (std::vector<std::string>{"find", "update"}));
  EXPECT_EQ(f.server->written.size(), 1u);
}

TEST(ReapiBackend, NoResultOrNoBlobIsAbsent) {
  Fixture f;
  EXPECT_EQ(f.backend->get(k_key, k_limit).kind, Reply::Kind::absent);
  // A result whose blob the CAS lost.
  f.server->results[action_digest(k_key).hash] = {OutputFile{"kiln-entry", digest_of(bytes_of("gone"))}};
  EXPECT_EQ(f.backend->get(k_key, k_limit).kind, Reply::Kind::absent);
}

TEST(ReapiBackend, BytesThatDoNotMatchTheirDigestAreNeverAnEntry) {
  Fixture f;
  const std::vector<std::byte> entry = bytes_of("the bytes stored");
  ASSERT_EQ(f.backend->put(k_key, entry, true, k_limit).kind, Reply::Kind::found);
  f.server->blobs[digest_of(entry).hash] = bytes_of("THE bytes stored");   // changed on the server
  const Reply got = f.backend->get(k_key, k_limit);
  EXPECT_EQ(got.kind, Reply::Kind::failed);
  EXPECT_TRUE(got.bytes.empty());
  EXPECT_NE(got.message.find("the blob " + digest_of(entry).hash + "/16 of entry " + k_key + " does not match its digest"),
            std::string::npos)
      << got.message;
  EXPECT_NE(got.message.find("(grpc://cache.example:9092/main)"), std::string::npos) << got.message;
  // Fewer bytes than the digest says, or more: the same.
  f.server->blobs[digest_of(entry).hash] = bytes_of("the bytes");
  EXPECT_EQ(f.backend->get(k_key, k_limit).kind, Reply::Kind::failed);
}

TEST(ReapiBackend, AResultKilnDidNotWriteIsRefusedUnread) {
  Fixture f;
  const std::string action = action_digest(k_key).hash;
  const Digest good = digest_of(bytes_of("x"));
  f.server->results[action] = {OutputFile{"other-file", good}};
  Reply got = f.backend->get(k_key, k_limit);
  EXPECT_EQ(got.kind, Reply::Kind::failed);
  EXPECT_NE(got.message.find("has no file kiln-entry"), std::string::npos) << got.message;

  const auto huge = static_cast<std::int64_t>(k_max_remote_entry_size) + 1;
  f.server->results[action] = {OutputFile{"kiln-entry", {good.hash, huge}}};
  f.server->calls.clear();
  got = f.backend->get(k_key, k_limit);
  EXPECT_EQ(got.kind, Reply::Kind::failed);
  EXPECT_NE(got.message.find("larger than any entry"), std::string::npos) << got.message;
  EXPECT_EQ(f.server->calls, (std::vector<std::string>{"get"}));   // the blob is never asked for

  f.server->results[action] = {OutputFile{"kiln-entry", {"not\na\x01hash", 1}}};
  got = f.backend->get(k_key, k_limit);
  EXPECT_EQ(got.kind, Reply::Kind::failed);
  EXPECT_NE(got.message.find("not?a?hash/1, not a SHA-256 digest"), std::string::npos) << got.message;
}

TEST(ReapiBackend, WhatACallAnswersIsTheReply) {
  for (const auto& [kind, expected] : {std::pair{Outcome::Kind::unreachable, Reply::Kind::unreachable},
                                       std::pair{Outcome::Kind::failed, Reply::Kind::failed}}) {
    Fixture f;
    f.server->failing["get"] = {kind, "PERMISSION_DENIED from ActionCache.GetActionResult: no (grpc://x)"};
    const Reply got = f.backend->get(k_key, k_limit);
    EXPECT_EQ(got.kind, expected);
    EXPECT_EQ(got.message, "PERMISSION_DENIED from ActionCache.GetActionResult: no (grpc://x)");
    // A put stops at the first call that fails, and never names a blob it did not store.
    for (const char* call : {"find", "write", "update"}) {
      Fixture g;
      g.server->failing[call] = {kind, std::string("no ") + call};
      const Reply put = g.backend->put(k_key, bytes_of("v"), true, k_limit);
      EXPECT_EQ(put.kind, expected) << call;
      EXPECT_EQ(put.message, std::string("no ") + call);
      EXPECT_EQ(g.server->calls.back(), call);
      EXPECT_TRUE(g.server->results.empty()) << call;
    }
  }
}

TEST(ReapiBackend, EveryCallHasTheRequestsDeadline) {
  Fixture f;
  const auto before = std::chrono::steady_clock::now();
  (void)f.backend->get(k_key, std::chrono::milliseconds(300));
  EXPECT_LE(f.server->last_deadline, std::chrono::steady_clock::now() + std::chrono::milliseconds(300));
  EXPECT_GE(f.server->last_deadline, before + std::chrono::milliseconds(300));
  // Never past the settings' timeout (5 s here), whatever the limit.
  (void)f.backend->get(k_key, std::chrono::milliseconds(600000));
  EXPECT_LE(f.server->last_deadline, std::chrono::steady_clock::now() + std::chrono::milliseconds(5000));
  // No time left: nothing is asked.
  f.server->calls.clear();
  EXPECT_EQ(f.backend->get(k_key, std::chrono::milliseconds(0)).kind, Reply::Kind::unreachable);
  EXPECT_EQ(f.backend->put(k_key, bytes_of("v"), true, std::chrono::milliseconds(-1)).kind, Reply::Kind::unreachable);
  EXPECT_TRUE(f.server->calls.empty());
}

}  // namespace
}  // namespace kiln::remote::reapi
