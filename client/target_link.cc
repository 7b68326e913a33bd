// See target_link.h.
#include "client/target_link.h"

#include <netdb.h>
#include <sys/socket.h>

#include <algorithm>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/strip.h"
#include "client/client_figures.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/security/tls_certificate_provider.h"
#include "grpcpp/security/tls_certificate_verifier.h"
#include "grpcpp/security/tls_credentials_options.h"
#include "grpcpp/support/channel_arguments.h"
#include "rpc/unary_call.h"

namespace reco {
namespace {

gpr_timespec ToGpr(absl::Time t) {
  return gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC),
                      gpr_time_from_micros(absl::ToInt64Microseconds(t - absl::Now()), GPR_TIMESPAN));
}

// "CONTEXT: CODE_NAME: message" (the code named: gRPC's message alone can be empty,
// as for a method the server does not serve).
absl::Status FromGrpc(const grpc::Status& s, const std::string& context) {
  const std::string code = StatusCodeName(static_cast<int>(s.error_code()));
  return absl::Status(static_cast<absl::StatusCode>(s.error_code()),
                      s.error_message().empty() ? absl::StrCat(context, ": ", code)
                                                : absl::StrCat(context, ": ", code, ": ", s.error_message()));
}

// The addresses getaddrinfo gives for dns:///HOST:PORT, as HOST:PORT ([V6]:PORT),
// without duplicates; or the failure. gRPC's own resolver (c-ares) may order them
// differently, but it reads the same records.
absl::StatusOr<std::vector<std::string>> ResolveDns(absl::string_view address) {
  absl::ConsumePrefix(&address, "dns:///");
  const size_t colon = address.rfind(':');
  std::string host(address.substr(0, colon));
  const std::string port(address.substr(colon + 1));
  if (host.size() > 1 && host.front() == '[' && host.back() == ']') host = host.substr(1, host.size() - 2);
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  if (int rc = getaddrinfo(host.c_str(), port.c_str(), &hints, &found); rc != 0) {
    return absl::UnavailableError(absl::StrCat("cannot resolve ", host, ": ", gai_strerror(rc)));
  }
  std::vector<std::string> out;
  for (addrinfo* a = found; a != nullptr; a = a->ai_next) {
    char ip[NI_MAXHOST];
    if (getnameinfo(a->ai_addr, a->ai_addrlen, ip, sizeof ip, nullptr, 0, NI_NUMERICHOST) != 0) continue;
    std::string hp = a->ai_family == AF_INET6 ? absl::StrCat("[", ip, "]:", port) : absl::StrCat(ip, ":", port);
    if (std::find(out.begin(), out.end(), hp) == out.end()) out.push_back(hp);
  }
  freeaddrinfo(found);
  if (out.empty()) return absl::UnavailableError(absl::StrCat("no address for ", host));
  return out;
}

// TLS that checks neither the server's chain nor its name (--tls_skip_verify), with
// the client certificate when there is one.
std::shared_ptr<grpc::ChannelCredentials> UnverifiedTlsCredentials(const TlsDial& tls) {
  grpc::experimental::TlsChannelCredentialsOptions options;
  options.set_verify_server_certs(false);
  options.set_check_call_host(false);
  options.set_certificate_verifier(std::make_shared<grpc::experimental::NoOpCertificateVerifier>());
  if (!tls.cert_chain_pem.empty()) {
    options.set_certificate_provider(std::make_shared<grpc::experimental::StaticDataCertificateProvider>(
        std::vector<grpc::experimental::IdentityKeyCertPair>{{tls.private_key_pem, tls.cert_chain_pem}}));
    options.watch_identity_key_cert_pairs();
  }
  return grpc::experimental::TlsCredentials(options);
}

}  // namespace

TargetLink::TargetLink(TargetSpec spec, int connections, int lookahead_bytes, int max_receive_bytes, TlsDial tls,
                       const std::string& lb_policy)
    : spec_(std::move(spec)), tls_(tls.on()) {
  const std::vector<std::string> backends = spec_.Backends();
  const bool balanced = spec_.IsDns() || backends.size() > 1;
  std::shared_ptr<grpc::ChannelCredentials> credentials = grpc::InsecureChannelCredentials();
  if (tls.skip_verify) {
    credentials = UnverifiedTlsCredentials(tls);
  } else if (tls.on()) {
    grpc::SslCredentialsOptions ssl;
    ssl.pem_root_certs = tls.ca_pem;
    ssl.pem_cert_chain = tls.cert_chain_pem;
    ssl.pem_private_key = tls.private_key_pem;
    credentials = grpc::SslCredentials(ssl);
  }
  for (int i = 0; i < connections; ++i) {
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(max_receive_bytes);
    // A distinct argument makes a distinct subchannel key; the local pool keeps
    // channels from sharing subchannels through the global pool.
    args.SetInt("reco_load.connection_index", i);
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
    if (lookahead_bytes > 0) args.SetInt(GRPC_ARG_HTTP2_STREAM_LOOKAHEAD_BYTES, lookahead_bytes);
    if (tls.on() && !tls.server_name.empty()) args.SetSslTargetNameOverride(tls.server_name);
    // Without it gRPC's default, pick_first, would keep each channel on one backend.
    if (balanced) args.SetServiceConfigJSON(LbServiceConfigJson(lb_policy));
    channels_.push_back(grpc::CreateCustomChannel(GrpcTargetOf(spec_), credentials, args));
    stubs_.push_back(std::make_unique<grpc::GenericStub>(channels_.back()));
  }
  std::vector<std::string> addresses = backends;
  if (spec_.IsDns()) {
    absl::StatusOr<std::vector<std::string>> resolved = ResolveDns(spec_.address);
    if (resolved.ok()) {
      addresses = *std::move(resolved);
    } else {
      replica_note_ = absl::StrCat(resolved.status().message(),
                                   " here, so the server figures come through the load "
                                   "channel: from whichever backend gRPC picked for each snapshot");
    }
  }
  own_replica_channels_ = balanced && replica_note_.empty();
  for (const std::string& address : addresses) {
    Replica r;
    r.address = address;
    if (own_replica_channels_) {
      grpc::ChannelArguments args;
      args.SetMaxReceiveMessageSize(max_receive_bytes);
      if (tls.on() && !tls.server_name.empty()) args.SetSslTargetNameOverride(tls.server_name);
      r.channel = grpc::CreateCustomChannel(address, credentials, args);
    } else {
      r.channel = channels_.front();
    }
    r.stub = std::make_unique<grpc::GenericStub>(r.channel);
    r.stats = v1::ServerStats::NewStub(r.channel);
    replicas_.push_back(std::move(r));
  }
}

