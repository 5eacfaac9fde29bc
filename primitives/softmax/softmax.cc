#include "tessera/primitives/softmax/softmax.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tessera/core/status.h"
#include "tessera/formats/layout.h"
#include "tessera/formats/make_memory_desc.h"
#include "tessera/formats/md_string.h"
#include "tessera/primitives/common/binding.h"
#include "tessera/primitives/common/overlap.h"
#include "tessera/primitives/common/plan_cache.h"
#include "tessera/primitives/common/quant_args.h"
#include "tessera/primitives/common/unread_args.h"
#include "tessera/primitives/runtime/threads.h"
#include "tessera/primitives/runtime/verbose.h"
#include "tessera/primitives/softmax/internal/plan.h"
#include "tessera/primitives/softmax/internal/ref_kernel.h"
#include "tessera/simd/isa.h"

namespace tessera {

using softmax_internal::direction;
using softmax_internal::kernel_kind;
using softmax_internal::plan;
using softmax_internal::problem;

absl::string_view name_of(softmax_alg alg) {
  switch (alg) {
    case softmax_alg::softmax: return "softmax";
    case softmax_alg::logsoftmax: return "logsoftmax";
    case softmax_alg::softmax_inf_as_zero: return "softmax_inf_as_zero";
  }
  return "unknown";
}

std::vector<std::string> softmax_kernel_names() { return softmax_internal::kernel_names(); }

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

verbose_record describe(const plan& pl, const std::string& impl);

plan_cache<problem, plan>& cache() {
  static plan_cache<problem, plan> cache;
  return cache;
}

absl::StatusOr<std::shared_ptr<const plan>> cached_plan(const problem& prob,
                                                        const softmax_options& options) {
  return cache().get_or_create(
      {prob, simd::max_isa(), options.impl_filter},
      [&]() -> absl::StatusOr<std::shared_ptr<const plan>> {
        TESSERA_ASSIGN_OR_RETURN(plan p, softmax_internal::make_plan(prob, options));
        emit_verbose_declined(
            p.declined, [&](const std::string& kernel) { return describe(p, kernel); },
            "primitives/softmax/internal/plan.cc");
        return std::make_shared<const plan>(std::move(p));
      },
      [](const plan& p) { return describe(p, p.impl_name); });
}

// ---- execution ---------------------------------------------------------------------------

// Binds argument a to its buffer, checked against the descriptor the primitive was created with.
absl::StatusOr<bound_arg> bind(const exec_args& args, arg a, const memory_desc& expected) {
  bound_arg b;
  switch (bind_arg(args, a, expected, expected.size_bytes(), b)) {
    case bind_failure::none:
      return b;
    case bind_failure::missing:
      return absl::InvalidArgumentError(
          absl::StrCat("softmax: execution argument ", name_of(a), " is missing"));
    case bind_failure::other_descriptor:
      return absl::InvalidArgumentError(absl::StrCat(
          "softmax: execution argument ", name_of(a), " has a descriptor (",
          verbose_md_string(*b.given), " ", dims_to_string(b.given->dims()),
          ") other than the one the primitive was created with (", verbose_md_string(expected),
          " ", dims_to_string(expected.dims()), ")"));
    case bind_failure::null_data:
      break;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("softmax: execution argument ", name_of(a), " has a null data pointer"));
}

// Output must either be exactly the input buffer (with an equal descriptor) or not overlap it.
absl::Status check_aliasing(const bound_arg& in, const memory_desc& in_md, const char* in_name,
                            const bound_arg& out, const memory_desc& out_md, const char* out_name) {
  switch (overlap_of(in, out)) {
    case buffer_overlap::disjoint:
      return absl::OkStatus();
    case buffer_overlap::same_start:
      if (in_md == out_md) return absl::OkStatus();
      return absl::InvalidArgumentError(absl::StrCat(
          "softmax: in-place execution (", out_name, " = ", in_name,
          ") needs equal descriptors; ", in_name, " is ", verbose_md_string(in_md), " ",
          dims_to_string(in_md.dims()), ", ", out_name, " is ", verbose_md_string(out_md), " ",
          dims_to_string(out_md.dims())));
    case buffer_overlap::partial:
      break;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "softmax: ", out_name, " partially overlaps ", in_name,
      "; they must be the same buffer or disjoint"));
}

