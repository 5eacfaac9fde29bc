// Backward softmax / logsoftmax along a strided axis (nchw along C): vectorised across neighbouring
// rows, looping along the axis, as the forward's strided kernel does. Part of the per-ISA kernels:
// include only from vector_kernels_impl.h.
#ifndef TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_BACKWARD_STRIDED_H_
#define TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_BACKWARD_STRIDED_H_

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>

#include "tessera/primitives/softmax/internal/kernel_args.h"
#include "tessera/primitives/softmax/internal/kernel_math.h"
#include "tessera/primitives/softmax/internal/scaled_exp_f64.h"
#include "tessera/simd/math.h"
#include "xsimd/xsimd.hpp"

namespace tessera::softmax_internal::TESSERA_ISA_NS {

// logsoftmax's dx = dy - exp(y) * sum for per-lane f64 sums (sum_lo, sum_hi: the vector's lower
// and upper lanes), in f64 and rounded once; exp_f64 has scale 1.
template <class A>
vf<A> logsoftmax_dx_in_f64(vf<A> d, vf<A> u, const scaled_exp_f64<A>& exp_f64, vd<A> sum_lo,
                           vd<A> sum_hi) {
  vd<A> dlo, dhi, ulo, uhi;
  simd::widen_to_f64<A>(d, dlo, dhi);
  simd::widen_to_f64<A>(u, ulo, uhi);
  return simd::narrow_to_f32<A>(dlo - exp_f64(ulo) * sum_lo, dhi - exp_f64(uhi) * sum_hi);
}

// One vector of dx from dy = d, y = u and the lanes' sums: softmax u * (d - sum_f32);
// logsoftmax d - exp(u) * sum, in f32 where nothing cancels (logsoftmax_dx_f32_where_safe), else
// in f64 with the sums sums_f64() = {lo, hi} (called only then). What every strided backward
// sweep stores; forced inline, as the sweeps' other steps.
template <class A, bool kLog, class SumsF64>
__attribute__((always_inline)) inline vf<A> strided_dx(vf<A> d, vf<A> u, vf<A> sum_f32,
                                                       const scaled_exp_f64<A>& exp_f64,
                                                       SumsF64 sums_f64) {
  if constexpr (kLog) {
    return logsoftmax_dx_f32_where_safe<A>(d, u, sum_f32, [&](vf<A> d64, vf<A> u64) __attribute__((always_inline)) {
      const auto [lo, hi] = sums_f64();
      return logsoftmax_dx_in_f64<A>(d64, u64, exp_f64, lo, hi);
    });
  } else {
    return u * (d - sum_f32);
  }
}

// The second sweep over elements [e0, e1) of a group that is one contiguous block (its lanes are
// its whole axis stride: nchw along C, element i in lane i % lanes, at least a vector of lanes):
// dx in whole vectors in memory order, on whole lines after a head, each vector's sums loaded
// from tables that repeat the lane sums past the last lane (`lanes + W` entries: f64 and the
// same rounded to f32). Per element the arithmetic is backward_lane_vectors', so are the bits;
// it replaces NV unaligned vectors per axis step (the last overlapping, a pointer per vector).
template <class A, class T, bool kLog>
void backward_contiguous_dx(const T* y, const T* dy, T* dx, int lanes, dim_t e0, dim_t e1,
                            const double* sum_f64, const float* sum_f32) {
  using F = vf<A>;
  using D = vd<A>;
  constexpr int W = kWidth<A>;
  const scaled_exp_f64<A> exp_f64(1.0);
  auto dx_of = [&](F d, F u, int lane) __attribute__((always_inline)) {
    return strided_dx<A, kLog>(d, u, F::load_unaligned(sum_f32 + lane), exp_f64, [&]() __attribute__((always_inline)) {
      return std::pair{D::load_unaligned(sum_f64 + lane),
                       D::load_unaligned(sum_f64 + lane + D::size)};
    });
  };
  auto partial = [&](dim_t i, int n, int lane) __attribute__((always_inline)) {
    const F r = dx_of(load_partial<A>(dy + i, n, 0.f), load_partial<A>(y + i, n, 0.f), lane);
    simd::store_f32(dx + i, r, n);
  };
  int lane = static_cast<int>(e0 % lanes);
  auto advance = [&](int n) __attribute__((always_inline)) {  // n <= W <= lanes
    lane += n;
    if (lane >= lanes) lane -= lanes;
  };
  dim_t i = e0;
  const int head = aligning_head<A>(dx + i, e1 - i);
  if (head > 0) {
    partial(i, head, lane);
    i += head;
    advance(head);
  }
  for (; i + W <= e1; i += W) {
    simd::store_f32(dx + i, dx_of(simd::load_f32<A>(dy + i), simd::load_f32<A>(y + i), lane));
    advance(W);
  }
  if (i < e1) partial(i, static_cast<int>(e1 - i), lane);
}

// NV vectors of lanes at element offsets off[0..NV) from y / dy / dx (lane j of axis step a at
// a * stride + j). kPartial: one vector of `last` lanes (masked loads and stores: only when the
// group has fewer lanes than a vector; a masked store is slow on AMD). Vectors may overlap (the
// last one ending at the group's last lane): overlapping lanes compute identical values, and
// the second sweep loads all NV vectors of an axis step before it stores any, so dx may be dy.
// The arithmetic is the dense backward's, per lane:
//   sums: softmax's four axis steps added pairwise in f32 (products rounded once), widened to
//   f64; logsoftmax's each widened to f64 (exact);
//   softmax dx = y * (dy - sum), the sum rounded to f32; logsoftmax dx = dy - exp(y) * sum in
//   f32 where nothing cancels, else in f64 (logsoftmax_dx_f32_where_safe).
// With `parts.split` (a single group split along its axis), only the current phase, on parts
// [part_begin, part_end): phase 0 stores each part's per-lane sums (f64), phase 1 merges them in
// part order and stores dx. Parts start at a multiple of four steps, so the f32 groups of four
// are the whole group's; only the order of the f64 additions differs from a call without parts.
// contiguous: the group is one contiguous block and this sweep holds all its lanes; the second
// sweep is then backward_contiguous_dx.
template <class A, class T, bool kLog, int NV, bool kPartial>
struct backward_lane_sweep {
  static_assert(!kPartial || NV == 1);
  using F = vf<A>;
  using D = vd<A>;
  static constexpr int W = kWidth<A>;
  // The contiguous second sweep's tables (built once the sums are complete).
  static constexpr int kTable = NV * W + W;

