// Deterministic fills of a tensor described by a memory_desc, for any data type and layout.
//
//   std::vector<uint8_t> src(md.size_bytes());
//   ASSERT_TRUE(tessera::testing::fill_random(md, src.data(), {.seed = 7}).ok());
//   // The saturation/overflow/special values of u8 written into an f32 source:
//   ASSERT_TRUE(tessera::testing::fill_probe(md, src.data(), tessera::data_type::u8).ok());
//
// Every value depends only on (seed, logical index): two tensors with the same dims and type but
// different layouts get the same logical values, so a reorder's expected output can be produced by
// filling the destination layout directly.
#ifndef TESSERA_TESTING_FILL_H_
#define TESSERA_TESTING_FILL_H_

#include <cstdint>
#include <optional>
#include <vector>

#include "absl/status/status.h"
#include "tessera/core/memory_desc.h"
#include "tessera/primitives/common/memory.h"

namespace tessera::testing {

struct fill_options {
  uint64_t seed = 1;
  // Padding elements (indices in [dims, padded_dims)): left as they are when unset, else every
  // byte of them is set to this value. Bytes no element maps to are never touched.
  std::optional<uint8_t> padding_byte;
  // Values are drawn uniformly from [lo, hi] (then rounded toward zero to the type, so they are
  // exact values of it). Defaults: floating types [-16, 16]; s8 and u8 their full range; s32
  // [-2^20, 2^20] (exact in f32).
  std::optional<double> lo;
  std::optional<double> hi;
};

// Random values at every logical element of a blocked md over `data` (md.size_bytes() bytes).
// Errors: md not blocked, data null with a non-empty md, lo > hi, lo or hi not finite.
absl::Status fill_random(const memory_desc& md, void* data, const fill_options& options = {});
inline absl::Status fill_random(const memory& m, const fill_options& options = {}) {
  return fill_random(m.desc, m.data, options);
}

// The values of probe_values(md.dt(), dst_type), repeated over the logical elements in row-major
// order (element i gets values[i % size]). options.seed, lo and hi are ignored.
absl::Status fill_probe(const memory_desc& md, void* data, data_type dst_type,
                        const fill_options& options = {});

// Values of type `src` (each exactly representable in it) that probe the conversion to `dst`:
// dst's max, lowest and their neighbours just inside and just outside (as far as src can tell
// them apart), ±Inf and NaN, ±0, ties (±0.5, ±1.5, ±2.5, max ± 0.5, lowest ± 0.5; for floating
// dst the midpoints next to 1 and next to max, and the first odd integers dst cannot hold),
// 1024 and -124 (and ±1, ±2, 127, 128, -127), dst's and src's smallest normals and largest and smallest denormals, half of
// dst's smallest denormal, and src's own extremes. Values src cannot represent are left out.
std::vector<double> probe_values(data_type src, data_type dst);

}  // namespace tessera::testing

#endif  // TESSERA_TESTING_FILL_H_