absl::StatusOr<float> scale_value(const exec_args& args, arg a) {
  const memory* m = args.find(a);
  if (m == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat(
        "softmax: the attributes ask for ", name_of(a), " but the argument is missing"));
  }
  if (m->desc.kind() != format_kind::blocked || m->desc.dt() != data_type::f32 ||
      m->desc.nelems() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "softmax: ", name_of(a), " must be one f32 value (mask 0), got ", name_of(m->desc.dt()),
        " with ", m->desc.nelems(), " elements"));
  }
  if (m->data == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("softmax: ", name_of(a), " is null"));
  }
  float v;
  std::memcpy(&v, static_cast<const char*>(m->data) + m->desc.offset0() * 4, sizeof v);
  if (!std::isfinite(v) || (a == arg::dst_scales && v == 0.f)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "softmax: ", name_of(a), " value ", v, " is not allowed (must be finite",
        a == arg::dst_scales ? " and non-zero)" : ")"));
  }
  return v;
}

// An argument the primitive does not read is an error, as for the reorder: a scale given to a
// softmax created without that attribute would otherwise be silently ignored. `reads(a)`: whether
// this execution reads argument a.
template <class Reads>
absl::Status reject_unread(const exec_args& args, const char* primitive, Reads&& reads) {
  const std::optional<arg> a = first_unread(args, reads);
  if (!a) return absl::OkStatus();
  if (*a == arg::src_scales || *a == arg::dst_scales) {
    return absl::InvalidArgumentError(absl::StrCat(
        primitive, ": ", name_of(*a), " given, but the primitive was created without it"));
  }
  return absl::InvalidArgumentError(absl::StrCat(primitive, " takes no ", name_of(*a), " argument"));
}

const void* at_offset0(const void* p, const memory_desc& md) {
  return static_cast<const char*>(p) + md.offset0() * (bits_of(md.dt()) / 8);
}

// A strided group split along its axis (kernel_args.h: axis_split): three phases over its parts
// (forward) or two (backward), each started when the one before has finished on every part.
void run_split_group(const plan& pl, softmax_internal::kernel_args& k) {
  const dim_t entries = k.split.parts * k.strided.lanes;
  std::vector<float> ranges(static_cast<size_t>(2 * entries));
  std::vector<double> counts_and_sums(static_cast<size_t>(2 * entries));
  k.split.max = ranges.data();
  k.split.min = k.split.max + entries;
  k.split.count = counts_and_sums.data();
  k.split.rest = k.split.count + entries;
  const int phases = pl.prob.dir == direction::forward ? 3 : 2;
  for (int phase = 0; phase < phases; ++phase) {
    k.split.phase = phase;
    parallel_for(k.split.parts, 1, [&](int64_t b, int64_t e) { pl.fn(k, b, e); });
  }
}

void run(const plan& pl, const void* in0, const void* in1, void* out, double out_scale) {
  const problem& prob = pl.prob;
  // Enough work per chunk to pay for a task: ~32K elements.
  const dim_t min_chunk = std::max<dim_t>(1, 32768 / pl.work_per_item);
  if (prob.out.nelems() > 0) {
    if (pl.kind == kernel_kind::ref) {
      softmax_internal::ref_buffers buf{in0, in1, out, out_scale};
      parallel_for(softmax_internal::ref_row_count(prob), min_chunk, [&](int64_t b, int64_t e) {
        softmax_internal::ref_rows(prob, buf, b, e);
      });
    } else {
      softmax_internal::kernel_args k = pl.geometry;
      k.in0 = at_offset0(in0, prob.in0);
      k.in1 = in1 ? at_offset0(in1, prob.in1) : nullptr;
      k.out = const_cast<void*>(at_offset0(out, prob.out));
      if (k.split.parts > 0) {
        run_split_group(pl, k);
      } else {
        parallel_for(k.rows.count, min_chunk, [&](int64_t b, int64_t e) { pl.fn(k, b, e); });
      }
    }
  }
  zero_padding(pl.out_padding, out);
}

