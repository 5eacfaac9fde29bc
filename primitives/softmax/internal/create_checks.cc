#include "tessera/primitives/softmax/internal/create_checks.h"

#include <algorithm>
#include <cmath>
#include <initializer_list>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tessera/core/status.h"
#include "tessera/formats/layout.h"

namespace tessera::softmax_internal {
namespace {

bool forward_type_ok(data_type dt) {
  switch (dt) {
    case data_type::f32: case data_type::f64: case data_type::bf16: case data_type::f16:
    case data_type::s8: case data_type::u8: return true;
    default: return false;
  }
}
bool backward_type_ok(data_type dt) {
  return dt == data_type::f32 || dt == data_type::f64 || dt == data_type::bf16 ||
         dt == data_type::f16;
}

absl::Status check_alg(softmax_alg alg) {
  if (alg != softmax_alg::softmax && alg != softmax_alg::logsoftmax &&
      alg != softmax_alg::softmax_inf_as_zero) {
    return absl::InvalidArgumentError(
        absl::StrCat("softmax: unknown algorithm ", static_cast<int>(alg)));
  }
  return absl::OkStatus();
}

// A concrete input descriptor: blocked, rank 1..12.
absl::Status check_concrete(const memory_desc& md, const char* what) {
  if (md.kind() != format_kind::blocked) {
    return absl::InvalidArgumentError(absl::StrCat(
        "softmax: ", what, " must have a concrete layout (format_kind::blocked), got ",
        md.kind() == format_kind::any ? "any" : "undef"));
  }
  if (md.rank() < 1 || md.rank() > kMaxRank) {
    return absl::InvalidArgumentError(
        absl::StrCat("softmax: ", what, " has rank ", md.rank(), "; rank must be in [1, 12]"));
  }
  return absl::OkStatus();
}

// oneDNN 3.x's rule: a softmax needs every dim and stride at creation (UNIMPLEMENTED otherwise).
absl::Status check_no_runtime_values(std::initializer_list<std::pair<const memory_desc*, const char*>> mds) {
  for (const auto& [md, what] : mds) {
    if (md->has_runtime_dims_or_strides()) {
      return absl::UnimplementedError(absl::StrCat(
          "softmax: ", what,
          " has run-time dims or strides: a softmax needs them all at creation, as in oneDNN 3.x"));
    }
  }
  return absl::OkStatus();
}

absl::Status check_same_dims(const memory_desc& md, const memory_desc& ref, const char* what,
                             const char* ref_what) {
  if (md.kind() == format_kind::undef) {
    return absl::InvalidArgumentError(absl::StrCat("softmax: ", what, " is undef"));
  }
  if (!std::equal(md.dims().begin(), md.dims().end(), ref.dims().begin(), ref.dims().end())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "softmax: ", what, " dims ", dims_to_string(md.dims()), " differ from ", ref_what,
        " dims ", dims_to_string(ref.dims())));
  }
  return absl::OkStatus();
}

absl::Status check_axis(int axis, const memory_desc& md) {
  if (axis < 0 || axis >= md.rank()) {
    return absl::InvalidArgumentError(absl::StrCat("softmax: axis ", axis,
                                                   " is out of range [0, ", md.rank(),
                                                   ") for dims ", dims_to_string(md.dims())));
  }
  return absl::OkStatus();
}

// oneDNN 3.x: strict (the default), relaxed and any leave the accumulation type to the
// implementation's rule or wider; f32 asks for f32 accumulators. Tessera's softmax sums in f64
// (f32 partial sums widened) and that satisfies all four; s32 and f16 would ask for narrower ones.
absl::Status check_acc_mode(accumulation_mode mode) {
  if (mode == accumulation_mode::s32 || mode == accumulation_mode::f16) {
    return absl::InvalidArgumentError(absl::StrCat(
        "softmax: accumulation mode ", name_of(mode),
        " is not supported (strict, relaxed, any, f32: the sums are f32 or wider)"));
  }
  return absl::OkStatus();
}

bool binary_operand_type_ok(data_type dt) {
  return dt == data_type::f32 || dt == data_type::bf16 || dt == data_type::f16 ||
         dt == data_type::s8 || dt == data_type::u8;
}

absl::Status check_post_ops(const post_ops_list& ops, const memory_desc& dst) {
  if (static_cast<int>(ops.size()) > kMaxPostOps) {
    return absl::InvalidArgumentError(absl::StrCat("softmax: ", ops.size(),
                                                   " post-ops; at most ", kMaxPostOps));
  }
  for (int i = 0; i < static_cast<int>(ops.size()); ++i) {
    const post_op& op = ops[i];
    if (op.kind != post_op_kind::binary) continue;
    if (op.src1.kind() != format_kind::blocked) {
      return absl::InvalidArgumentError(absl::StrCat(
          "softmax: post-op ", i, " (binary ", name_of(op.binary_algorithm),
          ") operand must have a concrete layout (format_kind::blocked)"));
    }
    if (!binary_operand_type_ok(op.src1.dt())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "softmax: post-op ", i, " (binary ", name_of(op.binary_algorithm), ") operand type ",
          name_of(op.src1.dt()), " is not supported (f32, bf16, f16, s8, u8)"));
    }
    TESSERA_RETURN_IF_ERROR(check_broadcast(op, i, dst.dims(), "softmax"));
  }
  return absl::OkStatus();
}