TlsDial TlsDialOf(const LoadOptions& options) {
  return TlsDial{options.tls_ca_pem, options.tls_server_name, options.tls_cert_pem, options.tls_key_pem,
                 options.tls_skip_verify};
}

absl::Status TargetLink::Probe(const RequestSet& requests, absl::Duration deadline, const CallMetadata& metadata) {
  const absl::Time until = absl::Now() + deadline;
  const std::string who = absl::StrCat("target ", spec_.name, " (", spec_.address, ")");
  for (size_t i = 0; i < channels_.size(); ++i) {
    absl::Status s = ProbeChannel(*channels_[i], *stubs_[i], who, requests, metadata, deadline, until, i == 0);
    if (!s.ok()) return s;
  }
  if (!own_replica_channels_) return absl::OkStatus();
  for (Replica& r : replicas_) {
    absl::Status s = ProbeChannel(*r.channel, *r.stub, absl::StrCat("target ", spec_.name, " backend ", r.address),
                                  requests, metadata, deadline, until, /*check_bytes=*/true);
    if (!s.ok()) return s;
  }
  return absl::OkStatus();
}

absl::Status TargetLink::ProbeChannel(grpc::Channel& channel, grpc::GenericStub& stub, const std::string& who,
                                      const RequestSet& requests, const CallMetadata& metadata, absl::Duration deadline,
                                      absl::Time until, bool check_bytes) {
  // A refused connection puts the channel in TRANSIENT_FAILURE at once; stopping
  // there (rather than waiting out gRPC's reconnect backoff) is what fails fast.
  for (grpc_connectivity_state state = channel.GetState(/*try_to_connect=*/true); state != GRPC_CHANNEL_READY;
       state = channel.GetState(true)) {
    if (state == GRPC_CHANNEL_TRANSIENT_FAILURE || state == GRPC_CHANNEL_SHUTDOWN) {
      // gRPC 1.51 does not say why a channel failed; with TLS the usual cause is
      // the handshake, so the message names it.
      return absl::UnavailableError(absl::StrCat(
          who, " is unreachable: the connection failed",
          tls_ ? " (TLS: is the server using TLS, is --tls_ca the CA that signed its certificate, and does "
                 "--tls_server_name or the host match it?)"
               : " (is a server listening there? a TLS server needs --tls_ca)"));
    }
    if (!channel.WaitForStateChange(state, ToGpr(until))) {
      return absl::UnavailableError(
          absl::StrCat(who, " is unreachable: no connection within ", absl::FormatDuration(deadline)));
    }
  }
  UnaryReply reply;
  if (requests.streaming()) {
    StreamReply stream = BlockingStreamingCall(stub, requests.method(), requests.request_stream(0), until, metadata);
    reply.status = stream.status;
    reply.message = stream.message;
  } else {
    reply = BlockingUnaryCall(stub, requests.method(), requests.request(0), until, metadata);
  }
  const grpc::Status& status = reply.status;
  if (!status.ok()) {
    // An insecure client that reached a TLS port sees the connection closed.
    const bool maybe_tls = !tls_ && status.error_code() == grpc::StatusCode::UNAVAILABLE;
    const std::string what =
        requests.checks_replies() ? "the probe Recommend" : absl::StrCat("the probe call of ", requests.method());
    // gRPC's "Received message larger than max (N vs. M)": the reply, not the server.
    const bool too_large = status.error_code() == grpc::StatusCode::RESOURCE_EXHAUSTED &&
                           absl::StrContains(status.error_message(), "larger than max");
    return FromGrpc(status, absl::StrCat(who, " failed ", what,
                                         tls_        ? " (over TLS)"
                                         : maybe_tls ? " (a TLS server needs --tls_ca)"
                                                     : "",
                                         too_large ? " (its reply is over --max_receive_message_bytes)" : ""));
  }
  if (check_bytes && !requests.MatchesExpected(0, reply.message)) {
    return absl::DataLossError(absl::StrCat(who, " answered the probe with ", reply.message.Length(),
                                            " bytes that are not what the response builder makes (",
                                            requests.expected_bytes(0).size(), " bytes)"));
  }
  return absl::OkStatus();
}

absl::StatusOr<v1::StatsSnapshot> TargetLink::Snapshot(absl::Duration deadline, int replica) {
  grpc::ClientContext ctx;
  ctx.set_deadline(ToGpr(absl::Now() + deadline));
  v1::GetStatsRequest req;
  v1::StatsSnapshot snapshot;
  const Replica& r = replicas_[replica];
  grpc::Status status = r.stats->GetStats(&ctx, req, &snapshot);
  if (!status.ok()) {
    return FromGrpc(status, absl::StrCat("ServerStats of ", spec_.name, own_replica_channels_ ? " backend " : "",
                                         own_replica_channels_ ? r.address : ""));
  }
  return snapshot;
}

}  // namespace reco