// oneDNN's names of the algorithms.
absl::string_view verbose_alg(softmax_alg alg) {
  switch (alg) {
    case softmax_alg::softmax:
      return "softmax_accurate";
    case softmax_alg::logsoftmax:
      return "softmax_log";
    case softmax_alg::softmax_inf_as_zero:
      return "softmax_accurate_inf_as_zero";
  }
  return "undef";
}

// As oneDNN's softmax lines: forward "src dst", backward "src (the diff_src) dst diff_dst"; the
// auxiliary field adds Tessera's axis_parts when a single group is split along its axis.
verbose_record describe(const plan& pl, const std::string& impl) {
  const problem& p = pl.prob;
  const bool fwd = p.dir == direction::forward;
  std::string descs =
      fwd ? absl::StrCat(onednn_verbose_md_string("src", p.in0), " ",
                         onednn_verbose_md_string("dst", p.out))
          : absl::StrCat(onednn_verbose_md_string("src", p.out), " ",
                         onednn_verbose_md_string("dst", p.in0), " ",
                         onednn_verbose_md_string("diff_dst", p.in1));
  std::string aux = absl::StrCat("alg:", verbose_alg(p.alg), " axis:", p.axis);
  if (pl.geometry.split.parts > 0) absl::StrAppend(&aux, " axis_parts:", pl.geometry.split.parts);
  return verbose_record{"softmax",
                        impl,
                        fwd ? "forward_training" : "backward_data",
                        std::move(descs),
                        verbose_attr_string(p.attr),
                        std::move(aux),
                        dims_to_string(p.in0.dims())};
}

}  // namespace

// ---- forward -------------------------------------------------------------------------------

absl::StatusOr<softmax_forward> softmax_forward::create(softmax_alg alg, const memory_desc& src,
                                                        const memory_desc& dst, int axis,
                                                        const primitive_attr& attr,
                                                        const softmax_options& options) {
  TESSERA_RETURN_IF_ERROR(check_alg(alg));
  TESSERA_RETURN_IF_ERROR(check_concrete(src, "src"));
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
  problem prob;
  prob.dir = direction::forward;
  prob.alg = alg;
  prob.axis = axis;
  prob.in0 = src;
  if (dst.kind() == format_kind::any) {
    TESSERA_ASSIGN_OR_RETURN(prob.out, make_dense_like(src, dst.dt()));
  } else {
    prob.out = dst;
  }
  prob.attr = attr;
  TESSERA_ASSIGN_OR_RETURN(auto p, cached_plan(prob, options));
  return softmax_forward(std::move(p));
}

absl::Status softmax_forward::execute(const exec_args& args) const {
  const plan& pl = *plan_;
  verbose_exec trace([&] { return describe(pl, pl.impl_name); });
  const primitive_attr& attr = pl.prob.attr;
  TESSERA_RETURN_IF_ERROR(reject_unread(args, "softmax forward", [&](arg a) {
    return a == arg::src || a == arg::dst || attr_declares(attr, a);
  }));
  TESSERA_ASSIGN_OR_RETURN(bound_arg src, bind(args, arg::src, pl.prob.in0));
  TESSERA_ASSIGN_OR_RETURN(bound_arg dst, bind(args, arg::dst, pl.prob.out));
  TESSERA_RETURN_IF_ERROR(check_aliasing(src, pl.prob.in0, "src", dst, pl.prob.out, "dst"));
  // In double: the scales reach only the reference kernel, whose f64 outputs would otherwise
  // carry the f32 rounding of src_scale / dst_scale (a 3e-8 relative error).
  double scale = 1.0;
  if (attr.oscale) scale = attr.oscale->values[0];
  if (attr.src_scales) {
    TESSERA_ASSIGN_OR_RETURN(float s, scale_value(args, arg::src_scales));
    scale *= s;
  }
  if (attr.dst_scales) {
    TESSERA_ASSIGN_OR_RETURN(float s, scale_value(args, arg::dst_scales));
    scale /= s;
  }
  run(pl, src.data, nullptr, dst.data, scale);
  trace.commit();
  return absl::OkStatus();
}

