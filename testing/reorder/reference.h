// The scalar reference reorder the tests and the driver compare Tessera's kernels with: element by
// element over logical indices, offsets from testing/index.h (not memory_desc::offset), values
// through the scalar conversions of <tessera/core/convert.h>. Obviously correct, slow.
//
//   tessera::exec_args quant;                              // scales / zero points, as for execute
//   quant.set(tessera::arg::src_scales, scale_mem);
//   ASSERT_TRUE(tessera::testing::reference_reorder(src, want, attr, quant).ok());
//
// For every logical index x, in this order, in f32 (f64 when either type is f64):
//   v = src(x); v -= src_zp; v *= src_scale; v *= oscale; v += beta * (dst(x) - dst_zp);
//   v /= dst_scale; v += dst_zp; [v = stochastic_round(v)]; dst(x) = convert(v)
// each step only when its attribute is present (the sum's dst_zp is the dst zero point when
// given, else the sum's own zero point; stochastic rounding with the seed of
// quant_args[arg::attr_rounding_seed] and x's row-major index, <tessera/core/stochastic_round.h>).
// Equal types without attributes copy bits. dst padding
// (indices in [dims, padded_dims)) is set to zero. Scales and zero points are read in the type of
// the memory that holds them (zero points s32, s8, u8, s4 or u4; scales f32, f16, bf16 or e8m0),
// element by element. The low-precision types (s4, u4, f4_e2m1, f4_e3m0, e8m0) go through
// <tessera/core/low_precision.h>, 4-bit elements two per byte.
// A dst whose extra() asks for compensation (memory_extra.h) gets its buffers after the data:
// -sum and -128 * sum of the written s8 values over the dims outside each mask; with the
// scale_adjust flag the src scale (1 when absent) is multiplied by scale_adjust, in f32, first.
#ifndef TESSERA_TESTING_REORDER_REFERENCE_H_
#define TESSERA_TESTING_REORDER_REFERENCE_H_

#include "absl/status/status.h"
#include "tessera/primitives/common/arg.h"
#include "tessera/primitives/common/attr.h"
#include "tessera/primitives/common/memory.h"

namespace tessera::testing {

absl::Status reference_reorder(const memory& src, const memory& dst, const primitive_attr& attr,
                               const exec_args& quant_args);

}  // namespace tessera::testing

#endif  // TESSERA_TESTING_REORDER_REFERENCE_H_
