// See async_raw_recommender.h.
#include "server/async_raw_recommender.h"

#include <utility>

namespace reco {
namespace {

class ByteBufferHolder final : public grpc::MessageHolder<grpc::ByteBuffer, grpc::ByteBuffer> {
 public:
  ByteBufferHolder() {
    set_request(&request_);
    set_response(&response_);
  }
  void Release() override { delete this; }

 private:
  grpc::ByteBuffer request_;
  grpc::ByteBuffer response_;
};

}  // namespace

grpc::MessageHolder<grpc::ByteBuffer, grpc::ByteBuffer>* ByteBufferAllocator::AllocateMessages() {
  return new ByteBufferHolder;
}

AsyncRawRecommender::AsyncRawRecommender(Handler handler)
    : method_(&service_, &RawService::RequestRecommend, &buffers_,
              [handler = std::move(handler)](grpc::ServerContext* context, const grpc::ByteBuffer* request,
                                             grpc::ByteBuffer* response, CallState* call) {
                return handler(context, request, response, &call->reservation);
              }) {}

}  // namespace reco