absl::Status check_forward_attr(const primitive_attr& attr) {
  if (attr.src_zero_points || attr.dst_zero_points) {
    return absl::InvalidArgumentError(absl::StrCat(
        "softmax: zero points are not supported (attr \"", to_string(attr), "\")"));
  }
  if (attr.sum) {
    return absl::InvalidArgumentError(
        absl::StrCat("softmax: the sum post-op is not supported (attr \"", to_string(attr), "\")"));
  }
  for (const auto* q : {&attr.src_scales, &attr.dst_scales}) {
    if (*q && (*q)->mask != 0) {
      return absl::InvalidArgumentError(absl::StrCat(
          "softmax: scales must be common (mask 0), got mask ", (*q)->mask));
    }
    // The values are read as f32, one for the whole tensor: another type or groups would be
    // silently misread.
    if (*q && (*q)->dt != data_type::undef && (*q)->dt != data_type::f32) {
      return absl::InvalidArgumentError(absl::StrCat("softmax: scales must be f32, got ",
                                                     name_of((*q)->dt)));
    }
    if (*q && !(*q)->groups.empty()) {
      return absl::InvalidArgumentError(absl::StrCat(
          "softmax: scales take no groups (one common value), got groups ",
          absl::StrJoin((*q)->groups, "x")));
    }
  }
  if (attr.oscale) {
    if (attr.src_scales || attr.dst_scales) {
      return absl::InvalidArgumentError(
          "softmax: an output scale cannot be combined with src/dst scales");
    }
    if (attr.oscale->mask != 0 || attr.oscale->values.size() != 1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "softmax: the output scale must be one common value (mask 0), got mask ",
          attr.oscale->mask, " with ", attr.oscale->values.size(), " values"));
    }
    if (!std::isfinite(attr.oscale->values[0])) {
      return absl::InvalidArgumentError(
          absl::StrCat("softmax: output scale ", attr.oscale->values[0], " is not finite"));
    }
  }
  return absl::OkStatus();
}

}  // namespace

absl::Status check_forward_create(softmax_alg alg, const memory_desc& src, const memory_desc& dst,
                                  int axis, const primitive_attr& attr) {
  TESSERA_RETURN_IF_ERROR(check_alg(alg));
  TESSERA_RETURN_IF_ERROR(check_concrete(src, "src"));
  TESSERA_RETURN_IF_ERROR(check_no_runtime_values({{&src, "src"}, {&dst, "dst"}}));
  TESSERA_RETURN_IF_ERROR(check_same_dims(dst, src, "dst", "src"));
  TESSERA_RETURN_IF_ERROR(check_axis(axis, src));
  for (const auto* md : {&src, &dst}) {
    if (!forward_type_ok(md->dt())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "softmax forward: ", md == &src ? "src" : "dst", " type ", name_of(md->dt()),
          " is not supported (f32, f64, bf16, f16, s8, u8)"));
    }
  }
  TESSERA_RETURN_IF_ERROR(check_forward_attr(attr));
  TESSERA_RETURN_IF_ERROR(check_acc_mode(attr.acc_mode));
  TESSERA_RETURN_IF_ERROR(check_post_ops(attr.post_ops, src));
  if (attr.dst_rounding != rounding_mode::environment) {
    return absl::InvalidArgumentError(
        "softmax forward: stochastic rounding of dst is not supported (only the reorder takes it)");
  }
  return absl::OkStatus();
}

absl::Status check_backward_create(softmax_alg alg, const memory_desc& diff_src,
                                   const memory_desc& diff_dst, const memory_desc& dst, int axis,
                                   const primitive_attr& attr) {
  TESSERA_RETURN_IF_ERROR(check_alg(alg));
  TESSERA_RETURN_IF_ERROR(check_concrete(diff_dst, "diff_dst"));
  TESSERA_RETURN_IF_ERROR(check_concrete(dst, "dst"));
  TESSERA_RETURN_IF_ERROR(
      check_no_runtime_values({{&diff_src, "diff_src"}, {&diff_dst, "diff_dst"}, {&dst, "dst"}}));
  TESSERA_RETURN_IF_ERROR(check_same_dims(dst, diff_dst, "dst", "diff_dst"));
  TESSERA_RETURN_IF_ERROR(check_same_dims(diff_src, diff_dst, "diff_src", "diff_dst"));
  TESSERA_RETURN_IF_ERROR(check_axis(axis, diff_dst));
  for (const auto& [md, what] : {std::pair{&diff_src, "diff_src"}, std::pair{&diff_dst, "diff_dst"},
                                 std::pair{&dst, "dst"}}) {
    if (!backward_type_ok(md->dt())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "softmax backward: ", what, " type ", name_of(md->dt()),
          " is not supported (f32, f64, bf16, f16; no int8 backward)"));
    }
  }
  if (!attr.post_ops.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "softmax backward: takes no post-ops, got \"", to_string(attr.post_ops), "\""));
  }
  TESSERA_RETURN_IF_ERROR(check_acc_mode(attr.acc_mode));
  primitive_attr others = attr;
  others.acc_mode = accumulation_mode::strict;
  if (!others.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "softmax backward: takes no attributes, got \"", to_string(attr), "\""));
  }
  return absl::OkStatus();
}

}  // namespace tessera::softmax_internal
