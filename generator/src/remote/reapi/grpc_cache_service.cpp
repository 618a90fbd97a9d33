#include "remote/reapi/grpc_cache_service.hpp"

#include "remote/entry_signing.hpp"
#include "remote/reapi/digests.hpp"
#include "remote/reapi/proto/bytestream.grpc.pb.h"
#include "remote/reapi/proto/remote_execution.grpc.pb.h"

#include <grpc/compression.h>
#include <grpc/support/log.h>
#include <grpcpp/channel.h>
#include <grpcpp/client_context.h>
#include <grpcpp/create_channel.h>
#include <grpcpp/security/credentials.h>
#include <grpcpp/support/channel_arguments.h>

#include <algorithm>
#include <array>
#include <mutex>
#include <optional>

namespace kiln::remote::reapi {

namespace {

namespace rex = build::bazel::remote::execution::v2;
namespace bytestream = google::bytestream;
using Clock = std::chrono::steady_clock;

constexpr int k_max_small_answer = 64 << 10;
constexpr int k_max_batch_answer = static_cast<int>(k_default_batch_limit) + k_max_small_answer;
constexpr int k_max_any_answer = static_cast<int>(k_max_remote_entry_size) + k_max_small_answer;
// A byte stream write's chunk: well under the 4 MiB message any server takes.
constexpr std::size_t k_write_chunk = 1 << 20;

// Each method's largest answer (gRPC's service config), below the channel's limit: a list of small
// messages parses into far more memory than its bytes, so only the calls that carry a blob may be large.
std::string reapi_method_limits() {
  const std::string rex_service = "\"build.bazel.remote.execution.v2.";
  return "{\"methodConfig\": [{\"name\": [{\"service\": " + rex_service + "ActionCache\"}, {\"service\": " + rex_service +
         "Capabilities\"}, {\"service\": " + rex_service + "ContentAddressableStorage\", \"method\": \"FindMissingBlobs\"}, "
         "{\"service\": " + rex_service + "ContentAddressableStorage\", \"method\": \"BatchUpdateBlobs\"}, "
         "{\"service\": \"google.bytestream.ByteStream\", \"method\": \"Write\"}], \"maxResponseMessageBytes\": " +
         std::to_string(k_max_small_answer) + "}, {\"name\": [{\"service\": " + rex_service +
         "ContentAddressableStorage\", \"method\": \"BatchReadBlobs\"}], \"maxResponseMessageBytes\": " +
         std::to_string(k_max_batch_answer) + "}]}";
}

const char* reapi_code_name(int code) {
  static constexpr std::array<const char*, 17> names{
      "OK",           "CANCELLED",         "UNKNOWN",   "INVALID_ARGUMENT", "DEADLINE_EXCEEDED", "NOT_FOUND",
      "ALREADY_EXISTS", "PERMISSION_DENIED", "RESOURCE_EXHAUSTED", "FAILED_PRECONDITION", "ABORTED", "OUT_OF_RANGE",
      "UNIMPLEMENTED", "INTERNAL",         "UNAVAILABLE", "DATA_LOSS",       "UNAUTHENTICATED"};
  return code >= 0 && code < static_cast<int>(names.size()) ? names[static_cast<std::size_t>(code)] : "an unknown status";
}

rex::Digest proto_digest(const Digest& digest) {
  rex::Digest out;
  out.set_hash(digest.hash);
  out.set_size_bytes(digest.size);
  return out;
}

Digest plain_digest(const rex::Digest& digest) { return {digest.hash(), digest.size_bytes()}; }

std::chrono::system_clock::time_point grpc_deadline(Deadline deadline) {
  return std::chrono::system_clock::now() +
         std::chrono::duration_cast<std::chrono::system_clock::duration>(deadline - Clock::now());
}

class GrpcCacheService final : public CacheService {
public:
  GrpcCacheService(ReapiEndpoint endpoint, const RemoteSettings& settings, bool quiet)
      : m_endpoint(std::move(endpoint)), m_settings(settings), m_quiet(quiet) {}

