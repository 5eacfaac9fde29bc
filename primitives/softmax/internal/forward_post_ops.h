// Forward softmax / logsoftmax with a post-op chain, plain layouts (post_op_chain.h): three
// passes over src per row (max; the sum of exps; the results) and one over dst, whose results
// go through post_op_stage::apply just before their store, in oneDNN 3.x's order: the result
// times out_scale (the src scale), the chain, times post_op_scale (1 / dst scale), the
// conversion (kernel_args). Dense rows are vectorised along the
// axis; strided groups across their lanes. Part of the per-ISA kernels: include only from
// vector_kernels_impl.h.
#ifndef TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_FORWARD_POST_OPS_H_
#define TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_FORWARD_POST_OPS_H_

#include <algorithm>
#include <limits>

#include "tessera/primitives/softmax/internal/kernel_args.h"
#include "tessera/primitives/softmax/internal/kernel_math.h"
#include "tessera/primitives/softmax/internal/post_op_stage.h"
#include "tessera/simd/convert.h"
#include "tessera/simd/per_isa.h"
#include "tessera/simd/reduce.h"
#include "xsimd/xsimd.hpp"

namespace tessera::softmax_internal::TESSERA_ISA_NS {

// `count` (1..W) elements of p, `stride` apart (1: contiguous), as f32; the other lanes `fill`.
template <class A, class S>
vf<A> load_run(const S* p, int count, float fill) {
  if (count == kWidth<A>) return simd::load_f32<A>(p);
  return load_partial<A>(p, count, fill);
}

// One dense row: the axis at stride 1.
template <class A, class S, class D>
void post_op_dense_row(const kernel_args& k, post_op_stage<A>& stage, dim_t row) {
  using F = vf<A>;
  constexpr int W = kWidth<A>;
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  const dim_t n = k.dense.len;
  const dim_t off = k.rows.offset_of(row);
  const S* src = static_cast<const S*>(k.in0) + off;
  D* dst = static_cast<D*>(k.out) + off;
  stage.start_row(k.rows, row);
  auto width = [&](dim_t i) { return static_cast<int>(std::min<dim_t>(W, n - i)); };

  F m(kNegInf);
  for (dim_t i = 0; i < n; i += W) m = xsimd::max(load_run<A>(src + i, width(i), kNegInf), m);
  const float mx = simd::reduce_max<A>(m);
  const F mv(mx);
  split_sum<A> sum;
  for (dim_t i = 0; i < n; i += W) {
    const F x = load_run<A>(src + i, width(i), kNegInf);
    sum.add(x, mv, exp_diff<A>(x, mv));
  }
  const row_total total = reduce<A>(sum);
  const bool log = k.alg == softmax_alg::logsoftmax;
  const bool zero = k.alg == softmax_alg::softmax_inf_as_zero && mx == kNegInf;
  const F scale(zero ? 0.f : static_cast<float>(log ? total.log_sum() : 1.0 / total.sum()));
  const F in_scale(k.out_scale), out_scale(k.post_op_scale);
  for (dim_t i = 0; i < n; i += W) {
    const int c = width(i);
    const F x = load_run<A>(src + i, c, kNegInf);
    F y = log ? log_diff<A>(x, mv, scale) : zero ? F(0.f) : exp_diff<A>(x, mv) * scale;
    y = stage.apply(y * in_scale, i, 0, c) * out_scale;
    if (c == W) simd::store_f32(dst + i, y);
    else simd::store_f32(dst + i, y, c);
  }
}

// Lanes [j, j + c) of one strided group.
template <class A, class S, class D>
void post_op_strided_lanes(const kernel_args& k, const post_op_stage<A>& stage, const S* src,
                           D* dst, dim_t j, int c) {
  using F = vf<A>;
  constexpr int W = kWidth<A>;
  constexpr float kNegInf = -std::numeric_limits<float>::infinity();
  const dim_t n = k.strided.len, step = k.strided.axis_stride;
  F m(kNegInf);
  for (dim_t a = 0; a < n; ++a) m = xsimd::max(load_run<A>(src + a * step + j, c, kNegInf), m);
  const bool log = k.alg == softmax_alg::logsoftmax;
  if (k.alg == softmax_alg::softmax_inf_as_zero) m = settle_all_minus_inf<A>(m);
  split_sum<A> sum;
  for (dim_t a = 0; a < n; ++a) {
    const F x = load_run<A>(src + a * step + j, c, kNegInf);
    sum.add(x, m, exp_diff<A>(x, m));
  }
  alignas(64) double count[W], rest[W];
  alignas(64) float scale_lanes[W];
  sum.count.lanes(count);
  sum.rest.lanes(rest);
  for (int l = 0; l < W; ++l) {
    const row_total t{count[l], rest[l]};
    scale_lanes[l] = static_cast<float>(log ? (l < c ? t.log_sum() : 0.0) : inverse_sum(t.sum()));
  }
  const F scale = F::load_aligned(scale_lanes);
  const F in_scale(k.out_scale), out_scale(k.post_op_scale);
  for (dim_t a = 0; a < n; ++a) {
    const F x = load_run<A>(src + a * step + j, c, kNegInf);
    F y = log ? log_diff<A>(x, m, scale) : exp_diff<A>(x, m) * scale;
    y = stage.apply(y * in_scale, a, j, c) * out_scale;
    if (c == W) simd::store_f32(dst + a * step + j, y);
    else simd::store_f32(dst + a * step + j, y, c);
  }
}

template <class A, class S, class D>
void forward_post_ops(const kernel_args& k, dim_t begin, dim_t end) {
  constexpr int W = kWidth<A>;
  post_op_stage<A> stage(*k.post_ops);
  for (dim_t row = begin; row < end; ++row) {
    if (!k.post_ops->strided) {
      post_op_dense_row<A, S, D>(k, stage, row);
      continue;
    }
    const dim_t off = k.rows.offset_of(row);
    stage.start_row(k.rows, row);
    const S* src = static_cast<const S*>(k.in0) + off;
    D* dst = static_cast<D*>(k.out) + off;
    for (dim_t j = 0; j < k.strided.lanes; j += W) {
      const int c = static_cast<int>(std::min<dim_t>(W, k.strided.lanes - j));
      post_op_strided_lanes<A, S, D>(k, stage, src, dst, j, c);
    }
  }
}

}  // namespace tessera::softmax_internal::TESSERA_ISA_NS

#endif  // TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_FORWARD_POST_OPS_H_