  const T* y;
  const T* dy;
  T* dx;
  dim_t len;
  dim_t stride;
  const int (&off)[NV];
  int last;
  bool contiguous;
  // Outside the object (the out-of-line calls take them by address, which would otherwise keep
  // every member of the sweep in memory).
  wide_sum<A> (&sum)[NV];
  double* table_f64;
  float* table_f32;

  [[gnu::always_inline]] backward_lane_sweep(const T* y_in, const T* dy_in, T* dx_in, dim_t n,
                                             dim_t axis_stride, const int (&offsets)[NV],
                                             int last_lanes, bool is_contiguous,
                                             wide_sum<A> (&sums)[NV], double* f64, float* f32)
      : y(y_in), dy(dy_in), dx(dx_in), len(n), stride(axis_stride), off(offsets),
        last(last_lanes), contiguous(is_contiguous), sum(sums), table_f64(f64), table_f32(f32) {}

  [[gnu::always_inline]] F load(const T* p, int v) const {
    if constexpr (kPartial) return load_partial<A>(p + off[v], last, 0.f);
    else return simd::load_f32<A>(p + off[v]);
  }

  // dx's lines of this sweep's lanes into L2 while the first sweep reads y and dy: the second
  // sweep's stores otherwise wait for each line's read for ownership from L3 or memory.
  [[gnu::always_inline]] void fetch_dx(dim_t a0, dim_t a1) const {
    if (contiguous) {
      // The steps are back to back: each line once, in one pass.
      const auto end = reinterpret_cast<std::uintptr_t>(dx + a1 * stride);
      for (auto p = reinterpret_cast<std::uintptr_t>(dx + a0 * stride) & ~std::uintptr_t{63};
           p < end; p += 64) {
        simd::prefetch<simd::locality::l2>(reinterpret_cast<const char*>(p));
      }
      return;
    }
    const dim_t dx_end = off[NV - 1] + (kPartial ? last : W);
    for (dim_t a = a0; a < a1; ++a) {
      const T* step = dx + a * stride;
      const auto end = reinterpret_cast<std::uintptr_t>(step + dx_end);
      for (auto p = reinterpret_cast<std::uintptr_t>(step + off[0]) & ~std::uintptr_t{63}; p < end;
           p += 64) {
        simd::prefetch<simd::locality::l2>(reinterpret_cast<const char*>(p));
      }
    }
  }
  // The first sweep over axis steps [a0, a1), into sum[].
  [[gnu::always_inline]] void add_sums(dim_t a0, dim_t a1) {
    dim_t a = a0;
    for (; a + 4 <= a1; a += 4) {
      fetch_dx(a, a + 4);
      for (int v = 0; v < NV; ++v) {
        F d[4];
        for (int q = 0; q < 4; ++q) d[q] = load(dy + (a + q) * stride, v);
        if constexpr (kLog) {
          for (int q = 0; q < 4; ++q) sum[v].add(d[q]);
        } else {
          F u[4];
          for (int q = 0; q < 4; ++q) u[q] = load(y + (a + q) * stride, v);
          sum[v].add_products4(d, u);
        }
      }
    }
    for (; a < a1; ++a) {
      for (int v = 0; v < NV; ++v) {
        const F d = load(dy + a * stride, v);
        if constexpr (kLog) sum[v].add(d);
        else sum[v].add_product(d, load(y + a * stride, v));
      }
    }
  }
  // The second sweep over axis steps [a0, a1), with the group's sums in sum[].
  [[gnu::always_inline]] void store_dx(dim_t a0, dim_t a1) {
    F sum_f32[NV];
    for (int v = 0; v < NV; ++v) sum_f32[v] = simd::narrow_to_f32<A>(sum[v].lo, sum[v].hi);
    const scaled_exp_f64<A> exp_f64(1.0);
    for (dim_t a = a0; a < a1; ++a) {
      const dim_t o = a * stride;
      F r[NV];
      for (int v = 0; v < NV; ++v) {
        r[v] = strided_dx<A, kLog>(load(dy + o, v), load(y + o, v), sum_f32[v], exp_f64,
                                   [&]() __attribute__((always_inline)) { return std::pair{sum[v].lo, sum[v].hi}; });
      }
      for (int v = 0; v < NV; ++v) {
        if constexpr (kPartial) simd::store_f32(dx + o + off[v], r[v], last);
        else simd::store_f32(dx + o + off[v], r[v]);
      }
    }
  }
  // Forced inline, as the sweeps: as calls they take sum[] by address, and the first sweep then
  // keeps its sums in memory (stored every step).
  [[gnu::always_inline]] void fill_tables() {
    const int lanes = static_cast<int>(stride);
    for (int v = 0; v < NV; ++v) sum[v].lanes(table_f64 + off[v]);
    for (int j = lanes; j < lanes + W; ++j) table_f64[j] = table_f64[j - lanes];
    for (int j = 0; j < lanes + W; ++j) table_f32[j] = static_cast<float>(table_f64[j]);
  }
  [[gnu::always_inline]] void second_sweep(dim_t a0, dim_t a1) {
    if (contiguous) {
      backward_contiguous_dx<A, T, kLog>(y, dy, dx, static_cast<int>(stride), a0 * stride,
                                         a1 * stride, table_f64, table_f32);
    } else {
      store_dx(a0, a1);
    }
  }

