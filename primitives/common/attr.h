// primitive_attr: the attributes a primitive is created with (oneDNN's primitive_attr).
//
// Reorder semantics (benchdnn's definition; zero points apply to floating types too):
//   dst = (src_scale * (src - src_zp) + beta * (dst - dst_zp)) / dst_scale + dst_zp
// Scale and zero-point *values* are passed at execution (arg::src_scales, ...); the attribute
// records only that they exist and their mask (bit d set: one value per index of logical dim d;
// mask 0: one common value). The 2.x output-scale form carries its values at creation.
//
//   tessera::primitive_attr attr;
//   attr.src_scales = tessera::quant_param{.mask = 0};
//   attr.sum = tessera::sum_post_op{.beta = 1.f};
//
// post_ops (eltwise and binary entries) and acc_mode: primitives/common/post_ops.h.
// dst_rounding: oneDNN 3.x's rounding mode of dst; stochastic (core/stochastic_round.h) takes its
// seed at execution (arg::attr_rounding_seed).
#ifndef TESSERA_PRIMITIVES_COMMON_ATTR_H_
#define TESSERA_PRIMITIVES_COMMON_ATTR_H_

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "tessera/core/data_type.h"
#include "tessera/primitives/common/post_ops.h"

namespace tessera {

struct quant_param {
  int mask = 0;  // bit d: one value per index along logical dim d
  // The type of the values given at execution; undef: the argument's default (f32 for scales,
  // s32 for zero points). Zero points may be s32, s8 or u8.
  data_type dt = data_type::undef;
  // Groups over the last groups.size() logical dims: along a masked dim d with group g, one value
  // serves g consecutive indices (g must divide the dim); unmasked dims take group 1. Empty: none.
  std::vector<int64_t> groups;
  friend bool operator==(const quant_param&, const quant_param&) = default;
  template <typename H>
  friend H AbslHashValue(H h, const quant_param& q) {
    return H::combine(std::move(h), q.mask, q.dt, q.groups);
  }
};

// oneDNN 2.x output scales: values known at creation; mask as above.
struct output_scales {
  int mask = 0;
  std::vector<float> values;
  friend bool operator==(const output_scales&, const output_scales&) = default;
  template <typename H>
  friend H AbslHashValue(H h, const output_scales& o) {
    return H::combine(std::move(h), o.mask, o.values);
  }
};

struct sum_post_op {
  float beta = 1.f;
  int32_t zero_point = 0;  // dst_zp of the formula when dst is integral
  friend bool operator==(const sum_post_op&, const sum_post_op&) = default;
  template <typename H>
  friend H AbslHashValue(H h, const sum_post_op& s) {
    return H::combine(std::move(h), s.beta, s.zero_point);
  }
};

// How dst is rounded where it is narrower than the arithmetic: to nearest even (environment), or
// stochastically.
enum class rounding_mode { environment, stochastic };

struct primitive_attr {
  std::optional<quant_param> src_scales;
  std::optional<quant_param> dst_scales;
  std::optional<quant_param> src_zero_points;
  std::optional<quant_param> dst_zero_points;
  std::optional<output_scales> oscale;
  std::optional<sum_post_op> sum;
  post_ops_list post_ops;  // applied in order, after the sum when there is one
  accumulation_mode acc_mode = accumulation_mode::strict;
  rounding_mode dst_rounding = rounding_mode::environment;

  bool empty() const {
    return !src_scales && !dst_scales && !src_zero_points && !dst_zero_points && !oscale && !sum &&
           post_ops.empty() && acc_mode == accumulation_mode::strict &&
           dst_rounding == rounding_mode::environment;
  }
  friend bool operator==(const primitive_attr&, const primitive_attr&) = default;
  // Consistent with ==: the primitive caches key on the attributes.
  template <typename H>
  friend H AbslHashValue(H h, const primitive_attr& a) {
    h = hash_optional(std::move(h), a.src_scales);
    h = hash_optional(std::move(h), a.dst_scales);
    h = hash_optional(std::move(h), a.src_zero_points);
    h = hash_optional(std::move(h), a.dst_zero_points);
    h = hash_optional(std::move(h), a.oscale);
    h = hash_optional(std::move(h), a.sum);
    return H::combine(std::move(h), a.post_ops, a.acc_mode, a.dst_rounding);
  }

 private:
  // This Abseil hashes no std::optional: the value, if any, then whether there is one.
  template <typename H, typename T>
  static H hash_optional(H h, const std::optional<T>& v) {
    if (v) h = H::combine(std::move(h), *v);
    return H::combine(std::move(h), v.has_value());
  }
};

// benchdnn-like text: "scales:src:0+dst:2;zero_points:src:0:u8;oscale:0:[0.5];post_ops:sum:1;
// acc_mode:relaxed;rounding_mode:dst:stochastic" (a value type other than the default after the
// mask, then the groups as "g0xg1"; post_ops: sum, then the list, "+"-separated)
// (empty string for no attributes). Used in verbose lines and by the driver.
std::string to_string(const primitive_attr& attr);

}  // namespace tessera

#endif  // TESSERA_PRIMITIVES_COMMON_ATTR_H_
