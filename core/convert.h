// Scalar conversions between element types and f32/f64: the reference every vector kernel must
// match bit for bit.
//
//   tessera::bf16 b = tessera::from_f32<tessera::bf16>(1.0f / 3);   // round half to even
//   float x = tessera::to_f32(b);
//   int8_t q = tessera::from_f32<int8_t>(1024.f);                   // 127: saturation
//
// Rules (docs/formats.md "Data types" states them in full):
//   * float -> narrower float: round half to even; NaN stays NaN (quiet); overflow -> Inf for types
//     with Inf (bf16, f16, f8_e5m2); f8_e4m3 has no Inf: what overflow and ±Inf become follows
//     oneDNN 3.x and is stated in docs/formats.md.
//   * float -> integer: round half to even, then saturate to [lowest, max]; NaN -> 0.
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
