// What every softmax kernel shares: vector types, partial loads, exp(x - max) with the subtraction's
// rounding error folded back, log(x - max) - log(sum), and f64 row sums. Part of the per-ISA
// kernels: include only from vector_kernels_impl.h (vector_kernels.cc carries the ISA flags).
//
// Arithmetic is f32. Three things keep the f32 result within a few ulp of the exact one:
//  * x - max is computed with its rounding error (TwoSum) and exp(x - max) is corrected by it:
//    without it, rows whose values span ~80 lose up to 2^6 ulp in the small outputs (the dense
//    forward kernel takes exp_minus_f32, exp_minus.h, instead where the row's range allows: it
//    never rounds x - max);
//  * exp is exp_nonpositive_f32 (exp_nonpositive.h; 1.00 ulp on avx512bw, 1.24 elsewhere,
//    measured by //primitives/softmax:exp_test); loads, stores and tails are simd/convert.h and
//    simd/tail.h.
#ifndef TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_KERNEL_MATH_H_
#define TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_KERNEL_MATH_H_

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <optional>
#include <type_traits>
#include <utility>
#include <vector>

#include "tessera/core/data_type.h"
#include "tessera/simd/convert.h"
#include "tessera/simd/select.h"
#include "tessera/simd/math.h"
#include "tessera/simd/memory.h"
#include "tessera/simd/per_isa.h"
#include "tessera/simd/reduce.h"
#include "tessera/simd/tail.h"
#include "tessera/simd/widen.h"
#include "tessera/primitives/softmax/internal/exp_minus.h"
#include "tessera/primitives/softmax/internal/exp_nearby.h"
#include "tessera/primitives/softmax/internal/exp_nonpositive.h"
#include "tessera/primitives/softmax/internal/kernel_args.h"
#include "xsimd/xsimd.hpp"

