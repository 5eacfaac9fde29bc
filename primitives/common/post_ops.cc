#include "tessera/primitives/common/post_ops.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tessera/core/data_type.h"

namespace tessera {

absl::string_view name_of(binary_alg alg) {
  switch (alg) {
    case binary_alg::add: return "add";
    case binary_alg::sub: return "sub";
    case binary_alg::mul: return "mul";
    case binary_alg::div: return "div";
    case binary_alg::max: return "max";
    case binary_alg::min: return "min";
    case binary_alg::ge: return "ge";
    case binary_alg::gt: return "gt";
    case binary_alg::le: return "le";
    case binary_alg::lt: return "lt";
    case binary_alg::eq: return "eq";
    case binary_alg::ne: return "ne";
  }
  return "unknown";
}

absl::string_view name_of(eltwise_alg alg) {
  switch (alg) {
    case eltwise_alg::linear: return "linear";
    case eltwise_alg::relu: return "relu";
    case eltwise_alg::clip: return "clip";
    case eltwise_alg::abs: return "abs";
    case eltwise_alg::square: return "square";
    case eltwise_alg::sqrt: return "sqrt";
    case eltwise_alg::exp: return "exp";
    case eltwise_alg::tanh: return "tanh";
    case eltwise_alg::logistic: return "logistic";
  }
  return "unknown";
}

absl::string_view name_of(accumulation_mode mode) {
  switch (mode) {
    case accumulation_mode::strict: return "strict";
    case accumulation_mode::relaxed: return "relaxed";
    case accumulation_mode::any: return "any";
    case accumulation_mode::f32: return "f32";
    case accumulation_mode::s32: return "s32";
    case accumulation_mode::f16: return "f16";
  }
  return "unknown";
}

int broadcast_mask(const memory_desc& src1) {
  int mask = 0;
  for (int d = 0; d < src1.rank(); ++d) {
    if (src1.dims()[d] != 1) mask |= 1 << d;
  }
  return mask;
}

namespace {

std::string mask_text(int mask) {
  if (mask == 0) return "common";
  if (mask == 2) return "per_oc";
  return absl::StrCat(mask);
}

// alpha and beta as benchdnn writes them: omitted from the end while zero.
std::string eltwise_args(const post_op& op) {
  if (op.beta != 0.f) return absl::StrCat(":", op.alpha, ":", op.beta);
  if (op.alpha != 0.f) return absl::StrCat(":", op.alpha);
  return "";
}

}  // namespace

std::string to_string(const post_ops_list& ops) {
  std::vector<std::string> parts;
  for (const post_op& op : ops) {
    if (op.kind == post_op_kind::eltwise) {
      parts.push_back(absl::StrCat(name_of(op.eltwise_algorithm), eltwise_args(op)));
    } else {
      parts.push_back(absl::StrCat(name_of(op.binary_algorithm), ":", name_of(op.src1.dt()), ":",
                                   mask_text(broadcast_mask(op.src1))));
    }
  }
  return absl::StrJoin(parts, "+");
}

std::string verbose_string(const post_ops_list& ops) {
  std::vector<std::string> parts;
  for (const post_op& op : ops) {
    if (op.kind == post_op_kind::eltwise) {
      parts.push_back(absl::StrCat("eltwise_", name_of(op.eltwise_algorithm), eltwise_args(op)));
    } else {
      parts.push_back(absl::StrCat("binary_", name_of(op.binary_algorithm), ":",
                                   name_of(op.src1.dt()), ":", broadcast_mask(op.src1)));
    }
  }
  return absl::StrJoin(parts, "+");
}

absl::Status check_broadcast(const post_op& op, int index, absl::Span<const dim_t> dst_dims,
                             absl::string_view who) {
  const auto dims = op.src1.dims();
  bool ok = dims.size() == dst_dims.size();
  for (size_t d = 0; ok && d < dims.size(); ++d) ok = dims[d] == 1 || dims[d] == dst_dims[d];
  if (ok) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      who, ": post-op ", index, " (binary ", name_of(op.binary_algorithm), ") has operand dims ",
      absl::StrJoin(dims, "x"), " that do not broadcast to dst dims ", absl::StrJoin(dst_dims, "x"),
      " (the same rank, each dim equal to dst's or 1)"));
}

}  // namespace tessera