  Outcome get_action_result(const Digest& action, std::vector<OutputFile>& files, Deadline deadline) override {
    if (Outcome connected = connect(deadline); !connected.ok()) return connected;
    grpc::ClientContext context;
    start(context, deadline);
    rex::GetActionResultRequest request;
    request.set_instance_name(m_endpoint.instance);
    *request.mutable_action_digest() = proto_digest(action);
    rex::ActionResult result;
    const Outcome outcome = outcome_of(m_actions->GetActionResult(&context, request, &result), "ActionCache.GetActionResult");
    for (const rex::OutputFile& file : result.output_files()) files.push_back({file.path(), plain_digest(file.digest())});
    return outcome;
  }

  Outcome update_action_result(const Digest& action, const Digest& blob, Deadline deadline) override {
    if (Outcome connected = connect(deadline); !connected.ok()) return connected;
    grpc::ClientContext context;
    start(context, deadline);
    rex::UpdateActionResultRequest request;
    request.set_instance_name(m_endpoint.instance);
    *request.mutable_action_digest() = proto_digest(action);
    rex::OutputFile* file = request.mutable_action_result()->add_output_files();
    file->set_path(std::string(k_entry_path));
    *file->mutable_digest() = proto_digest(blob);
    request.mutable_action_result()->set_exit_code(0);
    rex::ActionResult stored;
    return outcome_of(m_actions->UpdateActionResult(&context, request, &stored), "ActionCache.UpdateActionResult");
  }

  Outcome find_missing(std::span<const Digest> blobs, std::vector<Digest>& missing, Deadline deadline) override {
    if (Outcome connected = connect(deadline); !connected.ok()) return connected;
    grpc::ClientContext context;
    start(context, deadline);
    rex::FindMissingBlobsRequest request;
    request.set_instance_name(m_endpoint.instance);
    for (const Digest& blob : blobs) *request.add_blob_digests() = proto_digest(blob);
    rex::FindMissingBlobsResponse answer;
    const Outcome outcome =
        outcome_of(m_cas->FindMissingBlobs(&context, request, &answer), "ContentAddressableStorage.FindMissingBlobs");
    // Only what was asked, whatever else the server lists.
    for (const Digest& blob : blobs) {
      const auto listed = [&](const rex::Digest& digest) { return plain_digest(digest) == blob; };
      if (std::any_of(answer.missing_blob_digests().begin(), answer.missing_blob_digests().end(), listed))
        missing.push_back(blob);
    }
    return outcome;
  }

  Outcome read_blob(const Digest& blob, std::vector<std::byte>& bytes, Deadline deadline) override {
    if (Outcome connected = connect(deadline); !connected.ok()) return connected;
    if (Outcome asked = ask_batch_limit(deadline); !asked.ok()) return asked;
    return fits_in_batch(blob.size, *m_batch_limit, m_endpoint.instance.size()) ? batch_read(blob, bytes, deadline)
                                                                                : stream_read(blob, bytes, deadline);
  }

  Outcome write_blobs(std::span<const BlobToWrite> blobs, Deadline deadline) override {
    if (Outcome connected = connect(deadline); !connected.ok()) return connected;
    if (Outcome asked = ask_batch_limit(deadline); !asked.ok()) return asked;
    std::vector<std::int64_t> sizes;
    for (const BlobToWrite& blob : blobs) sizes.push_back(blob.digest.size);
    const std::vector<std::size_t> batched = batched_blobs(sizes, *m_batch_limit, m_endpoint.instance.size());
    std::vector<BlobToWrite> batch;
    for (const std::size_t i : batched) batch.push_back(blobs[i]);
    if (!batch.empty()) {
      if (Outcome written = batch_write(batch, deadline); !written.ok()) return written;
    }
    for (std::size_t i = 0; i < blobs.size(); ++i) {
      if (std::find(batched.begin(), batched.end(), i) != batched.end()) continue;
      if (Outcome written = stream_write(blobs[i].digest, blobs[i].bytes, deadline); !written.ok()) return written;
    }
    return {};
  }

private:
  // Opens the channel on first use, and waits until it is connected, at most the connect timeout. A
  // channel that failed to connect is left to the call, which fails at once and says why.
  Outcome connect(Deadline deadline) {
    if (Clock::now() >= deadline) return unreachable("timed out");
    if (!m_channel) open();
    const Deadline connect_deadline = std::min(deadline, Clock::now() + m_settings.connect_timeout);
    for (grpc_connectivity_state state = m_channel->GetState(true); state != GRPC_CHANNEL_READY;
         state = m_channel->GetState(true)) {
      if (state == GRPC_CHANNEL_TRANSIENT_FAILURE || state == GRPC_CHANNEL_SHUTDOWN) return {};
      if (!m_channel->WaitForStateChange(state, grpc_deadline(connect_deadline)))
        return unreachable(connect_deadline < deadline ? "cannot connect to " + m_endpoint.target + " within " +
                                                             std::to_string(m_settings.connect_timeout.count()) +
                                                             " ms (KILN_REMOTE_CACHE_CONNECT_TIMEOUT)"
                                                       : std::string("timed out connecting to ") + m_endpoint.target);
    }
    return {};
  }

