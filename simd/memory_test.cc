// The memory hints on the build's default architecture: streaming stores write the batch's
// lanes exactly and prefetches of any address in a buffer leave it unchanged. The per-ISA
// versions run inside the kernels' tests, which force every ISA the machine has.
#include "tessera/simd/memory.h"

#include <cstdint>
#include <vector>

#include "gtest/gtest.h"
#include "xsimd/xsimd.hpp"

namespace tessera::simd {
namespace {

using arch = xsimd::default_arch;

TEST(MemoryTest, StreamStoreWritesEveryFloatLane) {
  using batch = xsimd::batch<float, arch>;
  alignas(64) float out[batch::size * 2] = {};
  alignas(64) float in[batch::size];
  for (size_t i = 0; i < batch::size; ++i) in[i] = 1.5f * static_cast<float>(i) - 3.0f;
  stream_store(out + batch::size, batch::load_aligned(in));
  store_fence();
  for (size_t i = 0; i < batch::size; ++i) {
    EXPECT_EQ(out[i], 0.0f) << i;
    EXPECT_EQ(out[batch::size + i], in[i]) << i;
  }
}

TEST(MemoryTest, StreamStoreKeepsIntegerBits) {
  using batch = xsimd::batch<int32_t, arch>;
  alignas(64) int32_t out[batch::size] = {};
  alignas(64) int32_t in[batch::size];
  for (size_t i = 0; i < batch::size; ++i) in[i] = static_cast<int32_t>(0x80000001u + 7 * i);
  stream_store(out, batch::load_aligned(in));
  store_fence();
  for (size_t i = 0; i < batch::size; ++i) EXPECT_EQ(out[i], in[i]) << i;
}

TEST(MemoryTest, PrefetchesChangeNothing) {
  std::vector<uint8_t> buf(4096);
  for (size_t i = 0; i < buf.size(); ++i) buf[i] = static_cast<uint8_t>(i * 13);
  for (size_t i = 0; i < buf.size(); i += 64) {
    prefetch<locality::l1>(buf.data() + i);
    prefetch<locality::l2>(buf.data() + i);
    prefetch<locality::none>(buf.data() + i);
  }
  for (size_t i = 0; i < buf.size(); ++i) ASSERT_EQ(buf[i], static_cast<uint8_t>(i * 13)) << i;
}

}  // namespace
}  // namespace tessera::simd
