// Scalar conversions between element types and f32/f64: the reference every vector kernel must
// match bit for bit.
//
//   tessera::bf16 b = tessera::from_f32<tessera::bf16>(1.0f / 3);   // round half to even
//   float x = tessera::to_f32(b);
//   int8_t q = tessera::from_f32<int8_t>(1024.f);                   // 127: saturation
//
// Rules (docs/core.md states them in full, one table per type):
//   * float -> narrower float: round half to even; NaN stays NaN (quiet); overflow -> Inf for types
//     with Inf (bf16, f16, f8_e5m2); f8_e4m3 has no Inf: what overflow and ±Inf become follows
//     oneDNN 3.x: both become NaN (|x| > 464; 464 itself rounds to 448).
//   * float -> integer: round half to even, then saturate to [lowest, max]; NaN -> max for s8
//     and s32, 0 for u8 (what oneDNN 2.6.3's reorder gives for s8 and u8).
//   * from_f64 rounds once, directly from the double (never through f32).
//   * NaN payloads: narrowing keeps the top payload bits and sets the quiet bit (F16C and
//     AVX512-BF16 do the same); widening f16/f8 sets the quiet bit; bf16 -> f32 is a plain shift.
//   * Denormals are kept, never flushed.
#ifndef TESSERA_CORE_CONVERT_H_
#define TESSERA_CORE_CONVERT_H_

#include "tessera/core/data_type.h"

namespace tessera {

// Exact widening to f32 (every element type but f64 and s32 fits exactly; s32 rounds to nearest
// even like a cast).
template <Element T>
constexpr float to_f32(T v);
// Narrowing from f32 with the rules above.
template <Element T>
constexpr T from_f32(float v);
// The f64 path, used when either side of a reorder is f64.
template <Element T>
constexpr double to_f64(T v);
template <Element T>
constexpr T from_f64(double v);

}  // namespace tessera

#include "tessera/core/internal/convert_impl.h"  // IWYU pragma: export

#endif  // TESSERA_CORE_CONVERT_H_