  void open() {
    if (m_quiet) {
      static std::once_flag silenced;
      std::call_once(silenced, [] { gpr_set_log_function([](gpr_log_func_args*) {}); });
    }
    grpc::ChannelArguments arguments;
    arguments.SetMaxReceiveMessageSize(k_max_any_answer);
    // No compressed answers: gRPC (1.51) inflates a message whole before the size limit above is
    // checked, so a few MiB of gzip would become GiBs. Kiln offers identity alone, and a server that
    // compresses anyway is not inflated for: its message fails the call as it came (the call says
    // that gzip is disabled, or the bytes do not parse).
    arguments.SetInt(GRPC_COMPRESSION_CHANNEL_ENABLED_ALGORITHMS_BITSET, 1 << GRPC_COMPRESS_NONE);
    arguments.SetInt(GRPC_ARG_ENABLE_PER_MESSAGE_DECOMPRESSION, 0);
    arguments.SetServiceConfigJSON(reapi_method_limits());
    arguments.SetInt(GRPC_ARG_SERVICE_CONFIG_DISABLE_RESOLUTION, 1);   // no DNS TXT lookups for a config
    arguments.SetInt(GRPC_ARG_ENABLE_RETRIES, 0);                      // a failed call is the build's to judge
    arguments.SetUserAgentPrefix("kiln");
    std::shared_ptr<grpc::ChannelCredentials> credentials;
    if (m_endpoint.tls) {
      grpc::SslCredentialsOptions options;
      options.pem_root_certs = m_endpoint.root_certificates;
      credentials = grpc::SslCredentials(options);
    } else {
      credentials = grpc::InsecureChannelCredentials();
    }
    m_channel = grpc::CreateCustomChannel(m_endpoint.target, credentials, arguments);
    m_actions = rex::ActionCache::NewStub(m_channel);
    m_cas = rex::ContentAddressableStorage::NewStub(m_channel);
    m_capabilities = rex::Capabilities::NewStub(m_channel);
    m_stream = bytestream::ByteStream::NewStub(m_channel);
  }

  void start(grpc::ClientContext& context, Deadline deadline) const {
    context.set_deadline(grpc_deadline(deadline));
    if (!m_settings.token.empty()) context.AddMetadata("authorization", "Bearer " + m_settings.token);
  }

  // The server's batch limit, asked once; a server that cannot say (UNIMPLEMENTED, an error) has the
  // default, and the calls that follow say what is wrong with it.
  Outcome ask_batch_limit(Deadline deadline) {
    if (m_batch_limit) return {};
    grpc::ClientContext context;
    start(context, deadline);
    rex::GetCapabilitiesRequest request;
    request.set_instance_name(m_endpoint.instance);
    rex::ServerCapabilities capabilities;
    const Outcome outcome =
        outcome_of(m_capabilities->GetCapabilities(&context, request, &capabilities), "Capabilities.GetCapabilities");
    if (outcome.kind == Outcome::Kind::unreachable) return outcome;
    m_batch_limit = outcome.ok() ? capabilities.cache_capabilities().max_batch_total_size_bytes() : 0;
    return {};
  }

