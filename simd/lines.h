// Stores shaped by cache lines, for kernels templated on Arch: a batch in pieces that do not
// straddle lines, a scalar row, one streamed line copy, and a writer of whole aligned lines from
// a run of unaligned vectors. xsimd 8.1 has none of these.
//
//   tessera::simd::store_halves(p, v);            // two half-width stores
//   tessera::simd::store_quarters(p, v);          // 16-byte stores
//   tessera::simd::stream_quarters(p, v);         // 16-byte non-temporal stores, p 16-aligned
//   auto x = tessera::simd::load_scalar<Arch>(p); // lane 0 = *p, the rest 0
//   tessera::simd::stream_line_copy<Arch>(to, from);  // 64 bytes, to and from 16-aligned
//
// Each op has a portable version (plain stores), used for any Arch without the instructions and
// compared with the ISA versions by //simd:tile_ops_test. After streaming stores a kernel
// calls simd::store_fence() (<tessera/simd/memory.h>).
#ifndef TESSERA_SIMD_LINES_H_
#define TESSERA_SIMD_LINES_H_

#if defined(__x86_64__)
#include <immintrin.h>
#endif

#include <cstdint>
#include <cstring>

#include "tessera/simd/arch.h"
#include "tessera/simd/memory.h"
#include "tessera/simd/tail.h"
#include "xsimd/xsimd.hpp"

namespace tessera::simd {

// v as two stores of half its width: with p 16 bytes past a line (malloc's), one half stays
// within a line where a whole 64-byte store always straddles two.
template <class Arch>
[[gnu::always_inline]] inline void store_halves(float* p, xsimd::batch<float, Arch> v) {
#if defined(__AVX512F__)
  if constexpr (isa_of<Arch> == isa::avx512bw) {
    _mm256_storeu_ps(p, _mm512_castps512_ps256(v));
    _mm256_storeu_ps(p + 8, _mm512_extractf32x8_ps(v, 1));
    return;
  }
#endif
  v.store_unaligned(p);
}

namespace internal {
#if defined(__SSE__)
template <bool kStream, class Arch>
[[gnu::always_inline]] inline void store_quarter(float* p, __m128 x) {
  if constexpr (kStream) {
    _mm_stream_ps(p, x);
  } else {
    _mm_storeu_ps(p, x);
  }
}
#endif

// v as 16-byte stores (kStream: non-temporal, p 16-byte aligned).
template <bool kStream, class Arch>
[[gnu::always_inline]] inline void store_by_quarters(float* p, xsimd::batch<float, Arch> v) {
#if defined(__AVX512F__)
  if constexpr (isa_of<Arch> == isa::avx512bw) {
    store_quarter<kStream, Arch>(p, _mm512_castps512_ps128(v));
    store_quarter<kStream, Arch>(p + 4, _mm512_extractf32x4_ps(v, 1));
    store_quarter<kStream, Arch>(p + 8, _mm512_extractf32x4_ps(v, 2));
    store_quarter<kStream, Arch>(p + 12, _mm512_extractf32x4_ps(v, 3));
    return;
  }
#endif
#if defined(__AVX__)
  if constexpr (isa_of<Arch> == isa::avx2) {
    store_quarter<kStream, Arch>(p, _mm256_castps256_ps128(v));
    store_quarter<kStream, Arch>(p + 4, _mm256_extractf128_ps(v, 1));
    return;
  }
#endif
  if constexpr (kStream) {
    stream_store(p, v);
  } else {
    v.store_unaligned(p);
  }
}
}  // namespace internal

// v as 16-byte stores: none straddles a line when p is 16-byte aligned.
template <class Arch>
[[gnu::always_inline]] inline void store_quarters(float* p, xsimd::batch<float, Arch> v) {
  internal::store_by_quarters<false>(p, v);
}

// v as 16-byte non-temporal stores; p 16-byte aligned.
template <class Arch>
[[gnu::always_inline]] inline void stream_quarters(float* p, xsimd::batch<float, Arch> v) {
  internal::store_by_quarters<true>(p, v);
}

// Lane 0 = *p, the other lanes 0; reads only *p (one vmovss).
template <class Arch>
[[gnu::always_inline]] inline xsimd::batch<float, Arch> load_scalar(const float* p) {
#if defined(__AVX512F__)
  if constexpr (isa_of<Arch> == isa::avx512bw) return _mm512_zextps128_ps512(_mm_load_ss(p));
#endif
#if defined(__AVX__)
  if constexpr (isa_of<Arch> == isa::avx2) return _mm256_zextps128_ps256(_mm_load_ss(p));
#endif
  return load_partial<Arch>(p, 1);
}

// Copies one 64-byte line from `from` (16-byte aligned, typically a local block in L1) to `to`
// (16-byte aligned) with non-temporal 16-byte stores.
template <class Arch>
[[gnu::always_inline]] inline void stream_line_copy(void* to, const void* from) {
#if defined(__SSE2__)
  if constexpr (internal::is_x86<Arch>) {
    const auto* line = static_cast<const __m128i*>(from);
    auto* out = static_cast<__m128i*>(to);
    for (int k = 0; k < 4; ++k) _mm_stream_si128(out + k, _mm_load_si128(line + k));
    return;
  }
#endif
  std::memcpy(to, from, 64);
}

// Writes 64-byte batches of 32-bit lanes to dst, dst + 64, dst + 128, ... as whole aligned
// cache lines when dst is off a line by a multiple of 4 bytes (fits()): each line is the end of
// one batch and the start of the next (avx512bw: one vpermt2d), the partial first and last
// lines by masked stores. Non-temporal stores need whole aligned lines; unaligned 64-byte rows
// would split every line between two stores. Call finish() after the last push(). Other Archs
// (whose batches are not 64 bytes): plain unaligned stores of each 64-byte row, in rows of
// their batches.
template <class Arch>
class line_writer {
 public:
  using batch = xsimd::batch<int32_t, Arch>;

