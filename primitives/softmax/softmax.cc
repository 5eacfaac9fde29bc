#include "tessera/primitives/softmax/softmax.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <memory>
#include <optional>
#include <utility>
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
#include "tessera/primitives/softmax/internal/create_checks.h"
#include "tessera/primitives/softmax/internal/describe.h"
#include "tessera/primitives/softmax/internal/plan.h"
#include "tessera/primitives/softmax/internal/ref_kernel.h"
#include "tessera/simd/isa.h"

namespace tessera {

using softmax_internal::describe;
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

// ---- creation ----------------------------------------------------------------------------

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

// The binary post-ops' operands, one entry per post-op (nullptr for an eltwise one): each given
// with the descriptor of its post-op, non-null, and not overlapping dst (dst is written while
// later rows still read the operand). An operand given for no binary post-op is an error.
absl::StatusOr<std::vector<const void*>> bind_post_op_operands(const exec_args& args,
                                                               const post_ops_list& ops,
                                                               const bound_arg& dst) {
  for (int index : args.post_op_src1_indices()) {
    if (index < 0 || index >= static_cast<int>(ops.size()) ||
        ops[index].kind != post_op_kind::binary) {
      return absl::InvalidArgumentError(absl::StrCat(
          "softmax forward: ", name_of(post_op_src1{index}),
          " given, but the primitive has no binary post-op at position ", index));
    }
  }
  std::vector<const void*> out(ops.size(), nullptr);
  for (int i = 0; i < static_cast<int>(ops.size()); ++i) {
    const post_op& op = ops[i];
    if (op.kind != post_op_kind::binary) continue;
    const std::string name = name_of(post_op_src1{i});
    const memory* m = args.find(post_op_src1{i});
    if (m == nullptr) {
      return absl::InvalidArgumentError(absl::StrCat(
          "softmax: the attributes ask for ", name, " (binary ", name_of(op.binary_algorithm),
          ") but the argument is missing"));
    }
    if (m->desc != op.src1) {
      return absl::InvalidArgumentError(absl::StrCat(
          "softmax: execution argument ", name, " has a descriptor (", verbose_md_string(m->desc),
          " ", dims_to_string(m->desc.dims()), ") other than the post-op's (",
          verbose_md_string(op.src1), " ", dims_to_string(op.src1.dims()), ")"));
    }
    const bound_arg operand{m->data, op.src1.size_bytes(), &m->desc};
    if (m->data == nullptr && operand.bytes > 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("softmax: execution argument ", name, " has a null data pointer"));
    }
    if (overlap_of(operand, dst) != buffer_overlap::disjoint) {
      return absl::InvalidArgumentError(
          absl::StrCat("softmax: ", name, " overlaps dst; a post-op operand must be disjoint"));
    }
    out[i] = m->data;
  }
  return out;
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

// Whether the vector kernels may take out_scale as an f32 (kernel_args::out_scale): a normal
// f32 (its rounding is within the int8 bound, docs/softmax.md) or 0. A factor beyond f32's range
// (src_scale / dst_scale = 1e30 / 1e-30) would be Inf or lose its digits: the reference kernel,
// which multiplies in f64, takes such an execution.
bool scale_fits_f32(double scale) {
  const double size = std::fabs(scale);
  return size == 0 || (size >= std::numeric_limits<float>::min() &&
                       size <= std::numeric_limits<float>::max());
}

// out_scale: applied to the softmax's result; post_op_scale: after the post-ops (ref_buffers).
void run(const plan& pl, const void* in0, const void* in1, void* out, double out_scale,
         double post_op_scale = 1.0, std::vector<const void*> post_op_src1 = {}) {
  const problem& prob = pl.prob;
  // Enough work per chunk to pay for a task: ~32K elements.
  const dim_t min_chunk = std::max<dim_t>(1, 32768 / pl.work_per_item);
  if (prob.out.nelems() > 0) {
    if (pl.kind == kernel_kind::ref || !scale_fits_f32(out_scale) ||
        !scale_fits_f32(post_op_scale)) {
      softmax_internal::ref_buffers buf{in0, in1, out, out_scale, post_op_scale,
                                        std::move(post_op_src1)};
      parallel_for(softmax_internal::ref_row_count(prob), min_chunk, [&](int64_t b, int64_t e) {
        softmax_internal::ref_rows(prob, buf, b, e);
      });
    } else {
      softmax_internal::kernel_args k = pl.geometry;
      k.in0 = at_offset0(in0, prob.in0);
      k.in1 = in1 ? at_offset0(in1, prob.in1) : nullptr;
      k.out = const_cast<void*>(at_offset0(out, prob.out));
      k.out_scale = static_cast<float>(out_scale);
      k.post_op_scale = static_cast<float>(post_op_scale);
      softmax_internal::post_op_chain chain;
      if (pl.post_ops.count > 0) {
        chain = pl.post_ops;
        for (int i = 0; i < chain.count; ++i) {
          const post_op& op = prob.attr.post_ops[static_cast<size_t>(i)];
          if (op.kind == post_op_kind::binary) chain.steps[i].src1 = at_offset0(post_op_src1[i], op.src1);
        }
        k.post_ops = &chain;
      }
      if (k.split.parts > 0) {
        run_split_group(pl, k);
      } else {
        parallel_for(k.rows.count, min_chunk, [&](int64_t b, int64_t e) { pl.fn(k, b, e); });
      }
    }
  }
  zero_padding(pl.out_padding, out);
}

}  // namespace

