// FragmentsService: reco.v1.Recommender/Recommend answered with replies spliced from
// the catalogue's pre-serialized items -- reco_server's `fragments` mode. Clients see
// the ordinary RecommendResponse, byte for byte what the message modes send.
//
// Unlike the ceiling (ceiling_service.h), this is a real handler and a pattern to
// copy when static data dominates a reply: it reads the request, validates it,
// reserves the reply's bytes from the budget, picks the items for THIS request,
// computes their scores, request id and metadata, and gives up when the caller stops
// waiting -- the same steps as the message modes (handler_steps.h). Only the reply
// differs: no RecommendResponse is built; core/fragment_reply.h writes its bytes.
// When every item is copied (the default: --fragments_copy_below_bytes is longer
// than any item), the reply is sized first and written once into one exact-size
// slice (patterns/sized_reply.h). When some items are at least that long, it goes
// through patterns/spliced_reply.h, which references them instead: zero-copy, and
// slower on gRPC 1.51 (docs/patterns.md section 5).
//
// How: the generated WithRawCallbackMethod_Recommend gives the handler the request
// and the response as grpc::ByteBuffer. The request is parsed here (a few dozen
// bytes, into a message on the stack); the reply is the ByteBuffer of one slice
// (written once) or the SplicedReply's slices. Each gRPC thread keeps its own
// scratch (thread_local).
//
// Measurement (RpcMeter): the handler's work, parsing included, is the build phase.
// There is no serialize phase (nothing to serialize) and no release phase the
// server can time: gRPC frees the reply's slices after writing them.
//
// Memory: per call, one slice of the reply's serialized size (zero-copy: the
// per-request bytes only -- tags, lengths, scores -- plus a slice array of two slices
// per item) and gRPC's byte buffer. Per thread: written once, the picked items' score
// values (sizeof(ScoreValues) per item of the largest reply the thread wrote, at most
// kMaxItemCount items); spliced, the SplicedReply scratch, up to 1 MiB
// (SplicedReply::kMaxKeptScratchBytes).
// The catalogue's fragments (Catalogue::fragment_bytes) are shared and outlive the
// server.
//
// Example:
//   reco::FragmentsService fragments(catalogue.get(), &meter, reservations, /*check_every_items=*/16);
//   builder.RegisterService(&fragments);
//
// Thread-safety: Recommend() runs on gRPC's threads, many at once. The catalogue,
// the meter and the reservations must outlive the server.
#ifndef ARENA_GRPC_SERVER_FRAGMENTS_SERVICE_H_
#define ARENA_GRPC_SERVER_FRAGMENTS_SERVICE_H_

#include <cstdint>

#include <grpcpp/support/byte_buffer.h>

#include "core/catalogue.h"
#include "patterns/spliced_reply.h"
#include "proto/reco.grpc.pb.h"
#include "server/call_reservations.h"
#include "server/rpc_meter.h"

namespace reco {

class FragmentsService final : public v1::Recommender::WithRawCallbackMethod_Recommend<v1::Recommender::Service> {
 public:
  // reservations: null builds every valid request (no budget). copy_fragments_below:
  // items whose bytes are shorter are copied into the reply, not referenced
  // (SplicedReply; SIZE_MAX copies every item: one flat slice per reply).
  FragmentsService(const Catalogue* catalogue, RpcMeter* meter, CallReservations* reservations,
                   uint32_t check_every_items,
                   size_t copy_fragments_below = patterns::SplicedReply::kDefaultCopyFragmentsBelow)
      : catalogue_(catalogue),
        meter_(meter),
        reservations_(reservations),
        check_every_items_(check_every_items),
        copy_fragments_below_(copy_fragments_below),
        write_once_(CopiesEveryItem(*catalogue, copy_fragments_below)) {}

  grpc::ServerUnaryReactor* Recommend(grpc::CallbackServerContext* context, const grpc::ByteBuffer* request,
                                      grpc::ByteBuffer* response) override;
  // The same handler for an async call (reco_server --api async, async_raw_recommender.h),
  // whose reservation is its own `hold`; returns the status to finish it with.
  grpc::Status RecommendAsync(grpc::ServerContext* context, const grpc::ByteBuffer* request, grpc::ByteBuffer* response,
                              CallReservations::Hold* hold);

 private:
  // Parse, admit (admit(request) -> status), build, measured: both APIs' handler.
  template <typename Context, typename AdmitFn>
  grpc::Status Answer(Context* context, const grpc::ByteBuffer& request_bytes, grpc::ByteBuffer* response,
                      AdmitFn admit);

  // True when no item of either profile is as long as `copy_fragments_below`.
  static bool CopiesEveryItem(const Catalogue& catalogue, size_t copy_fragments_below);
  // The reply written once into one slice (WriteFragmentReply), or spliced
  // (BuildFragmentReply: large items referenced); OK or the status to finish with.
  template <typename Context>
  grpc::Status WriteOnce(Context* context, const v1::RecommendRequest& request, grpc::ByteBuffer* response);
  template <typename Context>
  grpc::Status Splice(Context* context, const v1::RecommendRequest& request, grpc::ByteBuffer* response);

  const Catalogue* const catalogue_;
  RpcMeter* const meter_;
  CallReservations* const reservations_;
  const uint32_t check_every_items_;
  const size_t copy_fragments_below_;
  const bool write_once_;  // every item copied: CopiesEveryItem
};

}  // namespace reco

#endif  // ARENA_GRPC_SERVER_FRAGMENTS_SERVICE_H_
