// ByteBufferBytes and ByteBufferHolds read every slice, in order, and tell a buffer
// never filled from one that holds bytes.
#include "core/byte_buffer_bytes.h"

#include <string>
#include <vector>

#include <grpcpp/support/slice.h>

#include "gtest/gtest.h"

namespace reco {
namespace {

// "abc" + "" + "defgh" in three slices: the walk must join them, empty one included.
grpc::ByteBuffer ThreeSlices() {
  std::vector<grpc::Slice> slices = {grpc::Slice(std::string("abc")), grpc::Slice(std::string()),
                                     grpc::Slice(std::string("defgh"))};
  return grpc::ByteBuffer(slices.data(), slices.size());
}

TEST(ByteBufferBytesTest, JoinsEverySliceInOrder) { EXPECT_EQ(ByteBufferBytes(ThreeSlices()), "abcdefgh"); }

TEST(ByteBufferBytesTest, ABufferNeverFilledHoldsNothing) {
  EXPECT_EQ(ByteBufferBytes(grpc::ByteBuffer()), "");
  EXPECT_FALSE(ByteBufferHolds(grpc::ByteBuffer(), ""));
}

TEST(ByteBufferHoldsTest, OnlyTheSameBytes) {
  const grpc::ByteBuffer buffer = ThreeSlices();
  EXPECT_TRUE(ByteBufferHolds(buffer, "abcdefgh"));
  EXPECT_FALSE(ByteBufferHolds(buffer, "abcdefgX")) << "a byte of the last slice differs";
  EXPECT_FALSE(ByteBufferHolds(buffer, "Xbcdefgh")) << "a byte of the first slice differs";
  EXPECT_FALSE(ByteBufferHolds(buffer, "abcdefg")) << "shorter";
  EXPECT_FALSE(ByteBufferHolds(buffer, "abcdefghi")) << "longer";
}

}  // namespace
}  // namespace reco
