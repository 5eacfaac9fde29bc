// Standalone harness: what reading the f32 -> s8 nchw -> nhwc bench's bytes costs without the
// transpose, a floor for that reorder. The same 32x64x56x56 f32 source, cold (ten rotating
// buffer sets), 6 rounds x 5 calls per order, interleaved; min and median in us:
// - "read": every src element loaded and summed, nothing stored (the read alone);
// - "convert": src scaled by 0.5 and converted to s8 in address order (abcd -> abcd), the dst
//   lines streamed: the f32 -> s8 reorder's bytes read and written with no transpose;
// - "memcpy": the src copied, the bench's memcpy row.
//
//   bazel build -c opt //bench/experiments:convert_floor
//   bazel-bin/bench/experiments/convert_floor [names...]   # T2=1: 2 threads
#include <immintrin.h>

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "bench/experiments/harness.h"

namespace {

constexpr int64_t NB = 32, C = 64, HW = 56 * 56, kImage = C * HW;

void read_only(const float* s, float* d, int64_t n0, int64_t n1) {
  __m256 acc[4] = {_mm256_setzero_ps(), _mm256_setzero_ps(), _mm256_setzero_ps(),
                   _mm256_setzero_ps()};
  for (int64_t i = n0 * kImage; i < n1 * kImage; i += 32) {
    for (int k = 0; k < 4; ++k) acc[k] = _mm256_add_ps(acc[k], _mm256_load_ps(s + i + 8 * k));
  }
  const __m256 all = _mm256_add_ps(_mm256_add_ps(acc[0], acc[1]), _mm256_add_ps(acc[2], acc[3]));
  d[n0] = _mm256_cvtss_f32(all);  // keeps the loads
}

// 32 elements per step: four vectors scaled, converted (half to even), packed to bytes with
// saturation and put back in element order, one streamed 32-byte store.
void convert(const float* s, float* dv, int64_t n0, int64_t n1) {
  auto* d = reinterpret_cast<int8_t*>(dv);
  const __m256 half = _mm256_set1_ps(0.5f);
  const __m256i order = _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7);
  for (int64_t i = n0 * kImage; i < n1 * kImage; i += 32) {
    __m256i q[4];
    for (int k = 0; k < 4; ++k) {
      q[k] = _mm256_cvtps_epi32(_mm256_mul_ps(_mm256_load_ps(s + i + 8 * k), half));
    }
    const __m256i bytes =
        _mm256_packs_epi16(_mm256_packs_epi32(q[0], q[1]), _mm256_packs_epi32(q[2], q[3]));
    _mm256_stream_si256(reinterpret_cast<__m256i*>(d + i),
                        _mm256_permutevar8x32_epi32(bytes, order));
  }
  _mm_sfence();
}

void copy(const float* s, float* d, int64_t n0, int64_t n1) {
  std::memcpy(d + n0 * kImage, s + n0 * kImage, (n1 - n0) * kImage * sizeof(float));
}

}  // namespace

int main(int argc, char** argv) {
  const int64_t n = NB * kImage;
  const int sets = 10;
  std::vector<float*> src(sets), dst(sets);
  for (int i = 0; i < sets; ++i) {
    src[i] = static_cast<float*>(std::aligned_alloc(64, n * 4));
    dst[i] = static_cast<float*>(std::aligned_alloc(64, n * 4));
    for (int64_t k = 0; k < n; ++k) src[i][k] = static_cast<float>(k % 601 - 300);
    std::memset(dst[i], 0, n * 4);
  }
  const std::vector<harness::order> orders = {
      {"read", read_only, false},
      {"convert", convert, true},
      {"memcpy", copy, false},
  };
  // Only "convert" is checked: sampled elements against round-half-to-even of x * 0.5,
  // saturated to s8.
  auto check = [&](int set) {
    const auto* d = reinterpret_cast<const int8_t*>(dst[set]);
    for (int64_t q = 0; q < n; q += 9973) {
      const float want = std::fmin(127.f, std::fmax(-128.f, std::nearbyint(src[set][q] * 0.5f)));
      if (d[q] != static_cast<int8_t>(want)) return false;
    }
    return true;
  };
  harness::time_orders(orders, argc, argv, sets, 6, 5, NB, src, dst, check, 1e6, "us");
  for (int i = 0; i < sets; ++i) std::free(src[i]), std::free(dst[i]);
}
