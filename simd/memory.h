// Memory hints the kernels give the CPU: prefetches, stores that go around the cache, and the
// fence that orders them. xsimd 8.1 has none of these; each op here has a portable version (a
// plain store, or nothing for a hint), so kernels call them for every Arch.
//
//   simd::prefetch<simd::locality::l2>(next_row);        // a hint: never faults, may do nothing
//   simd::stream_store(dst, v);   // dst aligned to the batch's size; plain store where unsupported
//   simd::store_fence();          // after the last streaming store of a kernel call
//
// Contract of stream_store: `p` is aligned to sizeof(batch); the stored values are visible to
// other threads only after store_fence() (the parallel_for join comes after it in every kernel).
#ifndef TESSERA_SIMD_MEMORY_H_
#define TESSERA_SIMD_MEMORY_H_

#include <cstdint>

#include "xsimd/xsimd.hpp"

#if defined(__SSE__)
#include <immintrin.h>
#endif

namespace tessera::simd {

// Which cache level a prefetch fills: l1 (and every level below it), l2, or none (a line read
// once, kept out of the levels it would evict useful lines from).
enum class locality { l1, l2, none };

template <locality kLevel = locality::l1>
inline void prefetch(const void* p) {
#if defined(__SSE__)
  if constexpr (kLevel == locality::l1) {
    _mm_prefetch(static_cast<const char*>(p), _MM_HINT_T0);
  } else if constexpr (kLevel == locality::l2) {
    _mm_prefetch(static_cast<const char*>(p), _MM_HINT_T1);
  } else {
    _mm_prefetch(static_cast<const char*>(p), _MM_HINT_NTA);
  }
#else
  __builtin_prefetch(p, 0, kLevel == locality::l1 ? 3 : kLevel == locality::l2 ? 2 : 0);
#endif
}

// Orders the streaming stores before it with every store after it.
inline void store_fence() {
#if defined(__SSE__)
  _mm_sfence();
#else
  __atomic_thread_fence(__ATOMIC_SEQ_CST);
#endif
}

// A non-temporal store of a whole batch of float or 32-bit integer lanes (any integer width:
// the bits are stored as they are).
template <class T, class Arch>
inline void stream_store(T* p, xsimd::batch<T, Arch> v) {
#if defined(__AVX512F__)
  if constexpr (sizeof(v) == 64) {
    if constexpr (std::is_same_v<T, float>) {
      _mm512_stream_ps(p, v);
    } else {
      _mm512_stream_si512(reinterpret_cast<__m512i*>(p), __m512i(v));
    }
    return;
  }
#endif
#if defined(__AVX__)
  if constexpr (sizeof(v) == 32) {
    if constexpr (std::is_same_v<T, float>) {
      _mm256_stream_ps(p, v);
    } else {
      _mm256_stream_si256(reinterpret_cast<__m256i*>(p), __m256i(v));
    }
    return;
  }
#endif
#if defined(__SSE2__)
  if constexpr (sizeof(v) == 16) {
    if constexpr (std::is_same_v<T, float>) {
      _mm_stream_ps(p, v);
    } else {
      _mm_stream_si128(reinterpret_cast<__m128i*>(p), __m128i(v));
    }
    return;
  }
#endif
  v.store_aligned(p);
}

}  // namespace tessera::simd

#endif  // TESSERA_SIMD_MEMORY_H_
