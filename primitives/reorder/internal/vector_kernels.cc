// Vector inner loops of the reorder kernels, compiled once per ISA with TESSERA_SIMD_ARCH.
// Each conversion repeats apply_one's operations in the same order on f32 lanes, and converts
// with integer operations that round exactly like <tessera/core/convert.h>, so that vector and
// scalar results are bit-identical (the tests check every kernel against the reference).
#include "tessera/primitives/reorder/internal/vector_kernels.h"

#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <vector>

#include "tessera/simd/convert.h"
#include "tessera/simd/select.h"
#include "xsimd/xsimd.hpp"

namespace tessera::reorder_internal {
namespace {

template <class Arch>
using f32x = xsimd::batch<float, Arch>;
template <class Arch>
using s32x = xsimd::batch<int32_t, Arch>;
template <class Arch>
using u32x = xsimd::batch<uint32_t, Arch>;

template <class Arch>
inline constexpr bool kAvx512 = std::is_base_of_v<xsimd::avx512bw, Arch>;

template <class T>
inline constexpr bool vector_convertible_v =
    std::is_same_v<T, float> || std::is_same_v<T, bf16> || std::is_same_v<T, int32_t> ||
    std::is_same_v<T, int8_t> || std::is_same_v<T, uint8_t>;

// Types whose lanes load_as_f32 and store_from_f32 take from <tessera/simd/convert.h> (F16C for
// f16 on avx2 and avx512bw, integer steps elsewhere; bit for bit the scalar reference, tested
// there on every ISA). Used by convert_run (and so by the transposes' second pass from scratch)
// and by the one-pass f32 <-> f16 tiles (transpose_convert_avx2, transpose_convert_tiles).
template <class T>
inline constexpr bool simd_converted_v =
    std::is_same_v<T, f16> || std::is_same_v<T, f8_e5m2> || std::is_same_v<T, f8_e4m3>;

template <class T>
inline constexpr bool run_convertible_v = vector_convertible_v<T> || simd_converted_v<T>;

template <class Arch, class S>
f32x<Arch> load_as_f32(const S* p) {
  constexpr size_t n = f32x<Arch>::size;
  if constexpr (std::is_same_v<S, float>) {
    return f32x<Arch>::load_unaligned(p);
  } else if constexpr (simd_converted_v<S>) {
    // The empty asm hides the widening from the optimizer: otherwise clang folds the NaN test of
    // to_int_saturated back through vcvtph2ps into compares of the f16 lanes, which AVX2 lacks,
    // and does them one lane at a time (f16 -> s8 then runs several times slower than bf16 -> s8).
    typename f32x<Arch>::register_type v = ::tessera::simd::load_f32<Arch>(p);
    asm("" : "+x"(v));
    return v;
  } else if constexpr (std::is_same_v<S, int32_t>) {
    return xsimd::batch_cast<float>(s32x<Arch>::load_unaligned(p));  // rounds like a cast
  } else if constexpr (kAvx512<Arch> && std::is_same_v<S, bf16>) {
#if defined(__AVX512F__)
    const __m256i h = _mm256_loadu_si256(reinterpret_cast<const __m256i*>(p));
    return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(h), 16));
#endif
  } else if constexpr (kAvx512<Arch> && sizeof(S) == 1) {
#if defined(__AVX512F__)
    const __m128i b = _mm_loadu_si128(reinterpret_cast<const __m128i*>(p));
    const __m512i w = std::is_same_v<S, int8_t> ? _mm512_cvtepi8_epi32(b) : _mm512_cvtepu8_epi32(b);
    return _mm512_cvtepi32_ps(w);
#endif
  } else if constexpr (std::is_same_v<S, bf16>) {
    alignas(64) uint32_t wide[n];
    for (size_t i = 0; i < n; ++i) wide[i] = static_cast<uint32_t>(p[i].bits) << 16;
    return xsimd::bitwise_cast<f32x<Arch>>(u32x<Arch>::load_aligned(wide));
  } else {
    alignas(64) int32_t wide[n];
    for (size_t i = 0; i < n; ++i) wide[i] = p[i];
    return xsimd::batch_cast<float>(s32x<Arch>::load_aligned(wide));
  }
}

// Round half to even and saturate to [lo, hi] (exact f32 bounds, hi < 2^31); NaN becomes
// nan_value (an exact f32 too). NaN is found with !(x == x): xsimd 8.1's avx2 `x != x` uses an
// ordered compare and is false for NaN.
template <class Arch>
s32x<Arch> to_int_saturated(f32x<Arch> x, float lo, float hi, float nan_value) {
  x = ::tessera::simd::select(!(x == x), f32x<Arch>(nan_value), x);
  x = xsimd::min(xsimd::max(x, f32x<Arch>(lo)), f32x<Arch>(hi));
  return xsimd::nearbyint_as_int(x);  // MXCSR round-to-nearest-even
}

// The bf16 of each lane (round half to even; NaN keeps its payload with the quiet bit set) in
// the low 16 bits of its 32-bit lane.
template <class Arch>
u32x<Arch> bf16_bits(f32x<Arch> x) {
  const u32x<Arch> bits = xsimd::bitwise_cast<u32x<Arch>>(x);
  const u32x<Arch> lsb = (bits >> 16) & u32x<Arch>(1u);
  const u32x<Arch> rounded = (bits + u32x<Arch>(0x7FFFu) + lsb) >> 16;
  const u32x<Arch> quiet = (bits >> 16) | u32x<Arch>(0x40u);  // NaN: payload kept, quiet bit set
  const auto is_nan = (bits & u32x<Arch>(0x7FFFFFFFu)) > u32x<Arch>(0x7F800000u);
  return ::tessera::simd::select(is_nan, quiet, rounded);
}

// kStream (AVX-512 only): a non-temporal store, to a p aligned on the stored width.
// Beware for narrowing types: clang folds a vpmov* narrowing followed by a store, streamed or
// not, into one vpmov* to memory, which is a plain store (the non-temporal hint is dropped) and
// slow on Zen. Long runs use store_pair_from_f32 instead.
template <class Arch, class D, bool kStream = false>
void store_from_f32(f32x<Arch> x, D* p) {
  constexpr size_t n = f32x<Arch>::size;
  static_assert(!kStream || kAvx512<Arch>);
  static_assert(!kStream || !simd_converted_v<D>);
  if constexpr (simd_converted_v<D>) {
    ::tessera::simd::store_f32(p, x);
  } else if constexpr (std::is_same_v<D, float>) {
    if constexpr (kStream) {
#if defined(__AVX512F__)
      _mm512_stream_ps(reinterpret_cast<float*>(p), x);
#endif
    } else {
      x.store_unaligned(p);
    }
  } else if constexpr (std::is_same_v<D, bf16>) {
    const u32x<Arch> out = bf16_bits<Arch>(x);
    if constexpr (kAvx512<Arch>) {
#if defined(__AVX512F__)
      const __m256i narrow = _mm512_cvtepi32_epi16(out);
      if constexpr (kStream) {
        _mm256_stream_si256(reinterpret_cast<__m256i*>(p), narrow);
      } else {
        _mm256_storeu_si256(reinterpret_cast<__m256i*>(p), narrow);
      }
      return;
#endif
    }
    alignas(64) uint32_t narrow_bits[n];
    out.store_aligned(narrow_bits);
    for (size_t i = 0; i < n; ++i) p[i].bits = static_cast<uint16_t>(narrow_bits[i]);
  } else if constexpr (std::is_same_v<D, int32_t>) {
    // INT32_MAX has no f32: clamp to the largest f32 below 2^31 and add the missing 127 to the
    // lanes that were at or above 2^31 (NaN counts as above: it becomes INT32_MAX).
    constexpr float kTwo31 = 2147483648.f;
    const f32x<Arch> big = ::tessera::simd::select(!(x == x), f32x<Arch>(kTwo31), x);
    const s32x<Arch> fix = xsimd::nearbyint_as_int(
        ::tessera::simd::select(big >= f32x<Arch>(kTwo31), f32x<Arch>(127.f), f32x<Arch>(0.f)));
    const s32x<Arch> out = to_int_saturated<Arch>(big, -kTwo31, 2147483520.f, 0.f) + fix;
    if constexpr (kStream) {
#if defined(__AVX512F__)
      _mm512_stream_si512(reinterpret_cast<__m512i*>(p), out);
#endif
    } else {
      out.store_unaligned(p);
    }
  } else {
    constexpr bool is_signed = std::is_same_v<D, int8_t>;
    const s32x<Arch> i = to_int_saturated<Arch>(x, is_signed ? -128.f : 0.f,
                                                is_signed ? 127.f : 255.f, is_signed ? 127.f : 0.f);
    if constexpr (kAvx512<Arch>) {
#if defined(__AVX512F__)
      // In range already: the truncating narrow is exact.
      const __m128i narrow = _mm512_cvtepi32_epi8(i);
      if constexpr (kStream) {
        _mm_stream_si128(reinterpret_cast<__m128i*>(p), narrow);
      } else {
        _mm_storeu_si128(reinterpret_cast<__m128i*>(p), narrow);
      }
      return;
#endif
    }
    if constexpr (std::is_same_v<Arch, xsimd::avx2>) {
#if defined(__AVX2__)
      // In range already: the saturating packs are exact.
      const __m256i v = i;
      const __m128i lo = _mm256_castsi256_si128(v), hi = _mm256_extracti128_si256(v, 1);
      const __m128i bytes = is_signed ? _mm_packs_epi16(_mm_packs_epi32(lo, hi), lo)
                                      : _mm_packus_epi16(_mm_packus_epi32(lo, hi), lo);
      _mm_storel_epi64(reinterpret_cast<__m128i*>(p), bytes);
      return;
#endif
    }
    alignas(64) int32_t wide[n];
    i.store_aligned(wide);
    for (size_t k = 0; k < n; ++k) p[k] = static_cast<D>(wide[k]);
  }
}

#if defined(__AVX512F__)
// Two vectors (32 lanes) of a 16-bit dst as one 64-byte store: a whole line when p is on one,
// streamed or not. The 16-bit values are picked out with one vpermt2w, which clang cannot fold
// into a store (see store_from_f32: a folded vpmovdw store to memory does not stream).
template <bool kStream>
[[gnu::always_inline]] inline void store_pair_16(__m512i lo, __m512i hi, void* p) {
  // Word j of the result: word 2j of lo:hi (the low half of 32-bit lane j).
  const __m512i even_words = _mm512_set_epi16(62, 60, 58, 56, 54, 52, 50, 48, 46, 44, 42, 40, 38,
                                              36, 34, 32, 30, 28, 26, 24, 22, 20, 18, 16, 14, 12,
                                              10, 8, 6, 4, 2, 0);
  const __m512i packed = _mm512_permutex2var_epi16(lo, even_words, hi);
  if constexpr (kStream) {
    _mm512_stream_si512(static_cast<__m512i*>(p), packed);
  } else {
    _mm512_storeu_si512(p, packed);
  }
}
#endif

// Whether convert_run stores two vectors at once for this dst type (see store_pair_16).
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
    if (q.dst_scale) x = x / dst_scale;
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

// stream: dst is large; with AVX-512, once dst is on a cache line the stores go around the cache.
template <class Arch, class S, class D, run_quant kQuant>
void convert_run_with(const S* src, D* dst, int64_t n, const quant_ptrs& q, bool stream) {
  using V = f32x<Arch>;
  constexpr int64_t w = V::size;
  const run_lanes<Arch, kQuant> lanes{quant_lanes<Arch>(q)};
  // Fewer than w elements (the head before dst's first line, the tail) go through the vector
  // lanes by way of a local block: the same rounding as the full vectors, without apply_one's
  // scalar conversions (slow for bf16: with a head and a tail in each 64 KiB piece, a sizeable
  // share of a warm f32 -> bf16 140x3851 run).
  auto partial = [&](int64_t at, int64_t len) {
    alignas(64) S in[w] = {};
    alignas(64) D out[w] = {};
    std::memcpy(in, src + at, len * sizeof(S));
    if constexpr (kQuant != run_quant::none) {
      if (q.has_sum) std::memcpy(out, dst + at, len * sizeof(D));
    }
    store_from_f32<Arch>(lanes.apply(load_as_f32<Arch>(in), out), out);
    std::memcpy(dst + at, out, len * sizeof(D));
  };
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
      partial(i, len);
    }
    // dst on a line (always when it is the aligned operand; when src is, if both bases sit
    // alike on their lines): its stores may stream.
    on_line = reinterpret_cast<uintptr_t>(dst + i) % 64 == 0;
  }
  if constexpr (kPairStores<Arch, D>) {
#if defined(__AVX512F__)
    auto pair_loop = [&](auto streamed) {
      for (; i + 2 * w <= n; i += 2 * w) {
        const u32x<Arch> lo = bf16_bits<Arch>(lanes.apply(load_as_f32<Arch>(src + i), dst + i));
        const u32x<Arch> hi =
            bf16_bits<Arch>(lanes.apply(load_as_f32<Arch>(src + i + w), dst + i + w));
        store_pair_16<decltype(streamed)::value>(lo, hi, dst + i);
      }
    };
    if (stream && on_line) {
      pair_loop(std::true_type{});
      _mm_sfence();  // streamed stores visible before the task ends
    } else {
      pair_loop(std::false_type{});
    }
#endif
  } else if constexpr (kAvx512<Arch> && !simd_converted_v<D>) {
    if (stream && on_line) {
      for (; i + w <= n; i += w) {
        store_from_f32<Arch, D, true>(lanes.apply(load_as_f32<Arch>(src + i), dst + i), dst + i);
      }
      _mm_sfence();  // streamed stores visible before the task ends
    }
  }
  for (; i + w <= n; i += w) {
    store_from_f32<Arch>(lanes.apply(load_as_f32<Arch>(src + i), dst + i), dst + i);
  }
  if (i < n) partial(i, n - i);
}

template <class Arch, class S, class D>
void convert_run(const void* src_v, void* dst_v, int64_t n, const quant_ptrs& q, bool stream) {
  const S* src = static_cast<const S*>(src_v);
  D* dst = static_cast<D*>(dst_v);
  with_run_quant(q, [&](auto kind) {
    convert_run_with<Arch, S, D, decltype(kind)::value>(src, dst, n, q, stream);
  });
}

// In-register transposes of 32-bit tiles: 16x16 on avx512bw, 8x8 on avx2. xsimd 8.1's zip_lo/hi
// work within 128-bit lanes only and it has no cross-lane shuffles, so these two use intrinsics
// (as simd/tail.h does for masked tails).
template <class Arch>
inline constexpr int kRegisterTile =
    std::is_base_of_v<xsimd::avx512bw, Arch> ? 16 : std::is_base_of_v<xsimd::avx2, Arch> ? 8 : 0;