  [[gnu::always_inline]] void run_whole() {
    add_sums(0, len);
    if (contiguous) fill_tables();
    second_sweep(0, len);
  }

  // A split group's phase (see backward_lane_vectors).
  [[gnu::always_inline]] void run_phase(const split_lanes& parts) {
    const axis_split& split = *parts.split;
    const int used = kPartial ? last : W;  // lanes of each vector that belong to the group
    auto steps_of = [&](dim_t part, dim_t& a0, dim_t& a1) __attribute__((always_inline)) {
      a0 = part * split.part_len;
      a1 = std::min(len, a0 + split.part_len);
    };
    if (split.phase == 0) {
      for (dim_t part = parts.part_begin; part < parts.part_end; ++part) {
        dim_t a0, a1;
        steps_of(part, a0, a1);
        for (int v = 0; v < NV; ++v) sum[v] = {};
        add_sums(a0, a1);
        for (int v = 0; v < NV; ++v) {
          double lane_sum[W];
          sum[v].lanes(lane_sum);
          std::copy_n(lane_sum, used, split.rest + parts.at(part, off[v]));
        }
      }
      return;
    }
    for (int v = 0; v < NV; ++v) {
      alignas(64) double lane_sum[W] = {};  // lanes past `used`: never stored
      for (int i = 0; i < used; ++i) {
        for (dim_t q = 0; q < split.parts; ++q) lane_sum[i] += split.rest[parts.at(q, off[v]) + i];
      }
      sum[v].lo = D::load_aligned(lane_sum);
      sum[v].hi = D::load_aligned(lane_sum + D::size);
    }
    if (contiguous) fill_tables();
    // Last part first: phase 0 left its y and dy in L2.
    for (dim_t part = parts.part_end; part-- > parts.part_begin;) {
      dim_t a0, a1;
      steps_of(part, a0, a1);
      second_sweep(a0, a1);
    }
  }
};

template <class A, class T, bool kLog, int NV, bool kPartial>
void backward_lane_vectors(const T* y, const T* dy, T* dx, dim_t len, dim_t stride,
                           const int (&off)[NV], int last, bool contiguous,
                           const split_lanes& parts = {}) {
  using sweep_type = backward_lane_sweep<A, T, kLog, NV, kPartial>;
  wide_sum<A> sum[NV];
  alignas(64) double table_f64[sweep_type::kTable];
  alignas(64) float table_f32[sweep_type::kTable];
  sweep_type sweep(y, dy, dx, len, stride, off, last, contiguous, sum, table_f64, table_f32);
  if (parts.split == nullptr) sweep.run_whole();
  else sweep.run_phase(parts);
}

// An interleaved group (strided_is_interleaved: fewer lanes than a vector, dividing it, the axis
// steps back to back; 30000x8 along dim 0 on avx512bw) is one contiguous block in which vector
// lane i always belongs to row i % lanes: both sweeps take it in whole vectors, like a dense row,
// instead of one masked vector per axis step (slow on AMD), and each row's sum is the sum of its
// W / lanes vector lanes. Per element the arithmetic is backward_lane_vectors': four vectors'
// products added pairwise in f32 then widened (softmax), each dy widened (logsoftmax).
// A split group (k.split.parts > 0) is cut into parts of part_len * lanes elements (whole
// vectors: plan.cc makes part_len a multiple of W / lanes), and this call runs the current phase
// on parts [part_begin, part_end): phase 0 stores each part's row sums (its vector lanes folded
// to rows), phase 1 merges them in part order and stores dx.
template <class A, class T, bool kLog>
struct backward_interleaved_group {
  using F = vf<A>;
  using D = vd<A>;
  static constexpr int W = kWidth<A>;

