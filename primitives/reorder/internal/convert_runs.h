// The reorder's lane conversions and run conversion (convert_run_fn): f32 lanes from and to each
// element type, the common quantization applied in apply_one's order, and runs of contiguous
// elements. Per-ISA code: included only from vector_kernels.cc (simd/per_isa.h).
// Each conversion repeats apply_one's operations in the same order on f32 lanes, and converts
// with integer operations that round exactly like <tessera/core/convert.h>, so that vector and
// scalar results are bit-identical (the tests check every kernel against the reference).
#ifndef TESSERA_PRIMITIVES_REORDER_INTERNAL_CONVERT_RUNS_H_
#define TESSERA_PRIMITIVES_REORDER_INTERNAL_CONVERT_RUNS_H_

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>

#include "tessera/primitives/reorder/internal/element_math.h"
#include "tessera/simd/arch.h"
#include "tessera/simd/convert.h"
#include "tessera/simd/math.h"
#include "tessera/simd/memory.h"
#include "tessera/simd/narrow.h"
#include "tessera/simd/per_isa.h"
#include "tessera/simd/select.h"
#include "tessera/simd/tail.h"
#include "xsimd/xsimd.hpp"

namespace tessera::reorder_internal::TESSERA_ISA_NS {

template <class Arch>
using f32x = xsimd::batch<float, Arch>;
template <class Arch>
using s32x = xsimd::batch<int32_t, Arch>;
template <class Arch>
using u32x = xsimd::batch<uint32_t, Arch>;

template <class Arch>
inline constexpr bool kAvx512 = simd::isa_of<Arch> == simd::isa::avx512bw;

template <class T>
inline constexpr bool vector_convertible_v =
    std::is_same_v<T, float> || std::is_same_v<T, bf16> || std::is_same_v<T, int32_t> ||
    std::is_same_v<T, int8_t> || std::is_same_v<T, uint8_t>;

// Types whose lanes store_from_f32 takes from <tessera/simd/convert.h> (F16C for f16 on avx2 and
// avx512bw, integer steps elsewhere; bit for bit the scalar reference, tested there on every
// ISA). Used by convert_run (and so by the transposes' second pass from scratch) and by the
// one-pass f32 <-> f16 tiles (transpose_convert_avx2, transpose_convert_tiles).
template <class T>
inline constexpr bool simd_converted_v =
    std::is_same_v<T, f16> || std::is_same_v<T, f8_e5m2> || std::is_same_v<T, f8_e4m3>;

template <class T>
inline constexpr bool run_convertible_v = vector_convertible_v<T> || simd_converted_v<T>;

// size elements of S as f32 lanes: simd::load_f32, which widens exactly.
template <class Arch, class S>
[[gnu::always_inline]] inline f32x<Arch> load_as_f32(const S* p) {
  if constexpr (simd_converted_v<S>) {
    // The empty asm hides the widening from the optimizer: otherwise clang folds the NaN test of
    // to_int_saturated back through vcvtph2ps into compares of the f16 lanes, which AVX2 lacks,
    // and does them one lane at a time (f16 -> s8 then runs several times slower than bf16 -> s8).
    typename f32x<Arch>::register_type v = simd::load_f32<Arch>(p);
    asm("" : "+x"(v));
    return v;
  } else {
    return simd::load_f32<Arch>(p);
  }
}

// Round half to even and saturate to [lo, hi] (exact f32 bounds, hi < 2^31); NaN becomes
// nan_value (an exact f32 too). NaN is found with !(x == x): xsimd 8.1's avx2 `x != x` uses an
// ordered compare and is false for NaN.
template <class Arch>
s32x<Arch> to_int_saturated(f32x<Arch> x, float lo, float hi, float nan_value) {
  x = simd::select(!(x == x), f32x<Arch>(nan_value), x);
  x = xsimd::min(xsimd::max(x, f32x<Arch>(lo)), f32x<Arch>(hi));
  return xsimd::nearbyint_as_int(x);  // MXCSR round-to-nearest-even
}

// f32 lanes -> s32, saturating; NaN becomes INT32_MAX. INT32_MAX has no f32: clamp to the largest
// f32 below 2^31 and add the missing 127 to the lanes that were at or above 2^31 (NaN counts as
// above).
template <class Arch>
s32x<Arch> to_s32_saturated(f32x<Arch> x) {
  constexpr float kTwo31 = 2147483648.f;
  const f32x<Arch> big = simd::select(!(x == x), f32x<Arch>(kTwo31), x);
  const s32x<Arch> fix = xsimd::nearbyint_as_int(
      simd::select(big >= f32x<Arch>(kTwo31), f32x<Arch>(127.f), f32x<Arch>(0.f)));
  return to_int_saturated<Arch>(big, -kTwo31, 2147483520.f, 0.f) + fix;
}

// kStream (AVX-512 only): a non-temporal store, to a p aligned on the stored width.
// Beware for narrowing types: clang folds a vpmov* narrowing followed by a store, streamed or
// not, into one vpmov* to memory, which is a plain store (the non-temporal hint is dropped) and
// slow on Zen. Long runs use simd::pack_low_words (convert_run_with) instead.
template <class Arch, class D, bool kStream = false>
[[gnu::always_inline]] inline void store_from_f32(f32x<Arch> x, D* p) {
  static_assert(!kStream || kAvx512<Arch>);
  static_assert(!kStream || !simd_converted_v<D>);
  if constexpr (simd_converted_v<D>) {
    simd::store_f32(p, x);
  } else if constexpr (std::is_same_v<D, float>) {
    if constexpr (kStream) {
      simd::stream_store(p, x);
    } else {
      x.store_unaligned(p);
    }
  } else if constexpr (std::is_same_v<D, bf16>) {
    simd::store_narrowed<kStream>(p, simd::bf16_lanes<Arch>(x));
  } else if constexpr (std::is_same_v<D, int32_t>) {
    const s32x<Arch> out = to_s32_saturated<Arch>(x);
    if constexpr (kStream) {
      simd::stream_store(p, out);
    } else {
      out.store_unaligned(p);
    }
  } else {
    constexpr bool is_signed = std::is_same_v<D, int8_t>;
    const s32x<Arch> i = to_int_saturated<Arch>(x, is_signed ? -128.f : 0.f,
                                                is_signed ? 127.f : 255.f, is_signed ? 127.f : 0.f);
    simd::store_narrowed<kStream>(p, i);  // in range already: the narrowing is exact
  }
}

// Whether convert_run stores two vectors at once for this dst type: one 64-byte store of two
// vectors of bf16 (a whole line when p is on one, streamed or not), picked out with
// simd::pack_low_words, which clang cannot fold into the store (see store_from_f32).
template <class Arch, class D>
inline constexpr bool kPairStores = kAvx512<Arch> && std::is_same_v<D, bf16>;

// The common (mask 0) quantization of convert_run and transpose_convert, as f32 lanes, in
// apply_one's order.
template <class Arch>
struct quant_lanes {
  using V = f32x<Arch>;
  const quant_ptrs& q;
  V src_zp, src_scale, oscale, beta, sum_zp, dst_scale, dst_zp;
  V one_scale;  // run_quant::scale_only's factor: the src scale or the output scale
  explicit quant_lanes(const quant_ptrs& qp)
      : q(qp),
        src_zp(qp.src_zp ? static_cast<float>(qp.src_zp[0]) : 0.f),
        src_scale(qp.src_scale ? qp.src_scale[0] : 1.f),
        oscale(qp.oscale ? qp.oscale[0] : 1.f),
        beta(qp.beta),
        sum_zp(static_cast<float>(qp.dst_zp ? qp.dst_zp[0] : qp.sum_zp)),
        dst_scale(qp.dst_scale ? qp.dst_scale[0] : 1.f),
        dst_zp(qp.dst_zp ? static_cast<float>(qp.dst_zp[0]) : 0.f),
        one_scale(qp.src_scale ? src_scale : oscale) {}
  // The sum post-op's step: x + beta * (old_dst - sum zero point).
  template <class D>
  V add_sum(V x, const D* old_dst) const {
    return x + beta * (load_as_f32<Arch>(old_dst) - sum_zp);
  }
  // old_dst: the destination's current values (read only with the sum post-op).
  template <class D>
  V apply(V x, const D* old_dst) const {
    if (q.src_zp) x = x - src_zp;
    if (q.src_scale) x = x * src_scale;
    if (q.oscale) x = x * oscale;
    if (q.has_sum) x = add_sum(x, old_dst);
    if (q.dst_scale) x = simd::divide(x, dst_scale);  // correctly rounded, as apply_one
    if (q.dst_zp) x = x + dst_zp;
    return x;
  }
};

// Which attributes a convert_run instantiation applies. Separate loops rather than one testing
// the attributes per vector: the tests and branches would be most of the instructions of a warm
// f32 -> bf16 run (140x3851, then well behind oneDNN), and the sum post-op's loop would fall
// behind oneDNN's.
enum class run_quant { none, sum_only, scale_only, general };

// The narrowest run_quant that applies q exactly: scale_only is one multiplication, by the src
// scale or the output scale when that is the only attribute.
inline run_quant choose_run_quant(const quant_ptrs& q) {
  if (!q.any()) return run_quant::none;
  const bool only_sum = !q.src_scale && !q.dst_scale && !q.src_zp && !q.dst_zp && !q.oscale;
  if (only_sum) return run_quant::sum_only;
  const bool one_scale = (q.src_scale != nullptr) != (q.oscale != nullptr) && !q.dst_scale &&
                         !q.src_zp && !q.dst_zp && !q.has_sum;
  return one_scale ? run_quant::scale_only : run_quant::general;
}

// Calls f with std::integral_constant<run_quant, choose_run_quant(q)>.
template <class F>
void with_run_quant(const quant_ptrs& q, const F& f) {
  switch (choose_run_quant(q)) {
    case run_quant::none:
      return f(std::integral_constant<run_quant, run_quant::none>{});
    case run_quant::sum_only:
      return f(std::integral_constant<run_quant, run_quant::sum_only>{});
    case run_quant::scale_only:
      return f(std::integral_constant<run_quant, run_quant::scale_only>{});
    case run_quant::general:
      return f(std::integral_constant<run_quant, run_quant::general>{});
  }
}

template <class Arch, run_quant kQuant>
struct run_lanes {
  quant_lanes<Arch> lanes;
  template <class D>
  f32x<Arch> apply(f32x<Arch> x, const D* old_dst) const {
    if constexpr (kQuant == run_quant::general) {
      return lanes.apply(x, old_dst);
    } else if constexpr (kQuant == run_quant::sum_only) {
      return lanes.add_sum(x, old_dst);  // apply's only step that applies
    } else if constexpr (kQuant == run_quant::scale_only) {
      return x * lanes.one_scale;  // apply's only step that applies
    } else {
      return x;
    }
  }
};

// Fewer than size elements of a run (the head before dst's first line, the tail) through the
// vector lanes by way of a local block: the same rounding as the full vectors, without
// apply_one's scalar conversions (slow for bf16: with a head and a tail in each 64 KiB piece, a
// sizeable share of a warm f32 -> bf16 140x3851 run).
template <class Arch, class S, class D, run_quant kQuant>
void convert_partial(const S* src, D* dst, int64_t len, const run_lanes<Arch, kQuant>& lanes,
                     const quant_ptrs& q) {
  constexpr int64_t w = f32x<Arch>::size;
  alignas(64) S in[w] = {};
  alignas(64) D out[w] = {};
  std::memcpy(in, src, len * sizeof(S));
  if constexpr (kQuant != run_quant::none) {
    if (q.has_sum) std::memcpy(out, dst, len * sizeof(D));
  }
  store_from_f32<Arch>(lanes.apply(load_as_f32<Arch>(in), out), out);
  std::memcpy(dst, out, len * sizeof(D));
}

// The full vectors of a run from i on, with AVX-512 stores that go around the cache when dst is
// large (stream) and on a line (on_line). Returns where the full vectors end.
template <class Arch, class S, class D, run_quant kQuant>
[[gnu::always_inline]] inline int64_t convert_full_vectors(const S* src, D* dst, int64_t i,
                                                           int64_t n,
                                                           const run_lanes<Arch, kQuant>& lanes,
                                                           bool stream_on_line) {
  constexpr int64_t w = f32x<Arch>::size;
  if constexpr (kPairStores<Arch, D>) {
    auto pair_loop = [&](auto streamed) {
      for (; i + 2 * w <= n; i += 2 * w) {
        const u32x<Arch> lo =
            simd::bf16_lanes<Arch>(lanes.apply(load_as_f32<Arch>(src + i), dst + i));
        const u32x<Arch> hi =
            simd::bf16_lanes<Arch>(lanes.apply(load_as_f32<Arch>(src + i + w), dst + i + w));
        const auto packed = simd::pack_low_words(lo, hi);
        auto* to = reinterpret_cast<uint16_t*>(dst + i);
        if constexpr (decltype(streamed)::value) {
          simd::stream_store(to, packed);
        } else {
          packed.store_unaligned(to);
        }
      }
    };
    if (stream_on_line) {
      pair_loop(std::true_type{});
      simd::store_fence();  // streamed stores visible before the task ends
    } else {
      pair_loop(std::false_type{});
    }
  } else if constexpr (kAvx512<Arch> && !simd_converted_v<D>) {
    if (stream_on_line) {
      for (; i + w <= n; i += w) {
        store_from_f32<Arch, D, true>(lanes.apply(load_as_f32<Arch>(src + i), dst + i), dst + i);
      }
      simd::store_fence();  // streamed stores visible before the task ends
    }
  }
  for (; i + w <= n; i += w) {
    store_from_f32<Arch>(lanes.apply(load_as_f32<Arch>(src + i), dst + i), dst + i);
  }
  return i;
}

// stream: dst is large; with AVX-512, once dst is on a cache line the stores go around the cache.
template <class Arch, class S, class D, run_quant kQuant>
void convert_run_with(const S* src, D* dst, int64_t n, const quant_ptrs& q, bool stream) {
  constexpr int64_t w = f32x<Arch>::size;
  const run_lanes<Arch, kQuant> lanes{quant_lanes<Arch>(q)};
  int64_t i = 0;
  // Long runs: the elements before the first cache line of the operand with the wider vector
  // apart, so that none of its vector accesses straddles two lines (malloc gives 16-byte
  // alignment). That is src when it has the wider elements: with dst on lines instead, every
  // 64-byte load of f32 -> bf16 32x64x56x56 is split, measured clearly slower cold.
  constexpr int64_t kAlignFrom = 256;
  constexpr bool kAlignSrc = sizeof(S) > sizeof(D);
  using A = std::conditional_t<kAlignSrc, S, D>;
  const uintptr_t aligned = reinterpret_cast<uintptr_t>(kAlignSrc ? static_cast<const void*>(src)
                                                                  : static_cast<const void*>(dst));
  bool on_line = false;
  if (n >= kAlignFrom && aligned % sizeof(A) == 0) {
    const int64_t head = static_cast<int64_t>((64 - aligned % 64) % 64 / sizeof(A));
    for (int64_t len; i < head; i += len) {
      len = std::min(w, head - i);
      convert_partial(src + i, dst + i, len, lanes, q);
    }
    // dst on a line (always when it is the aligned operand; when src is, if both bases sit
    // alike on their lines): its stores may stream.
    on_line = reinterpret_cast<uintptr_t>(dst + i) % 64 == 0;
  }
  i = convert_full_vectors(src, dst, i, n, lanes, stream && on_line);
  if (i < n) convert_partial(src + i, dst + i, n - i, lanes, q);
}

template <class Arch, class S, class D>
void convert_run(const void* src_v, void* dst_v, int64_t n, const quant_ptrs& q, bool stream) {
  const S* src = static_cast<const S*>(src_v);
  D* dst = static_cast<D*>(dst_v);
  with_run_quant(q, [&](auto kind) {
    convert_run_with<Arch, S, D, decltype(kind)::value>(src, dst, n, q, stream);
  });
}

// One column of a transposed tile of 32-bit S lanes (f32, or s32 bits), converted into the dst
// row `out`: rn elements of data and pn - rn of padding (zeros). Full rows go straight through
// quant_lanes and store_from_f32; partial ones through a local row, so nothing past pn is
// touched (with the sum post-op, the old values are read first).
template <class Arch, class S, class D>
[[gnu::always_inline]] inline void store_converted_column(f32x<Arch> column, D* out, int rn, int pn,
                                                          const quant_lanes<Arch>& lanes,
                                                          const quant_ptrs& q) {
  constexpr int kLanes = f32x<Arch>::size;
  f32x<Arch> x = column;
  if constexpr (std::is_same_v<S, int32_t>) {  // s32 bits, converted as a cast rounds
    x = xsimd::batch_cast<float>(xsimd::bitwise_cast<s32x<Arch>>(column));
  }
  if (rn == kLanes) {
    store_from_f32<Arch>(lanes.apply(x, out), out);
  } else {
    D old[kLanes] = {};
    if (q.has_sum) std::memcpy(old, out, rn * sizeof(D));
    D tmp[kLanes];
    store_from_f32<Arch>(lanes.apply(x, old), tmp);
    std::memset(static_cast<void*>(tmp + rn), 0, (kLanes - rn) * sizeof(D));  // padding: 0
    std::memcpy(out, tmp, pn * sizeof(D));
  }
}

// Four rows x cn columns (cn <= the batch's lanes) of a 32-bit source quantized and converted to
// 8-bit lanes, packed into one register: dword k of 128-bit lane l holds column 4l + k of rows
// 0..3, byte j row j. The lanes are converted in src order, before any transpose (the quantization
// is common), exactly as store_from_f32 converts them: NaN to the type's NaN value and saturation
// by f32 min/max (vminps and vmaxps return their second operand when the first is NaN), cvtps2dq
// rounding half to even, and values below -2^31 (cvtps2dq's 0x80000000) to -128 by the
// saturating packs. Packing four rows into one register and transposing 4-byte groups takes a
// quarter of the shuffles of four f32 tile transposes followed by four narrowing stores.
// Used by the fused kernels of both AVX-512 (16 lanes) and AVX2 (8 lanes, full rows).
template <class Arch, class S, class D, class Lanes>
[[gnu::always_inline]] inline s32x<Arch> pack_row_quad_to_bytes(const S* src, int64_t src_ld,
                                                                int cn, const Lanes& lanes) {
  static_assert(sizeof(S) == 4 && sizeof(D) == 1);
  constexpr bool kSigned = std::is_same_v<D, int8_t>;
  constexpr int kN = f32x<Arch>::size;
  const f32x<Arch> hi(kSigned ? 127.f : 255.f);
  const f32x<Arch> zero(0.f);
  s32x<Arch> w[4];
  for (int j = 0; j < 4; ++j) {
    const float* row = reinterpret_cast<const float*>(src + j * src_ld);
    const f32x<Arch> bits =
        cn == kN ? f32x<Arch>::load_unaligned(row) : simd::load_partial<Arch>(row, cn);
    f32x<Arch> x = bits;
    if constexpr (std::is_same_v<S, int32_t>) {
      x = xsimd::batch_cast<float>(xsimd::bitwise_cast<s32x<Arch>>(bits));  // rounds like a cast
    }
    x = lanes.apply(x, static_cast<const D*>(nullptr));  // no sum: nothing read
    if constexpr (!kSigned) x = xsimd::max(x, zero);     // NaN -> 0
    x = xsimd::min(x, hi);                               // NaN -> 127 (s8)
    w[j] = xsimd::nearbyint_as_int(x);
  }
  return simd::pack_rows4_transposed<D>(w);
}

}  // namespace tessera::reorder_internal::TESSERA_ISA_NS

#endif  // TESSERA_PRIMITIVES_REORDER_INTERNAL_CONVERT_RUNS_H_
