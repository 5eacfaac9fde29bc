// Forward softmax / logsoftmax of short single-run rows held in registers (forward_short_rows).
// Part of the per-ISA kernels: include only from vector_kernels_impl.h (through forward_dense.h).
#ifndef TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_FORWARD_SHORT_ROWS_H_
#define TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_FORWARD_SHORT_ROWS_H_

#include <limits>

#include "tessera/primitives/softmax/internal/kernel_args.h"
#include "tessera/primitives/softmax/internal/kernel_math.h"
#include "tessera/primitives/softmax/internal/scaled_store.h"
#include "tessera/simd/per_isa.h"
#include "xsimd/xsimd.hpp"

namespace tessera::softmax_internal::TESSERA_ISA_NS {

// Short single-run rows (is_short_row: up to 64 elements on avx512bw, 16 on sse4_2) whose dst is
// not f32 (bf16, f16; f32 rows go in pairs, forward_row_pair), on the ISAs whose short rows take
// exp_diff (not avx2, whose rows choose their exp by their range): the row in registers, loaded
// once, and the next row loaded before this one's results are stored. forward_dense_rows sweeps
// such a row three times through memory, its exps through a per-thread f32 row, and falls behind
// oneDNN on bf16 2x19x17x13 along C in nhwc (442 rows of 19) on Intel, 1 thread.
// Only rows of one vector or with a partial last one: rows of two to four whole vectors measured
// level or slower this way than in forward_dense_rows, which finds the max of the row after next
// during its last sweep (Intel, 1 thread, bf16 4096x48 and 4096x64).
// The arithmetic is forward_dense_rows': the max (exact in any order; a NaN x is dropped by
// maxps as there), exp_diff with the lanes past the end holding the max, the sum in its
// grouping (four vectors at once only for a row of exactly four), the same normalisation. So
// the bits are its bits.
template <class A, class S, class D, int NV>
void forward_short_rows(const kernel_args& k, dim_t begin, dim_t end) {
  using F = vf<A>;
  constexpr int W = kWidth<A>;
  const bool log = k.alg == softmax_alg::logsoftmax;
  const bool inf_as_zero = k.alg == softmax_alg::softmax_inf_as_zero;
  const float neg_inf = -std::numeric_limits<float>::infinity();
  const dim_t len = k.dense.len;
  const int tail = static_cast<int>(len - dim_t{NV - 1} * W);
  const bool four = NV == 4 && len == 4 * W;
  const auto inside = lane_index<A>() < F(static_cast<float>(tail));
  auto load_row = [&](dim_t row, F* x) __attribute__((always_inline)) {
    const S* p = static_cast<const S*>(k.in0) + k.rows.offset_of(row);
    for (int j = 0; j + 1 < NV; ++j) x[j] = simd::load_f32<A>(p + j * W);
    x[NV - 1] = simd::load_f32<A>(p + (NV - 1) * W, tail);  // 0 past the end
  };
  F x[NV];
  if (begin < end) load_row(begin, x);
  for (dim_t row = begin; row < end; ++row) {
    F mv(neg_inf);
    for (int j = 0; j + 1 < NV; ++j) mv = xsimd::max(x[j], mv);
    mv = xsimd::max(::tessera::simd::select(inside, x[NV - 1], F(neg_inf)), mv);
    const float mx = simd::reduce_max<A>(mv);
    const F m(mx);
    F r[NV];
    if (inf_as_zero && mx == neg_inf) {
      for (int j = 0; j < NV; ++j) r[j] = F(0.f);
    } else {
      F e[NV];
      for (int j = 0; j + 1 < NV; ++j) e[j] = exp_diff<A>(x[j], m);
      e[NV - 1] = ::tessera::simd::select(
          inside, exp_diff<A>(::tessera::simd::select(inside, x[NV - 1], m), m), F(0.f));
      split_sum<A> k0;
      if (log) {
        if (four) {
          k0.add4(x, m, e);
        } else {
          for (int j = 0; j + 1 < NV; ++j) k0.add(x[j], m, e[j]);
          const F not_a_max(std::numeric_limits<float>::quiet_NaN());
          k0.add(::tessera::simd::select(inside, x[NV - 1], not_a_max), m, e[NV - 1]);
        }
      } else if (four) {
        k0.rest.add((e[0] + e[1]) + (e[2] + e[3]));
      } else {
        for (int j = 0; j < NV; ++j) k0.rest.add(e[j]);
      }
      const row_total total = reduce<A>(k0);
      if (log) {
        const F l(static_cast<float>(total.log_sum()));
        for (int j = 0; j < NV; ++j) r[j] = log_diff<A>(x[j], m, l);
      } else {
        const F inv(static_cast<float>(1.0 / total.sum()));
        for (int j = 0; j < NV; ++j) r[j] = e[j] * inv;
      }
    }
    if (row + 1 < end) load_row(row + 1, x);
    D* q = static_cast<D*>(k.out) + k.rows.offset_of(row);
    for (int j = 0; j + 1 < NV; ++j) store_result<S>(q + j * W, r[j], k.out_scale);
    store_result<S>(q + (NV - 1) * W, r[NV - 1], k.out_scale, tail);
  }
}

}  // namespace tessera::softmax_internal::TESSERA_ISA_NS

#endif  // TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_FORWARD_SHORT_ROWS_H_