  const T* y;
  const T* dy;
  T* dx;
  int lanes;
  dim_t n;
  dim_t full;
  int tail;
  const axis_split& split;

  [[gnu::always_inline]] backward_interleaved_group(const kernel_args& k, dim_t base)
      : y(static_cast<const T*>(k.in0) + base),
        dy(static_cast<const T*>(k.in1) + base),
        dx(static_cast<T*>(k.out) + base),
        lanes(static_cast<int>(k.strided.lanes)),
        n(k.strided.len * k.strided.lanes),
        full(n - n % W),
        tail(static_cast<int>(n - full)),
        split(k.split) {}

  // Elements [e0, e1) of part p: whole vectors but for the group's tail.
  [[gnu::always_inline]] void part_range(dim_t p, dim_t& e0, dim_t& e1) const {
    const bool is_split = split.parts > 0;
    e0 = is_split ? p * split.part_len * lanes : 0;
    e1 = is_split ? std::min(n, (p + 1) * split.part_len * lanes) : n;
  }

  // Each row's sum over elements [e0, e1): the vector lanes' sums folded to rows, lane order.
  [[gnu::always_inline]] void row_sums(dim_t e0, dim_t e1, double (&row)[W]) const {
    wide_sum<A> sum;
    const dim_t whole_end = std::min(e1, full);
    dim_t i = e0;
    for (; i + 4 * W <= whole_end; i += 4 * W) {
      F d[4];
      for (int q = 0; q < 4; ++q) d[q] = simd::load_f32<A>(dy + i + q * W);
      if constexpr (kLog) {
        for (int q = 0; q < 4; ++q) sum.add(d[q]);
      } else {
        F u[4];
        for (int q = 0; q < 4; ++q) u[q] = simd::load_f32<A>(y + i + q * W);
        sum.add_products4(d, u);
      }
    }
    for (; i < whole_end; i += W) {
      const F d = simd::load_f32<A>(dy + i);
      if constexpr (kLog) sum.add(d);
      else sum.add_product(d, simd::load_f32<A>(y + i));
    }
    if (tail && e1 == n) {
      const F d = load_partial<A>(dy + full, tail, 0.f);
      if constexpr (kLog) sum.add(d);
      else sum.add_product(d, load_partial<A>(y + full, tail, 0.f));
    }
    double lane_sum[W];
    sum.lanes(lane_sum);
    for (int j = 0; j < lanes; ++j) {
      row[j] = 0;
      for (int c = j; c < W; c += lanes) row[j] += lane_sum[c];
    }
  }

