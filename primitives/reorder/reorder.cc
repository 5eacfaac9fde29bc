#include "tessera/primitives/reorder/reorder.h"

#include <algorithm>
#include <cstring>
#include <optional>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "tessera/core/status.h"
#include "tessera/core/stochastic_round.h"
#include "tessera/formats/md_string.h"
#include "tessera/primitives/common/binding.h"
#include "tessera/primitives/common/overlap.h"
#include "tessera/primitives/common/plan_cache.h"
#include "tessera/primitives/common/quant_args.h"
#include "tessera/primitives/common/unread_args.h"
#include "tessera/primitives/reorder/internal/compensation.h"
#include "tessera/primitives/reorder/internal/kernels.h"
#include "tessera/primitives/reorder/internal/plan.h"
#include "tessera/primitives/reorder/internal/reorder_padding.h"
#include "tessera/primitives/reorder/internal/runtime_shape.h"
#include "tessera/primitives/runtime/threads.h"
#include "tessera/primitives/runtime/verbose.h"
#include "tessera/simd/isa.h"
#include "tessera/simd/memory.h"

namespace tessera {
namespace reorder_internal {
namespace {

std::string dims_text(absl::Span<const dim_t> dims) { return absl::StrJoin(dims, "x"); }

std::string desc_text(const memory_desc& md) { return verbose_md_string(md); }

// The sources verbose lines name: the candidate table (dispatch lines) and the create and
// execute checks (check lines).
constexpr char kKernelsSource[] = "primitives/reorder/internal/kernels.cc";
constexpr char kReorderSource[] = "primitives/reorder/reorder.cc";

absl::Status check_mask(const char* what, int mask, int rank) {
  if (mask < 0 || (rank < 31 && mask >= (1 << rank))) {
    return absl::InvalidArgumentError(absl::StrCat(what, " mask ", mask,
                                                   " has bits beyond the tensor's rank ", rank));
  }
  return absl::OkStatus();
}

absl::Status check_create(const memory_desc& src, const memory_desc& dst,
                          const primitive_attr& attr) {
  for (const auto* md : {&src, &dst}) {
    const char* which = md == &src ? "src" : "dst";
    if (md->kind() != format_kind::blocked) {
      return absl::InvalidArgumentError(absl::StrCat(
          which, " memory_desc is not a concrete layout (format_kind ",
          md->kind() == format_kind::any ? "any" : "undef", "): a reorder needs both layouts"));
    }
    if (md->dt() == data_type::undef) {
      return absl::InvalidArgumentError(absl::StrCat(which, " data type is undef"));
    }
  }
  if (src.rank() != dst.rank() || !std::equal(src.dims().begin(), src.dims().end(),
                                              dst.dims().begin())) {
    return absl::InvalidArgumentError(absl::StrCat("dims mismatch: src ", dims_text(src.dims()),
                                                   " vs dst ", dims_text(dst.dims()),
                                                   " (a reorder keeps the shape)"));
  }
  TESSERA_RETURN_IF_ERROR(check_compensation(src, dst, attr));
  const int rank = dst.rank();
  if (attr.src_scales) TESSERA_RETURN_IF_ERROR(check_mask("src_scales", attr.src_scales->mask, rank));
  if (attr.dst_scales) TESSERA_RETURN_IF_ERROR(check_mask("dst_scales", attr.dst_scales->mask, rank));
  if (attr.src_zero_points) {
    TESSERA_RETURN_IF_ERROR(check_mask("src_zero_points", attr.src_zero_points->mask, rank));
  }
  if (attr.dst_zero_points) {
    TESSERA_RETURN_IF_ERROR(check_mask("dst_zero_points", attr.dst_zero_points->mask, rank));
  }
  for (arg a : {arg::src_scales, arg::dst_scales, arg::src_zero_points, arg::dst_zero_points}) {
    if (const std::optional<quant_param>& q = quant_attr_of(attr, a)) {
      TESSERA_RETURN_IF_ERROR(check_quant_type(a, quant_value_type(a, *q)));
      TESSERA_RETURN_IF_ERROR(check_quant_groups(a, *q, dst.dims()));
    }
  }
  if (attr.oscale) {
    TESSERA_RETURN_IF_ERROR(check_mask("output scales", attr.oscale->mask, rank));
    const int64_t expected = quant_value_count(attr.oscale->mask, dst.dims());
    if (static_cast<int64_t>(attr.oscale->values.size()) != expected) {
      return absl::InvalidArgumentError(absl::StrCat(
          "output scales have ", attr.oscale->values.size(), " values; mask ",
          attr.oscale->mask, " over dims ", dims_text(dst.dims()), " needs ", expected));
    }
  }
  if (attr.sum) {
    if (attr.sum->zero_point != 0 && is_floating(dst.dt())) {
      return absl::InvalidArgumentError(absl::StrCat(
          "sum zero point ", attr.sum->zero_point, " on a ", name_of(dst.dt()),
          " dst is meaningless: zero points apply to integral types"));
    }
    if (attr.sum->zero_point != 0 && attr.dst_zero_points) {
      return absl::InvalidArgumentError(
          "sum zero point together with dst zero points: the sum term uses the dst zero point; "
          "give only one");
    }
  }
  if (attr.dst_rounding == rounding_mode::stochastic && !stochastic_rounding_applies(dst.dt())) {
    return absl::InvalidArgumentError(absl::StrCat(
        "stochastic rounding of a ", name_of(dst.dt()),
        " dst: it rounds f32 values to a narrower floating-point type (bf16, f16, f8_e5m2, "
        "f8_e4m3)"));
  }
  return absl::OkStatus();
}

// The fields of a verbose line about plan p with kernel `impl`.
verbose_record describe(const plan& p, const std::string& impl) {
  return verbose_record{"reorder", impl, "undef", p.descs_text, verbose_attr_string(p.attr),
                        /*aux=*/"", p.problem_text};
}

// A create:check line for a failed creation, when check lines are on.
absl::Status report_create(const absl::Status& status) {
  if (!status.ok() && verbose_enabled(verbose_flags::create_check)) {
    emit_verbose_check(/*at_create=*/true, "reorder", status.message(), kReorderSource);
  }
  return status;
}

// A reorder created with run-time dims or strides: a pattern whose kernel is chosen per shape.
std::shared_ptr<const plan> build_pattern(const memory_desc& src, const memory_desc& dst,
                                          const primitive_attr& attr, const std::string& filter) {
  auto p = std::make_shared<plan>();
  p->src = src;
  p->dst = dst;
  p->attr = attr;
  p->impl_name = kRuntimeImplName;
  p->impl_filter = filter;
  p->shapes = std::make_shared<shape_plans>();
  p->descs_text = absl::StrCat(pattern_md_string("src", src), " ", pattern_md_string("dst", dst));
  p->problem_text = pattern_dims_text(dst.dims());
  return p;
}

absl::StatusOr<std::shared_ptr<const plan>> build(const memory_desc& src, const memory_desc& dst,
                                                  const primitive_attr& attr,
                                                  const std::string& filter) {
  const bool runtime = has_runtime_values(src, dst);
  if (runtime) TESSERA_RETURN_IF_ERROR(check_runtime_create(src, dst, attr));
  TESSERA_RETURN_IF_ERROR(check_create(src, dst, attr));
  if (runtime) return build_pattern(src, dst, attr, filter);
  auto p = std::make_shared<plan>();
  p->src = src;
  p->dst = dst;
  p->attr = attr;
  auto mask_of = [](const auto& q) { return q ? q->mask : -1; };
  p->masks = {mask_of(attr.src_scales), mask_of(attr.dst_scales), mask_of(attr.src_zero_points),
              mask_of(attr.dst_zero_points), mask_of(attr.oscale)};
  p->scale_adjust = scale_adjust_of(dst);
  if (p->scale_adjust != 1.0f && p->masks.src_scale < 0) p->masks.src_scale = 0;  // the adjustment alone
  p->bit_copy = src.dt() == dst.dt() && attr.empty() && p->scale_adjust == 1.0f;
  absl::StatusOr<loop_nest> nest = normalise(src, dst, p->masks);
  if (nest.ok()) {
    p->normalised = true;
    p->nest = *std::move(nest);
    for (size_t i = 0; i < p->nest.data.size(); ++i) {
      if (p->nest.data[i].elements() > p->nest.data[p->main_box].elements()) p->main_box = i;
    }
  } else {
    p->normalise_error = std::string(nest.status().message());
  }
  p->descs_text = absl::StrCat(onednn_verbose_md_string("src", src), " ",
                               onednn_verbose_md_string("dst", dst));
  p->problem_text = dims_text(dst.dims());
  for (const candidate& c : candidates()) {
    if (!filter.empty() && c.name.find(filter) == std::string::npos) continue;
    plan trial = *p;
    absl::Status why = c.accept(trial);
    if (why.ok()) {
      *p = std::move(trial);
      p->impl_name = c.name;
      break;
    }
    p->declined.push_back(absl::StrCat(c.name, ": ", why.message()));
  }
  emit_verbose_declined(
      p->declined, [&](const std::string& kernel) { return describe(*p, kernel); },
      kKernelsSource);
  if (p->impl_name.empty()) {
    return absl::NotFoundError(absl::StrCat("no reorder implementation matches filter '", filter,
                                            "' and accepts the problem; declined: ",
                                            absl::StrJoin(p->declined, "; ")));
  }
  p->src_bytes = src.size_bytes();
  p->dst_bytes = dst.size_bytes();
  if (!p->run_writes_padding) p->dst_padding = padding_of(dst);
  return std::shared_ptr<const plan>(std::move(p));
}

// What a reorder's plan is made for; with the ISA cap, the key of the creation cache.
struct reorder_problem {
  memory_desc src, dst;
  primitive_attr attr;
  friend bool operator==(const reorder_problem&, const reorder_problem&) = default;
  template <typename H>
  friend H AbslHashValue(H h, const reorder_problem& p) {
    return H::combine(std::move(h), p.src, p.dst, p.attr);
  }
};

plan_cache<reorder_problem, plan>& cache() {
  static plan_cache<reorder_problem, plan> cache;
  return cache;
}

// Checks one quantization argument against its attribute and returns its values (of the type
// the attribute declares).
absl::StatusOr<const void*> quant_arg(const exec_args& args, arg which,
                                      const primitive_attr& attr, const memory_desc& dst) {
  const std::optional<quant_param>& q = quant_attr_of(attr, which);
  const memory* m = args.find(which);
  if (!q) {
    if (m) {
      return absl::InvalidArgumentError(absl::StrCat(
          "argument ", name_of(which), " given, but the reorder was created without it"));
    }
    return nullptr;
  }
  if (!m) {
    return absl::InvalidArgumentError(absl::StrCat("missing argument ", name_of(which),
                                                   " (the attributes declare it)"));
  }
  const int64_t expected = grouped_value_count(*q, dst.dims());
  const data_type dt = quant_value_type(which, *q);
  if (m->desc.dt() != dt) {
    return absl::InvalidArgumentError(absl::StrCat("argument ", name_of(which), " has type ",
                                                   name_of(m->desc.dt()), "; expected ",
                                                   name_of(dt)));
  }
  if (m->desc.kind() != format_kind::blocked || m->desc.nelems() != expected ||
      m->desc.size_bytes() != (expected * bits_of(dt) + 7) / 8) {
    return absl::InvalidArgumentError(absl::StrCat(
        "argument ", name_of(which), " must hold ", expected,
        " dense values (mask ", q->mask, " over dims ", dims_text(dst.dims()),
        q->groups.empty() ? "" : absl::StrCat(", groups ", dims_text(q->groups)), "); it has ",
        m->desc.nelems()));
  }
  if (m->data == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("argument ", name_of(which), " is null"));
  }
  return static_cast<const void*>(m->data);
}

absl::Status check_buffer(const exec_args& args, arg which, const memory_desc& expected,
                          int64_t expected_bytes, bound_arg& out) {
  switch (bind_arg(args, which, expected, expected_bytes, out)) {
    case bind_failure::none:
      return absl::OkStatus();
    case bind_failure::missing:
      return absl::InvalidArgumentError(absl::StrCat("missing argument ", name_of(which)));
    case bind_failure::other_descriptor:
      return absl::InvalidArgumentError(absl::StrCat(
          "argument ", name_of(which), " has descriptor ", desc_text(*out.given), " ",
          dims_text(out.given->dims()), "; the reorder was created for ", desc_text(expected), " ",
          dims_text(expected.dims())));
    case bind_failure::null_data:
      break;
  }
  return absl::InvalidArgumentError(absl::StrCat("argument ", name_of(which),
                                                 " has a null data pointer"));
}

// A small problem's src and dst lines requested at once, before the argument checks that
// follow: with a cold cache the kernels' loads and stores would otherwise wait for DRAM tile by
// tile (measured faster cold on nchw -> nhwc 4xCxHxW, 1 thread, 2 KB to 16 KB of src + dst).
// From 64 KB on, prefetching everything first measured slower: the kernels' own access order
// serves better. Warm calls do not change measurably. Read prefetches for dst as well: PREFETCHW
// is not in the baseline ISA this file is built for.
void prefetch_small(const plan& p, const void* src, const void* dst) {
  constexpr int64_t kMaxBytes = 16 << 10;
  if (p.src_bytes + p.dst_bytes > kMaxBytes) return;
  for (int64_t b = 0; b < p.src_bytes; b += 64) {
    simd::prefetch<simd::locality::l1>(static_cast<const char*>(src) + b);
  }
  for (int64_t b = 0; b < p.dst_bytes; b += 64) {
    simd::prefetch<simd::locality::l1>(static_cast<const char*>(dst) + b);
  }
}

// Scales and zero points the kernels cannot read as given (other types, groups), expanded.
struct widened_quant {
  std::vector<float> src_scale, dst_scale;
  std::vector<int32_t> src_zp, dst_zp;
};

// The values of argument `which` as the kernels read them: `given` itself when it is already
// f32 / s32 without groups, else expanded into `storage`.
template <class T>
const T* as_kernel_values(const plan& p, arg which, const void* given, std::vector<T>& storage) {
  const std::optional<quant_param>& q = quant_attr_of(p.attr, which);
  if (given == nullptr || quant_values_native(which, *q)) return static_cast<const T*>(given);
  storage.resize(static_cast<size_t>(quant_value_count(q->mask, p.dst.dims())));
  expand_quant_values(which, *q, p.dst.dims(), given, storage.data());
  return storage.data();
}

// The scales and zero points given at execution, checked against the attributes.
// Kernels that read the values grouped (plan::grouped_quant_values) get them as given, in
// ctx.given; the others through ctx.q, expanded where needed.
absl::Status read_quant_args(const plan& p, const exec_args& args, exec_ctx& ctx,
                             widened_quant& storage) {
  const primitive_attr& a = p.attr;
  TESSERA_ASSIGN_OR_RETURN(const void* src_scale, quant_arg(args, arg::src_scales, a, p.dst));
  TESSERA_ASSIGN_OR_RETURN(const void* dst_scale, quant_arg(args, arg::dst_scales, a, p.dst));
  TESSERA_ASSIGN_OR_RETURN(const void* src_zp, quant_arg(args, arg::src_zero_points, a, p.dst));
  TESSERA_ASSIGN_OR_RETURN(const void* dst_zp, quant_arg(args, arg::dst_zero_points, a, p.dst));
  if (p.grouped_quant_values) {
    ctx.given = {src_scale, dst_scale, src_zp, dst_zp};
    return absl::OkStatus();
  }
  quant_ptrs& q = ctx.q;
  q.src_scale = as_kernel_values(p, arg::src_scales, src_scale, storage.src_scale);
  q.dst_scale = as_kernel_values(p, arg::dst_scales, dst_scale, storage.dst_scale);
  q.src_zp = as_kernel_values(p, arg::src_zero_points, src_zp, storage.src_zp);
  q.dst_zp = as_kernel_values(p, arg::dst_zero_points, dst_zp, storage.dst_zp);
  return absl::OkStatus();
}

// The seed of stochastic rounding: one s32 value, given exactly when the attributes ask for it.
absl::StatusOr<uint32_t> read_rounding_seed(const plan& p, const exec_args& args) {
  const memory* m = args.find(arg::attr_rounding_seed);
  const bool stochastic = p.attr.dst_rounding == rounding_mode::stochastic;
  if (!stochastic) {
    return absl::InvalidArgumentError(
        "attr_rounding_seed given, but the reorder was created without stochastic rounding");
  }
  if (m == nullptr) {
    return absl::InvalidArgumentError(
        "missing argument attr_rounding_seed: stochastic rounding takes its seed at execution "
        "(s32, one value)");
  }
  if (m->desc.dt() != data_type::s32 || m->desc.nelems() != 1) {
    return absl::InvalidArgumentError(absl::StrCat(
        "argument attr_rounding_seed has type ", name_of(m->desc.dt()), " and ",
        m->desc.nelems(), " elements: it is one s32 value"));
  }
  if (m->data == nullptr) return absl::InvalidArgumentError("argument attr_rounding_seed is null");
  int32_t seed = 0;
  std::memcpy(&seed, m->data, sizeof(seed));
  return static_cast<uint32_t>(seed);
}

// oneDNN's scale adjustment folded into the src scales: value * (src_scale * adjust), one value
// per index of the src scale mask (mask 0 when the attributes have no src scales).
void adjust_src_scales(const plan& p, quant_ptrs& q, widened_quant& storage) {
  std::vector<float> adjusted(static_cast<size_t>(quant_value_count(p.masks.src_scale, p.dst.dims())));
  for (size_t i = 0; i < adjusted.size(); ++i) {
    adjusted[i] = (q.src_scale ? q.src_scale[i] : 1.0f) * p.scale_adjust;
  }
  storage.src_scale = std::move(adjusted);
  q.src_scale = storage.src_scale.data();
}

absl::Status execute_plan(const plan& p, const exec_args& args) {
  // The scales and zero points are checked against the attributes by read_quant_args, after the
  // buffers: only the gradients are never read.
  if (const std::optional<arg> a = first_unread(
          args, [](arg a) { return a != arg::diff_src && a != arg::diff_dst; })) {
    return absl::InvalidArgumentError(absl::StrCat("a reorder takes no ", name_of(*a),
                                                   " argument"));
  }
  bound_arg src, dst;
  TESSERA_RETURN_IF_ERROR(check_buffer(args, arg_from, p.src, p.src_bytes, src));
  TESSERA_RETURN_IF_ERROR(check_buffer(args, arg_to, p.dst, p.dst_bytes, dst));
  prefetch_small(p, src.data, dst.data);
  exec_ctx ctx;
  widened_quant widened;
  const primitive_attr& a = p.attr;
  // Without quantization attributes (most calls) the four lookups can only fail, on an argument
  // given anyway: skipping them when none is given saves their StatusOr traffic.
  const bool quantized = a.src_scales || a.dst_scales || a.src_zero_points || a.dst_zero_points;
  if (quantized || args.find(arg::src_scales) || args.find(arg::dst_scales) ||
      args.find(arg::src_zero_points) || args.find(arg::dst_zero_points)) {
    TESSERA_RETURN_IF_ERROR(read_quant_args(p, args, ctx, widened));
  }
  if (p.scale_adjust != 1.0f) adjust_src_scales(p, ctx.q, widened);
  if (a.dst_rounding == rounding_mode::stochastic || args.find(arg::attr_rounding_seed)) {
    TESSERA_ASSIGN_OR_RETURN(ctx.q.seed, read_rounding_seed(p, args));
    ctx.q.stochastic = true;
  }
  if (a.oscale) ctx.q.oscale = a.oscale->values.data();
  if (a.sum) {
    ctx.q.has_sum = true;
    ctx.q.beta = a.sum->beta;
    ctx.q.sum_zp = a.sum->zero_point;
  }
  if (overlap_of(src, dst) != buffer_overlap::disjoint) {  // no in-place reorder
    const char* s0 = static_cast<const char*>(src.data);
    const char* d0 = static_cast<const char*>(dst.data);
    return absl::InvalidArgumentError(absl::StrCat(
        "src and dst buffers overlap (src ", src.bytes, " bytes, dst ", dst.bytes,
        " bytes, dst starts ", d0 - s0, " bytes after src): a reorder cannot run in place"));
  }
  if (p.dst_bytes == 0) return absl::OkStatus();
  ctx.src = static_cast<const char*>(src.data);
  ctx.dst = static_cast<char*>(dst.data);
  run(p, ctx);
  if (!p.run_writes_padding) zero_dst_padding(p, ctx.dst);
  write_compensation(p.dst, ctx.dst);
  return absl::OkStatus();
}

// A pattern's execution: the concrete descriptors come with the buffers, are checked against the
// pattern, and the plan of their shape runs (built on the shape's first call).
absl::Status execute_runtime(const plan& pattern, const exec_args& args) {
  const memory* from = args.find(arg_from);
  const memory* to = args.find(arg_to);
  for (const auto& [m, which] : {std::pair{from, arg_from}, std::pair{to, arg_to}}) {
    if (m == nullptr) return absl::InvalidArgumentError(absl::StrCat("missing argument ", name_of(which)));
  }
  TESSERA_RETURN_IF_ERROR(check_fits_pattern("src", from->desc, pattern.src));
  TESSERA_RETURN_IF_ERROR(check_fits_pattern("dst", to->desc, pattern.dst));
  TESSERA_ASSIGN_OR_RETURN(shape_plan chosen, pattern.shapes->find_or_build(from->desc, to->desc, [&] {
    return build(from->desc, to->desc, pattern.attr, pattern.impl_filter);
  }));
  return execute_plan(*chosen.chosen, args);
}

}  // namespace

absl::Status reorder_untyped(data_type s, const void* src, const memory_desc& src_desc,
                             data_type d, void* dst, const memory_desc& dst_desc,
                             const primitive_attr& attr, const quant_values& quant) {
  if (src_desc.dt() != s || dst_desc.dt() != d) {
    return absl::InvalidArgumentError(absl::StrCat(
        "reorder_typed<", name_of(s), ", ", name_of(d), ">: descriptors have types ",
        name_of(src_desc.dt()), " and ", name_of(dst_desc.dt())));
  }
  TESSERA_ASSIGN_OR_RETURN(reorder r, reorder::create(src_desc, dst_desc, attr));
  exec_args args{{arg_from, {src_desc, const_cast<void*>(src)}}, {arg_to, {dst_desc, dst}}};
  std::vector<memory> keep;
  auto add = [&](arg a, const auto& values, data_type dt) -> absl::Status {
    if (values.empty()) return absl::OkStatus();
    const dim_t n = static_cast<dim_t>(values.size());
    TESSERA_ASSIGN_OR_RETURN(memory_desc md, memory_desc::with_strides({n}, dt, {1}));
    args.set(a, memory{md, const_cast<void*>(static_cast<const void*>(values.data()))});
    return absl::OkStatus();
  };
  TESSERA_RETURN_IF_ERROR(add(arg::src_scales, quant.src_scales, data_type::f32));
  TESSERA_RETURN_IF_ERROR(add(arg::dst_scales, quant.dst_scales, data_type::f32));
  TESSERA_RETURN_IF_ERROR(add(arg::src_zero_points, quant.src_zero_points, data_type::s32));
  TESSERA_RETURN_IF_ERROR(add(arg::dst_zero_points, quant.dst_zero_points, data_type::s32));
  return r.execute(args);
}

}  // namespace reorder_internal

