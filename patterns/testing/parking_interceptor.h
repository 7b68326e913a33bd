// SPDX-License-Identifier: Apache-2.0
// Parking: a server interceptor that, when asked, holds the next message the server
// sends (hook PRE_SEND_MESSAGE) instead of letting it go on, until the test calls
// ProceedParked() -- an interceptor that calls Proceed() later, as an asynchronous
// one may. It also records what gRPC handed it: the message object (gRPC still
// points at it and serializes it later) or only its serialized bytes.
//
// Example:
//   Parking parking;
//   builder.experimental().SetInterceptorCreators(parking.InterceptorCreators());
//   parking.ParkNext();
//   reactor->StartWrite(page);      // held at the interceptor: not serialized yet
//   parking.ProceedParked();        // serialized and sent now
//
// Thread-safety: every member may be called from any thread. ProceedParked() must not
// be called while holding a lock the server's threads need.
#ifndef ARENA_GRPC_PATTERNS_TESTING_PARKING_INTERCEPTOR_H_
#define ARENA_GRPC_PATTERNS_TESTING_PARKING_INTERCEPTOR_H_

#include <memory>
#include <mutex>
#include <vector>

#include <grpcpp/support/server_interceptor.h>

namespace reco::patterns::testing {

class Parking {
 public:
  using Methods = grpc::experimental::InterceptorBatchMethods;
  using Creators = std::vector<std::unique_ptr<grpc::experimental::ServerInterceptorFactoryInterface>>;

  // The interceptor factory to give ServerBuilder::experimental().SetInterceptorCreators.
  Creators InterceptorCreators() {
    Creators creators;
    creators.push_back(std::make_unique<Factory>(this));
    return creators;
  }

  // Holds the next message sent (by any call) until ProceedParked().
  void ParkNext() {
    std::lock_guard<std::mutex> lock(mu_);
    park_next_ = true;
  }
  bool has_parked() const {
    std::lock_guard<std::mutex> lock(mu_);
    return parked_ != nullptr;
  }
  // Lets the held message go on: gRPC serializes it (if it has not) and sends it.
  void ProceedParked() {
    Methods* parked = nullptr;
    {
      std::lock_guard<std::mutex> lock(mu_);
      parked = parked_;
      parked_ = nullptr;
    }
    if (parked != nullptr) parked->Proceed();
  }
  // Messages gRPC handed the interceptor as an object, and as bytes only.
  int objects_seen() const {
    std::lock_guard<std::mutex> lock(mu_);
    return objects_seen_;
  }
  int bytes_only_seen() const {
    std::lock_guard<std::mutex> lock(mu_);
    return bytes_only_seen_;
  }

 private:
  class Interceptor final : public grpc::experimental::Interceptor {
   public:
    explicit Interceptor(Parking* parking) : parking_(parking) {}
    void Intercept(Methods* methods) override {
      if (methods->QueryInterceptionHookPoint(grpc::experimental::InterceptionHookPoints::PRE_SEND_MESSAGE)) {
        // GetSendMessage(): the message object when gRPC kept a pointer to it
        // (SendMessagePtr), null when it serialized at once (SendMessage). Not
        // GetSerializedSendMessage(): that would serialize it here and now.
        if (parking_->Saw(methods, methods->GetSendMessage() != nullptr)) return;  // parked
      }
      methods->Proceed();
    }

   private:
    Parking* const parking_;
  };
  class Factory final : public grpc::experimental::ServerInterceptorFactoryInterface {
   public:
    explicit Factory(Parking* parking) : parking_(parking) {}
    grpc::experimental::Interceptor* CreateServerInterceptor(grpc::experimental::ServerRpcInfo*) override {
      return new Interceptor(parking_);
    }

   private:
    Parking* const parking_;
  };

  // Records a message; returns true when it is parked (the caller must not proceed).
  bool Saw(Methods* methods, bool object) {
    std::lock_guard<std::mutex> lock(mu_);
    ++(object ? objects_seen_ : bytes_only_seen_);
    if (!park_next_) return false;
    park_next_ = false;
    parked_ = methods;
    return true;
  }

  mutable std::mutex mu_;
  bool park_next_ = false;
  Methods* parked_ = nullptr;
  int objects_seen_ = 0;
  int bytes_only_seen_ = 0;
};

}  // namespace reco::patterns::testing

#endif  // ARENA_GRPC_PATTERNS_TESTING_PARKING_INTERCEPTOR_H_
