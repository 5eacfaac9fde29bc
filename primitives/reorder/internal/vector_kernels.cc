// The reorder's per-ISA lookups, compiled once per ISA with TESSERA_SIMD_ARCH (and
// TESSERA_ISA_NS, the namespace of this ISA's kernels): which kernel moves or converts a pair of
// element types, and the table the dispatcher in kernels.cc keeps one pointer of.
// The kernels: convert_runs.h (runs), register_tiles.h and tile_walk*.h (transposes),
// transpose_convert_avx512.h and transpose_convert_avx2.h (fused transpose and convert),
// quant_rows.h (4-bit weight compression and decompression).
#include "tessera/primitives/reorder/internal/vector_kernels.h"

#include <cstdint>
#include <type_traits>

#include "tessera/primitives/reorder/internal/convert_runs.h"
#include "tessera/primitives/reorder/internal/quant_rows.h"
#include "tessera/primitives/reorder/internal/register_tiles.h"
#include "tessera/primitives/reorder/internal/tile_walk.h"
#include "tessera/primitives/reorder/internal/transpose_convert_avx2.h"
#include "tessera/primitives/reorder/internal/transpose_convert_avx512.h"
#include "tessera/simd/per_isa.h"
#include "xsimd/xsimd.hpp"

namespace tessera::reorder_internal {

template <class Arch>
convert_run_fn* find_convert_run(data_type s, data_type d) {
  return visit_type_pair(s, d, [](auto sv, auto dv) -> convert_run_fn* {
    using S = decltype(sv);
    using D = decltype(dv);
    if constexpr (TESSERA_ISA_NS::run_convertible_v<S> && TESSERA_ISA_NS::run_convertible_v<D>) {
      return &TESSERA_ISA_NS::convert_run<Arch, S, D>;
    } else {
      return nullptr;
    }
  });
}

template <class Arch>
transpose_fn* find_transpose(int element_bytes) {
  switch (element_bytes) {
    case 1: return &TESSERA_ISA_NS::transpose<Arch, uint8_t>;
    case 2: return &TESSERA_ISA_NS::transpose<Arch, uint16_t>;
    case 4: return &TESSERA_ISA_NS::transpose<Arch, uint32_t>;
    case 8: return &TESSERA_ISA_NS::transpose<Arch, uint64_t>;
    default: return nullptr;
  }
}

template <class Arch>
transpose_convert_fn* find_transpose_convert(data_type s, data_type d) {
  if constexpr (TESSERA_ISA_NS::kRegisterTile<Arch> == 16) {
    return visit_type_pair(s, d, [](auto sv, auto dv) -> transpose_convert_fn* {
      using S = decltype(sv);
      using D = decltype(dv);
      // 32-bit src into the vector-converted types and f16; f16 into f32. Through scratch
      // (two passes), f16 -> f32 nchw -> nhwc 32x64x56x56 cold runs far behind a memcpy of the
      // f32 bytes.
      constexpr bool k32 = std::is_same_v<S, float> || std::is_same_v<S, int32_t>;
      if constexpr ((k32 && (TESSERA_ISA_NS::vector_convertible_v<D> || std::is_same_v<D, f16>)) ||
                    (std::is_same_v<S, f16> && std::is_same_v<D, float>)) {
        return &TESSERA_ISA_NS::transpose_convert<Arch, S, D>;
      } else {
        return nullptr;
      }
    });
  } else if constexpr (TESSERA_ISA_NS::kRegisterTile<Arch> == 8) {
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
        return &TESSERA_ISA_NS::transpose_convert_avx2<Arch, S, D>;
      } else {
        return nullptr;
      }
    });
  } else {
    return nullptr;
  }
}

template <class Arch>
quant_row_fn* find_quant_row(data_type s, data_type d) {
  return TESSERA_ISA_NS::quant_row_for<Arch>(s, d);
}

template <class Arch>
int transpose_tile() {
  return TESSERA_ISA_NS::kRegisterTile<Arch> ? TESSERA_ISA_NS::kRegisterTile<Arch> : 16;
}

template <class Arch>
const vector_kernels* vector_kernels_for() {
  static const vector_kernels k{&find_convert_run<Arch>, &find_transpose<Arch>,
                                &transpose_tile<Arch>, &find_transpose_convert<Arch>,
                                &find_quant_row<Arch>};
  return &k;
}

template const vector_kernels* vector_kernels_for<TESSERA_SIMD_ARCH>();

}  // namespace tessera::reorder_internal