#if defined(__AVX512F__)
// Transposes 16 registers of 16 32-bit lanes in place.
[[gnu::always_inline]] inline void transpose_registers(__m512 r[16]) {
  __m512 t[16];
  for (int i = 0; i < 16; i += 2) {
    t[i] = _mm512_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm512_unpackhi_ps(r[i], r[i + 1]);
  }
  for (int i = 0; i < 16; i += 4) {
    r[i] = _mm512_shuffle_ps(t[i], t[i + 2], 0x44);
    r[i + 1] = _mm512_shuffle_ps(t[i], t[i + 2], 0xEE);
    r[i + 2] = _mm512_shuffle_ps(t[i + 1], t[i + 3], 0x44);
    r[i + 3] = _mm512_shuffle_ps(t[i + 1], t[i + 3], 0xEE);
  }
  for (int h = 0; h < 16; h += 8) {
    for (int i = 0; i < 4; ++i) {
      t[h + i] = _mm512_shuffle_f32x4(r[h + i], r[h + i + 4], 0x88);
      t[h + i + 4] = _mm512_shuffle_f32x4(r[h + i], r[h + i + 4], 0xDD);
    }
  }
  for (int i = 0; i < 8; ++i) {
    r[i] = _mm512_shuffle_f32x4(t[i], t[i + 8], 0x88);
    r[i + 8] = _mm512_shuffle_f32x4(t[i], t[i + 8], 0xDD);
  }
}

// One row of 16 lanes as f32: f32 bits, or f16 widened by vcvtph2ps (exact); with a mask, the
// lanes past it are zero and not read.
[[gnu::always_inline]] inline __m512 load_row(const float* p) { return _mm512_loadu_ps(p); }
[[gnu::always_inline]] inline __m512 load_row(const float* p, __mmask16 m) {
  return _mm512_maskz_loadu_ps(m, p);
}
[[gnu::always_inline]] inline __m512 load_row(const f16* p) {
  return _mm512_cvtph_ps(_mm256_loadu_si256(reinterpret_cast<const __m256i*>(p)));
}
[[gnu::always_inline]] inline __m512 load_row(const f16* p, __mmask16 m) {
  return _mm512_cvtph_ps(_mm256_maskz_loadu_epi16(m, p));
}

// Loads rows [0, rn) of cn lanes (masked: no access past them), zeros elsewhere, and transposes.
template <class T>
[[gnu::always_inline]] inline void load_transposed(const T* src, int64_t src_ld, int rn, int cn,
                                                   __m512 r[16]) {
  if (rn == 16 && cn == 16) {
    for (int i = 0; i < 16; ++i) r[i] = load_row(src + i * src_ld);
  } else {
    const __mmask16 m = static_cast<__mmask16>((1u << cn) - 1);
    for (int i = 0; i < 16; ++i) {
      r[i] = i < rn ? load_row(src + i * src_ld, m) : _mm512_setzero_ps();
    }
  }
  transpose_registers(r);
}

// Stores registers [0, cn) as dst rows of `lanes` lanes, row i at dst + col(i); aligned full rows
// may bypass the cache (stream).
template <class Cols>
[[gnu::always_inline]] inline void store_rows(float* dst, const Cols& col, const __m512 r[16],
                                              int cn, int lanes, bool stream) {
  if (lanes == 16) {
    const bool aligned = col.all_aligned64(dst, cn);
    if (stream && aligned) {
      for (int i = 0; i < cn; ++i) _mm512_stream_ps(dst + col(i), r[i]);
    } else if (aligned) {
      for (int i = 0; i < cn; ++i) _mm512_storeu_ps(dst + col(i), r[i]);
    } else {
      // Rows off a cache line as two 32-byte halves: with dst 16 bytes past a line (malloc's)
      // one half of each row stays within a line, where a 64-byte store always straddles two.
      // A few % on nchw -> nChw16c cold; four 16-byte stores are no better, and two masked
      // stores split at the line much slower (masked stores are slow here).
      for (int i = 0; i < cn; ++i) {
        _mm256_storeu_ps(dst + col(i), _mm512_castps512_ps256(r[i]));
        _mm256_storeu_ps(dst + col(i) + 8, _mm512_extractf32x8_ps(r[i], 1));
      }
    }
  } else {
    const __mmask16 m = static_cast<__mmask16>((1u << lanes) - 1);
    for (int i = 0; i < cn; ++i) _mm512_mask_storeu_ps(dst + col(i), m, r[i]);
  }
}

// dst rows [0, cn) of `lanes` lanes (>= rn: lanes past rn are the zeros of the missing rows),
// row i at dst + col(i); aligned full rows may bypass the cache (stream).
template <class Cols>
[[gnu::always_inline]] inline void transpose16x16(const float* src, int64_t src_ld, float* dst,
                                                  const Cols& col, int rn, int cn, int lanes,
                                                  bool stream) {
  if (rn == 1 && lanes == 16) {
    // One row into whole 16-lane rows (nchw -> nChw16c with C = 1): row i is src[i] and 15
    // zeros, stored straight from a scalar load (through an array of 16 registers, the
    // compiler spills every row to the stack and copies it from there). Off a line, as four
    // 16-byte stores (oneDNN's choice; none straddles a line when dst is 16-byte aligned):
    // measured faster than two 32-byte halves on 10x1x390x590 cold.
    const bool aligned = col.all_aligned64(dst, cn);
    for (int i = 0; i < cn; ++i) {
      const __m128 x = _mm_load_ss(src + i);
      float* d = dst + col(i);
      if (stream && aligned) {
        _mm512_stream_ps(d, _mm512_zextps128_ps512(x));
      } else if (aligned) {
        _mm512_storeu_ps(d, _mm512_zextps128_ps512(x));
      } else {
        _mm_storeu_ps(d, x);
        _mm_storeu_ps(d + 4, _mm_setzero_ps());
        _mm_storeu_ps(d + 8, _mm_setzero_ps());
        _mm_storeu_ps(d + 12, _mm_setzero_ps());
      }
    }
    return;
  }
  __m512 r[16];
  if (rn == 1) {
    // One row into rows of fewer than 16 lanes (a one-element block of 8, e.g. nchw -> nChw8c
    // with C = 1; whole 16-lane rows return above): each dst row is that element and zeros, one
    // masked load each, without the 64 shuffles of a transpose.
    for (int i = 0; i < cn; ++i) r[i] = _mm512_maskz_loadu_ps(1, src + i);
  } else {
    load_transposed(src, src_ld, rn, cn, r);
  }
  store_rows(dst, col, r, cn, lanes, stream);
}

// A tile whose every row is one aligned src line: lanes [0, tail) are the row's last `tail`
// columns (at `last`, on a line), lanes [tail, 16) its first 16 - tail (at `first`, which is
// `tail` elements past a line). A strip whose src rows start off a line by the same distance,
// a whole number of tiles wide, then moves in whole-line loads only, with no more tiles than
// an aligned one (a partial first and last tile would be one tile more, and split loads are
// what the alignment removes).
template <class Cols>
[[gnu::always_inline]] inline void transpose_wrapped16x16(const float* first, const float* last,
                                                          int64_t src_ld, float* dst,
                                                          const Cols& col, int tail, bool stream) {
  const auto low = static_cast<__mmask16>((1u << tail) - 1);
  __m512 r[16];
  for (int i = 0; i < 16; ++i) {
    // An address only: the masked-off lanes before `first` are never read.
    const auto* line = reinterpret_cast<const float*>(
        reinterpret_cast<uintptr_t>(first + i * src_ld) - tail * sizeof(float));
    r[i] = _mm512_mask_loadu_ps(_mm512_maskz_loadu_ps(static_cast<__mmask16>(~low), line), low,
                                last + i * src_ld);
  }
  transpose_registers(r);
  store_rows(dst, col, r, 16, 16, stream);
}
#endif

#if defined(__AVX2__)
// Transposes 8 registers of 8 32-bit lanes: t[i] gets lane i of every r. r is clobbered.
// (Unused in the AVX-512 unit, which also has __AVX2__.)
[[gnu::always_inline, maybe_unused]] inline void transpose8x8_registers(__m256 r[8],
                                                                       __m256 t[8]) {
  for (int i = 0; i < 8; i += 2) {
    t[i] = _mm256_unpacklo_ps(r[i], r[i + 1]);
    t[i + 1] = _mm256_unpackhi_ps(r[i], r[i + 1]);
  }
  for (int i = 0; i < 8; i += 4) {
    r[i] = _mm256_shuffle_ps(t[i], t[i + 2], 0x44);
    r[i + 1] = _mm256_shuffle_ps(t[i], t[i + 2], 0xEE);
    r[i + 2] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0x44);
    r[i + 3] = _mm256_shuffle_ps(t[i + 1], t[i + 3], 0xEE);
  }
  for (int i = 0; i < 4; ++i) {
    t[i] = _mm256_permute2f128_ps(r[i], r[i + 4], 0x20);
    t[i + 4] = _mm256_permute2f128_ps(r[i], r[i + 4], 0x31);
  }
}

// Loads 8 rows of 8 lanes and transposes them: t[i] is column i.
[[gnu::always_inline, maybe_unused]] inline void load_transposed8x8(const float* src,
                                                                   int64_t src_ld, __m256 t[8]) {
  __m256 r[8];
  for (int i = 0; i < 8; ++i) r[i] = _mm256_loadu_ps(src + i * src_ld);
  transpose8x8_registers(r, t);
}

template <class Cols>
inline void transpose8x8(const float* src, int64_t src_ld, float* dst, const Cols& col) {
  __m256 t[8];
  load_transposed8x8(src, src_ld, t);
  for (int i = 0; i < 8; ++i) _mm256_storeu_ps(dst + col(i), t[i]);
}