  Outcome batch_read(const Digest& blob, std::vector<std::byte>& bytes, Deadline deadline) {
    const char* method = "ContentAddressableStorage.BatchReadBlobs";
    grpc::ClientContext context;
    start(context, deadline);
    rex::BatchReadBlobsRequest request;
    request.set_instance_name(m_endpoint.instance);
    *request.add_digests() = proto_digest(blob);
    rex::BatchReadBlobsResponse answer;
    if (Outcome outcome = outcome_of(m_cas->BatchReadBlobs(&context, request, &answer), method); !outcome.ok())
      return outcome;
    for (const rex::BatchReadBlobsResponse::Response& one : answer.responses()) {
      if (!(plain_digest(one.digest()) == blob)) continue;
      if (one.status().code() != 0) return blob_status(one.status(), method, blob);
      if (one.data().size() > static_cast<std::size_t>(blob.size))
        return failed(std::string(method) + " sent " + std::to_string(one.data().size()) + " bytes for blob " +
                      blob.hash + "/" + std::to_string(blob.size));
      const auto* data = reinterpret_cast<const std::byte*>(one.data().data());
      bytes.assign(data, data + one.data().size());
      return {};
    }
    return failed(std::string(method) + " answered without blob " + blob.hash + "/" + std::to_string(blob.size));
  }

  Outcome stream_read(const Digest& blob, std::vector<std::byte>& bytes, Deadline deadline) {
    grpc::ClientContext context;
    start(context, deadline);
    bytestream::ReadRequest request;
    request.set_resource_name(read_resource(m_endpoint.instance, blob));
    std::unique_ptr<grpc::ClientReader<bytestream::ReadResponse>> reader = m_stream->Read(&context, request);
    bytes.clear();
    bytes.reserve(static_cast<std::size_t>(blob.size));
    bytestream::ReadResponse chunk;
    bool too_long = false;
    while (!too_long && reader->Read(&chunk)) {
      if (chunk.data().size() > static_cast<std::size_t>(blob.size) - bytes.size()) {
        too_long = true;   // stopped here: the rest is never read
        context.TryCancel();
        break;
      }
      const auto* data = reinterpret_cast<const std::byte*>(chunk.data().data());
      bytes.insert(bytes.end(), data, data + chunk.data().size());
    }
    while (too_long && reader->Read(&chunk)) {
    }
    const grpc::Status status = reader->Finish();
    if (too_long) {
      bytes.clear();
      return failed("ByteStream.Read sent more than the " + std::to_string(blob.size) + " bytes of blob " + blob.hash +
                    "; refused");
    }
    return outcome_of(status, "ByteStream.Read");
  }

  // Every blob must be answered, and stored.
  Outcome batch_write(std::span<const BlobToWrite> blobs, Deadline deadline) {
    const char* method = "ContentAddressableStorage.BatchUpdateBlobs";
    grpc::ClientContext context;
    start(context, deadline);
    rex::BatchUpdateBlobsRequest request;
    request.set_instance_name(m_endpoint.instance);
    for (const BlobToWrite& blob : blobs) {
      rex::BatchUpdateBlobsRequest::Request* one = request.add_requests();
      *one->mutable_digest() = proto_digest(blob.digest);
      one->set_data(reinterpret_cast<const char*>(blob.bytes.data()), blob.bytes.size());
    }
    rex::BatchUpdateBlobsResponse answer;
    if (Outcome outcome = outcome_of(m_cas->BatchUpdateBlobs(&context, request, &answer), method); !outcome.ok())
      return outcome;
    for (const BlobToWrite& blob : blobs) {
      const auto stored = std::find_if(answer.responses().begin(), answer.responses().end(),
                                       [&](const auto& one) { return plain_digest(one.digest()) == blob.digest; });
      if (stored == answer.responses().end())
        return failed(std::string(method) + " answered without blob " + blob.digest.hash + "/" +
                      std::to_string(blob.digest.size));
      if (stored->status().code() != 0) return blob_status(stored->status(), method, blob.digest);
    }
    return {};
  }