// ---- forward -------------------------------------------------------------------------------

absl::StatusOr<softmax_forward> softmax_forward::create(softmax_alg alg, const memory_desc& src,
                                                        const memory_desc& dst, int axis,
                                                        const primitive_attr& attr,
                                                        const softmax_options& options) {
  TESSERA_RETURN_IF_ERROR(softmax_internal::check_forward_create(alg, src, dst, axis, attr));
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
  TESSERA_ASSIGN_OR_RETURN(std::vector<const void*> operands,
                           bind_post_op_operands(args, attr.post_ops, dst));
  // In double: the reference kernel's f64 outputs would otherwise carry the f32 rounding of
  // src_scale / dst_scale (a 3e-8 relative error); the vector kernels round it to f32 once.
  double scale = 1.0;
  if (attr.oscale) scale = attr.oscale->values[0];
  if (attr.src_scales) {
    TESSERA_ASSIGN_OR_RETURN(float s, scale_value(args, arg::src_scales));
    scale *= s;
  }
  double post_op_scale = 1.0;
  if (attr.dst_scales) {
    TESSERA_ASSIGN_OR_RETURN(float s, scale_value(args, arg::dst_scales));
    // The dst scale follows the post-ops (oneDNN 3.x); without post-ops it folds into one factor.
    if (attr.post_ops.empty()) {
      scale /= s;
    } else {
      post_op_scale = 1.0 / s;
    }
  }
  run(pl, src.data, nullptr, dst.data, scale, post_op_scale, std::move(operands));
  trace.commit();
  return absl::OkStatus();
}

absl::Status softmax_forward::execute(const exec_args& args, thread_pool& pool) const {
  scoped_thread_pool on(&pool);
  return execute(args);
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
  TESSERA_RETURN_IF_ERROR(
      softmax_internal::check_backward_create(alg, diff_src, diff_dst, dst, axis, attr));
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
  if (const std::vector<int> given = args.post_op_src1_indices(); !given.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "softmax backward takes no ", name_of(post_op_src1{given[0]}), " argument"));
  }
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

absl::Status softmax_backward::execute(const exec_args& args, thread_pool& pool) const {
  scoped_thread_pool on(&pool);
  return execute(args);
}

const std::string& softmax_backward::impl_name() const { return plan_->impl_name; }
const memory_desc& softmax_backward::diff_src_desc() const { return plan_->prob.out; }
const memory_desc& softmax_backward::diff_dst_desc() const { return plan_->prob.in1; }
const memory_desc& softmax_backward::dst_desc() const { return plan_->prob.in0; }
softmax_alg softmax_backward::alg() const { return plan_->prob.alg; }
int softmax_backward::axis() const { return plan_->prob.axis; }

}  // namespace tessera
