// The scales and zero points of a primitive's attributes, as its execution arguments: which
// attribute declares an argument, and how many values a mask asks for.
//
//   const std::optional<quant_param>& q = quant_attr_of(attr, arg::src_scales);
//   if (!q && args.find(arg::src_scales)) return ...;             // given, but not declared
//   const int64_t n = quant_value_count(q->mask, dst.dims());     // values the argument holds
#ifndef TESSERA_PRIMITIVES_COMMON_QUANT_ARGS_H_
#define TESSERA_PRIMITIVES_COMMON_QUANT_ARGS_H_

#include <cstdint>
#include <optional>

#include "absl/types/span.h"
#include "tessera/core/memory_desc.h"
#include "tessera/primitives/common/arg.h"
#include "tessera/primitives/common/attr.h"

namespace tessera {

// Whether `a` is one of the four quantization arguments (src/dst scales and zero points).
constexpr bool is_quant_arg(arg a) {
  return a == arg::src_scales || a == arg::dst_scales || a == arg::src_zero_points ||
         a == arg::dst_zero_points;
}

// The attribute that declares quantization argument `a` (is_quant_arg(a) must hold).
inline const std::optional<quant_param>& quant_attr_of(const primitive_attr& attr, arg a) {
  switch (a) {
    case arg::src_scales: return attr.src_scales;
    case arg::dst_scales: return attr.dst_scales;
    case arg::src_zero_points: return attr.src_zero_points;
    default: return attr.dst_zero_points;
  }
}

// Whether the attributes declare argument `a` (false for arguments that are not quantization).
inline bool attr_declares(const primitive_attr& attr, arg a) {
  return is_quant_arg(a) && quant_attr_of(attr, a).has_value();
}

// The number of values a mask asks for: the product of the dims whose bit is set (1 for mask 0).
inline int64_t quant_value_count(int mask, absl::Span<const dim_t> dims) {
  int64_t n = 1;
  for (int d = 0; d < static_cast<int>(dims.size()); ++d) {
    if (mask & (1 << d)) n *= dims[d];
  }
  return n;
}

}  // namespace tessera

#endif  // TESSERA_PRIMITIVES_COMMON_QUANT_ARGS_H_