  Outcome stream_write(const Digest& blob, std::span<const std::byte> bytes, Deadline deadline) {
    grpc::ClientContext context;
    start(context, deadline);
    bytestream::WriteResponse answer;
    std::unique_ptr<grpc::ClientWriter<bytestream::WriteRequest>> writer = m_stream->Write(&context, &answer);
    const std::string name = write_resource(m_endpoint.instance, new_upload_id(), blob);
    // The server may end the stream early, when it has the blob already: Finish says how it went.
    std::size_t offset = 0;
    do {
      const std::size_t size = std::min(k_write_chunk, bytes.size() - offset);
      bytestream::WriteRequest request;
      if (offset == 0) request.set_resource_name(name);
      request.set_write_offset(static_cast<std::int64_t>(offset));
      request.set_data(reinterpret_cast<const char*>(bytes.data() + offset), size);
      request.set_finish_write(offset + size == bytes.size());
      if (!writer->Write(request)) break;
      offset += size;
    } while (offset < bytes.size());
    writer->WritesDone();
    if (Outcome outcome = outcome_of(writer->Finish(), "ByteStream.Write"); !outcome.ok()) return outcome;
    if (answer.committed_size() != blob.size)
      return failed("ByteStream.Write committed " + std::to_string(answer.committed_size()) + " of the " +
                    std::to_string(blob.size) + " bytes of blob " + blob.hash);
    return {};
  }

  // A status inside a batch answer: for one blob, not for the call.
  Outcome blob_status(const google::rpc::Status& status, const char* method, const Digest& blob) const {
    Outcome outcome = failed(std::string(reapi_code_name(status.code())) + " for blob " + blob.hash + "/" +
                             std::to_string(blob.size) + " from " + method + ": " + server_text(status.message()));
    if (status.code() == static_cast<int>(grpc::StatusCode::NOT_FOUND)) outcome.kind = Outcome::Kind::not_found;
    return outcome;
  }

  Outcome outcome_of(const grpc::Status& status, const char* method) const {
    Outcome outcome;
    switch (status.error_code()) {
      case grpc::StatusCode::OK: return outcome;
      case grpc::StatusCode::NOT_FOUND: outcome.kind = Outcome::Kind::not_found; break;
      case grpc::StatusCode::UNAVAILABLE:
      case grpc::StatusCode::DEADLINE_EXCEEDED: outcome.kind = Outcome::Kind::unreachable; break;
      default: outcome.kind = Outcome::Kind::failed; break;
    }
    const int code = static_cast<int>(status.error_code());
    outcome.message = std::string(status.error_code() == grpc::StatusCode::DEADLINE_EXCEEDED ? "timed out: " : "") +
                      reapi_code_name(code) + " from " + method + ": " + server_text(status.error_message()) + " (" +
                      m_settings.shown_url + ")";
    if (status.error_code() == grpc::StatusCode::UNAUTHENTICATED ||
        status.error_code() == grpc::StatusCode::PERMISSION_DENIED)
      outcome.message += "; check KILN_REMOTE_CACHE_TOKEN";
    return outcome;
  }

  Outcome failed(const std::string& why) const {
    return {Outcome::Kind::failed, why + " (" + m_settings.shown_url + ")"};
  }

  Outcome unreachable(const std::string& why) const {
    return {Outcome::Kind::unreachable, why + " (" + m_settings.shown_url + ")"};
  }

  ReapiEndpoint m_endpoint;
  RemoteSettings m_settings;
  bool m_quiet;
  std::shared_ptr<grpc::Channel> m_channel;
  std::unique_ptr<rex::ActionCache::Stub> m_actions;
  std::unique_ptr<rex::ContentAddressableStorage::Stub> m_cas;
  std::unique_ptr<rex::Capabilities::Stub> m_capabilities;
  std::unique_ptr<bytestream::ByteStream::Stub> m_stream;
  std::optional<std::int64_t> m_batch_limit;
};

}  // namespace

std::unique_ptr<CacheService> open_grpc_cache_service(const ReapiEndpoint& endpoint, const RemoteSettings& settings,
                                                      bool quiet_grpc) {
  return std::make_unique<GrpcCacheService>(endpoint, settings, quiet_grpc);
}

}  // namespace kiln::remote::reapi