  line_writer(unsigned char* dst, bool stream) : base_(dst), stream_(stream) {
#if defined(__AVX512F__)
    if constexpr (kLines) {
      off_ = static_cast<int>(reinterpret_cast<uintptr_t>(dst) % 64);
      const int shift = (64 - off_) / 4 % 16;
      next_line_ = _mm512_add_epi32(
          _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
          _mm512_set1_epi32(shift));
      head_ = off_ == 0 ? ~__mmask64{0} : (__mmask64{1} << (64 - off_)) - 1;
    }
#endif
  }
  // Whether dst's distance from a line allows it (dword shifts only).
  static bool fits(const void* dst) { return reinterpret_cast<uintptr_t>(dst) % 4 == 0; }

  // The next 64 bytes, as 64 / sizeof(batch) batches (one on avx512bw).
  [[gnu::always_inline]] void push(const batch* v) {
#if defined(__AVX512F__)
    if constexpr (kLines) {
      push_line(v[0]);
      return;
    }
#endif
    constexpr int kParts = 64 / static_cast<int>(sizeof(batch));
    for (int k = 0; k < kParts; ++k) {
      v[k].store_unaligned(reinterpret_cast<int32_t*>(base_ + 64 * n_) + k * batch::size);
    }
    ++n_;
  }
  void finish() {
#if defined(__AVX512F__)
    if constexpr (kLines) {
      if (off_ != 0 && n_ > 0) _mm512_mask_storeu_epi8(base_ + 64 * (n_ - 1), ~head_, prev_);
    }
#endif
  }

 private:
  static constexpr bool kLines = isa_of<Arch> == isa::avx512bw;
#if defined(__AVX512F__)
  [[gnu::always_inline]] void push_line(__m512i v) {
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
  [[gnu::always_inline]] void store(unsigned char* p, __m512i v) const {
    if (stream_) {
      _mm512_stream_si512(reinterpret_cast<__m512i*>(p), v);
    } else {
      _mm512_store_si512(reinterpret_cast<void*>(p), v);
    }
  }
  __m512i next_line_ = _mm512_setzero_si512(), prev_ = _mm512_setzero_si512();
  __mmask64 head_ = 0;
  int off_ = 0;
#endif
  unsigned char* base_;
  bool stream_;
  int64_t n_ = 0;
};

}  // namespace tessera::simd

#endif  // TESSERA_SIMD_LINES_H_
