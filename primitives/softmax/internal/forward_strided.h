// Forward softmax / logsoftmax along a strided axis (nchw along C, 30000x8 along dim 0): vectorised
// across neighbouring rows. Part of the per-ISA kernels: include only from vector_kernels_impl.h.
#ifndef TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_FORWARD_STRIDED_H_
#define TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_FORWARD_STRIDED_H_

#include <algorithm>
#include <limits>
#include <optional>
#include <type_traits>
#include <vector>

#include "tessera/primitives/softmax/internal/forward_dense.h"
#include "tessera/primitives/softmax/internal/forward_interleaved.h"
#include "tessera/primitives/softmax/internal/forward_lane_sweeps.h"
#include "tessera/primitives/softmax/internal/kernel_args.h"
#include "tessera/primitives/softmax/internal/kernel_math.h"
#include "tessera/simd/per_isa.h"
#include "xsimd/xsimd.hpp"

namespace tessera::softmax_internal::TESSERA_ISA_NS {

// A few lanes (fewer than a vector) left over: instead of a vector along the axis of which they
// fill a fraction (the whole exp sweep for them), they are copied out as rows of a dense block,
// run through forward_dense (len / W vectors per lane), and copied back. Returns false when the
// block would exceed kMaxScratch elements (the caller then sweeps a vector for them).
constexpr dim_t kMaxScratch = dim_t{1} << 20;

template <class A, class S, class D>
bool remainder_lanes_as_dense_rows(const kernel_args& k, const S* src, D* dst, int lanes,
                                   dim_t len, dim_t stride) {
  const dim_t n = len * lanes;
  if (n > kMaxScratch) return false;
  thread_local std::vector<S> rows_in;
  thread_local std::vector<D> rows_out;
  if (static_cast<dim_t>(rows_in.size()) < n) rows_in.resize(static_cast<size_t>(n));
  if (static_cast<dim_t>(rows_out.size()) < n) rows_out.resize(static_cast<size_t>(n));
  S* in = rows_in.data();
  D* out = rows_out.data();
  // f32 lanes move W axis steps at a time by gather and scatter: element by element, each step is
  // a separate load or store whose loop overhead costs more than the dense kernel itself (7x7,
  // images of 1000 channels).
  using I = xsimd::batch<int32_t, A>;
  constexpr int W = kWidth<A>;
  const bool by_vectors = stride * W <= std::numeric_limits<int32_t>::max();
  I step_index(0);
  if (by_vectors) {
    alignas(64) int32_t idx[W];
    for (int i = 0; i < W; ++i) idx[i] = static_cast<int32_t>(i * stride);
    step_index = I::load_aligned(idx);
  }
  const dim_t gathered = std::is_same_v<S, float> && by_vectors ? len - len % W : 0;
  for (int j = 0; j < lanes; ++j) {
    if constexpr (std::is_same_v<S, float>) {
      for (dim_t a = 0; a < gathered; a += W) {
        vf<A>::gather(src + a * stride + j, step_index).store_unaligned(in + j * len + a);
      }
    }
    for (dim_t a = gathered; a < len; ++a) in[j * len + a] = src[a * stride + j];
  }
  kernel_args rows;
  rows.alg = k.alg;
  rows.out_scale = k.out_scale;
  rows.in0 = in;
  rows.out = out;
  rows.rows.depth = 1;
  rows.rows.sizes[0] = lanes;
  rows.rows.strides[0] = len;
  rows.rows.count = lanes;
  rows.dense = {len, len, len};
  forward_dense<A, S, D>(rows, 0, lanes);
  const dim_t scattered = std::is_same_v<D, float> && by_vectors ? len - len % W : 0;
  for (int j = 0; j < lanes; ++j) {
    if constexpr (std::is_same_v<D, float>) {
      for (dim_t a = 0; a < scattered; a += W) {
        vf<A>::load_unaligned(out + j * len + a).scatter(dst + a * stride + j, step_index);
      }
    }
    for (dim_t a = scattered; a < len; ++a) dst[a * stride + j] = out[j * len + a];
  }
  return true;
}

template <class A, bool kLog, class S, class D>
void forward_strided_as(const kernel_args& k, dim_t begin, dim_t end) {
  constexpr int W = kWidth<A>;
  constexpr int kVectors = kMaxSweepVectors<S, D>;  // vectors of lanes per sweep along the axis
  // Leftover lanes up to this many go through remainder_lanes_as_dense_rows; more take a vector
  // ending at the last lane (overlapping the previous one). Per axis step, a leftover lane costs
  // about two scalar copies and 1/W of a vector's arithmetic, a vector about W / 4 times that.
  constexpr int kMaxLanesAsRows = W / 4;
  // Prefetch the next group only when one group's src + dst is at most half of a 1 MB L2 (this
  // CPU's; nchw 32x1000x7x7 f32: 392 KB): the current group's must stay there too.
  constexpr dim_t kPrefetchMaxGroupBytes = 512 << 10;
  const strided_geometry& g = k.strided;
  const bool inf_as_zero = k.alg == softmax_alg::softmax_inf_as_zero;
  // A split group: [begin, end) are parts of group 0.
  const bool split = k.split.parts > 0;
  const bool interleaved = strided_is_interleaved(g, W);
  for (dim_t group = split ? 0 : begin; group < (split ? 1 : end); ++group) {
    const dim_t base = k.rows.offset_of(group);
    if (interleaved) {
      if (split) forward_interleaved<A, kLog, S, D>(k, base, begin, end);
      else forward_interleaved<A, kLog, S, D>(k, base);
      continue;
    }
    const S* src = static_cast<const S*>(k.in0) + base;
    D* dst = static_cast<D*>(k.out) + base;
    auto parts_from = [&](dim_t first_lane) __attribute__((always_inline)) {
      return split ? split_lanes{&k.split, g.lanes, first_lane, begin, end} : split_lanes{};
    };
    next_group next;
    if (!split && group + 1 < end &&
        g.len * g.axis_stride * dim_t{sizeof(S) + sizeof(D)} <= kPrefetchMaxGroupBytes) {
      const dim_t next_base = k.rows.offset_of(group + 1);
      next.src = reinterpret_cast<const char*>(static_cast<const S*>(k.in0) + next_base);
      next.dst = reinterpret_cast<const char*>(static_cast<D*>(k.out) + next_base);
      next.step_bytes = g.axis_stride * dim_t{sizeof(S)};
      next.dst_step_bytes = g.axis_stride * dim_t{sizeof(D)};
    }
    const dim_t whole = g.lanes / W;
    const int rest = static_cast<int>(g.lanes % W);
    const bool rest_done =
        rest != 0 && rest <= kMaxLanesAsRows && !split &&
        remainder_lanes_as_dense_rows<A, S, D>(k, src + whole * W, dst + whole * W, rest, g.len,
                                               g.axis_stride);
    if (rest != 0 && !rest_done && whole == 0) {
      const int one[1] = {0};
      sweep_lane_vectors<A, kLog, S, D, 1, true>(src, dst, g.len, g.axis_stride, one, rest,
                                                 inf_as_zero, {}, parts_from(0), k.out_scale);
      continue;
    }
    for_each_lane_sweep<W, kVectors>(
        g.lanes, rest != 0 && !rest_done, [&]<int NV>(dim_t j0, const int (&off)[NV], bool first) __attribute__((always_inline)) {
          sweep_lane_vectors<A, kLog, S, D, NV, false>(src + j0, dst + j0, g.len, g.axis_stride,
                                                       off, 0, inf_as_zero,
                                                       first ? next : next_group{}, parts_from(j0),
                                                       k.out_scale);
        });
  }
}

template <class A, class S, class D>
void forward_strided(const kernel_args& k, dim_t begin, dim_t end) {
  if (k.alg == softmax_alg::logsoftmax) return forward_strided_as<A, true, S, D>(k, begin, end);
  return forward_strided_as<A, false, S, D>(k, begin, end);
}

}  // namespace tessera::softmax_internal::TESSERA_ISA_NS

#endif  // TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_FORWARD_STRIDED_H_
