// The scales and zero points of a primitive's attributes, as its execution arguments: which
// attribute declares an argument, and how many values a mask asks for.
//
//   const std::optional<quant_param>& q = quant_attr_of(attr, arg::src_scales);
//   if (!q && args.find(arg::src_scales)) return ...;             // given, but not declared
//   const int64_t n = quant_value_count(q->mask, dst.dims());     // values the argument holds
//   data_type dt = quant_value_type(arg::src_zero_points, *q);    // s32 unless q.dt says
//   TESSERA_RETURN_IF_ERROR(check_quant_type(arg::src_zero_points, dt));
//   std::vector<int32_t> zps(n);
//   expand_quant_values(arg::src_zero_points, *q, dims, mem->data, zps.data());  // s8 -> s32
#ifndef TESSERA_PRIMITIVES_COMMON_QUANT_ARGS_H_
#define TESSERA_PRIMITIVES_COMMON_QUANT_ARGS_H_

#include <cstdint>
#include <optional>

#include "absl/status/status.h"
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

// Whether `a` is a zero-point argument (else a scale one).
constexpr bool is_zero_point_arg(arg a) {
  return a == arg::src_zero_points || a == arg::dst_zero_points;
}

// The type of argument a's values: q.dt, or the default (f32 for scales, s32 for zero points).
constexpr data_type quant_value_type(arg a, const quant_param& q) {
  if (q.dt != data_type::undef) return q.dt;
  return is_zero_point_arg(a) ? data_type::s32 : data_type::f32;
}

// OK when dt may carry argument a's values (zero points: s32, s8, u8, s4, u4; scales: f32, f16,
// bf16, e8m0);
// else an error naming the type, the argument and the types allowed.
absl::Status check_quant_type(arg a, data_type dt);

// The group of logical dim d under q (1 without groups, or for dims before the grouped ones).
inline int64_t quant_group(const quant_param& q, int rank, int d) {
  const int first = rank - static_cast<int>(q.groups.size());
  return d >= first ? q.groups[d - first] : 1;
}

// OK when q's groups fit dims: at most rank of them, each >= 1 and dividing its dim, and 1 on
// dims outside the mask. Else an error naming the argument, the group and the dim.
absl::Status check_quant_groups(arg a, const quant_param& q, absl::Span<const dim_t> dims);

// The number of values argument a holds under q: the product over the masked dims of
// dim / group (quant_value_count(q.mask, dims) without groups).
int64_t grouped_value_count(const quant_param& q, absl::Span<const dim_t> dims);

// Whether the kernels can read the given values as they are: f32 scales / s32 zero points,
// without groups.
inline bool quant_values_native(arg a, const quant_param& q) {
  return q.groups.empty() && quant_value_type(a, q) == (is_zero_point_arg(a) ? data_type::s32
                                                                             : data_type::f32);
}

// The values of argument a (grouped_value_count of type quant_value_type, as given at
// execution) as the kernels read them: quant_value_count(q.mask, dims) values, f32 for scales,
// s32 for zero points, one per index of the masked dims (row-major), groups repeated.
void expand_quant_values(arg a, const quant_param& q, absl::Span<const dim_t> dims,
                         const void* given, void* out);

}  // namespace tessera

#endif  // TESSERA_PRIMITIVES_COMMON_QUANT_ARGS_H_
