// The C API's attribute object: scales, zero points, output scales, the sum post-op and the
// implementation filter.
#include <optional>
#include <string>

#include "absl/strings/str_cat.h"
#include "tessera/c/internal/api_support.h"
#include "tessera/c/tessera.h"

namespace {

using tessera_c::fail;
using tessera_c::require;

// The src or dst member of a pair of quantization attributes, by `which`.
tessera_status pick_side(const char* function, int which,
                         std::optional<tessera::quant_param>& src_member,
                         std::optional<tessera::quant_param>& dst_member,
                         std::optional<tessera::quant_param>*& out) {
  if (which == TESSERA_ARG_SRC) {
    out = &src_member;
  } else if (which == TESSERA_ARG_DST) {
    out = &dst_member;
  } else {
    return fail(TESSERA_INVALID_ARGUMENT,
                absl::StrCat(function, ": which is ", which,
                             "; expected TESSERA_ARG_SRC (0) or TESSERA_ARG_DST (1)"));
  }
  return TESSERA_SUCCESS;
}

}  // namespace

extern "C" {

tessera_status tessera_primitive_attr_create(tessera_primitive_attr_t* attr) {
  return tessera_c::guarded([&]() -> tessera_status {
    if (auto s = require(attr, "tessera_primitive_attr_create", "attr")) return s;
    *attr = new tessera_primitive_attr{};
    return TESSERA_SUCCESS;
  });
}

void tessera_primitive_attr_destroy(tessera_primitive_attr_t attr) { delete attr; }

tessera_status tessera_primitive_attr_set_scales(tessera_primitive_attr_t attr, tessera_arg which,
                                                 int mask) {
  return tessera_c::guarded([&]() -> tessera_status {
    constexpr const char* kFn = "tessera_primitive_attr_set_scales";
    if (auto s = require(attr, kFn, "attr")) return s;
    std::optional<tessera::quant_param>* member = nullptr;
    if (auto s = pick_side(kFn, tessera_c::raw_enum(which), attr->attr.src_scales,
                           attr->attr.dst_scales, member)) {
      return s;
    }
    *member = tessera::quant_param{.mask = mask};
    return TESSERA_SUCCESS;
  });
}

tessera_status tessera_primitive_attr_set_zero_points(tessera_primitive_attr_t attr,
                                                      tessera_arg which, int mask) {
  return tessera_c::guarded([&]() -> tessera_status {
    constexpr const char* kFn = "tessera_primitive_attr_set_zero_points";
    if (auto s = require(attr, kFn, "attr")) return s;
    std::optional<tessera::quant_param>* member = nullptr;
    if (auto s = pick_side(kFn, tessera_c::raw_enum(which), attr->attr.src_zero_points,
                           attr->attr.dst_zero_points, member)) {
      return s;
    }
    *member = tessera::quant_param{.mask = mask};
    return TESSERA_SUCCESS;
  });
}

tessera_status tessera_primitive_attr_set_output_scales(tessera_primitive_attr_t attr, int mask,
                                                        int64_t count, const float* values) {
  return tessera_c::guarded([&]() -> tessera_status {
    constexpr const char* kFn = "tessera_primitive_attr_set_output_scales";
    if (auto s = require(attr, kFn, "attr")) return s;
    if (count < 1) {
      return fail(TESSERA_INVALID_ARGUMENT,
                  absl::StrCat(kFn, ": count ", count, " must be at least 1"));
    }
    if (auto s = require(values, kFn, "values")) return s;
    attr->attr.oscale = tessera::output_scales{.mask = mask, .values = {values, values + count}};
    return TESSERA_SUCCESS;
  });
}

tessera_status tessera_primitive_attr_set_post_op_sum(tessera_primitive_attr_t attr, float beta,
                                                      int32_t zero_point) {
  return tessera_c::guarded([&]() -> tessera_status {
    if (auto s = require(attr, "tessera_primitive_attr_set_post_op_sum", "attr")) return s;
    attr->attr.sum = tessera::sum_post_op{.beta = beta, .zero_point = zero_point};
    return TESSERA_SUCCESS;
  });
}

tessera_status tessera_primitive_attr_set_impl_filter(tessera_primitive_attr_t attr,
                                                      const char* filter) {
  return tessera_c::guarded([&]() -> tessera_status {
    constexpr const char* kFn = "tessera_primitive_attr_set_impl_filter";
    if (auto s = require(attr, kFn, "attr")) return s;
    if (auto s = require(filter, kFn, "filter")) return s;
    attr->impl_filter = filter;
    return TESSERA_SUCCESS;
  });
}

}  // extern "C"