// 8 rows x the first cn (< 8) columns: each row by one masked load (the lanes past cn are not
// read), the 8x8 register transpose, and cn whole dst rows of 8 stored. An element loop here
// would take much of the time of the tiny nchw -> nhwc case (2x16x3x4: 12 = 8 + 4 columns).
template <class Cols>
inline void transpose8xN(const float* src, int64_t src_ld, float* dst, const Cols& col, int cn) {
  const __m256i mask = _mm256_cmpgt_epi32(_mm256_set1_epi32(cn),
                                          _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
  __m256 r[8], t[8];
  for (int i = 0; i < 8; ++i) r[i] = _mm256_maskload_ps(src + i * src_ld, mask);
  transpose8x8_registers(r, t);
  for (int i = 0; i < cn; ++i) _mm256_storeu_ps(dst + col(i), t[i]);
}

// Columns [0, 4) of 8 rows, each as one register (column j's 8 rows): every row is read as two
// 16-byte halves, row i's and row i + 4's in one register's two 128-bit lanes (vinsertf128 from
// memory), and a 4x4 transpose within each lane finishes it. With malloc's 16-byte offset no
// 16-byte load straddles a cache line (every second 32-byte row load would), and the lane swap of
// the 8x8 transpose (vperm2f128) is folded into the loads.
[[gnu::always_inline, maybe_unused]] inline void load_transposed8x4(const float* src,
                                                                   int64_t src_ld, __m256 c[4]) {
  __m256 r[4], t[4];
  for (int i = 0; i < 4; ++i) {
    r[i] = _mm256_insertf128_ps(_mm256_castps128_ps256(_mm_loadu_ps(src + i * src_ld)),
                                _mm_loadu_ps(src + (i + 4) * src_ld), 1);
  }
  t[0] = _mm256_unpacklo_ps(r[0], r[1]);  // lane: r0c0 r1c0 r0c1 r1c1
  t[1] = _mm256_unpackhi_ps(r[0], r[1]);  //       r0c2 r1c2 r0c3 r1c3
  t[2] = _mm256_unpacklo_ps(r[2], r[3]);
  t[3] = _mm256_unpackhi_ps(r[2], r[3]);
  c[0] = _mm256_shuffle_ps(t[0], t[2], 0x44);
  c[1] = _mm256_shuffle_ps(t[0], t[2], 0xEE);
  c[2] = _mm256_shuffle_ps(t[1], t[3], 0x44);
  c[3] = _mm256_shuffle_ps(t[1], t[3], 0xEE);
}

// How the dst rows of a 16-row tile's first n columns are stored (transpose16x8, transpose16x4).
struct rows16_stores {
  bool whole_lines, quarter_lines;
  template <class Cols>
  rows16_stores(const float* dst, const Cols& col, int n, bool stream) {
    const auto at = reinterpret_cast<uintptr_t>(dst + col(0));
    const bool back_to_back = col(n - 1) - col(0) == (n - 1) * 16;
    whole_lines = stream && at % 64 == 0 && (back_to_back || col.all_aligned64(dst, n));
    quarter_lines = !whole_lines && stream && at % 16 == 0 && back_to_back;
  }
};

// Columns [h, h + 4) of a 16-row tile: each column's 16 dst elements as one row.
template <class Cols>
[[gnu::always_inline]] inline void transpose16x4_at(const float* src, int64_t src_ld, float* dst,
                                                    const Cols& col, int h, rows16_stores how) {
  __m256 top[4], bottom[4];
  load_transposed8x4(src + h, src_ld, top);
  load_transposed8x4(src + 8 * src_ld + h, src_ld, bottom);
  for (int j = 0; j < 4; ++j) {
    float* d = dst + col(h + j);
    if (how.whole_lines) {
      _mm256_stream_ps(d, top[j]);
      _mm256_stream_ps(d + 8, bottom[j]);
    } else if (how.quarter_lines) {
      _mm_stream_ps(d, _mm256_castps256_ps128(top[j]));
      _mm_stream_ps(d + 4, _mm256_extractf128_ps(top[j], 1));
      _mm_stream_ps(d + 8, _mm256_castps256_ps128(bottom[j]));
      _mm_stream_ps(d + 12, _mm256_extractf128_ps(bottom[j], 1));
    } else {
      _mm256_storeu_ps(d, top[j]);
      _mm256_storeu_ps(d + 8, bottom[j]);
    }
  }
}

// 16 rows x 8 columns: each column's 16 dst elements (64 bytes) are written at once, where
// 8-row blocks would write half of every dst row and come back for the other half after a whole
// strip of columns (out of L1 for nchw -> nChw16c's 1024-column strips). Four columns at a time
// (load_transposed8x4 on both 8-row halves): 8 result registers live, not 16; two 8x8 register
// tiles spill their 16 transposed registers to the stack. Inlined: called out of line (clang's
// choice, as transpose_tiles_avx2 has two copies of its row loop), nchw -> nChw16c runs slower.
// stream (a large dst): rows on a cache line, or the tile's rows back to back (16-lane blocks:
// nChw16c), go around the cache; rows that are neither would leave partial lines behind.
template <class Cols>
[[gnu::always_inline]] inline void transpose16x8(const float* src, int64_t src_ld, float* dst,
                                                 const Cols& col, bool stream) {
  const rows16_stores how(dst, col, 8, stream);
  transpose16x4_at(src, src_ld, dst, col, 0, how);
  transpose16x4_at(src, src_ld, dst, col, 4, how);
}

// 16 rows x 4 columns: a partial column tile's first four columns by 16-byte loads (no lane
// past them is read), where two masked 8-row tiles (transpose8xN) took 16 masked loads and 48
// shuffles for the same 64 elements.
template <class Cols>
[[gnu::always_inline]] inline void transpose16x4(const float* src, int64_t src_ld, float* dst,
                                                 const Cols& col, bool stream) {
  transpose16x4_at(src, src_ld, dst, col, 0, rows16_stores(dst, col, 4, stream));
}
#endif

#if defined(__AVX2__)
// One src row into dst rows of 16 lanes (nchw -> nChw16c with C = 1): row i is src[i] and 15
// zeros, as four 16-byte stores (none straddles a line when dst is 16-byte aligned), streamed
// for a large dst. Row blocks of the 8-row register tile would write each row in two passes,
// the second after the first has left L1.
template <class Cols>
inline void one_row_into_rows16(const float* src, float* dst, const Cols& col, int cn,
                                bool stream) {
  const __m128 zero = _mm_setzero_ps();
  for (int i = 0; i < cn; ++i) {
    const __m128 x = _mm_load_ss(src + i);
    float* d = dst + col(i);
    if (stream && reinterpret_cast<uintptr_t>(d) % 16 == 0) {
      _mm_stream_ps(d, x);
      _mm_stream_ps(d + 4, zero);
      _mm_stream_ps(d + 8, zero);
      _mm_stream_ps(d + 12, zero);
    } else {
      _mm_storeu_ps(d, x);
      _mm_storeu_ps(d + 4, zero);
      _mm_storeu_ps(d + 8, zero);
      _mm_storeu_ps(d + 12, zero);
    }
  }
}
#endif

#if defined(__AVX512F__)
// AVX-512's one_row_into_rows16: row i (src[i] and 15 zeros) as one 64-byte store, streamed
// when dst is large and the row is on a line. The 16x16 register tile, one row of it data,
// spends 64 shuffles per 16 elements, which bind nchw -> nChw16c 10x1x390x590 (there slower
// than avx2's one_row_into_rows16).
template <class Cols>
inline void one_row_into_lines16(const float* src, float* dst, const Cols& col, int cn,
                                 bool stream) {
  for (int i = 0; i < cn; ++i) {
    const __m512 x = _mm512_maskz_loadu_ps(__mmask16{1}, src + i);
    float* d = dst + col(i);
    if (stream && reinterpret_cast<uintptr_t>(d) % 64 == 0) {
      _mm512_stream_ps(d, x);
    } else {
      _mm512_storeu_ps(d, x);
    }
  }
}
#endif

// Inlined: called from two tile loops, it is otherwise compiled out of line, its 16 rows kept in
// memory.
template <class Arch, class T, class Cols>
[[gnu::always_inline]] inline void register_tile(const T* src, int64_t src_ld, T* dst,
                                                 const Cols& col, bool stream) {
  [[maybe_unused]] const float* s = reinterpret_cast<const float*>(src);
  [[maybe_unused]] float* d = reinterpret_cast<float*>(dst);
  if constexpr (kRegisterTile<Arch> == 16) {
#if defined(__AVX512F__)
    transpose16x16(s, src_ld, d, col, 16, 16, 16, stream);
#endif
  } else if constexpr (kRegisterTile<Arch> == 8) {
#if defined(__AVX2__)
    transpose8x8(s, src_ld, d, col);
#endif
  }
}

// The dst offsets of a tile's columns i = 0, 1, ... (the tile starting at column c0).
// all_aligned64: whether dst + column i is 64-byte aligned for every i < n.
struct plain_tile_columns {
  int64_t base, ld;
  int64_t operator()(int i) const { return base + i * ld; }
  template <class T>
  bool all_aligned64(const T* dst, int) const {
    return reinterpret_cast<uintptr_t>(dst + base) % 64 == 0 && (ld * sizeof(T)) % 64 == 0;
  }
};
// Column offsets listed one by one (at most a tile's 16).
struct listed_tile_columns {
  int64_t off[16];
  int64_t operator()(int i) const { return off[i]; }
  template <class T>
  bool all_aligned64(const T* dst, int n) const {
    for (int i = 0; i < n; ++i) {
      if (reinterpret_cast<uintptr_t>(dst + off[i]) % 64 != 0) return false;
    }
    return true;
  }
};
struct grouped_tile_columns : listed_tile_columns {
  grouped_tile_columns(const dst_columns& m, int64_t c0, int n) {
    int64_t g = c0 / m.group, k = c0 % m.group;
    for (int i = 0; i < n; ++i) {
      off[i] = g * m.group_ld + k * m.ld;
      if (++k == m.group) k = 0, ++g;
    }
  }
};
// A wrapped tile's columns (transpose_tiles): lanes [0, tail) are a strip's last `tail` columns,
// lanes [tail, 16) its first 16 - tail.
template <class Cols>
listed_tile_columns wrapped_tile_columns(const Cols& last, const Cols& first, int tail) {
  listed_tile_columns w;
  for (int i = 0; i < 16; ++i) w.off[i] = i < tail ? last(i) : first(i - tail);
  return w;
}

// Calls body(tile_columns_at) with the column mapping of `m`, as a type the kernels inline.
template <class Body>
void with_tile_columns(const dst_columns& m, int64_t cols, Body&& body) {
  if (m.group > 0 && m.group < cols) {
    body([&m](int64_t c0, int n) { return grouped_tile_columns(m, c0, n); });
  } else {
    body([ld = m.ld](int64_t c0, int) { return plain_tile_columns{c0 * ld, ld}; });
  }
}

// Issues the prefetches (to L2) for the src lines of rows [r0, r1) of a block `cols` elements
// wide, a few at a time (next(n)), in row order: a row's lines follow each other, the order DRAM
// serves best.
template <class T>
class band_prefetcher {
 public:
  band_prefetcher(const T* src, int64_t src_ld, int64_t cols, int64_t r0, int64_t r1)
      : row_step_(src_ld * static_cast<int64_t>(sizeof(T))),
        // An address only (rows past the last are never formed as pointers).
        row_(reinterpret_cast<uintptr_t>(src) + static_cast<uintptr_t>(r0 * row_step_)),
        rows_left_(std::max<int64_t>(0, r1 - r0)),
        // Lines from the one holding a row's first byte to the one holding its last: one more
        // than the row's bytes need when rows start off a line.
        lines_((cols * static_cast<int64_t>(sizeof(T)) + 63) / 64 +
               (row_step_ % 64 != 0 || row_ % 64 != 0 ? 1 : 0)) {}
  int64_t total() const { return rows_left_ * lines_; }
  void next(int64_t n) {
    for (; n > 0 && rows_left_ > 0; --n) {
      _mm_prefetch(reinterpret_cast<const char*>(row_ / 64 * 64 + 64 * line_), _MM_HINT_T1);
      if (++line_ == lines_) line_ = 0, row_ += row_step_, --rows_left_;
    }
  }

 private:
  int64_t row_step_;
  uintptr_t row_;
  int64_t rows_left_, lines_, line_ = 0;
};

// kRows rows of 16 bytes, `stride` bytes apart, into SSE registers.
template <int kRows>
[[gnu::always_inline]] inline void load_rows128(const void* p, int64_t stride, __m128i* x) {
  for (int i = 0; i < kRows; ++i) {
    x[i] = _mm_loadu_si128(
        reinterpret_cast<const __m128i*>(static_cast<const char*>(p) + i * stride));
  }
}

// One round of an SSE register transpose: within each block of kBlock registers starting at
// b, out[b + k] and out[b + kBlock/2 + k] are the low and high halves of the interleave
// (unpacklo / unpackhi at one unit width) of in[b + 2k] and in[b + 2k + 1].
template <int kRegs, int kBlock, class Lo, class Hi>
[[gnu::always_inline]] inline void unpack_round(const __m128i* in, __m128i* out, Lo lo, Hi hi) {
  for (int b = 0; b < kRegs; b += kBlock) {
    for (int k = 0; k < kBlock / 2; ++k) {
      out[b + k] = lo(in[b + 2 * k], in[b + 2 * k + 1]);
      out[b + kBlock / 2 + k] = hi(in[b + 2 * k], in[b + 2 * k + 1]);
    }
  }
}

// Interleaves at 8-, 16-, 32- and 64-bit units, for unpack_round.
#define TESSERA_UNPACK_PAIR(bits)                                                              \
  [](__m128i p, __m128i q) { return _mm_unpacklo_epi##bits(p, q); },                          \
      [](__m128i p, __m128i q) { return _mm_unpackhi_epi##bits(p, q); }

// A full 16x16 tile of 8-bit elements in SSE registers: four unpack rounds (8-, 16-, 32- and
// 64-bit units) leave column i of the tile in register i. A byte at a time, these tiles run far
// below memcpy's and oneDNN's speed (s8 nchw -> nhwc 32x64x56x56).
template <class Cols>
[[gnu::always_inline]] inline void transpose16x16_bytes(const uint8_t* src, int64_t src_ld,
                                                        uint8_t* dst, const Cols& col) {
  __m128i x[16], a[16];
  load_rows128<16>(src, src_ld, x);
  unpack_round<16, 16>(x, a, TESSERA_UNPACK_PAIR(8));
  unpack_round<16, 8>(a, x, TESSERA_UNPACK_PAIR(16));
  unpack_round<16, 4>(x, a, TESSERA_UNPACK_PAIR(32));
  unpack_round<16, 2>(a, x, TESSERA_UNPACK_PAIR(64));
  for (int i = 0; i < 16; ++i) _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + col(i)), x[i]);
}

// A full 16x16 tile of 16-bit elements as four 8x8 quarters, each by three unpack rounds (16-,
// 32- and 64-bit units) that leave column i of the quarter in register i.
template <class Cols>
[[gnu::always_inline]] inline void transpose16x16_words(const uint16_t* src, int64_t src_ld,
                                                        uint16_t* dst, const Cols& col) {
  for (int rq = 0; rq < 2; ++rq) {
    for (int cq = 0; cq < 2; ++cq) {
      const uint16_t* from = src + 8 * rq * src_ld + 8 * cq;
      __m128i x[8], a[8];
      load_rows128<8>(from, src_ld * int64_t{sizeof(uint16_t)}, x);
      unpack_round<8, 8>(x, a, TESSERA_UNPACK_PAIR(16));
      unpack_round<8, 4>(a, x, TESSERA_UNPACK_PAIR(32));
      unpack_round<8, 2>(x, a, TESSERA_UNPACK_PAIR(64));
      for (int i = 0; i < 8; ++i) {
        _mm_storeu_si128(reinterpret_cast<__m128i*>(dst + col(8 * cq + i) + 8 * rq), a[i]);
      }
    }
  }
}

#undef TESSERA_UNPACK_PAIR

// The tile edge of transpose_tiles: the register tile for 32-bit elements, else 16.
template <class Arch, class T>
constexpr int64_t tile_size() {
  return sizeof(T) == 4 && kRegisterTile<Arch> ? kRegisterTile<Arch> : 16;
}

// One tile of transpose_tiles: rows [r0, r0 + height) x columns [c0, c0 + cn).
template <class Arch, class T, class Cols>
[[gnu::always_inline]] inline void move_tile(const T* src, int64_t src_ld, T* dst, const Cols& col,
                                             int64_t r0, int64_t height, int64_t c0, int64_t cn,
                                             int64_t rows, int64_t pad_rows, bool stream) {
  constexpr int64_t kReg = sizeof(T) == 4 ? kRegisterTile<Arch> : 0;
  constexpr int64_t kTile = tile_size<Arch, T>();
  const int64_t rn = std::max<int64_t>(0, std::min(height, rows - r0));
  const int64_t pn = std::min(height, pad_rows - r0);  // rows written, zeros past rn
  // Rows past `rows` are padding only: their src address is never formed.
  const T* s = rn > 0 ? src + r0 * src_ld + c0 : src;
  T* d = dst + r0;
  if (kReg && rn == kTile && cn == kTile) {
    register_tile<Arch>(s, src_ld, d, col, stream);
    return;
  }
  if constexpr (sizeof(T) == 1 || sizeof(T) == 2) {
    if (rn == 16 && pn == 16 && cn == 16) {
      if constexpr (sizeof(T) == 1) {
        transpose16x16_bytes(reinterpret_cast<const uint8_t*>(s), src_ld,
                             reinterpret_cast<uint8_t*>(d), col);
      } else {
        transpose16x16_words(reinterpret_cast<const uint16_t*>(s), src_ld,
                             reinterpret_cast<uint16_t*>(d), col);
      }
      return;
    }
  }
  if constexpr (kReg == 16) {
#if defined(__AVX512F__)
    transpose16x16(reinterpret_cast<const float*>(s), src_ld, reinterpret_cast<float*>(d), col,
                   static_cast<int>(rn), static_cast<int>(cn), static_cast<int>(pn), false);
    return;
#endif
  }
  if constexpr (kReg == 8) {
#if defined(__AVX2__)
    if (rn == kTile && pn == kTile && cn > 0) {
      transpose8xN(reinterpret_cast<const float*>(s), src_ld, reinterpret_cast<float*>(d), col,
                   static_cast<int>(cn));
      return;
    }
#endif
  }
  for (int64_t c = 0; c < cn; ++c) {
    T* out = d + col(static_cast<int>(c));
    for (int64_t r = 0; r < rn; ++r) out[r] = s[r * src_ld + c];
    for (int64_t r = rn; r < pn; ++r) out[r] = T{};
  }
}

// transpose_tiles in bands of kBandRows rows (banded_transpose): column blocks outermost within
// a band, so that each dst row gets a run of 256 bytes (f32) at once, and the next band's src
// lines prefetched in row order while a band moves.
template <class Arch, class T, class ColumnsAt>
[[gnu::noinline]] void transpose_tiles_banded(const T* src, int64_t src_ld, T* dst,
                                              const ColumnsAt& columns_at, int64_t rows,
                                              int64_t cols, int64_t pad_rows, bool stream,
                                              int64_t head, int64_t col_head) {
  constexpr int64_t kTile = tile_size<Arch, T>();
  constexpr int64_t kBandBlocks = kBandRows / kTile;
  const int64_t first_height = head > 0 ? head : kTile;
  const int64_t first_width = col_head > 0 ? col_head : kTile;
  const int64_t blocks =
      pad_rows <= first_height ? 1 : 1 + (pad_rows - first_height + kTile - 1) / kTile;
  const int64_t col_blocks = cols <= first_width ? 1 : 1 + (cols - first_width + kTile - 1) / kTile;
  auto block_start = [&](int64_t k) { return k == 0 ? 0 : first_height + (k - 1) * kTile; };
  for (int64_t b0 = 0; b0 < blocks; b0 += kBandBlocks) {
    const int64_t b1 = std::min(blocks, b0 + kBandBlocks);
    // Rows past `rows` are padding only: their src address is never formed.
    band_prefetcher<T> ahead(src, src_ld, cols, std::min(rows, block_start(b1)),
                             std::min(rows, block_start(b1 + kBandBlocks)));
    const int64_t tiles = (b1 - b0) * col_blocks;
    const int64_t per_tile = (ahead.total() + tiles - 1) / tiles;
    for (int64_t c0 = 0, width = first_width; c0 < cols; c0 += width, width = kTile) {
      const int64_t cn = std::min(width, cols - c0);
      const auto col = columns_at(c0, static_cast<int>(cn));
      for (int64_t k = b0; k < b1; ++k) {
        ahead.next(per_tile);
        move_tile<Arch>(src, src_ld, dst, col, block_start(k), k == 0 ? first_height : kTile, c0,
                        cn, rows, pad_rows, stream);
      }
    }
  }
}

// Prefetches, to L2, the line `bytes` past p. The address may lie past the buffer (past a
// strip's last column; prefetches never fault), so it is formed as an integer, never as a
// pointer past the end.
[[gnu::always_inline]] inline void prefetch_l2_ahead(const void* p, int64_t bytes) {
  _mm_prefetch(reinterpret_cast<const char*>(reinterpret_cast<uintptr_t>(p) + bytes),
               _MM_HINT_T1);
}

#if defined(__AVX2__)
// Copies n floats from `from` (a local block) to `to`, the whole cache lines of `to` with
// non-temporal 32-byte stores, the partial lines at either end with plain stores (they are
// shared with the runs before and after).
[[maybe_unused]] inline void stream_run_avx2(const float* from, float* to, int64_t n) {
  const auto at = reinterpret_cast<uintptr_t>(to);
  int64_t i = 0;
  if (at % 4 == 0) {
    const int64_t head = std::min<int64_t>(n, static_cast<int64_t>((64 - at % 64) % 64 / 4));
    for (; i < head; ++i) to[i] = from[i];
    for (; i + 16 <= n; i += 16) {
      _mm256_stream_ps(to + i, _mm256_loadu_ps(from + i));
      _mm256_stream_ps(to + i + 8, _mm256_loadu_ps(from + i + 8));
    }
  }
  for (; i < n; ++i) to[i] = from[i];
}
#endif

// Rows [r_begin, r_end) of columns [c_begin, c_end) of a transpose, tile by tile with plain
// stores (move_tile): the rows and columns around the streamed bands.
template <class Arch, class T, class ColumnsAt>
void move_rows_plainly(const T* src, int64_t src_ld, T* dst, const ColumnsAt& columns_at,
                       int64_t r_begin, int64_t r_end, int64_t c_begin, int64_t c_end,
                       int64_t rows, int64_t pad_rows) {
  constexpr int64_t kTile = tile_size<Arch, T>();
  for (int64_t c0 = c_begin; c0 < c_end; c0 += kTile) {
    const int64_t cn = std::min(kTile, c_end - c0);
    const auto col = columns_at(c0, static_cast<int>(cn));
    for (int64_t r0 = r_begin; r0 < r_end; r0 += kTile) {
      move_tile<Arch>(src, src_ld, dst, col, r0, std::min(kTile, r_end - r0), c0, cn, rows,
                      pad_rows, false);
    }
  }
}

// A streamed transpose of 8- or 16-bit elements, plain columns whose dst lines all start on
// row 0: kLineRows (64 bytes of dst) rows at a time across the whole strip. Each 16-column step
// transposes the band's 16x16 register tiles into a local block of 16 dst lines, in L1, and
// streams each line from there, so every dst line is written once and whole. The row-block loop
// of transpose_tiles stores each dst line in 16-byte pieces, one per row block, plainly: 16-bit
// nchw -> nhwc 32x64x56x56 (C = 64: 128-byte dst rows, 4 row blocks) runs there far behind
// the f32 transpose that moves twice the bytes. src is read in kLineRows runs the width
// of the strip, each line prefetched (to L2) kRowAheadBytes ahead along its row; in a tall strip
// (rows of at most kTallStripBytes: nhwc -> nchw), where the next band's rows follow in memory,
// each line of the next band is prefetched to L1 instead, as AVX2's 32-bit tall strips do. Both
// the bands and the next-band prefetch measured faster on f16 nhwc -> nchw 32x64x56x56 cold, at
// 1 and 2 threads.
// Rows past the last whole band, padding rows and a partial last column tile go through
// move_tile, plainly.
// Returns false (nothing done) for strips it does not take.
template <class Arch, class T, class ColumnsAt>
bool transpose_line_bands_streamed(const T* src, int64_t src_ld, T* dst,
                                   const ColumnsAt& columns_at, int64_t rows, int64_t cols,
                                   int64_t pad_rows) {
  static_assert(std::is_same_v<T, uint8_t> || std::is_same_v<T, uint16_t>);
  constexpr int64_t kTile = 16, kLineRows = 64 / sizeof(T), kRowAheadBytes = 256;
  constexpr int64_t kTallStripBytes = 512;
  if constexpr (!std::is_same_v<std::decay_t<decltype(columns_at(0, 16))>, plain_tile_columns>) {
    return false;
  } else {
    if (rows < kLineRows || !columns_at(0, 16).all_aligned64(dst, 16)) return false;
    const int64_t full_cols = cols / kTile * kTile;
    const int64_t bands_end = rows / kLineRows * kLineRows;
    alignas(64) T block[kTile * kLineRows];
    const bool tall = cols * int64_t{sizeof(T)} <= kTallStripBytes;
    const auto next_band_bytes = static_cast<uintptr_t>(kLineRows * src_ld * int64_t{sizeof(T)});
    for (int64_t b0 = 0; b0 < bands_end; b0 += kLineRows) {
      const T* from = src + b0 * src_ld;
      for (int64_t c0 = 0; c0 < full_cols; c0 += kTile) {
        if ((c0 * sizeof(T)) % 64 == 0) {  // one prefetch per line of each row
          for (int64_t r = 0; r < kLineRows; ++r) {
            const T* line = from + r * src_ld + c0;
            if (tall) {  // the same line of the next band, as an address (it may be past the end)
              _mm_prefetch(
                  reinterpret_cast<const char*>(reinterpret_cast<uintptr_t>(line) + next_band_bytes),
                  _MM_HINT_T0);
            } else {
              prefetch_l2_ahead(line, kRowAheadBytes);
            }
          }
        }
        for (int64_t r0 = 0; r0 < kLineRows; r0 += kTile) {
          if constexpr (sizeof(T) == 1) {
            transpose16x16_bytes(from + r0 * src_ld + c0, src_ld, block + r0,
                                 plain_tile_columns{0, kLineRows});
          } else {
            transpose16x16_words(from + r0 * src_ld + c0, src_ld, block + r0,
                                 plain_tile_columns{0, kLineRows});
          }
        }
        const auto col = columns_at(c0, static_cast<int>(kTile));
        for (int i = 0; i < kTile; ++i) {
          const auto* line = reinterpret_cast<const __m128i*>(block + i * kLineRows);
          auto* to = reinterpret_cast<__m128i*>(dst + col(i) + b0);
          for (int k = 0; k < 4; ++k) _mm_stream_si128(to + k, _mm_load_si128(line + k));
        }
      }
    }
    auto plain_rows = [&](int64_t r_begin, int64_t r_end, int64_t c_begin, int64_t c_end) {
      move_rows_plainly<Arch>(src, src_ld, dst, columns_at, r_begin, r_end, c_begin, c_end, rows,
                              pad_rows);
    };
    plain_rows(bands_end, pad_rows, 0, cols);   // rows past the bands, padding
    plain_rows(0, bands_end, full_cols, cols);  // the partial column tile's other rows
    _mm_sfence();  // streamed stores visible before the task ends
    return true;
  }
}

#if defined(__AVX2__)
// A streamed 32-bit transpose of plain columns whose dst rows start on a line after the head:
// 16 rows at a time across the whole strip. Each 8-column step transposes two 8x8 register
// tiles and streams each column's 16 rows, one whole dst line, straight from the registers, so
// the src is read in 16 runs the width of the strip, which the hardware prefetcher follows.
// Rows past the last whole 16-row band, padding rows and a partial last column tile go through
// move_tile, plainly. Returns false (nothing done) for strips it does not take. Its callers:
// - AVX2's banded copies (ab -> ba 4096), for strips of kWideBandCols or more (split_into_tasks
//   gives them such strips; the caller checks the width), in place of 64-row bands that read
//   64 runs of 1 KB in step and wait on those loads (measured slower cold, 1 and 2 threads).
//   In narrower strips the 16-row order loses to the bands (256 columns) or is level (512):
//   bazel run -c opt //bench/experiments:ab_ba_orders -- A B16x256 B16x512
// - AVX2's short columns (nchw -> nhwc), for any strip: see transpose_tiles_avx2.
template <class Arch, class T, class ColumnsAt>
bool transpose_rows16_streamed_avx2(const T* src, int64_t src_ld, T* dst,
                                    const ColumnsAt& columns_at, int64_t rows, int64_t cols,
                                    int64_t pad_rows, int64_t head) {
  constexpr int64_t kTile = tile_size<Arch, T>();
  static_assert(sizeof(T) == 4 && kTile == 8);
  const auto* s = reinterpret_cast<const float*>(src);
  auto* d = reinterpret_cast<float*>(dst);
  // Plain columns only: when the first tile's dst lines are aligned, every tile's are.
  if constexpr (!std::is_same_v<std::decay_t<decltype(columns_at(0, 8))>, plain_tile_columns>) {
    return false;
  } else if (!columns_at(0, 8).all_aligned64(d + head, 8)) {
    return false;
  }
  const int64_t full_cols = cols / kTile * kTile;
  const int64_t bands_end = head + std::max<int64_t>(0, rows - head) / 16 * 16;
  // Each src line is prefetched (to L2) 256 bytes ahead along its row.
  constexpr int64_t kRowAheadBytes = 256;
  for (int64_t b0 = head; b0 < bands_end; b0 += 16) {
    const float* from = s + b0 * src_ld;
    for (int64_t c0 = 0; c0 < full_cols; c0 += kTile) {
      if (c0 % 16 == 0) {
        for (int64_t r = 0; r < 16; ++r) {
          prefetch_l2_ahead(from + r * src_ld + c0, kRowAheadBytes);
        }
      }
      __m256 upper[8], lower[8];
      load_transposed8x8(from + c0, src_ld, upper);
      load_transposed8x8(from + 8 * src_ld + c0, src_ld, lower);
      const auto col = columns_at(c0, static_cast<int>(kTile));
      for (int i = 0; i < 8; ++i) {
        _mm256_stream_ps(d + col(i) + b0, upper[i]);
        _mm256_stream_ps(d + col(i) + b0 + 8, lower[i]);
      }
    }
  }
  auto plain_rows = [&](int64_t r_begin, int64_t r_end, int64_t c_begin, int64_t c_end) {
    move_rows_plainly<Arch>(src, src_ld, dst, columns_at, r_begin, r_end, c_begin, c_end, rows,
                            pad_rows);
  };
  plain_rows(0, head, 0, cols);
  plain_rows(bands_end, pad_rows, 0, cols);       // rows past the bands, padding
  plain_rows(head, bands_end, full_cols, cols);   // the partial column tile's other rows
  _mm_sfence();  // streamed stores visible before the task ends
  return true;
}
#endif

// transpose_tiles_banded for 32-bit elements on AVX2 with a large dst (stream): in each band of
// kBandRows rows, an 8-column tile's 8x8 register tiles are transposed into a local block and
// each column's run of dst (256 bytes) streamed from there in whole lines (stream_run_avx2). The
// 8x8 tiles would store each dst line in two halves, plainly, so the 64 MB dst of ab -> ba 4096
// would be read for ownership; streaming the halves straight from the registers leaves every line
// half-written until the next tile. With a head (aligning_head_avx2) the bands start on dst's
// lines and no line is shared between two bands. Rows past the band's last whole 8-row tile,
// padding rows and a partial last column tile go through move_tile, plainly, after the band.
// The next band is not prefetched ahead of time as a whole: with band_prefetcher (spread over
// the tiles or all at once) the loop measured slower (ab -> ba 4096, 1 thread cold). Its lines
// are prefetched a few lines ahead of their loads instead, in the order the loop reads them.
template <class Arch, class T, class ColumnsAt>
[[gnu::noinline]] void transpose_tiles_banded_avx2(const T* src, int64_t src_ld, T* dst,
                                                   const ColumnsAt& columns_at, int64_t rows,
                                                   int64_t cols, int64_t pad_rows, int64_t head) {
#if defined(__AVX2__)
  constexpr int64_t kTile = tile_size<Arch, T>();
  static_assert(sizeof(T) == 4 && kTile == 8);
  if (cols >= kWideBandCols && transpose_rows16_streamed_avx2<Arch>(src, src_ld, dst, columns_at,
                                                                     rows, cols, pad_rows, head)) {
    return;
  }
  const auto* s = reinterpret_cast<const float*>(src);
  auto* d = reinterpret_cast<float*>(dst);
  const int64_t full_cols = cols / kTile * kTile;
  auto plain_rows = [&](int64_t r_begin, int64_t r_end, int64_t c_begin, int64_t c_end) {
    move_rows_plainly<Arch>(src, src_ld, dst, columns_at, r_begin, r_end, c_begin, c_end, rows,
                            pad_rows);
  };
  plain_rows(0, head, 0, cols);
  // Each band reads its rows' runs of the strip (1 KB of a 256-column strip): 64 short streams
  // in as many pages, which the hardware prefetcher hardly follows. Each src line is prefetched
  // (to L2) 64 columns (4 lines of f32) before its load, the next band's first lines at the end of
  // a band; without it ab -> ba 4096 cold measured markedly slower.
  constexpr int64_t kBandAhead = 64;
  alignas(64) float block[kTile * kBandRows];
  for (int64_t b0 = head; b0 < pad_rows; b0 += kBandRows) {
    const int64_t b1 = std::min(pad_rows, b0 + kBandRows);
    // Whole 8-row tiles of data rows go through the local block.
    const int64_t blocked = std::max<int64_t>(0, std::min(b1, rows) - b0) / kTile * kTile;
    for (int64_t c0 = 0; c0 < full_cols && blocked > 0; c0 += kTile) {
      const float* from = s + b0 * src_ld + c0;
      for (int64_t r = 0; r < blocked; r += kTile) {
        // Once per src line: the line kBandAhead columns further in this loop's order, from
        // the next band's rows once past the strip's last column tile.
        if (c0 % 16 == 0) {
          int64_t ahead_c = c0 + kBandAhead, ahead_r = b0 + r;
          if (ahead_c >= full_cols) {
            ahead_c -= full_cols;
            ahead_r += kBandRows;
          }
          if (ahead_c < full_cols && ahead_r + kTile <= rows) {
            for (int i = 0; i < kTile; ++i) {
              prefetch_l2_ahead(s + (ahead_r + i) * src_ld + ahead_c, 0);
            }
          }
        }
        __m256 t[8];
        load_transposed8x8(from + r * src_ld, src_ld, t);
        for (int i = 0; i < 8; ++i) _mm256_store_ps(block + i * kBandRows + r, t[i]);
      }
      const auto col = columns_at(c0, static_cast<int>(kTile));
      if (blocked == kBandRows && col.all_aligned64(d + b0, 8)) {
        for (int i = 0; i < kTile; ++i) {
          float* to = d + col(i) + b0;
          for (int j = 0; j < kBandRows; j += 8) {
            _mm256_stream_ps(to + j, _mm256_load_ps(block + i * kBandRows + j));
          }
        }
      } else {
        for (int i = 0; i < kTile; ++i) {
          stream_run_avx2(block + i * kBandRows, d + col(i) + b0, blocked);
        }
      }
    }
    plain_rows(b0 + blocked, b1, 0, cols);          // rows past the block, padding
    plain_rows(b0, b0 + blocked, full_cols, cols);  // the partial column tile's other rows
  }
  _mm_sfence();  // streamed stores visible before the task ends
#endif
}

// transpose_tiles of 32-bit elements on AVX2 (no banding): rows in blocks of 16, so that each
// dst row of 16 lanes (a 16-element block: nChw16c, OIhw16i16o) is written by one tile; the
// 8-row register tile for the rows past the last 16 and for partial column tiles. One src row
// into 16-lane rows (C = 1 into nChw16c) stores each row whole, its padding with it.
template <class Arch, class T, class ColumnsAt>
void transpose_tiles_avx2(const T* src, int64_t src_ld, T* dst, const ColumnsAt& columns_at,
                          int64_t rows, int64_t cols, int64_t pad_rows, bool stream,
                          int64_t head) {
#if defined(__AVX2__)
  constexpr int64_t kTile = tile_size<Arch, T>();
  static_assert(sizeof(T) == 4 && kTile == 8);
  const auto* s = reinterpret_cast<const float*>(src);
  auto* d = reinterpret_cast<float*>(dst);
  if (rows == 1 && pad_rows == 16) {
    for (int64_t c0 = 0; c0 < cols; c0 += kTile) {
      const int cn = static_cast<int>(std::min(kTile, cols - c0));
      one_row_into_rows16(s + c0, d, columns_at(c0, cn), cn, stream);
    }
    if (stream) _mm_sfence();  // streamed stores visible before the task ends
    return;
  }
  // Short columns of 32-64 rows (nchw -> nhwc: 64) with a large dst and back-to-back dst rows:
  // column tiles outermost, all rows of 8 columns at once, each src row prefetched (to L2)
  // kShortColumnsAhead elements ahead (32-64 read streams, as for the byte blocks). The 8 dst
  // rows of a column tile are one run (2 KB for C = 64): they are transposed into a local block
  // and streamed from there in whole lines (stream_run_avx2), the partial lines at the run's
  // ends stored plainly. Streaming the rows straight from the registers (16 bytes off a line, each
  // line completed only by the next row block) makes nchw -> nhwc much slower; plain stores read
  // the 25.7 MB of dst for ownership.
  // Plain columns whose dst rows are back to back (ld = rows): a column tile's dst is one run.
  const bool back_to_back_rows = [&] {
    if constexpr (std::is_same_v<std::decay_t<decltype(columns_at(0, 8))>, plain_tile_columns>) {
      return columns_at(0, 8).ld == rows;
    } else {
      return false;
    }
  }();
  // 768 bytes ahead to L2, as AVX-512's row prefetch: faster than 256 bytes ahead to L1 on AVX2
  // Zen 3 (nchw -> nhwc 32x64x56x56 cold, 1 and 2 threads) and never slower elsewhere.
  constexpr int64_t kShortColumnsAhead = 192;
  if (stream && head == 0 && rows == pad_rows && rows % 16 == 0 && rows >= 32 && rows <= 64 &&
      back_to_back_rows) {
    // With dst on a line, 16 rows at a time across the strip instead, each pixel's 16 channels
    // one streamed line (transpose_rows16_streamed_avx2, any strip width): faster than the
    // column order below on nchw -> nhwc 32x64x56x56 cold, 1 and 2 threads. The column order
    // below stays for dst off a line.
    if (transpose_rows16_streamed_avx2<Arch>(src, src_ld, dst, columns_at, rows, cols, pad_rows,
                                             0)) {
      return;
    }
    const int64_t full_cols = cols / kTile * kTile;
    for (int64_t c0 = 0; c0 < full_cols; c0 += kTile) {
      const auto col = columns_at(c0, static_cast<int>(kTile));
      for (int64_t r = 0; r < rows; ++r) {
        prefetch_l2_ahead(s + r * src_ld + c0, kShortColumnsAhead * sizeof(float));
      }
      alignas(64) float block[8 * 64];
      for (int64_t r0 = 0; r0 < rows; r0 += 2 * kTile) {
        transpose16x8(s + r0 * src_ld + c0, src_ld, block + r0, plain_tile_columns{0, rows},
                      false);
      }
      stream_run_avx2(block, d + col(0), 8 * rows);
    }
    for (int64_t r0 = 0; r0 < rows && full_cols < cols; r0 += kTile) {
      const int64_t cn = cols - full_cols;
      move_tile<Arch>(src, src_ld, dst, columns_at(full_cols, static_cast<int>(cn)), r0, kTile,
                      full_cols, cn, rows, pad_rows, false);
    }
    _mm_sfence();  // streamed stores visible before the task ends
    return;
  }
  int64_t r0 = 0;
  if (head > 0) {
    for (int64_t c0 = 0; c0 < cols; c0 += kTile) {
      const int64_t cn = std::min(kTile, cols - c0);
      move_tile<Arch>(src, src_ld, dst, columns_at(c0, static_cast<int>(cn)), 0, head, c0, cn,
                      rows, pad_rows, stream);
    }
    r0 = head;
  }
  // Tall strips (nhwc -> nchw: 3136 rows of 64 columns): while a 16-row block moves, its tiles
  // prefetch (to L1) the src lines of the same columns in the next block, one per row per 64
  // bytes: the hardware prefetcher does not keep up with the 16 rows read 32 bytes at a time.
  // Strips of one block (nchw -> nChw16c, 16 rows) keep the loop without the prefetch. Also
  // fetching (to L2) the lines of the block 3 or 4 ahead, as AVX-512's tall strip does, measured
  // slower on AVX2 Zen 3.
  auto row_blocks = [&](auto prefetch) {
    for (; r0 + 2 * kTile <= rows; r0 += 2 * kTile) {
      [[maybe_unused]] const int64_t next = r0 + 2 * kTile;
      [[maybe_unused]] const int64_t next_rows = std::clamp<int64_t>(rows - next, 0, 2 * kTile);
      for (int64_t c0 = 0; c0 < cols; c0 += kTile) {
        const int64_t cn = std::min(kTile, cols - c0);
        const auto col = columns_at(c0, static_cast<int>(cn));
        if constexpr (decltype(prefetch)::value) {
          if (c0 % 16 == 0) {
            for (int64_t r = 0; r < next_rows; ++r) {
              _mm_prefetch(reinterpret_cast<const char*>(s + (next + r) * src_ld + c0),
                           _MM_HINT_T0);
            }
          }
        }
        if (cn == kTile) {
          transpose16x8(s + r0 * src_ld + c0, src_ld, d + r0, col, stream);
          continue;
        }
        int64_t c = c0;  // the partial tile's columns not yet moved
        if (cn >= 4) {
          transpose16x4(s + r0 * src_ld + c0, src_ld, d + r0, col, stream);
          c += 4;
        }
        if (c < c0 + cn) {
          const auto rest = columns_at(c, static_cast<int>(c0 + cn - c));
          move_tile<Arch>(src, src_ld, dst, rest, r0, kTile, c, c0 + cn - c, rows, pad_rows,
                          stream);
          move_tile<Arch>(src, src_ld, dst, rest, r0 + kTile, kTile, c, c0 + cn - c, rows,
                          pad_rows, stream);
        }
      }
    }
  };
  if (rows - r0 >= 4 * kTile) {
    row_blocks(std::true_type{});
  } else {
    row_blocks(std::false_type{});
  }
  for (; r0 < pad_rows; r0 += kTile) {
    for (int64_t c0 = 0; c0 < cols; c0 += kTile) {
      const int64_t cn = std::min(kTile, cols - c0);
      move_tile<Arch>(src, src_ld, dst, columns_at(c0, static_cast<int>(cn)), r0, kTile, c0, cn,
                      rows, pad_rows, stream);
    }
  }
  if (stream) _mm_sfence();  // streamed stores visible before the task ends
#endif
}

// transpose_tiles for a tall, narrow strip of 32-bit elements on AVX-512 (nhwc -> nchw: 3136
// rows of 64 columns): each tile prefetches (to L1) the next row block's src lines of its
// columns, one per row, as AVX2's row blocks do. A block's 16 src rows are read one line each
// per tile while 64 dst rows are written, and without the prefetch the loads wait on DRAM. Not
// for strips one tile wide (nChw16c -> nchw: 16 columns, one contiguous run per block that the
// hardware prefetcher follows; slower with it) nor for short ones (nchw -> nhwc: 64 rows). A
// function of its own: with the prefetch in transpose_tiles' loop, the strips without it run a
// few % slower.
// Each tile also prefetches (to L2) the same lines of the row block kTallL2AheadBlocks ahead:
// one block ahead to L1 alone leaves about one block's lines in flight, and the strip then runs
// at memcpy's speed while nChw16c -> nchw (the same stores, contiguous src) runs much faster.
// 3 to 8 blocks ahead measured within noise of each other.
constexpr int64_t kTallL2AheadBlocks = 4;
template <class Arch, class T, class ColumnsAt>
[[gnu::noinline]] void transpose_tall_strip(const T* src, int64_t src_ld, T* dst,
                                            const ColumnsAt& columns_at, int64_t rows,
                                            int64_t cols, int64_t pad_rows, bool stream,
                                            int64_t head) {
  constexpr int64_t kTile = tile_size<Arch, T>();
  for (int64_t r0 = 0, height = head > 0 ? head : kTile; r0 < pad_rows;
       r0 += height, height = kTile) {
    const int64_t next = r0 + height;
    const int64_t next_rows = std::clamp<int64_t>(rows - next, 0, kTile);
    const int64_t far = next + (kTallL2AheadBlocks - 1) * kTile;
    const int64_t far_rows = std::clamp<int64_t>(rows - far, 0, kTile);
    for (int64_t c0 = 0; c0 < cols; c0 += kTile) {
      const int64_t cn = std::min(kTile, cols - c0);
      for (int64_t r = 0; r < next_rows; ++r) {
        _mm_prefetch(reinterpret_cast<const char*>(src + (next + r) * src_ld + c0), _MM_HINT_T0);
      }
      for (int64_t r = 0; r < far_rows; ++r) {
        _mm_prefetch(reinterpret_cast<const char*>(src + (far + r) * src_ld + c0), _MM_HINT_T1);
      }
      move_tile<Arch>(src, src_ld, dst, columns_at(c0, static_cast<int>(cn)), r0, height, c0, cn,
                      rows, pad_rows, stream);
    }
  }
}

// Moves a tile block by block: 32-bit elements through registers (kRegisterTile; on AVX-512 the
// edges too, with masked loads and stores), the rest element by element within 16x16 blocks.
// A partial block's padding rows are written with its data (pad_rows > rows), in the same tile
// pass: zero lanes of the register tile, or zeros after the element loop.
// Row blocks outermost, so that each src row is read once and the dst rows advance together;
// except when src's rows are a page or more apart and there are several bands of rows
// (transpose_tiles_banded). The hardware prefetcher follows none of 16 rows 16 KB apart (ab -> ba
// 4096), so there the loads wait on DRAM: the bands with their prefetch measure faster than
// bands without it, and both much faster than row blocks outermost with the prefetch (256 dst
// rows advancing at once).
// Not inlined: each column mapping gets a function of its own (inlined together into
// transpose(), the plain tiles measured slower on nhwc -> nchw).
// head (< kTile): the first row block's height, so that the later ones start on a cache line.
// col_head (< kTile): the first column block's width, so that the later ones start on src's
// cache lines.
template <class Arch, class T, class ColumnsAt>
[[gnu::noinline]] void transpose_tiles(const T* src, int64_t src_ld, T* dst,
                                       const ColumnsAt& columns_at, int64_t rows, int64_t cols,
                                       int64_t pad_rows, bool stream, int64_t head,
                                       int64_t col_head) {
  constexpr int64_t kTile = tile_size<Arch, T>();
  const bool banded = banded_transpose(src_ld * static_cast<int64_t>(sizeof(T)), pad_rows);
#if defined(__AVX512F__)
  if constexpr (sizeof(T) == 4 && kRegisterTile<Arch> == 16) {
    if (rows == 1 && pad_rows == 16) {  // C = 1 into nChw16c
      const auto* s = reinterpret_cast<const float*>(src);
      for (int64_t c0 = 0; c0 < cols; c0 += kTile) {
        const int cn = static_cast<int>(std::min(kTile, cols - c0));
        one_row_into_lines16(s + c0, reinterpret_cast<float*>(dst), columns_at(c0, cn), cn,
                             stream);
      }
      if (stream) _mm_sfence();  // streamed stores visible before the task ends
      return;
    }
  }
#endif
  if constexpr (sizeof(T) == 4 && kRegisterTile<Arch> == 8) {
    if (!banded) {
      transpose_tiles_avx2<Arch>(src, src_ld, dst, columns_at, rows, cols, pad_rows, stream,
                                 head);
      return;
    }
    if (stream) {
      transpose_tiles_banded_avx2<Arch>(src, src_ld, dst, columns_at, rows, cols, pad_rows, head);
      return;
    }
  }
  if constexpr (sizeof(T) <= 2) {
    if (stream && !banded && head == 0 && col_head == 0 &&
        transpose_line_bands_streamed<Arch>(src, src_ld, dst, columns_at, rows, cols, pad_rows)) {
      return;
    }
  }
  if (banded) {
    transpose_tiles_banded<Arch>(src, src_ld, dst, columns_at, rows, cols, pad_rows, stream, head,
                                 col_head);
  } else if (sizeof(T) == 4 && kRegisterTile<Arch> == 16 && col_head == 0 && rows >= 8 * kTile &&
             cols > kTile && cols <= 4 * kTile) {
    transpose_tall_strip<Arch>(src, src_ld, dst, columns_at, rows, cols, pad_rows, stream, head);
  } else {
    // A large strip of several row blocks (nchw -> nhwc: 64 rows) reads each block's rows as
    // runs along the strip, more than the hardware prefetcher follows at once: each tile
    // prefetches (to L2) its rows kRowsAheadBytes further along (512 and 1024 bytes ahead
    // measured slower than 256 or within noise of it).
    constexpr int64_t kRowsAheadBytes = 256;
    const bool fetch_along_rows = stream && rows > kTile;
    // Full row blocks of a strip a whole number of tiles wide take its columns before src's
    // first line and after its last one as one wrapped tile.
    [[maybe_unused]] const int64_t tail =
        sizeof(T) == 4 && kRegisterTile<Arch> == 16 && col_head > 0 && cols % kTile == 0
            ? kTile - col_head
            : 0;
    for (int64_t r0 = 0, height = head > 0 ? head : kTile; r0 < pad_rows;
         r0 += height, height = kTile) {
      int64_t c_begin = 0, c_end = cols;
#if defined(__AVX512F__)
      if (tail > 0 && height == kTile && r0 + kTile <= rows) {
        const T* s = src + r0 * src_ld;
        transpose_wrapped16x16(
            reinterpret_cast<const float*>(s), reinterpret_cast<const float*>(s + cols - tail),
            src_ld, reinterpret_cast<float*>(dst + r0),
            wrapped_tile_columns(columns_at(cols - tail, static_cast<int>(tail)),
                                 columns_at(0, static_cast<int>(col_head)), static_cast<int>(tail)),
            static_cast<int>(tail), stream);
        c_begin = col_head;
        c_end = cols - tail;
      }
#endif
      for (int64_t c0 = c_begin, width = c0 == 0 && col_head > 0 ? col_head : kTile; c0 < c_end;
           c0 += width, width = kTile) {
        const int64_t cn = std::min(width, c_end - c0);
        if (fetch_along_rows) {
          for (int64_t r = r0; r < std::min(rows, r0 + height); ++r) {
            prefetch_l2_ahead(src + r * src_ld + c0, kRowsAheadBytes);
          }
        }
        move_tile<Arch>(src, src_ld, dst, columns_at(c0, static_cast<int>(cn)), r0, height, c0,
                        cn, rows, pad_rows, stream);
      }
    }
  }
#if defined(__AVX512F__)
  if (sizeof(T) == 4 && kRegisterTile<Arch> == 16 && stream) {
    _mm_sfence();  // streamed stores visible before the task ends
  }
#endif
}

// Rows before the first 64-byte boundary of dst, when every column shares that boundary and
// partial tiles are cheap (AVX-512 masks): the other tiles' rows are then whole cache lines, not
// two halves (malloc gives 16-byte alignment), and may be streamed (faster on ab -> ba 4096).
// Only for long columns: with 64 rows (nchw -> nhwc, C = 64) the extra partial row block makes
// the tile count 5/4 and measured much slower.
template <class Arch, class T>
int64_t aligning_head(const void* dst, const dst_columns& m, int64_t rows) {
  constexpr int64_t kMinRows = 128;
  if (!(sizeof(T) == 4 && kRegisterTile<Arch> == 16) || rows < kMinRows) return 0;
  const bool shared = (m.ld * sizeof(T)) % 64 == 0 && (m.group_ld * sizeof(T)) % 64 == 0;
  const auto misaligned = reinterpret_cast<uintptr_t>(dst) % 64;
  if (!shared || misaligned % sizeof(T) != 0) return 0;
  return static_cast<int64_t>((64 - misaligned) % 64 / sizeof(T));
}

// Columns before the first 64-byte boundary of src, when every row shares it: the other tiles'
// 16-lane row loads are then whole cache lines instead of two halves (a split load waits for
// two lines). Only with at least 64 columns after the head (the strips of run_transpose start on
// src's lines after the first, so only a strip's first tile is partial): nhwc -> nchw with 64
// columns in all measured much slower with a head (5 column tiles instead of 4). Grouped columns
// only when the strip is a whole number of tiles wide, so that transpose_tiles wraps the head
// and the tail into one tile (oihw's 144: a head alone, 10 tiles instead of 9, gains nothing).
template <class Arch, class T>
int64_t aligning_col_head(const void* src, int64_t src_ld, const dst_columns& m, int64_t rows,
                          int64_t cols) {
  constexpr int64_t kMinCols = 64, kMinRows = 16;
  if (!(sizeof(T) == 4 && kRegisterTile<Arch> == 16) || rows < kMinRows ||
      (m.group > 0 && m.group < cols && cols % kRegisterTile<Arch> != 0)) {
    return 0;
  }
  const auto misaligned = reinterpret_cast<uintptr_t>(src) % 64;
  if ((src_ld * sizeof(T)) % 64 != 0 || misaligned % sizeof(T) != 0) return 0;
  const auto head = static_cast<int64_t>((64 - misaligned) % 64 / sizeof(T));
  return cols >= kMinCols + head ? head : 0;
}

// AVX2's aligning_head: the rows before dst's first line, when the later 16-row blocks can then
// stream whole lines (a large dst, long columns sharing the line offset: nhwc -> nchw). The head
// goes through the scalar partial tile, a few rows of each strip.
template <class Arch, class T>
int64_t aligning_head_avx2(const void* dst, const dst_columns& m, int64_t rows, bool stream) {
  constexpr int64_t kMinRows = 128;
  if (!stream || rows < kMinRows) return 0;
  const bool shared = (m.ld * sizeof(T)) % 64 == 0 && (m.group_ld * sizeof(T)) % 64 == 0;
  const auto misaligned = reinterpret_cast<uintptr_t>(dst) % 64;
  if (!shared || misaligned % sizeof(T) != 0) return 0;
  return static_cast<int64_t>((64 - misaligned) % 64 / sizeof(T));
}

#if defined(__AVX2__)
// A strip of exactly 16 rows of grouped columns (oihw -> OIhw16i16o: 16 o x 144 (i, hw) per
// (O, I) block), without streaming. Its tiles in src column order wrote the dst rows of a tile's
// columns 1 KB apart each (column (i, hw) goes to hw * 256 + i * 16), 9 interleaved store streams
// on top of the 16 src rows. Instead the strip is transposed into a local block (its column
// order, 64-byte rows, in L1) and then copied to dst in dst order, one sequential run of whole
// rows. Each src row is prefetched (to L2) kGroupedPrefetchBytes ahead, which for oihw runs on
// into the next strip's columns of the same rows. When the strip's dst rows are back to back
// (oihw's 9 KB), each tile also prefetches its share of them to L2, so that the copy's stores
// find their lines there instead of each waiting for its read for ownership.
// Returns false (nothing done) for other strips.
// Measured faster than the tiles in src column order, cold and warm, on AVX2 Zen 3 and AVX-512
// Zen 4, and ahead of oneDNN cold; the dst prefetch is part of the cold gain:
// bazel run -c opt //bench/reorder:reorder_bench -- --benchmark_filter=f32_oihw_OIhw16i16o
constexpr int64_t kGroupedBlockCols = 256, kGroupedPrefetchBytes = 256;
template <class Arch>
bool grouped_strip(const float* src, int64_t src_ld, float* dst, const dst_columns& m,
                   int64_t rows, int64_t cols, int64_t pad_rows, bool stream) {
  constexpr int kTile = kRegisterTile<Arch>;  // columns per step: 8 (AVX2) or 16 (AVX-512)
  if (stream || rows != 16 || pad_rows != 16 || !(m.group > 0 && m.group < cols) ||
      cols % m.group != 0 || cols % kTile != 0 || cols > kGroupedBlockCols || m.group_ld > m.ld) {
    return false;
  }
  const int64_t groups = cols / m.group;
  const bool one_dst_run = m.group_ld == 16 && m.ld == groups * m.group_ld;
  alignas(64) float block[kGroupedBlockCols * 16];
  for (int64_t c0 = 0; c0 < cols; c0 += kTile) {
    if (c0 % 16 == 0) {  // one prefetch per 64 bytes of each row
      for (int64_t r = 0; r < 16; ++r) {
        prefetch_l2_ahead(src + r * src_ld + c0, kGroupedPrefetchBytes);
      }
    }
    if (one_dst_run) {
      for (int i = 0; i < kTile; ++i) {
        _mm_prefetch(reinterpret_cast<const char*>(dst + (c0 + i) * 16), _MM_HINT_T1);
      }
    }
    if constexpr (kTile == 16) {
#if defined(__AVX512F__)
      __m512 t[16];
      load_transposed(src + c0, src_ld, 16, 16, t);
      for (int i = 0; i < 16; ++i) _mm512_store_ps(block + (c0 + i) * 16, t[i]);
#endif
    } else {
      transpose16x8(src + c0, src_ld, block + c0 * 16, plain_tile_columns{0, 16}, false);
    }
  }
  // Column c = g * group + k goes to g * group_ld + k * ld: k outermost is dst order
  // (group_ld <= ld). m's fields are read into locals first: the intrinsic stores may alias
  // anything, so the loop would reload them (and redo its multiplications) every 64 bytes
  // (measured slower warm on AVX2 Zen 3, oihw -> OIhw16i16o).
  const int64_t group = m.group, group_ld = m.group_ld, ld = m.ld;
  for (int64_t k = 0; k < group; ++k) {
    for (int64_t g = 0; g < groups; ++g) {
      const float* from = block + (g * group + k) * 16;
      float* to = dst + g * group_ld + k * ld;
      if constexpr (kTile == 16) {
#if defined(__AVX512F__)
        _mm512_storeu_ps(to, _mm512_load_ps(from));
#endif
      } else {
        _mm256_storeu_ps(to, _mm256_load_ps(from));
        _mm256_storeu_ps(to + 8, _mm256_load_ps(from + 8));
      }
    }
  }
  return true;
}
#endif

template <class Arch, class T>
void transpose(const void* src, int64_t src_ld, void* dst, const dst_columns& dst_cols,
               int64_t rows, int64_t cols, int64_t pad_rows, bool stream) {
  if constexpr (sizeof(T) == 4 && kRegisterTile<Arch> != 0) {
#if defined(__AVX2__)
    if (grouped_strip<Arch>(static_cast<const float*>(src), src_ld, static_cast<float*>(dst),
                            dst_cols, rows, cols, pad_rows, stream)) {
      return;
    }
#endif
  }
  const int64_t head = sizeof(T) == 4 && kRegisterTile<Arch> == 8
                           ? aligning_head_avx2<Arch, T>(dst, dst_cols, rows, stream)
                           : aligning_head<Arch, T>(dst, dst_cols, rows);
  const int64_t col_head = aligning_col_head<Arch, T>(src, src_ld, dst_cols, rows, cols);
  with_tile_columns(dst_cols, cols, [&](const auto& columns_at) {
    transpose_tiles<Arch>(static_cast<const T*>(src), src_ld, static_cast<T*>(dst), columns_at,
                          rows, cols, pad_rows, stream, head, col_head);
  });
}

#if defined(__AVX2__)
// One column of a transposed tile of 32-bit S lanes, converted into the dst row `out`: rn
// elements of data and pn - rn of padding (zeros). Full rows go straight through quant_lanes and
// store_from_f32; partial ones through a local row, so nothing past pn is touched (with the sum
// post-op, the old values are read first).
template <class Arch, class S, class D>
[[gnu::always_inline]] inline void store_converted_column(f32x<Arch> column, D* out, int rn,
                                                          int pn, const quant_lanes<Arch>& lanes,
                                                          const quant_ptrs& q) {
  constexpr int kLanes = kRegisterTile<Arch>;
  f32x<Arch> x = column;
  if constexpr (std::is_same_v<S, int32_t>) {  // s32 bits, converted as a cast rounds
#if defined(__AVX512F__)
    if constexpr (kLanes == 16) x = _mm512_cvtepi32_ps(_mm512_castps_si512(column));
#endif
    if constexpr (kLanes == 8) x = _mm256_cvtepi32_ps(_mm256_castps_si256(column));
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
#endif

#if defined(__AVX512F__)
// Four rows x cn columns (cn <= 16) of a 32-bit source quantized and converted to 8-bit lanes,
// packed into one register: dword k of 128-bit lane l holds column 4l + k of rows 0..3, byte j
// row j. The lanes are converted in src order, before any transpose (the quantization is
// common), exactly as store_from_f32 converts them: NaN to the type's NaN value and saturation by
// f32 min/max (vminps and vmaxps return their second operand when the first is NaN), cvtps2dq
// rounding half to even, and values below -2^31 (cvtps2dq's 0x80000000) to -128 by the
// saturating packs. Packing four rows into one register and transposing 4-byte groups takes a
// quarter of the shuffles of four 16x16 f32 transposes followed by four narrowing stores.
template <class Arch, class S, class D, class Lanes>
[[gnu::always_inline]] inline __m512i pack_row_quad_to_bytes(const S* src, int64_t src_ld, int cn,
                                                             const Lanes& lanes) {
  static_assert(sizeof(S) == 4 && sizeof(D) == 1);
  constexpr bool kSigned = std::is_same_v<D, int8_t>;
  const __mmask16 m = static_cast<__mmask16>((1u << cn) - 1);
  const __m512 hi = _mm512_set1_ps(kSigned ? 127.f : 255.f);
  const __m512 zero = _mm512_setzero_ps();
  // Within each 128-bit lane the packs leave 4 rows x 4 columns as bytes 4 * row + column; this
  // makes them 4 * column + row.
  const __m512i columns_of_rows = _mm512_broadcast_i32x4(
      _mm_setr_epi8(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15));
  __m512i w[4];
  for (int j = 0; j < 4; ++j) {
    const float* row = reinterpret_cast<const float*>(src + j * src_ld);
    const __m512 bits = cn == 16 ? _mm512_loadu_ps(row) : _mm512_maskz_loadu_ps(m, row);
    __m512 x = bits;
    if constexpr (std::is_same_v<S, int32_t>) {
      x = _mm512_cvtepi32_ps(_mm512_castps_si512(bits));  // rounds like a cast
    }
    x = lanes.apply(f32x<Arch>(x), static_cast<const D*>(nullptr));  // no sum: nothing read
    if constexpr (!kSigned) x = _mm512_max_ps(x, zero);  // NaN -> 0
    x = _mm512_min_ps(x, hi);                             // NaN -> 127 (s8)
    w[j] = _mm512_cvtps_epi32(x);
  }
  __m512i b;
  if constexpr (kSigned) {
    b = _mm512_packs_epi16(_mm512_packs_epi32(w[0], w[1]), _mm512_packs_epi32(w[2], w[3]));
  } else {
    b = _mm512_packus_epi16(_mm512_packus_epi32(w[0], w[1]), _mm512_packus_epi32(w[2], w[3]));
  }
  return _mm512_shuffle_epi8(b, columns_of_rows);
}

// 16 packed row quads (rows 4g .. 4g + 3 in quads[g], pack_row_quad_to_bytes) transposed by
// 4-byte groups: out[i] holds column i's 64 rows, one 64-byte dst row.
[[gnu::always_inline]] inline void transpose_row_quads(const __m512i quads[16], __m512i out[16]) {
  __m512 groups[16];
  for (int g = 0; g < 16; ++g) groups[g] = _mm512_castsi512_ps(quads[g]);
  transpose_registers(groups);
  for (int i = 0; i < 16; ++i) out[i] = _mm512_castps_si512(groups[i]);
}

// A 64-row strip's columns are taken in chunks of kBytes64Chunk through a local block of packed
// row quads (64 KB), 16 rows (4 quads) at a time along the chunk; each load prefetches the line
// of the next 16 rows at the same column to L2. Reading one line from each of the 64 rows in
// turn keeps 64 read streams in flight, more than the hardware prefetcher follows (a read-only
// loop over this src runs far below the sequential rate that way); 16 rows along a chunk
// read at about the rate of a plain sequential read. Chunks of 1024 columns (4 KB runs of each
// row) measured faster than 256 on f32 -> s8 nchw -> nhwc cold, 1 and 2 threads.
constexpr int kBytes64Chunk = 1024;
constexpr int kBytes64StepQuads = 4;

// Writes 64-byte vectors to dst, dst + 64, dst + 128, ... as whole aligned cache lines when dst
// is off a line by a multiple of 4 bytes: each line is the end of one vector and the start of the
// next (vpermt2d), the partial first and last lines masked stores. Non-temporal stores need whole
// aligned lines; unaligned 64-byte rows would split every line between two stores.
class line_writer {
 public:
  line_writer(unsigned char* dst, bool stream)
      : base_(dst), off_(static_cast<int>(reinterpret_cast<uintptr_t>(dst) % 64)), stream_(stream) {
    const int shift = (64 - off_) / 4 % 16;
    next_line_ = _mm512_add_epi32(
        _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
        _mm512_set1_epi32(shift));
    head_ = off_ == 0 ? ~__mmask64{0} : (__mmask64{1} << (64 - off_)) - 1;
  }
  // Whether dst's distance from a line allows it (dword shifts only).
  static bool fits(const void* dst) { return reinterpret_cast<uintptr_t>(dst) % 4 == 0; }

  void push(__m512i v) {
    if (off_ == 0) {
      store(base_ + 64 * n_, v);
    } else if (n_ == 0) {
      _mm512_mask_storeu_epi8(base_, head_, v);
    } else {
      store(base_ + 64 * n_ - off_, _mm512_permutex2var_epi32(prev_, next_line_, v));
    }
    prev_ = v;
    ++n_;
  }
  void finish() {
    if (off_ != 0 && n_ > 0) _mm512_mask_storeu_epi8(base_ + 64 * (n_ - 1), ~head_, prev_);
  }

 private:
  void store(unsigned char* p, __m512i v) const {
    if (stream_) {
      _mm512_stream_si512(reinterpret_cast<__m512i*>(p), v);
    } else {
      _mm512_store_si512(reinterpret_cast<void*>(p), v);
    }
  }
  unsigned char* base_;
  int off_;
  bool stream_;
  __m512i next_line_, prev_ = _mm512_setzero_si512();
  __mmask64 head_;
  int64_t n_ = 0;
};

// 64 rows x cols of a 32-bit source converted to 8-bit lanes and transposed, in chunks of
// kBytes64Chunk columns through a local byte block; emit(c0, cn, out) receives the 64-byte dst
// rows of columns c0 .. c0 + cn - 1 in column order.
template <class Arch, class S, class D, class Lanes, class Emit>
void convert_strip64_to_bytes(const S* src, int64_t src_ld, int64_t cols, const Lanes& lanes,
                              const Emit& emit) {
  // [16-column group][row quad]; per thread, not on the stack (run_transpose's scratch is).
  thread_local std::vector<__m512i> storage(kBytes64Chunk);
  auto* block = reinterpret_cast<__m512i(*)[16]>(storage.data());
  __m512i out[16];
  for (int64_t k0 = 0; k0 < cols; k0 += kBytes64Chunk) {
    const int kn = static_cast<int>(std::min<int64_t>(kBytes64Chunk, cols - k0));
    const int groups = (kn + 15) / 16;
    for (int g0 = 0; g0 < 16; g0 += kBytes64StepQuads) {
      // The next 16 rows: of this chunk, or the first of the next one after the last.
      const int64_t next_k0 = g0 + kBytes64StepQuads < 16 ? k0 : k0 + kBytes64Chunk;
      const S* next =
          next_k0 < cols ? src + 4 * ((g0 + kBytes64StepQuads) % 16) * src_ld + next_k0 : nullptr;
      for (int q = 0; q < groups; ++q) {
        const bool fetch = next != nullptr && next_k0 + 16 * q < cols;
        for (int g = g0; g < g0 + kBytes64StepQuads; ++g) {
          if (fetch) {
            for (int j = 0; j < 4; ++j) {
              const S* line = next + (4 * (g - g0) + j) * src_ld + 16 * q;
              _mm_prefetch(reinterpret_cast<const char*>(line), _MM_HINT_T1);
            }
          }
          block[q][g] = pack_row_quad_to_bytes<Arch, S, D>(src + 4 * g * src_ld + k0 + 16 * q,
                                                           src_ld, std::min(16, kn - 16 * q),
                                                           lanes);
        }
      }
    }
    for (int q = 0; q < groups; ++q) {
      transpose_row_quads(block[q], out);
      emit(k0 + 16 * q, std::min(16, kn - 16 * q), out);
    }
  }
}

// Rows [0, rows / 64 * 64) of an 8-bit destination, 64 at a time (convert_strip64_to_bytes).
// contiguous: the dst rows of the strip's columns follow each other (64 rows, ld 64: nchw ->
// nhwc with 64 channels), written through line_writer.
template <class Arch, class S, class D, class ColumnsAt, class Lanes>
void transpose_convert_bytes64(const S* src, int64_t src_ld, D* dst, const ColumnsAt& columns_at,
                               int64_t rows, int64_t cols, const Lanes& lanes, bool contiguous,
                               bool stream) {
  if (contiguous && line_writer::fits(dst)) {
    line_writer w(reinterpret_cast<unsigned char*>(dst), stream);
    convert_strip64_to_bytes<Arch, S, D>(src, src_ld, cols, lanes,
                                         [&](int64_t, int cn, const __m512i* out) {
                                           for (int i = 0; i < cn; ++i) w.push(out[i]);
                                         });
    w.finish();
  } else {
    for (int64_t r0 = 0; r0 + 64 <= rows; r0 += 64) {
      D* d = dst + r0;
      convert_strip64_to_bytes<Arch, S, D>(
          src + r0 * src_ld, src_ld, cols, lanes, [&](int64_t c0, int cn, const __m512i* out) {
            const auto col = columns_at(c0, cn);
            if (stream && col.all_aligned64(d, cn)) {
              for (int i = 0; i < cn; ++i) {
                _mm512_stream_si512(reinterpret_cast<__m512i*>(d + col(i)), out[i]);
              }
            } else {
              for (int i = 0; i < cn; ++i) {
                _mm512_storeu_si512(reinterpret_cast<void*>(d + col(i)), out[i]);
              }
            }
          });
    }
  }
  if (stream) _mm_sfence();  // streamed stores visible before the task ends
}

template <class Arch, class S, class D, class ColumnsAt>
void transpose_convert_tiles(const S* src, int64_t src_ld, D* dst, const ColumnsAt& columns_at,
                             int64_t rows, int64_t cols, int64_t pad_rows, const quant_ptrs& q,
                             bool contiguous, bool stream) {
  const quant_lanes<Arch> lanes(q);
  // f16 -> f32 (widening: dst is twice src's bytes) streams its rows when the plan streams dst.
  constexpr bool kStreamedRows = std::is_same_v<S, f16> && std::is_same_v<D, float>;
  stream = stream && !q.has_sum;  // the sum reads the old dst lines into the cache anyway
  int64_t first_row = 0;
  if constexpr (sizeof(D) == 1) {
    // 8-bit rows are 16 bytes per 16x16 tile: whole 64-byte rows from 64-row blocks instead.
    // Not with the sum post-op (it reads dst in dst order).
    // The attributes' steps chosen once (run_lanes), not tested per vector: those tests would be
    // most of this loop's instructions.
    if (!q.has_sum && rows >= 64) {
      with_run_quant(q, [&](auto kind) {
        transpose_convert_bytes64<Arch>(src, src_ld, dst, columns_at, rows, cols,
                                        run_lanes<Arch, decltype(kind)::value>{lanes},
                                        contiguous && rows == 64 && pad_rows == 64, stream);
      });
      first_row = rows / 64 * 64;
    }
  }
  for (int64_t r0 = first_row; r0 < pad_rows; r0 += 16) {
    const int rn = static_cast<int>(std::clamp<int64_t>(rows - r0, 0, 16));
    const int pn = static_cast<int>(std::min<int64_t>(16, pad_rows - r0));
    for (int64_t c0 = 0; c0 < cols; c0 += 16) {
      const int cn = static_cast<int>(std::min<int64_t>(16, cols - c0));
      const auto col = columns_at(c0, cn);
      __m512 r[16];
      const S* s = rn > 0 ? src + r0 * src_ld + c0 : src;  // padding rows: no src address
      if constexpr (std::is_same_v<S, f16>) {
        load_transposed(s, src_ld, rn, cn, r);
      } else {
        load_transposed(reinterpret_cast<const float*>(s), src_ld, rn, cn, r);
      }
      if constexpr (kStreamedRows) {
        // Whole 64-byte f32 rows on lines bypass the cache, as the f32 bit copies' do.
        if (stream && rn == 16 && col.all_aligned64(dst + r0, cn)) {
          for (int i = 0; i < cn; ++i) {
            float* out = dst + col(i) + r0;
            _mm512_stream_ps(out, lanes.apply(r[i], out));
          }
          continue;
        }
      }
      for (int i = 0; i < cn; ++i) {
        store_converted_column<Arch, S>(r[i], dst + col(i) + r0, rn, pn, lanes, q);
      }
    }
  }
  if constexpr (kStreamedRows) {
    if (stream) _mm_sfence();  // streamed stores visible before the task ends
  }
}

// Transpose and convert in one pass (AVX-512; 32-bit sources, and f16 into f32): each 16x16 tile
// is transposed in registers (f16 widened first) and every transposed row goes through
// quant_lanes and store_from_f32; the row edges through a small buffer so that nothing past the
// tile is touched.
template <class Arch, class S, class D>
void transpose_convert(const void* src, int64_t src_ld, void* dst, const dst_columns& dst_cols,
                       int64_t rows, int64_t cols, int64_t pad_rows, const quant_ptrs& q,
                       bool stream) {
  // Plain columns (with_tile_columns) whose dst rows are 64 bytes back to back.
  const bool contiguous =
      (dst_cols.group == 0 || dst_cols.group >= cols) && dst_cols.ld * int64_t{sizeof(D)} == 64;
  with_tile_columns(dst_cols, cols, [&](const auto& columns_at) {
    transpose_convert_tiles<Arch>(static_cast<const S*>(src), src_ld, static_cast<D*>(dst),
                                  columns_at, rows, cols, pad_rows, q, contiguous, stream);
  });
}
#endif

#if defined(__AVX2__)
// AVX2's transpose_convert, for 32-bit sources into 8-bit dst (the two-pass path through scratch,
// transposing f32 into a block and narrowing it through a stack buffer, falls behind oneDNN on
// f32 -> s8 nchw -> nhwc). Rows in blocks of 32 x 8 columns (convert_block32_to_bytes) where they
// fit, the rest (the sum post-op, rows past the last 32, partial column tiles, padding rows) by
// 8x8 tiles converted per dst row.

// How far ahead along its row each src row of a tall block is prefetched (elements; 4 cache
// lines of f32): AVX2's unstreamed 32-row byte blocks. They are 32 read streams at once, more
// than the hardware prefetcher follows: without it a block waits on its loads.
constexpr int kPrefetchAhead = 64;

// Rows 4g .. 4g + 3 (src, src + src_ld, ...) x 8 columns of a 32-bit source quantized and
// converted to 8-bit lanes (the quantization is common): dword k of 128-bit lane l holds column
// 4l + k's four rows. The conversion is AVX-512's pack_row_quad_to_bytes on 8 lanes: min/max
// against the bounds (NaN -> the bound), cvtps2dq (half to even), the saturating packs taking
// what is below -2^31 to -128. Lanes: quant_lanes, or a run_lanes that applies only what the
// execution has (block_lanes).
template <class Arch, class S, class D, class Lanes>
[[gnu::always_inline]] inline __m256 pack_row_quad8_to_bytes(const S* src, int64_t src_ld,
                                                             const Lanes& lanes) {
  static_assert(sizeof(S) == 4 && sizeof(D) == 1);
  constexpr bool kSigned = std::is_same_v<D, int8_t>;
  const __m256 hi = _mm256_set1_ps(kSigned ? 127.f : 255.f);
  const __m256 zero = _mm256_setzero_ps();
  // Within each 128-bit lane the packs leave 4 rows x 4 columns as bytes 4 * row + column; this
  // makes them 4 * column + row.
  const __m256i columns_of_rows =
      _mm256_setr_epi8(0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15, 0, 4, 8, 12, 1, 5, 9,
                       13, 2, 6, 10, 14, 3, 7, 11, 15);
  __m256i w[4];
  for (int j = 0; j < 4; ++j) {
    __m256 x = _mm256_loadu_ps(reinterpret_cast<const float*>(src + j * src_ld));
    if constexpr (std::is_same_v<S, int32_t>) {
      x = _mm256_cvtepi32_ps(_mm256_castps_si256(x));  // rounds like a cast
    }
    x = lanes.apply(f32x<Arch>(x), static_cast<const D*>(nullptr));  // no sum: nothing read
    if constexpr (!kSigned) x = _mm256_max_ps(x, zero);  // NaN -> 0
    x = _mm256_min_ps(x, hi);                             // NaN -> 127 (s8)
    w[j] = _mm256_cvtps_epi32(x);
  }
  __m256i b;
  if constexpr (kSigned) {
    b = _mm256_packs_epi16(_mm256_packs_epi32(w[0], w[1]), _mm256_packs_epi32(w[2], w[3]));
  } else {
    b = _mm256_packus_epi16(_mm256_packus_epi32(w[0], w[1]), _mm256_packus_epi32(w[2], w[3]));
  }
  return _mm256_castsi256_ps(_mm256_shuffle_epi8(b, columns_of_rows));
}

// A 32-row x 8-column block of a 32-bit source converted to 8-bit lanes (eight row quads), then
// transposed: out[i] holds column i's 32 rows, one 32-byte dst row.
template <class Arch, class S, class D, class Lanes>
[[gnu::always_inline]] inline void convert_block32_to_bytes(const S* src, int64_t src_ld,
                                                            const Lanes& lanes, __m256 out[8]) {
  __m256 groups[8];
  for (int g = 0; g < 8; ++g) {
    for (int j = 0; j < 4; ++j) {
      const S* row = src + (4 * g + j) * src_ld;
      _mm_prefetch(reinterpret_cast<const char*>(row + kPrefetchAhead), _MM_HINT_T0);
    }
    groups[g] = pack_row_quad8_to_bytes<Arch, S, D>(src + 4 * g * src_ld, src_ld, lanes);
  }
  transpose8x8_registers(groups, out);
}

// AVX2's convert_strip64_to_bytes: 64 rows x cols (a multiple of 8) of a 32-bit source
// converted to 8-bit lanes and transposed, in chunks of kBytes64ChunkAvx2 columns through a
// local block of packed row quads (64 KB), 16 rows (4 quads) at a time along the chunk, each src
// line prefetched (to L2) 16 rows ahead: of this chunk, or the next chunk's first rows.
// emit(c0, first, second) receives columns c0 .. c0 + 7, rows 0-31 in first[i] and 32-63 in
// second[i]. Reading 8 columns of all 64 rows in turn (two convert_block32_to_bytes) kept 64
// read streams in flight, more than the hardware prefetcher follows.
constexpr int kBytes64ChunkAvx2 = 1024;

template <class Arch, class S, class D, class Lanes, class Emit>
void convert_strip64_to_bytes_avx2(const S* src, int64_t src_ld, int64_t cols,
                                   const Lanes& lanes, const Emit& emit) {
  constexpr int kStepQuads = 4;
  // [8-column group][row quad]; per thread, not on the stack (run_transpose's scratch is).
  thread_local std::vector<__m256> storage(kBytes64ChunkAvx2 / 8 * 16);
  auto* block = reinterpret_cast<__m256(*)[16]>(storage.data());
  for (int64_t k0 = 0; k0 < cols; k0 += kBytes64ChunkAvx2) {
    const int groups = static_cast<int>(std::min<int64_t>(kBytes64ChunkAvx2, cols - k0) / 8);
    for (int g0 = 0; g0 < 16; g0 += kStepQuads) {
      const int64_t next_k0 = g0 + kStepQuads < 16 ? k0 : k0 + kBytes64ChunkAvx2;
      const S* next =
          next_k0 < cols ? src + 4 * ((g0 + kStepQuads) % 16) * src_ld + next_k0 : nullptr;
      for (int q = 0; q < groups; ++q) {
        // Once per 64-byte line: the lines of the next 16 rows at these columns.
        if (next != nullptr && q % 2 == 0 && next_k0 + 8 * q < cols) {
          for (int j = 0; j < 4 * kStepQuads; ++j) {
            _mm_prefetch(reinterpret_cast<const char*>(next + j * src_ld + 8 * q), _MM_HINT_T1);
          }
        }
        for (int g = g0; g < g0 + kStepQuads; ++g) {
          block[q][g] = pack_row_quad8_to_bytes<Arch, S, D>(src + 4 * g * src_ld + k0 + 8 * q,
                                                            src_ld, lanes);
        }
      }
    }
    for (int q = 0; q < groups; ++q) {
      __m256 quads[8], first[8], second[8];
      for (int g = 0; g < 8; ++g) quads[g] = block[q][g];
      transpose8x8_registers(quads, first);
      for (int g = 0; g < 8; ++g) quads[g] = block[q][8 + g];
      transpose8x8_registers(quads, second);
      emit(k0 + 8 * q, first, second);
    }
  }
}

// Calls f with the lanes of the row blocks of transpose_convert_avx2, which never have the sum
// post-op: a run_lanes without steps, or with the one scale, when that is all q has, else
// quant_lanes itself. quant_lanes::apply tests each attribute per vector, reading q through a
// reference after every store (the compiler cannot keep it in registers): in a warm f32 -> s8
// run, 5 compares with memory and 20 branches per four rows of 8 columns, against about 20
// other instructions. Choosing the steps once measured clearly faster on small warm f32 -> s8
// nchw -> nhwc (1x64x56x56, 2x64x28x28, with or without a src scale). Rows 4 KB apart
// (2x64x32x32, every row of a block in one L1 set) are bound by conflict misses instead, and do
// not gain.
template <class Arch, class F>
[[gnu::always_inline]] inline void with_block_lanes(const quant_lanes<Arch>& lanes,
                                                    const quant_ptrs& q, const F& f) {
  switch (choose_run_quant(q)) {
    case run_quant::none:
      return f(run_lanes<Arch, run_quant::none>{lanes});
    case run_quant::scale_only:
      return f(run_lanes<Arch, run_quant::scale_only>{lanes});
    default:
      return f(lanes);
  }
}

// Rows [r_begin, r_end) x columns [c_begin, c_end) in 8x8 tiles, each dst row (a column of the
// tile) converted through store_from_f32; partial tiles through a zeroed local block (nothing
// outside them is read), rows from `rows` to pad_rows zeros.
template <class Arch, class S, class D, class ColumnsAt>
void transpose_convert_tiles8(const S* src, int64_t src_ld, D* dst, const ColumnsAt& columns_at,
                              int64_t r_begin, int64_t r_end, int64_t c_begin, int64_t c_end,
                              int64_t rows, const quant_lanes<Arch>& lanes, const quant_ptrs& q) {
  for (int64_t r0 = r_begin; r0 < r_end; r0 += 8) {
    const int rn = static_cast<int>(std::clamp<int64_t>(rows - r0, 0, 8));
    const int pn = static_cast<int>(std::min<int64_t>(8, r_end - r0));
    for (int64_t c0 = c_begin; c0 < c_end; c0 += 8) {
      const int cn = static_cast<int>(std::min<int64_t>(8, c_end - c0));
      const auto col = columns_at(c0, cn);
      // A partial tile through a zeroed local block (nothing outside it is read).
      alignas(32) S block[8][8] = {};
      const S* from = src + r0 * src_ld + c0;
      int64_t ld = src_ld;
      if (rn != 8 || cn != 8) {
        for (int r = 0; r < rn; ++r) {
          std::memcpy(block[r], src + (r0 + r) * src_ld + c0, cn * sizeof(S));
        }
        from = &block[0][0];
        ld = 8;
      }
      __m256 t[8];
      if constexpr (std::is_same_v<S, f16>) {
        // Rows of 8 f16 widened by vcvtph2ps (exact), then the f32 transpose.
        __m128i h[8];
        load_rows128<8>(from, ld * int64_t{sizeof(S)}, h);
        __m256 r[8];
        for (int i = 0; i < 8; ++i) r[i] = _mm256_cvtph_ps(h[i]);
        transpose8x8_registers(r, t);
      } else {
        load_transposed8x8(reinterpret_cast<const float*>(from), ld, t);
      }
      for (int i = 0; i < cn; ++i) {
        store_converted_column<Arch, S>(t[i], dst + col(i) + r0, rn, pn, lanes, q);
      }
    }
  }
}

template <class Arch, class S, class D>
void transpose_convert_avx2(const void* src_v, int64_t src_ld, void* dst_v,
                            const dst_columns& dst_cols, int64_t rows, int64_t cols,
                            int64_t pad_rows, const quant_ptrs& q, bool stream) {
  const auto* src = static_cast<const S*>(src_v);
  auto* dst = static_cast<D*>(dst_v);
  const quant_lanes<Arch> lanes(q);
  // The row blocks: 32-bit src into 8-bit dst only, and not with the sum post-op (it reads dst
  // in dst order). f16 pairs go through the 8x8 tiles alone.
  constexpr bool kByteBlocks = sizeof(S) == 4 && sizeof(D) == 1;
  const int64_t block_rows = q.has_sum || !kByteBlocks ? 0 : rows / 32 * 32;
  const int64_t block_cols = cols / 8 * 8;
  with_tile_columns(dst_cols, cols, [&](const auto& columns_at) {
    // The row blocks, with the quantization's steps chosen once (block_lanes). Inlined in each
    // case, so that the captured loop state stays in registers.
    if constexpr (kByteBlocks) {
      with_block_lanes(lanes, q, [&](const auto& block_lanes) __attribute__((always_inline)) {
        int64_t r0 = 0;
        if (stream) {
          // 64 rows at a time through convert_strip64_to_bytes_avx2 (kernels.cc gives these strips
          // up to 4096 columns: byte_blocks64); each column's 64 dst bytes (a whole line when on
          // one, as for nchw -> nhwc with 64 channels) are stored back to back, by two
          // non-temporal 32-byte stores, and dst is not read for ownership. Faster on f32 -> s8
          // 32x64x56x56 cold (1 and 2 threads) than two 32-row blocks of the same 8 columns at a
          // time from 256-column strips (64 read streams in step); one 32-row block at a time
          // writes every line in two halves a strip apart.
          for (; r0 + 64 <= block_rows; r0 += 64) {
            D* d = dst + r0;
            convert_strip64_to_bytes_avx2<Arch, S, D>(
                src + r0 * src_ld, src_ld, block_cols, block_lanes,
                [&](int64_t c0, const __m256* first, const __m256* second) {
                  const auto col = columns_at(c0, 8);
                  const bool lines = col.all_aligned64(d, 8);
                  for (int i = 0; i < 8; ++i) {
                    auto* to = reinterpret_cast<__m256i*>(d + col(i));
                    if (lines) {
                      _mm256_stream_si256(to, _mm256_castps_si256(first[i]));
                      _mm256_stream_si256(to + 1, _mm256_castps_si256(second[i]));
                    } else {
                      _mm256_storeu_si256(to, _mm256_castps_si256(first[i]));
                      _mm256_storeu_si256(to + 1, _mm256_castps_si256(second[i]));
                    }
                  }
                });
          }
          _mm_sfence();  // streamed stores visible before the task ends
        }
        for (; r0 < block_rows; r0 += 32) {
          for (int64_t c0 = 0; c0 < block_cols; c0 += 8) {
            const auto col = columns_at(c0, 8);
            __m256 out[8];
            convert_block32_to_bytes<Arch, S, D>(src + r0 * src_ld + c0, src_ld, block_lanes, out);
            for (int i = 0; i < 8; ++i) {
              _mm256_storeu_ps(reinterpret_cast<float*>(dst + col(i) + r0), out[i]);
            }
          }
        }
      });
    }
    if (block_rows > 0 && block_cols < cols) {
      transpose_convert_tiles8<Arch>(src, src_ld, dst, columns_at, 0, block_rows, block_cols, cols,
                                     rows, lanes, q);
    }
    transpose_convert_tiles8<Arch>(src, src_ld, dst, columns_at, block_rows, pad_rows, 0, cols,
                                   rows, lanes, q);
  });
}
#endif

}  // namespace

template <class Arch>
convert_run_fn* find_convert_run(data_type s, data_type d) {
  return visit_type_pair(s, d, [](auto sv, auto dv) -> convert_run_fn* {
    using S = decltype(sv);
    using D = decltype(dv);
    if constexpr (run_convertible_v<S> && run_convertible_v<D>) {
      return &convert_run<Arch, S, D>;
    } else {
      return nullptr;
    }
  });
}

template <class Arch>
transpose_fn* find_transpose(int element_bytes) {
  switch (element_bytes) {
    case 1: return &transpose<Arch, uint8_t>;
    case 2: return &transpose<Arch, uint16_t>;
    case 4: return &transpose<Arch, uint32_t>;
    case 8: return &transpose<Arch, uint64_t>;
    default: return nullptr;
  }
}

template <class Arch>
transpose_convert_fn* find_transpose_convert(data_type s, data_type d) {
  if constexpr (kRegisterTile<Arch> == 16) {
#if defined(__AVX512F__)
    return visit_type_pair(s, d, [](auto sv, auto dv) -> transpose_convert_fn* {
      using S = decltype(sv);
      using D = decltype(dv);
      // 32-bit src into the vector-converted types and f16; f16 into f32. Through scratch
      // (two passes), f16 -> f32 nchw -> nhwc 32x64x56x56 cold runs far behind a memcpy of the
      // f32 bytes.
      constexpr bool k32 = std::is_same_v<S, float> || std::is_same_v<S, int32_t>;
      if constexpr ((k32 && (vector_convertible_v<D> || std::is_same_v<D, f16>)) ||
                    (std::is_same_v<S, f16> && std::is_same_v<D, float>)) {
        return &transpose_convert<Arch, S, D>;
      } else {
        return nullptr;
      }
    });
#endif
  } else if constexpr (kRegisterTile<Arch> == 8) {
#if defined(__AVX2__)
    return visit_type_pair(s, d, [](auto sv, auto dv) -> transpose_convert_fn* {
      using S = decltype(sv);
      using D = decltype(dv);
      // 32-bit src into 8-bit dst (row blocks and 8x8 tiles), and f32/s32 -> f16 and
      // f16 -> f32 (8x8 tiles: vcvtps2ph on the stores, vcvtph2ps on the loads).
      constexpr bool kToBytes = (std::is_same_v<S, float> || std::is_same_v<S, int32_t>) &&
                                (std::is_same_v<D, int8_t> || std::is_same_v<D, uint8_t>);
      constexpr bool kHalf = ((std::is_same_v<S, float> || std::is_same_v<S, int32_t>) &&
                              std::is_same_v<D, f16>) ||
                             (std::is_same_v<S, f16> && std::is_same_v<D, float>);
      if constexpr (kToBytes || kHalf) {
        return &transpose_convert_avx2<Arch, S, D>;
      } else {
        return nullptr;
      }
    });
#endif
  }
  return nullptr;
}

template <class Arch>
int transpose_tile() {
  return kRegisterTile<Arch> ? kRegisterTile<Arch> : 16;
}

template <class Arch>
const vector_kernels* vector_kernels_for() {
  static const vector_kernels k{&find_convert_run<Arch>, &find_transpose<Arch>,
                                &transpose_tile<Arch>, &find_transpose_convert<Arch>};
  return &k;
}

template const vector_kernels* vector_kernels_for<TESSERA_SIMD_ARCH>();

}  // namespace tessera::reorder_internal