  // dx over elements [e0, e1), each row's sum repeated over a vector's copies in `pattern`.
  [[gnu::always_inline]] void store_dx(dim_t e0, dim_t e1, const double (&pattern)[W]) const {
    const D sum_lo = D::load_unaligned(pattern);
    const D sum_hi = D::load_unaligned(pattern + D::size);
    const F sum_f32 = simd::narrow_to_f32<A>(sum_lo, sum_hi);
    const scaled_exp_f64<A> exp_f64(1.0);
    auto dx_of = [&](F d, F u) __attribute__((always_inline)) {
      return strided_dx<A, kLog>(d, u, sum_f32, exp_f64, [&]() __attribute__((always_inline)) { return std::pair{sum_lo, sum_hi}; });
    };
    const dim_t whole_end = std::min(e1, full);
    for (dim_t i = e0; i < whole_end; i += W) {
      simd::store_f32(dx + i, dx_of(simd::load_f32<A>(dy + i), simd::load_f32<A>(y + i)));
    }
    if (tail && e1 == n) {
      simd::store_f32(
          dx + full,
          dx_of(load_partial<A>(dy + full, tail, 0.f), load_partial<A>(y + full, tail, 0.f)),
          tail);
    }
  }
};

template <class A, class T, bool kLog>
void backward_interleaved(const kernel_args& k, dim_t base, dim_t part_begin = 0,
                          dim_t part_end = 1) {
  constexpr int W = kWidth<A>;
  const backward_interleaved_group<A, T, kLog> group(k, base);
  const axis_split& split = k.split;
  const bool is_split = split.parts > 0;
  const int lanes = group.lanes;
  double row[W];
  if (is_split && split.phase == 0) {
    for (dim_t p = part_begin; p < part_end; ++p) {
      dim_t e0, e1;
      group.part_range(p, e0, e1);
      group.row_sums(e0, e1, row);
      std::copy_n(row, lanes, split.rest + p * lanes);
    }
    return;
  }
  if (is_split) {
    for (int j = 0; j < lanes; ++j) {
      row[j] = 0;
      for (dim_t q = 0; q < split.parts; ++q) row[j] += split.rest[q * lanes + j];
    }
  } else {
    group.row_sums(0, group.n, row);
  }
  double pattern[W];
  for (int c = 0; c < W; ++c) pattern[c] = row[c % lanes];
  // Last part first: phase 0 left its y and dy in L2.
  for (dim_t p = part_end; p-- > part_begin;) {
    dim_t e0, e1;
    group.part_range(p, e0, e1);
    group.store_dx(e0, e1, pattern);
  }
}

template <class A, class T, bool kLog>
void backward_strided_rows(const kernel_args& k, dim_t begin, dim_t end) {
  constexpr int W = kWidth<A>;
  constexpr int kMaxVectors = kMaxSweepVectors<T, T>;  // per sweep along the axis
  const strided_geometry& g = k.strided;
  const dim_t whole = g.lanes / W;
  const int rest = static_cast<int>(g.lanes % W);
  const bool interleaved = strided_is_interleaved(g, W);
  // A split group: [begin, end) are parts of group 0.
  const bool split = k.split.parts > 0;
  for (dim_t group = split ? 0 : begin; group < (split ? 1 : end); ++group) {
    const dim_t base = k.rows.offset_of(group);
    if (interleaved) {
      if (split) backward_interleaved<A, T, kLog>(k, base, begin, end);
      else backward_interleaved<A, T, kLog>(k, base);
      continue;
    }
    const T* y = static_cast<const T*>(k.in0) + base;
    const T* dy = static_cast<const T*>(k.in1) + base;
    T* dx = static_cast<T*>(k.out) + base;
    auto parts_from = [&](dim_t first_lane) __attribute__((always_inline)) {
      return split ? split_lanes{&k.split, g.lanes, first_lane, begin, end} : split_lanes{};
    };
    if (whole == 0) {
      const int zero[1] = {0};
      backward_lane_vectors<A, T, kLog, 1, true>(y, dy, dx, g.len, g.axis_stride, zero, rest,
                                                 false, parts_from(0));
      continue;
    }
    // One sweep holds every lane of a contiguous group: its second sweep goes in memory order.
    const bool contiguous =
        g.axis_stride == g.lanes && whole + (rest != 0 ? 1 : 0) <= kMaxVectors;
    for_each_lane_sweep<W, kMaxVectors>(
        g.lanes, rest != 0, [&]<int NV>(dim_t j, const int (&off)[NV], bool) __attribute__((always_inline)) {
          backward_lane_vectors<A, T, kLog, NV, false>(y + j, dy + j, dx + j, g.len,
                                                       g.axis_stride, off, W, contiguous,
                                                       parts_from(j));
        });
  }
}

template <class A, class Dst, class DiffDst, class DiffSrc>
void backward_strided(const kernel_args& k, dim_t begin, dim_t end) {
  static_assert(std::is_same_v<Dst, DiffDst> && std::is_same_v<Dst, DiffSrc>);
  if (k.alg == softmax_alg::logsoftmax) {
    backward_strided_rows<A, Dst, true>(k, begin, end);
  } else {
    backward_strided_rows<A, Dst, false>(k, begin, end);
  }
}

}  // namespace tessera::softmax_internal::TESSERA_ISA_NS

#endif  // TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_BACKWARD_STRIDED_H_
