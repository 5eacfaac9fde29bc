// The float64 softmax reference used by the tests and the driver's correctness mode, and
// benchdnn's rule for comparing a softmax output with it.
//
//   std::vector<double> want = tessera::testing::softmax_forward_reference(
//       tessera::softmax_alg::softmax, src_md, src_ptr, /*axis=*/1);
//   std::vector<double> got = tessera::testing::read_logical(dst_md, dst_ptr);
//   auto verdict = tessera::testing::benchdnn_softmax_compare(
//       {.backward = false, .alg = tessera::softmax_alg::softmax, .dt = dst_md.dt(),
//        .axis_size = 1000}, want, got);
//   EXPECT_TRUE(verdict.ok) << verdict.message;
//
// Everything is in logical order (row-major over dims), whatever the layout: elements are found
// with memory_desc::offset. Independent of the library's kernels: plain f64 loops, max
// subtraction as in the spec.
#ifndef TESSERA_TESTING_SOFTMAX_SOFTMAX_REFERENCE_H_
#define TESSERA_TESTING_SOFTMAX_SOFTMAX_REFERENCE_H_

#include <cstdint>
#include <string>
#include <vector>

#include "tessera/core/memory_desc.h"
#include "tessera/primitives/common/post_ops.h"
#include "tessera/primitives/softmax/softmax.h"

namespace tessera::testing {

// Every logical element as f64 (bf16/f16/int8 widened exactly).
std::vector<double> read_logical(const memory_desc& md, const void* data);
// Writes values (logical order) into a buffer of md's layout, converting with the scalar
// conversions of core (round half to even, saturation for int8). Padding is left alone.
void write_logical(const memory_desc& md, void* data, const std::vector<double>& values);

// The exact result in f64 (softmax_inf_as_zero: all -Inf row -> 0; softmax: NaN), times
// out_scale (int8 src_scale / dst_scale).
std::vector<double> softmax_forward_reference(softmax_alg alg, const memory_desc& src,
                                              const void* src_data, int axis,
                                              double out_scale = 1.0);
// The attributes of a forward softmax with post-ops, and their values.
struct softmax_reference_attr {
  double src_scale = 1.0;  // with a 2.x output scale: that scale
  double dst_scale = 1.0;
  post_ops_list post_ops;
  std::vector<const void*> post_op_src1;  // one per post-op (binary: its operand's buffer)
  // The value the chain starts from is softmax(src) * src_scale * (1 + softmax_shift), so that a
  // check can see how far the kernel's own softmax error (a few eps) moves the chain's result.
  double softmax_shift = 0.0;
  // Each post-op's result rounded to f32, as the vector kernels compute the chain (in f32): a
  // check can then accept what f32 arithmetic makes of a discontinuous step (a comparison after
  // a sub that absorbs a tiny softmax value: 1 + 1e-10 > 1 is false in f32, true in f64).
  bool f32_steps = false;
  // With an f32 start (src not f64), that f32 softmax value moved by this many subnormal steps
  // (2^-149) where it is below FLT_MIN in magnitude, before the src scale: an f32 kernel's
  // softmax there is within one step of the correctly rounded value, and the scale can round
  // the two to different sides of a step (0 / 0 against x / 0 after a zero operand).
  int subnormal_start_steps = 0;
  // With f32_steps, each exp, tanh and logistic result moved by this many f32 ulps: the vector
  // kernels' own error in those functions (docs/softmax.md), which a cancelling post-op after
  // them (exp(v) + 1 - 2) amplifies.
  int eltwise_ulps = 0;
};
// oneDNN 3.x's order, all in f64: dst = post_ops(softmax(src) * src_scale) / dst_scale, each
// binary operand read at the dst element's logical index with its broadcast dims at 0. The
// chain starts from softmax(src) rounded to f32 times src_scale in f32 (oneDNN's product)
// unless src is f64.
std::vector<double> softmax_forward_reference(softmax_alg alg, const memory_desc& src,
                                              const void* src_data, int axis,
                                              const softmax_reference_attr& attr);

// diff_src in f64 from dst and diff_dst.
std::vector<double> softmax_backward_reference(softmax_alg alg, const memory_desc& dst,
                                               const void* dst_data, const memory_desc& diff_dst,
                                               const void* diff_dst_data, int axis);

struct softmax_compare_setup {
  bool backward = false;
  softmax_alg alg = softmax_alg::softmax;
  data_type dt = data_type::f32;  // type of the compared output (dst, or diff_src)
  int64_t axis_size = 1;
};

struct softmax_compare_result {
  bool ok = true;
  int64_t failures = 0;
  double threshold = 0;       // the relative threshold used
  double zero_percent = 0;    // share of exact zeros in `got`
  double zero_trust_percent = 100;
  std::string message;        // first failure, or the zero-trust complaint
};

// benchdnn's softmax rule (oneDNN tests/benchdnn/softmax, setup_cmp, as in 2.6-3.x):
//   threshold = (logsoftmax ? 4 : 1) * (backward ? 4 : 1) * (f32 ? 10 : 1) * eps(dt);
//   the f64 reference is first rounded to dt (saturated and rounded for int8);
//   an element passes when it is equal, or its relative error (absolute when |ref| <= 1e-5)
//   is <= threshold, or its absolute error is < eps(dt); for s8/u8 when within 1;
//   the run fails when more than zero_trust_percent of the outputs are exact zeros
//   (forward: (axis - 8) / axis, int8: (axis - 1) / axis; logsoftmax of axis 1 or u8: no limit;
//   backward: 30%).
softmax_compare_result benchdnn_softmax_compare(const softmax_compare_setup& setup,
                                                const std::vector<double>& expected,
                                                const std::vector<double>& got);

}  // namespace tessera::testing

#endif  // TESSERA_TESTING_SOFTMAX_SOFTMAX_REFERENCE_H_
