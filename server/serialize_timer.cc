// See serialize_timer.h.
#include "server/serialize_timer.h"

#include <cstring>

namespace reco {
namespace {

using grpc::experimental::InterceptionHookPoints;

// The method name as gRPC passes it to ServerRpcInfo.
constexpr char kRecommendMethod[] = "/reco.v1.Recommender/Recommend";

class SerializeTimer final : public grpc::experimental::Interceptor {
 public:
  explicit SerializeTimer(PhaseRecorder* recorder) : recorder_(recorder) {}

  void Intercept(grpc::experimental::InterceptorBatchMethods* methods) override {
    // A unary reply is sent once, in the finish batch, and only for an OK status.
    if (methods->QueryInterceptionHookPoint(InterceptionHookPoints::PRE_SEND_MESSAGE) &&
        methods->GetSendMessage() != nullptr) {
      PhaseClock clock;
      methods->GetSerializedSendMessage();  // gRPC's serializer, run now instead of later
      recorder_->Record(Phase::kSerialize, clock.Elapsed());
    }
    methods->Proceed();
  }

 private:
  PhaseRecorder* const recorder_;
};

}  // namespace

grpc::experimental::Interceptor* SerializeTimerFactory::CreateServerInterceptor(
    grpc::experimental::ServerRpcInfo* info) {
  if (std::strcmp(info->method(), kRecommendMethod) != 0) return nullptr;
  return new SerializeTimer(recorder_);
}

}  // namespace reco
