// post_ops_list: oneDNN's post-ops attribute, a chain of eltwise and binary operations applied in
// f32 to a primitive's result before the destination scale and the conversion to dst's type; and
// accumulation_mode, oneDNN 3.x's accumulation-mode attribute.
//
//   tessera::primitive_attr attr;
//   attr.post_ops.push_back(tessera::post_op::binary(tessera::binary_alg::add, operand_md));
//   attr.post_ops.push_back(tessera::post_op::eltwise(tessera::eltwise_alg::linear, 0.5f, 2.f));
//   // execution: args.set(tessera::post_op_src1{0}, {operand_md, operand_ptr});
//
// A binary operand's dims are those of dst with any dim set to 1 (broadcast along it): all 1 is
// benchdnn's `common`, dst's dim 1 alone is `per_oc`, all of dst's is `per_tensor`.
#ifndef TESSERA_PRIMITIVES_COMMON_POST_OPS_H_
#define TESSERA_PRIMITIVES_COMMON_POST_OPS_H_

#include <cmath>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "absl/types/span.h"
#include "tessera/core/memory_desc.h"

namespace tessera {

// Every binary algorithm of oneDNN 3.x. The comparisons give 1 or 0.
enum class binary_alg { add, sub, mul, div, max, min, ge, gt, le, lt, eq, ne };

// eltwise algorithms, oneDNN's formulas with alpha and beta:
//   linear: alpha * x + beta     relu: x > 0 ? x : alpha * x     clip: min(max(x, alpha), beta)
//   abs: |x|    square: x * x    sqrt: sqrt(x)    exp: e^x    tanh: tanh(x)
//   logistic: 1 / (1 + e^-x), and 0 where x <= kLogisticZeroAtOrBelow
enum class eltwise_alg { linear, relu, clip, abs, square, sqrt, exp, tanh, logistic };

// oneDNN's logistic is 0 where e^-x overflows f32 (x at or below -ln(FLT_MAX), rounded to f32),
// not the f32 denormal of the exact function: every path (kernels, references) returns that 0,
// so that a division by a zero operand after it gives oneDNN's NaN.
inline constexpr float kLogisticZeroAtOrBelow = -88.72283172607421875f;

enum class post_op_kind { eltwise, binary };

struct post_op {
  post_op_kind kind = post_op_kind::eltwise;
  eltwise_alg eltwise_algorithm = eltwise_alg::linear;  // kind eltwise
  float alpha = 0.f, beta = 0.f;                        // kind eltwise
  binary_alg binary_algorithm = binary_alg::add;        // kind binary
  memory_desc src1;                                     // kind binary: the operand's descriptor

  static post_op eltwise(eltwise_alg alg, float alpha = 0.f, float beta = 0.f) {
    post_op p;
    p.kind = post_op_kind::eltwise;
    p.eltwise_algorithm = alg;
    p.alpha = alpha;
    p.beta = beta;
    return p;
  }
  static post_op binary(binary_alg alg, memory_desc src1) {
    post_op p;
    p.kind = post_op_kind::binary;
    p.binary_algorithm = alg;
    p.src1 = std::move(src1);
    return p;
  }

  friend bool operator==(const post_op& a, const post_op& b) {
    if (a.kind != b.kind) return false;
    if (a.kind == post_op_kind::eltwise) {
      return a.eltwise_algorithm == b.eltwise_algorithm && a.alpha == b.alpha && a.beta == b.beta;
    }
    return a.binary_algorithm == b.binary_algorithm && a.src1 == b.src1;
  }
  template <typename H>
  friend H AbslHashValue(H h, const post_op& p) {
    if (p.kind == post_op_kind::eltwise) {
      return H::combine(std::move(h), p.kind, p.eltwise_algorithm, p.alpha, p.beta);
    }
    return H::combine(std::move(h), p.kind, p.binary_algorithm, p.src1);
  }
};

using post_ops_list = std::vector<post_op>;

// oneDNN's limit on the length of a chain.
inline constexpr int kMaxPostOps = 32;

// oneDNN 3.x's accumulation modes (what each means for a primitive: its component page).
enum class accumulation_mode { strict, relaxed, any, f32, s32, f16 };

absl::string_view name_of(binary_alg alg);
absl::string_view name_of(eltwise_alg alg);
absl::string_view name_of(accumulation_mode mode);

// The broadcast mask of a binary operand: bit d set where its dim d is not 1.
int broadcast_mask(const memory_desc& src1);

// benchdnn's text of a chain: "add:f32:per_oc+linear:0.5:2" (a mask other than common (0) and
// per_oc (2) as its number).
std::string to_string(const post_ops_list& ops);
// oneDNN verbose's: "binary_add:f32:2+eltwise_linear:0.5:2".
std::string verbose_string(const post_ops_list& ops);

// Whether `src1` broadcasts to `dst_dims`: the same rank, each dim equal to dst's or 1. An
// InvalidArgument naming `who` ("softmax"), the post-op's position and the dims otherwise.
absl::Status check_broadcast(const post_op& op, int index, absl::Span<const dim_t> dst_dims,
                             absl::string_view who);

// The scalar operations as oneDNN applies them, in T (float, or double for the reference).
template <class T>
T apply_eltwise(eltwise_alg alg, T alpha, T beta, T x) {
  switch (alg) {
    case eltwise_alg::linear: return alpha * x + beta;
    case eltwise_alg::relu: return x > T(0) ? x : alpha * x;
    case eltwise_alg::clip: return std::fmin(std::fmax(x, alpha), beta);
    case eltwise_alg::abs: return std::fabs(x);
    case eltwise_alg::square: return x * x;
    case eltwise_alg::sqrt: return std::sqrt(x);
    case eltwise_alg::exp: return std::exp(x);
    case eltwise_alg::tanh: return std::tanh(x);
    case eltwise_alg::logistic:
      return x <= T(kLogisticZeroAtOrBelow) ? T(0) : T(1) / (T(1) + std::exp(-x));
  }
  return x;
}
template <class T>
T apply_binary(binary_alg alg, T a, T b) {
  switch (alg) {
    case binary_alg::add: return a + b;
    case binary_alg::sub: return a - b;
    case binary_alg::mul: return a * b;
    case binary_alg::div: return a / b;
    case binary_alg::max: return a > b ? a : b;
    case binary_alg::min: return a < b ? a : b;
    case binary_alg::ge: return a >= b ? T(1) : T(0);
    case binary_alg::gt: return a > b ? T(1) : T(0);
    case binary_alg::le: return a <= b ? T(1) : T(0);
    case binary_alg::lt: return a < b ? T(1) : T(0);
    case binary_alg::eq: return a == b ? T(1) : T(0);
    case binary_alg::ne: return a != b ? T(1) : T(0);
  }
  return a;
}

}  // namespace tessera

#endif  // TESSERA_PRIMITIVES_COMMON_POST_OPS_H_
