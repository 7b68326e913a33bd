// See async_recommender.h.
#include "server/async_recommender.h"

#include "core/response_builder.h"
#include "server/handler_steps.h"

namespace reco {
namespace {

class HeapHolder final : public RecommendHolder {
 public:
  HeapHolder() {
    set_request(new v1::RecommendRequest);
    set_response(new v1::RecommendResponse);
  }
  void Release() override {
    delete request();
    delete response();
    delete this;
  }
};

}  // namespace

RecommendHolder* HeapRecommendAllocator::AllocateMessages() { return new HeapHolder; }

AsyncRecommender::AsyncRecommender(const Catalogue* catalogue, RecommendAllocator* allocator, RpcMeter* meter,
                                   CallReservations* reservations, uint32_t check_every_items, ItemData item_data)
    : catalogue_(catalogue),
      meter_(meter),
      reservations_(reservations),
      check_every_items_(check_every_items),
      item_data_(item_data),
      method_(&service_, &v1::Recommender::AsyncService::RequestRecommend, allocator,
              [this](grpc::ServerContext* context, const v1::RecommendRequest* request, v1::RecommendResponse* response,
                     CallState* call) { return Recommend(context, request, response, call); }) {}

// RecommenderService::Recommend, on an async call.
grpc::Status AsyncRecommender::Recommend(grpc::ServerContext* context, const v1::RecommendRequest* request,
                                         v1::RecommendResponse* response, CallState* call) {
  grpc::Status status = Admit(reservations_, &call->reservation, context, *request);
  MeasuredBuild measured(meter_, call->messages);  // measurement only: times and counts this call
  status = BuildForCaller(status, context, *catalogue_, *request, response, check_every_items_, item_data_);
  measured.Finish(status);
  // AsyncArenaMethod sends the reply with Finish() and keeps the messages -- and the
  // reservation -- until Finish's tag is back.
  return status;
}

}  // namespace reco