absl::StatusOr<reorder> reorder::create(const memory_desc& src, const memory_desc& dst,
                                        const primitive_attr& attr) {
  auto p = reorder_internal::cache().get_or_create(
      {{src, dst, attr}, simd::max_isa()},
      [&] { return reorder_internal::build(src, dst, attr, ""); },
      [](const reorder_internal::plan& p) { return reorder_internal::describe(p, p.impl_name); });
  if (!p.ok()) return reorder_internal::report_create(p.status());
  return reorder(*std::move(p));
}

absl::StatusOr<reorder> reorder::create(const memory_desc& src, const memory_desc& dst,
                                        const primitive_attr& attr,
                                        const reorder_options& options) {
  verbose_create trace;  // not cached: always a miss
  auto p = reorder_internal::build(src, dst, attr, options.impl_filter);
  if (!p.ok()) return reorder_internal::report_create(p.status());
  trace.commit(/*cache_hit=*/false,
               [&] { return reorder_internal::describe(**p, (*p)->impl_name); });
  return reorder(*std::move(p));
}

absl::Status reorder::execute(const exec_args& args) const {
  verbose_exec trace([&] { return reorder_internal::describe(*plan_, plan_->impl_name); });
  absl::Status status = plan_->shapes ? reorder_internal::execute_runtime(*plan_, args)
                                      : reorder_internal::execute_plan(*plan_, args);
  if (!status.ok()) {
    if (verbose_enabled(verbose_flags::exec_check)) {
      emit_verbose_check(/*at_create=*/false, "reorder", status.message(),
                         reorder_internal::kReorderSource);
    }
    return status;
  }
  trace.commit();
  return absl::OkStatus();
}

absl::Status reorder::execute(const exec_args& args, thread_pool& pool) const {
  scoped_thread_pool on(&pool);
  return execute(args);
}

const std::string& reorder::impl_name() const { return plan_->impl_name; }

std::vector<std::string> reorder_kernel_names() {
  std::vector<std::string> names;
  for (const reorder_internal::candidate& c : reorder_internal::candidates()) {
    names.push_back(c.name);
  }
  return names;
}
const memory_desc& reorder::src_desc() const { return plan_->src; }
const memory_desc& reorder::dst_desc() const { return plan_->dst; }
const primitive_attr& reorder::attr() const { return plan_->attr; }
const std::vector<std::string>& reorder::declined() const { return plan_->declined; }

}  // namespace tessera