const std::string& softmax_forward::impl_name() const { return plan_->impl_name; }
const memory_desc& softmax_forward::src_desc() const { return plan_->prob.in0; }
const memory_desc& softmax_forward::dst_desc() const { return plan_->prob.out; }
softmax_alg softmax_forward::alg() const { return plan_->prob.alg; }
int softmax_forward::axis() const { return plan_->prob.axis; }

// ---- backward ------------------------------------------------------------------------------

absl::StatusOr<softmax_backward> softmax_backward::create(softmax_alg alg,
                                                          const memory_desc& diff_src,
                                                          const memory_desc& diff_dst,
                                                          const memory_desc& dst, int axis,
                                                          const primitive_attr& attr,
                                                          const softmax_options& options) {
  TESSERA_RETURN_IF_ERROR(check_alg(alg));
  TESSERA_RETURN_IF_ERROR(check_concrete(diff_dst, "diff_dst"));
  TESSERA_RETURN_IF_ERROR(check_concrete(dst, "dst"));
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
  if (!attr.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "softmax backward: takes no attributes, got \"", to_string(attr), "\""));
  }
  problem prob;
  prob.dir = direction::backward;
  // The gradient of softmax_inf_as_zero is the softmax one (an all -Inf row has dst = 0).
  prob.alg = alg == softmax_alg::logsoftmax ? softmax_alg::logsoftmax : softmax_alg::softmax;
  prob.axis = axis;
  prob.in0 = dst;
  prob.in1 = diff_dst;
  if (diff_src.kind() == format_kind::any) {
    TESSERA_ASSIGN_OR_RETURN(prob.out, make_dense_like(diff_dst, diff_src.dt()));
  } else {
    prob.out = diff_src;
  }
  TESSERA_ASSIGN_OR_RETURN(auto p, cached_plan(prob, options));
  return softmax_backward(std::move(p));
}

absl::Status softmax_backward::execute(const exec_args& args) const {
  const plan& pl = *plan_;
  verbose_exec trace([&] { return describe(pl, pl.impl_name); });
  TESSERA_RETURN_IF_ERROR(reject_unread(args, "softmax backward", [](arg a) {
    return a == arg::dst || a == arg::diff_dst || a == arg::diff_src;
  }));
  TESSERA_ASSIGN_OR_RETURN(bound_arg y, bind(args, arg::dst, pl.prob.in0));
  TESSERA_ASSIGN_OR_RETURN(bound_arg dy, bind(args, arg::diff_dst, pl.prob.in1));
  TESSERA_ASSIGN_OR_RETURN(bound_arg dx, bind(args, arg::diff_src, pl.prob.out));
  TESSERA_RETURN_IF_ERROR(
      check_aliasing(dy, pl.prob.in1, "diff_dst", dx, pl.prob.out, "diff_src"));
  // diff_src may not alias dst: dst is read again after diff_src is written.
  if (overlap_of(y, dx) != buffer_overlap::disjoint) {
    return absl::InvalidArgumentError("softmax backward: diff_src overlaps dst");
  }
  run(pl, y.data, dy.data, dx.data, 1.0);
  trace.commit();
  return absl::OkStatus();
}

const std::string& softmax_backward::impl_name() const { return plan_->impl_name; }
const memory_desc& softmax_backward::diff_src_desc() const { return plan_->prob.out; }
const memory_desc& softmax_backward::diff_dst_desc() const { return plan_->prob.in1; }
const memory_desc& softmax_backward::dst_desc() const { return plan_->prob.in0; }
softmax_alg softmax_backward::alg() const { return plan_->prob.alg; }
int softmax_backward::axis() const { return plan_->prob.axis; }

}  // namespace tessera