namespace tessera::softmax_internal::TESSERA_ISA_NS {

template <class A>
using vf = xsimd::batch<float, A>;

template <class A>
constexpr int kWidth = static_cast<int>(vf<A>::size);

// ---- loads and stores: simd/convert.h and simd/tail.h --------------------------------------

template <class A>
constexpr bool kHasF16c = std::is_base_of_v<xsimd::avx512bw, A> || std::is_same_v<A, xsimd::avx2>;

template <class A>
vf<A> lane_index() {
  alignas(64) static constexpr float kIota[16] = {0, 1, 2,  3,  4,  5,  6,  7,
                                                  8, 9, 10, 11, 12, 13, 14, 15};
  return vf<A>::load_aligned(kIota);
}

// The first n (0 < n < width) elements; the other lanes fill's. Never reads past p + n.
// The exps' partial vectors fill with the row's max, whose exp is 1: the lanes past the row's
// end are selected to 0 afterwards. Filled with -Inf (or 0, for a max above 88) they would go
// through an exp that underflows, and Intel cores handle underflow in microcode, slowly: rows of
// 442 x 15 then take several times as long as rows of 442 x 16.
template <class A, class T>
vf<A> load_partial(const T* p, int n, vf<A> fill) {
  return ::tessera::simd::select(lane_index<A>() < vf<A>(static_cast<float>(n)),
                                 simd::load_f32<A>(p, n), fill);
}

// The same with one fill for every lane: the max's -Inf, the min's +Inf, or 0 (which
// simd::load_f32 already gives there, without the select).
template <class A, class T>
vf<A> load_partial(const T* p, int n, float fill) {
  if (fill == 0.f) return simd::load_f32<A>(p, n);
  return load_partial<A>(p, n, vf<A>(fill));
}

// ---- arithmetic ----------------------------------------------------------------------------

// How far below a row's max its exps are 0 without being computed: exp(-110) is far below the
// smallest denormal (2^-149 = exp(-103.3)). Computing them underflows, and Intel cores handle an
// underflowing result in microcode, slowly: rows of attention scores under a mask (-Inf, -1e4,
// -1e30) would take it on every masked vector.
inline constexpr float kExpZeroBelow = 110.f;

// exp(x - m), with x - m's rounding error folded back in (TwoSum). x below m - kExpZeroBelow
// gives 0 by a select, the arithmetic taking m in its place (exp 1: no underflow), which also
// keeps TwoSum finite for x = -Inf. A NaN x fails the comparison and stays NaN; m = -Inf gives
// NaN.
template <class A>
vf<A> exp_diff(vf<A> x, vf<A> m) {
  using F = vf<A>;
  const auto zero = x < m - F(kExpZeroBelow);
  x = ::tessera::simd::select(zero, m, x);
  F d = x - m;
  F bb = d - x;
  F err = (x - (d - bb)) + (-m - bb);
  F e = exp_nonpositive_f32<A>(d);
  return ::tessera::simd::select(zero, F(0.f), simd::fused_fma(e, err, e));
}

// The per-lane exp(x - max) of the kernels that vectorise across rows (each lane a row, with its
// own range): exp_minus_nearby_lanes_f32 on avx2 (results exp(x - s), s near each lane's max;
// to_c(i) the factor to exp(x - max)), exp_minus_lanes_f32 on avx512bw (exp(x - max), to_c 1).
// Either is taken when its make() accepts every lane's range [min, max]; exp_diff otherwise.
template <class A>
constexpr bool kHasLanesExp =
    std::is_same_v<A, xsimd::avx2> || std::is_base_of_v<xsimd::avx512bw, A>;
template <class A>
using lanes_exp = std::conditional_t<std::is_same_v<A, xsimd::avx2>,
                                     exp_minus_nearby_lanes_f32<A>,
                                     exp_minus_lanes_f32<A>>;

// exp_minus_f32 for a row of range [mn, mx], and a lanes_exp for lanes of ranges [lo, m], where
// the range (every lane's) stays within kExpZeroBelow of its max: these compute every exp, the
// underflowing ones too, and below that exp_diff's select of 0 costs less.
template <class A>
std::optional<exp_minus_f32<A>> make_exp_minus(float mx, float mn) {
  if (!(mn >= mx - kExpZeroBelow)) return std::nullopt;
  return exp_minus_f32<A>::make(mx, mn);
}
template <class A>
std::optional<lanes_exp<A>> make_lanes_exp(vf<A> m, vf<A> lo) {
  if (xsimd::any(lo < m - vf<A>(kExpZeroBelow))) return std::nullopt;
  return lanes_exp<A>::make(m, lo);
}

// Whether exp_diff_max_dominates may replace exp_diff for a row whose values (NaNs aside) lie in
// [mn, mx] with max mx: mx is positive and finite and its exponent is at least every |x|'s (so
// Fast2Sum recovers x - mx's rounding error exactly), and no x is below mx - 100 (so exp_diff's
// select of 0 would choose none). Most rows of logits qualify (the benchmarks' [-5, 5) does);
// rows with mx <= 0 or a min far below -mx take exp_diff.
inline bool max_dominates(float mx, float mn) {
  // Biased exponent fields (not std::ilogb, a libm call: a noticeable share of a 128-element
  // row's time).
  // Denormals read 0, below every normal's; two denormals share the exponent the condition means.
  auto exponent = [](float v) __attribute__((always_inline)) { return (std::bit_cast<uint32_t>(v) >> 23) & 0xffu; };
  return std::isfinite(mx) && mx > 0.f && mn >= mx - 100.f &&
         (mn >= -mx || exponent(mn) <= exponent(mx));
}

// exp_diff for a row where max_dominates(m, row min): the same result, with three vector
// operations fewer. Fast2Sum (a = -m, b = x, valid since m's exponent is at least x's) gives the
// same exact error as TwoSum, and the select would not have changed any x.
template <class A>
vf<A> exp_diff_max_dominates(vf<A> x, vf<A> m) {
  const vf<A> d = x - m;
  const vf<A> err = x - (d + m);
  const vf<A> e = exp_nonpositive_f32<A>(d);
  return simd::fused_fma(e, err, e);
}

// (x - m) - l, rounded twice. Unlike exp(x - m), the result needs no correction for x - m's
// rounding: x <= m and l = log(sum) >= 0, so |x - m| <= |result| and l <= |result|, and each
// of the two roundings (and l's own) is within half an ulp of the result: 1.5 eps at most
// beyond the error l carries from the exps. -Inf stays -Inf; an all -Inf row gives NaN.
template <class A>
vf<A> log_diff(vf<A> x, vf<A> m, vf<A> l) {
  return (x - m) - l;
}

template <class A>
using vd = xsimd::batch<double, A>;

// Sums in f64: each f32 vector is widened into two f64 vectors.
// log(sum) must be accurate relative to itself when sum = 1 + small (logsoftmax), which a
// compensated f32 sum does not guarantee; the widening costs two conversions per vector.
template <class A>
struct wide_sum {
  using D = xsimd::batch<double, A>;
  D lo = D(0.0);
  D hi = D(0.0);
  void add(vf<A> v) {
    D a, b;
    simd::widen_to_f64<A>(v, a, b);
    lo = lo + a;
    hi = hi + b;
  }
  // Adds the four products x[j] * y[j], each rounded once to f32, added pairwise in f32 (two
  // roundings of terms <= their sizes) and widened once: the backward sweeps' softmax sums.
  void add_products4(const vf<A>* x, const vf<A>* y) {
    add(simd::fused_fma(x[1], y[1], x[0] * y[0]) + simd::fused_fma(x[3], y[3], x[2] * y[2]));
  }
  // Adds x * y exactly (a product of two f32 values fits in f64).
  void add_product(vf<A> x, vf<A> y) {
    D xa, xb, ya, yb;
    simd::widen_to_f64<A>(x, xa, xb);
    simd::widen_to_f64<A>(y, ya, yb);
    lo = lo + xa * ya;
    hi = hi + xb * yb;
  }
  // Per-lane sums, lane order.
  void lanes(double* out) const {
    lo.store_unaligned(out);
    hi.store_unaligned(out + D::size);
  }
};

// Per-lane counts of maxima, in int32 lanes: exact up to 2^31 per lane. f32 lanes would be exact
// only up to 2^24 (2^24 + 1 rounds back to 2^24): logsoftmax along a strided axis longer than
// that, or any dense row of more than 2^24 W equal maxima, would be counted short.
template <class A>
struct max_count {
  using I = xsimd::batch<int32_t, A>;
  I n = I(0);
  // Where the comparison's result is a vector (sse4_2, avx2), its all-ones lanes are -1 as
  // int32 and are subtracted: one vector operation and no constant. On avx512bw (a mask
  // register) a blend of integer 1's bits, added as integers.
  void add(typename vf<A>::batch_bool_type at_max) {
    if constexpr (std::is_base_of_v<xsimd::avx512f, A>) {
      const vf<A> one_bits = xsimd::bitwise_cast<vf<A>>(I(1));
      n = n + xsimd::bitwise_cast<I>(::tessera::simd::select(at_max, one_bits, vf<A>(0.f)));
    } else {
      n = n - xsimd::bitwise_cast<I>(vf<A>(at_max.data));
    }
  }
  // Per-lane counts, lane order.
  void lanes(double* out) const {
    alignas(64) int32_t c[kWidth<A>];
    n.store_aligned(c);
    for (int i = 0; i < kWidth<A>; ++i) out[i] = c[i];
  }
  // The sum of all lanes, exact in int32: a row's maxima are at most its length, which the plan
  // keeps below 2^31 (plan.cc: kMaxCountedAxis).
  double total() const { return xsimd::hadd(n); }
};

// The row sum split as (number of elements equal to the max) + (sum of the other exps): each
// max contributes exp(0) = 1 exactly, and keeping the rest apart lets logsoftmax take
// log(count) + log1p(rest / count) without losing `rest` next to the 1s, even in f64.
template <class A>
struct split_sum {
  wide_sum<A> rest;
  max_count<A> count;
  void add(vf<A> x, vf<A> m, vf<A> e) {
    const auto at_max = x == m;
    count.add(at_max);
    rest.add(::tessera::simd::select(at_max, vf<A>(0.f), e));
  }
  // Four vectors at once: their f32 pairwise sum (two roundings of terms <= 1) is widened once.
  void add4(const vf<A>* x, vf<A> m, const vf<A>* e) {
    vf<A> r[4];
    for (int j = 0; j < 4; ++j) {
      const auto at_max = x[j] == m;
      count.add(at_max);
      r[j] = ::tessera::simd::select(at_max, vf<A>(0.f), e[j]);
    }
    rest.add((r[0] + r[1]) + (r[2] + r[3]));
  }
};

// softmax_inf_as_zero: a lane whose max is -Inf (all -Inf) takes the max 0 instead, so that its
// exps are 0 (not exp(-Inf + Inf), NaN), its sum 0 and (inverse_sum) its scale 0: its results are
// then 0. The strided forward kernels apply it to each lane's max before choosing the exp.
template <class A>
vf<A> settle_all_minus_inf(vf<A> m) {
  return ::tessera::simd::select(m == vf<A>(-std::numeric_limits<float>::infinity()), vf<A>(0.f), m);
}

// A softmax lane's scale, 1 / sum. The sum is at least the max's own exp, 1, unless the lane is all
// -Inf: 0 only after settle_all_minus_inf, and the scale is then 0.
inline double inverse_sum(double sum) { return sum == 0 ? 0.0 : 1.0 / sum; }

struct row_total {
  double count = 0;
  double rest = 0;
  double sum() const { return count + rest; }
  // Only for sums made with add(x, m, e) (count >= 1). A single maximum (the usual case) needs
  // neither log(count) nor the division.
  double log_sum() const {
    return count == 1 ? std::log1p(rest) : std::log(count) + std::log1p(rest / count);
  }
};

// One row's split_sum: the f64 halves added lane-wise, then across lanes by xsimd::hadd (a
// shuffle tree, not a chain of W scalar additions). The count is exact (max_count::total).
template <class A>
row_total reduce(const split_sum<A>& k) {
  return {k.count.total(), xsimd::hadd(k.rest.lo + k.rest.hi)};
}

// Plain sum of all lanes (the backward's sums, the four-row kernel's): the f64 halves added
// lane-wise, then across lanes by xsimd::hadd, a shuffle tree as in reduce. Adding the lanes one
// after another would put a chain of W dependent additions in every row, much slower on short
// rows (backward 2x19x17x13 in nhwc).
template <class A>
double reduce_sum(const wide_sum<A>& k) {
  return xsimd::hadd(k.lo + k.hi);
}

// Whether a dense kernel should fetch the next row while its compute-bound sweep runs: single-run
// rows of 1-16 KB. Longer ones would push the current row out of L1 (48 KB here); for shorter ones
// (8192x128) the hardware prefetcher keeps up and the prefetch instructions only cost issue slots
// (measured slower at 512 bytes). From 1 KB, so that bf16 rows of 1000 (2000 bytes) are taken:
// faster cold on AVX-512 Zen 4, 1 and 2 threads, level hot:
//   bazel run -c opt //bench/softmax:softmax_bench -- --benchmark_filter=softmax_fwd_bf16_1024x1000
// The longest row that stays in L1 (48 KB here) next to its dst and the next row.
constexpr dim_t kMaxL1RowBytes = dim_t{16} << 10;

inline bool worth_prefetching_rows(const dense_geometry& g, size_t element_bytes) {
  const dim_t bytes = g.len * static_cast<dim_t>(element_bytes);
  return g.chunk >= g.len && bytes >= (dim_t{1} << 10) && bytes <= kMaxL1RowBytes;
}

// The longest row whose next row a dense kernel fetches into L2 during its compute-bound sweep:
// this row's src and dst and the next row's src (3 x 128 KB) stay within a 512 KB L2.
constexpr dim_t kMaxL2RowBytes = dim_t{128} << 10;

// Whether a dense kernel on arch A should fetch the next row into L2 (not L1) while its exp
// sweep runs: single-run rows too long for worth_prefetching_rows, up to kMaxL2RowBytes. The
// next row's first sweep (max and min, bound by its loads) then reads L2 instead of L3 or DRAM.
// Measured faster on AVX-512 Zen 4 (64x30522: logsoftmax cold and hot, softmax hot, softmax cold
// level), and faster again with the next row's dst fetched into L2 too (forward_dense_rows):
//   bazel run -c opt //bench/softmax:softmax_bench -- --benchmark_filter=64x30522
template <class A>
bool worth_prefetching_rows_to_l2(const dense_geometry& g, size_t element_bytes) {
  const dim_t bytes = g.len * static_cast<dim_t>(element_bytes);
  return g.chunk >= g.len && bytes > kMaxL1RowBytes && bytes <= kMaxL2RowBytes;
}

// The longest single-run row the short-row kernels (backward_short_rows, forward_short_rows)
// hold in registers, in vectors: the row and its results (3 x 4 vectors backward; spilled on
// avx2 and sse4_2, which have 16).
inline constexpr int kShortRowVectors = 4;

// Whether a dense row of geometry g is short (one run of at most kShortRowVectors vectors).
template <class A>
bool is_short_row(const dense_geometry& g) {
  return g.chunk >= g.len && g.len <= dim_t{kShortRowVectors} * kWidth<A>;
}

// Calls f(std::integral_constant<int, NV>{}) for a short row of g, NV = its vector count
// (1..kShortRowVectors), so that the row's vectors can live in arrays the compiler keeps in
// registers.
template <class A, class Fn>
[[gnu::always_inline]] inline void with_short_row_vectors(const dense_geometry& g, Fn&& f) {
  const int vectors = static_cast<int>((g.len + kWidth<A> - 1) / kWidth<A>);
  [&]<int... N>(std::integer_sequence<int, N...>) __attribute__((always_inline)) {
    ((vectors == N + 1 ? f(std::integral_constant<int, N + 1>{}) : void()), ...);
  }(std::make_integer_sequence<int, kShortRowVectors>{});
}

// Elements before p's first vector-aligned address (a cache line for f32 on avx512bw), at most n;
// 0 on other ISAs or when p is not aligned to its element. A dense row of 1000 f32 starts 32
// bytes off a line every other row, and then each of its 64-byte loads and stores spans two
// lines. A kernel that sweeps [0, head) as one partial vector first keeps the rest on whole lines
// (faster on AVX-512 Zen 4, 1 thread: bazel run -c opt //bench/softmax:softmax_bench --
// --benchmark_filter=softmax_bwd_f32_1024x1000). Not on avx2, whose 32-byte vectors need no head
// for such rows and whose masked stores are slow on AMD.
template <class A, class T>
int aligning_head(const T* p, dim_t n) {
  if constexpr (!std::is_base_of_v<xsimd::avx512bw, A>) {
    return 0;
  } else {
    constexpr uintptr_t kBytes = kWidth<A> * sizeof(T);
    const uintptr_t off = reinterpret_cast<uintptr_t>(p) % kBytes;
    if (off % sizeof(T) != 0) return 0;
    const auto head = static_cast<dim_t>((kBytes - off) % kBytes / sizeof(T));
    return static_cast<int>(std::min(n, head));
  }
}

// Calls f(offset, n) for each contiguous run of a dense row.
template <class F>
[[gnu::always_inline]] inline void for_each_run(const dense_geometry& g, F&& f) {
  for (dim_t start = 0, off = 0; start < g.len; start += g.chunk, off += g.chunk_stride) {
    f(off, std::min(g.chunk, g.len - start));
  }
}

// ---- strided kernels: vectors of lanes per sweep along the axis ------------------------------

// The most vectors of lanes one sweep along the axis takes: up to 8 for f32 (nchw 32x1000x7x7's
// 49 lanes in one sweep of 6 + 1 instead of 4 + 2 + 1, which read most lines twice: faster on
// the forward, 1 thread, hot), 4 for other types (fewer instantiations).
template <class S, class D>
constexpr int kMaxSweepVectors = std::is_same_v<S, float> && std::is_same_v<D, float> ? 8 : 4;

// Splits a strided group's lanes into sweeps of at most kMaxVectors vectors of W lanes: vector v
// starts at lane v * W, and with `overlap` (lanes % W left over, at least one whole vector) one
// more ends at the last lane, overlapping the vector before it. Those two always share a sweep:
// a sweep loads all its vectors of an axis step before storing any, which keeps dst == src
// safe, so a sweep never gets the overlapping vector alone. Calls
// sweep(first lane, const int (&off)[NV], is_first) with off the offsets of its NV vectors from
// that lane; NV (1..kMaxVectors) is a compile-time count, for kernels that unroll over it.
template <int W, int kMaxVectors, class Sweep>
void for_each_lane_sweep(dim_t lanes, bool overlap, Sweep sweep) {
  static_assert(kMaxVectors >= 2);  // so that holding one vector back never leaves a sweep empty
  const dim_t whole = lanes / W;
  const dim_t vectors = whole + (overlap ? 1 : 0);
  auto start_of = [&](dim_t v) __attribute__((always_inline)) { return v < whole ? v * W : lanes - W; };
  for (dim_t v0 = 0; v0 < vectors;) {
    int n = static_cast<int>(std::min<dim_t>(kMaxVectors, vectors - v0));
    if (vectors - v0 - n == 1) --n;
    const dim_t first = start_of(v0);
    auto sweep_of = [&]<int NV>(std::integral_constant<int, NV>) __attribute__((always_inline)) {
      int off[NV];
      for (int v = 0; v < NV; ++v) off[v] = static_cast<int>(start_of(v0 + v) - first);
      sweep(first, off, v0 == 0);
    };
    [&]<int... N>(std::integer_sequence<int, N...>) __attribute__((always_inline)) {
      ((n == N + 1 ? sweep_of(std::integral_constant<int, N + 1>{}) : void()), ...);
    }(std::make_integer_sequence<int, kMaxVectors>{});
    v0 += n;
  }
}

// Backward logsoftmax's dx = dy - exp(y) * sum, for y = v, dy = d and the row's (or each
// lane's) sum rounded to f32. dy - exp(y) * sum cancels, and where it does an f32 exp's ~1 ulp on
// exp(y) * sum is far beyond benchdnn's threshold on the small result: such lanes take
// in_f64(d, v), dx computed in f64 and rounded once. The others stay in f32
// (exp_nonpositive_f32, 1 ulp): a lane is kept when y is in [-80, 0] (a logsoftmax output, exp
// normal), the result r is finite and normal, and |p| <= 16 |r| for p = exp(y) * sum. Its error
// is then at most 1 ulp of exp, the sum's and p's roundings and r's: <= 2 eps |p| + eps/2 |r|
// (2.5 eps of the operand size, within the test's 4; <= 32.5 eps of r, within benchdnn's 160).
// Which path a lane takes depends on its values only, so the bits do not depend on placement.
template <class A, class InF64>
vf<A> logsoftmax_dx_f32_where_safe(vf<A> d, vf<A> v, vf<A> sum, InF64 in_f64) {
  using F = vf<A>;
  constexpr float kMaxCancellation = 16.f;
  const auto in_range = (v >= F(-80.f)) & (v <= F(0.f));
  const F p = exp_nonpositive_f32(::tessera::simd::select(in_range, v, F(0.f))) * sum;
  const F r = d - p;
  const F r_size = xsimd::abs(r);
  const auto kept = in_range & (r_size >= F(0x1p-100f)) &
                    (r_size <= F(std::numeric_limits<float>::max())) &
                    (xsimd::abs(p) <= r_size * F(kMaxCancellation));
  if (xsimd::all(kept)) return r;
  return ::tessera::simd::select(kept, r, in_f64(d, v));
}

// Where the strided sweeps of a split group (kernel_args::split) keep their per-lane partial
// results: vector v's lanes of part p start at entry part * lanes + first + off[v].
struct split_lanes {
  const axis_split* split = nullptr;  // nullptr: the group is not split
  dim_t lanes = 0;                    // the group's
  dim_t first = 0;                    // the sweep's first lane
  dim_t part_begin = 0;               // the parts this call works on
  dim_t part_end = 0;
  dim_t at(dim_t part, int off) const { return part * lanes + first + off; }
};

}  // namespace tessera::softmax_internal::TESSERA_ISA_NS

#endif  // TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_KERNEL_MATH_H_
