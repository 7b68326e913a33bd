// See target_link.h.
#include "client/target_link.h"

#include "absl/strings/str_cat.h"
#include "grpcpp/create_channel.h"
#include "grpcpp/security/credentials.h"
#include "grpcpp/support/channel_arguments.h"
#include "rpc/unary_call.h"

namespace reco {
namespace {

gpr_timespec ToGpr(absl::Time t) {
  return gpr_time_add(gpr_now(GPR_CLOCK_MONOTONIC),
                      gpr_time_from_micros(absl::ToInt64Microseconds(t - absl::Now()), GPR_TIMESPAN));
}

absl::Status FromGrpc(const grpc::Status& s, const std::string& context) {
  return absl::Status(static_cast<absl::StatusCode>(s.error_code()), absl::StrCat(context, ": ", s.error_message()));
}

}  // namespace

TargetLink::TargetLink(TargetSpec spec, int connections, int lookahead_bytes, TlsDial tls)
    : spec_(std::move(spec)), tls_(tls.on()) {
  std::shared_ptr<grpc::ChannelCredentials> credentials = grpc::InsecureChannelCredentials();
  if (tls.on()) {
    grpc::SslCredentialsOptions ssl;
    ssl.pem_root_certs = tls.ca_pem;
    credentials = grpc::SslCredentials(ssl);
  }
  for (int i = 0; i < connections; ++i) {
    grpc::ChannelArguments args;
    args.SetMaxReceiveMessageSize(-1);
    // A distinct argument makes a distinct subchannel key; the local pool keeps
    // channels from sharing subchannels through the global pool.
    args.SetInt("reco_load.connection_index", i);
    args.SetInt(GRPC_ARG_USE_LOCAL_SUBCHANNEL_POOL, 1);
    if (lookahead_bytes > 0) args.SetInt(GRPC_ARG_HTTP2_STREAM_LOOKAHEAD_BYTES, lookahead_bytes);
    if (tls.on() && !tls.server_name.empty()) args.SetSslTargetNameOverride(tls.server_name);
    channels_.push_back(grpc::CreateCustomChannel(spec_.address, credentials, args));
    stubs_.push_back(std::make_unique<grpc::GenericStub>(channels_.back()));
  }
  stats_ = v1::ServerStats::NewStub(channels_.front());
}

absl::Status TargetLink::Probe(const RequestSet& requests, absl::Duration deadline) {
  const absl::Time until = absl::Now() + deadline;
  const std::string who = absl::StrCat("target ", spec_.name, " (", spec_.address, ")");
  for (size_t i = 0; i < channels_.size(); ++i) {
    // A refused connection puts the channel in TRANSIENT_FAILURE at once; stopping
    // there (rather than waiting out gRPC's reconnect backoff) is what fails fast.
    for (grpc_connectivity_state state = channels_[i]->GetState(/*try_to_connect=*/true);
         state != GRPC_CHANNEL_READY; state = channels_[i]->GetState(true)) {
      if (state == GRPC_CHANNEL_TRANSIENT_FAILURE || state == GRPC_CHANNEL_SHUTDOWN) {
        // gRPC 1.51 does not say why a channel failed; with TLS the usual cause is
        // the handshake, so the message names it.
        return absl::UnavailableError(absl::StrCat(
            who, " is unreachable: the connection failed",
            tls_ ? " (TLS: is the server using TLS, is --tls_ca the CA that signed its certificate, and does "
                   "--tls_server_name or the host match it?)"
                 : " (is a reco_server listening there? a TLS server needs --tls_ca)"));
      }
      if (!channels_[i]->WaitForStateChange(state, ToGpr(until))) {
        return absl::UnavailableError(absl::StrCat(who, " is unreachable: no connection within ",
                                                   absl::FormatDuration(deadline)));
      }
    }
    UnaryReply reply = BlockingUnaryCall(*stubs_[i], kRecommendMethod, requests.request(0), until);
    const grpc::Status& status = reply.status;
    if (!status.ok()) {
      // An insecure client that reached a TLS port sees the connection closed.
      const bool maybe_tls = !tls_ && status.error_code() == grpc::StatusCode::UNAVAILABLE;
      return FromGrpc(status, absl::StrCat(who, " failed the probe Recommend",
                                           tls_ ? " (over TLS)" : maybe_tls ? " (a TLS server needs --tls_ca)" : ""));
    }
    if (i == 0 && !requests.MatchesExpected(0, reply.message)) {
      return absl::DataLossError(absl::StrCat(who, " answered the probe with ", reply.message.Length(),
                                              " bytes that are not what the response builder makes (",
                                              requests.expected_bytes(0).size(), " bytes)"));
    }
  }
  return absl::OkStatus();
}

absl::StatusOr<v1::StatsSnapshot> TargetLink::Snapshot(absl::Duration deadline) {
  grpc::ClientContext ctx;
  ctx.set_deadline(ToGpr(absl::Now() + deadline));
  v1::GetStatsRequest req;
  v1::StatsSnapshot snapshot;
  grpc::Status status = stats_->GetStats(&ctx, req, &snapshot);
  if (!status.ok()) return FromGrpc(status, absl::StrCat("ServerStats of ", spec_.name));
  return snapshot;
}

}  // namespace reco
