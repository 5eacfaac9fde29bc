// The ops of <tessera/simd/transpose.h>, <tessera/simd/narrow.h>, <tessera/simd/lines.h> and
// tail.h's load_joined: on every ISA the machine has, the ISA version gives exactly what the
// portable version (or a plain store) gives, over pseudo-random inputs (saturating packs over
// every 32-bit pattern, line writes at every dword offset from a line, streamed and not).
#include <cstdint>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tessera/simd/internal/tile_ops_kernels.h"
#include "tessera/simd/isa.h"
#include "xsimd/xsimd.hpp"

namespace tessera::simd {
namespace {

using internal::tile_op;

struct arch_checks {
  std::string name;
  int (*mismatches)(tile_op, uint32_t);
};

std::vector<arch_checks> every_arch() {
#if defined(__aarch64__)
  std::vector<arch_checks> result = {{"neon64", &internal::tile_op_mismatches<xsimd::neon64>}};
#else
  std::vector<arch_checks> result = {{"sse4_2", &internal::tile_op_mismatches<xsimd::sse4_2>}};
  if (detected_isa() >= isa::avx2) {
    result.push_back({"avx2", &internal::tile_op_mismatches<xsimd::avx2>});
  }
  if (detected_isa() >= isa::avx512bw) {
    result.push_back({"avx512bw", &internal::tile_op_mismatches<xsimd::avx512bw>});
  }
#endif
  return result;
}

TEST(TileOpsTest, IsaVersionsEqualPortableOnes) {
  for (const arch_checks& arch : every_arch()) {
    for (int op = 0; op < internal::kTileOpCount; ++op) {
      for (uint32_t seed : {1u, 0x9E3779B9u, 12345u}) {
        EXPECT_EQ(arch.mismatches(static_cast<tile_op>(op), seed), 0)
            << arch.name << ", op " << op << ", seed " << seed;
      }
    }
  }
}

}  // namespace
}  // namespace tessera::simd
