#include "tessera/primitives/softmax/internal/plan.h"

#include <algorithm>
#include <limits>
#include <numeric>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/match.h"
#include "tessera/formats/axis_view.h"
#include "tessera/primitives/common/impl_name.h"
#include "tessera/primitives/softmax/internal/post_op_chain.h"
#include "tessera/primitives/softmax/internal/ref_kernel.h"
#include "tessera/primitives/softmax/internal/vector_kernels.h"
#include "tessera/simd/kernel_table.h"

namespace tessera::softmax_internal {
namespace {

// The kernel field of the implementation names: "xsimd:<isa>:dense", "xsimd:<isa>:strided",
// "ref:any:scalar" (common/impl_name.h).
constexpr absl::string_view kDenseKernel = "dense";
constexpr absl::string_view kStridedKernel = "strided";
constexpr absl::string_view kScalarKernel = "scalar";

std::string vector_kernel_name(simd::isa isa, kernel_kind kind) {
  return impl_name(kEngineXsimd, simd::name_of(isa),
                   kind == kernel_kind::dense ? kDenseKernel : kStridedKernel);
}
std::string ref_kernel_name() { return impl_name(kEngineRef, kAnyIsa, kScalarKernel); }

const simd::kernel_table<forward_selector>& forward_dense_table() {
  static const auto table = simd::make_kernel_table<forward_selector, simd::bf16_variant::yes>(
      kDenseKernel, [](auto arch) { return &forward_dense_for<decltype(arch)>; });
  return table;
}
const simd::kernel_table<forward_selector>& forward_strided_table() {
  static const auto table = simd::make_kernel_table<forward_selector, simd::bf16_variant::yes>(
      kStridedKernel, [](auto arch) { return &forward_strided_for<decltype(arch)>; });
  return table;
}
const simd::kernel_table<forward_selector>& forward_post_ops_table(kernel_kind kind) {
  static const auto dense = simd::make_kernel_table<forward_selector, simd::bf16_variant::yes>(
      kDenseKernel, [](auto arch) { return &forward_post_ops_for<decltype(arch)>; });
  static const auto strided = simd::make_kernel_table<forward_selector, simd::bf16_variant::yes>(
      kStridedKernel, [](auto arch) { return &forward_post_ops_for<decltype(arch)>; });
  return kind == kernel_kind::dense ? dense : strided;
}
const simd::kernel_table<backward_selector>& backward_dense_table() {
  static const auto table = simd::make_kernel_table<backward_selector, simd::bf16_variant::yes>(
      kDenseKernel, [](auto arch) { return &backward_dense_for<decltype(arch)>; });
  return table;
}
const simd::kernel_table<backward_selector>& backward_strided_table() {
  static const auto table = simd::make_kernel_table<backward_selector, simd::bf16_variant::yes>(
      kStridedKernel, [](auto arch) { return &backward_strided_for<decltype(arch)>; });
  return table;
}

// The longest axis the vector kernels' logsoftmax takes: they count the maxima of each lane in
// int32 (kernel_math.h: max_count), and a lane counts at most one element per axis step.
constexpr dim_t kMaxCountedAxis = std::numeric_limits<int32_t>::max();

// The tensors a kernel reads and writes.
std::vector<const memory_desc*> tensors(const problem& p) {
  if (p.dir == direction::forward) return {&p.in0, &p.out};
  return {&p.in0, &p.in1, &p.out};
}

// Why the vector kernels cannot take this problem's layout, or "" when they can. Fills the
// geometry of the kernel kind it returns in `kind`.
std::string vector_geometry(const problem& p, kernel_kind& kind, kernel_args& g) {
  const memory_desc& md = p.in0;
  for (const memory_desc* t : tensors(p)) {
    if (t->blocking() != md.blocking() || !std::equal(t->padded_dims().begin(),
                                                      t->padded_dims().end(),
                                                      md.padded_dims().begin())) {
      return "the tensors have different layouts";
    }
  }
  const blocking_desc& b = md.blocking();
  const int axis = p.axis;
  if (b.inner_nblks > 1 || (b.inner_nblks == 1 && b.inner_idxs[0] != axis)) {
    return "blocks on a dim other than the axis";
  }
  for (int d = 0; d < md.rank(); ++d) {
    if (md.padded_offsets()[d] != 0) return "padded offsets";
  }
  // The axis as nodes (outer part first, then its block if any); the other dims as one loop nest,
  // largest stride first, dims that continue each other in memory (h and w of nchw) merged.
  const axis_view view = *axis_view_of(md, axis);
  auto fill_rows = [&](int depth) {
    g.rows = {};
    g.rows.depth = depth;
    for (int l = 0; l < depth; ++l) {
      g.rows.sizes[l] = view.others.dims[l];
      g.rows.strides[l] = view.others.strides[l];
      g.rows.count *= view.others.dims[l];
    }
  };

  const dim_t len = md.dims()[axis];
  const layout_node& outer = view.axis.nodes[0];
  if (view.axis.count == 2) {
    kind = kernel_kind::dense;
    // Blocks that follow each other (nC16c with the axis's blocks adjacent) are one run.
    const layout_node& block = view.axis.nodes[1];
    const bool adjacent = outer.stride == block.size * block.stride;
    g.dense = adjacent ? dense_geometry{len, len, 0} : dense_geometry{len, block.size, outer.stride};
    fill_rows(view.others.rank);
    return "";
  }
  if (outer.stride == 1 || len == 1) {
    kind = kernel_kind::dense;
    g.dense = {len, len, 0};
    fill_rows(view.others.rank);
    return "";
  }
  // Strided: the lanes are the innermost row loop when it has stride 1 (the other dims that tile
  // a contiguous run starting at stride 1).
  const int inner = view.others.rank - 1;
  if (inner < 0 || view.others.strides[inner] != 1) return "no dim other than the axis has stride 1";
  const dim_t lanes = view.others.dims[inner];
  if (outer.stride < lanes) return "the axis lies inside the contiguous lanes";
  kind = kernel_kind::strided;
  g.strided = {len, outer.stride, lanes};
  fill_rows(inner);
  return "";
}

// How a strided kernel splits its group along the axis (kernel_args.h: axis_split), so that
// more than one thread works on it: only a single group (several groups already go to several
// threads), in parts of at least kMinPartElements elements and kMinPartSteps axis steps, and at
// most kMaxParts of them (more parts than threads keep the threads' shares even; each part merges
// all parts' partial results, so many parts would cost more than they balance). Not for more
// than kMaxSplitLanes lanes (the partial results take parts x lanes x 20 bytes).
// The part length is a multiple of 4 (the forward's exp sweep and the backward's first sweep sum
// four axis steps at a time) and, for an interleaved group (forward_interleaved,
// backward_interleaved: W / lanes axis steps per vector), of W / lanes, so that each part is
// whole vectors.
axis_split split_of(const kernel_args& g, simd::isa isa) {
  constexpr dim_t kMinPartElements = 16384, kMinPartSteps = 16, kMaxParts = 8;
  constexpr dim_t kMaxSplitLanes = 1024;
  const strided_geometry& s = g.strided;
  const int f32_lanes = 4 << simd::index_of(isa);  // of one vector: sse4_2 4, avx2 8, avx512bw 16
  if (g.rows.count != 1 || s.lanes > kMaxSplitLanes) return {};
  const dim_t parts =
      std::min({kMaxParts, s.len * s.lanes / kMinPartElements, s.len / kMinPartSteps});
  if (parts < 2) return {};
  const dim_t multiple =
      strided_is_interleaved(s, f32_lanes) ? std::max<dim_t>(4, f32_lanes / s.lanes) : 4;
  axis_split out;
  out.part_len = ((s.len + parts - 1) / parts + multiple - 1) / multiple * multiple;
  out.parts = (s.len + out.part_len - 1) / out.part_len;
  return out;
}

bool has_scales(const primitive_attr& a) { return a.src_scales || a.dst_scales || a.oscale; }

bool is_int8(data_type dt) { return dt == data_type::s8 || dt == data_type::u8; }

// The vector kernels scale their results only when src or dst is s8 or u8 (scaled_store.h).
bool scales_on_int8(const problem& p) {
  return p.dir == direction::forward && (is_int8(p.in0.dt()) || is_int8(p.out.dt()));
}

// The vector kernel of `kind` on `isa` for this problem, or nullptr with the reason in `why`.
// `layout_kind` and `layout_refusal` are vector_geometry's findings: the kind of kernel the
// layout allows, or why it allows none.
kernel_fn vector_kernel(const problem& prob, simd::isa isa, kernel_kind kind,
                        kernel_kind layout_kind, const std::string& layout_refusal,
                        std::string& why) {
  kernel_fn fn = nullptr;
  if (!layout_refusal.empty()) {
    why = layout_refusal;
  } else if (kind != layout_kind) {
    why = layout_kind == kernel_kind::dense ? "the axis is dense" : "the axis is not dense";
  } else if (has_scales(prob.attr) && prob.attr.post_ops.empty() && !scales_on_int8(prob)) {
    // The int8 kernels fold the two scales into one factor; the post-op kernel applies them
    // around its chain.
    why = "scales without an s8 or u8 tensor or post-ops are computed by the reference kernel "
          "only";
  } else if (prob.dir == direction::forward && prob.alg == softmax_alg::logsoftmax &&
             prob.in0.dims()[prob.axis] > kMaxCountedAxis) {
    why = absl::StrCat("logsoftmax counts each lane's maxima in int32: the axis length ",
                       prob.in0.dims()[prob.axis], " is above 2^31 - 1");
  } else if (prob.dir == direction::forward && !prob.attr.post_ops.empty()) {
    fn = forward_post_ops_table(kind).select(isa).fn(prob.in0.dt(), prob.out.dt());
    if (fn == nullptr) why = "types not vectorised on this ISA";
  } else if (prob.dir == direction::forward) {
    const auto& table = kind == kernel_kind::dense ? forward_dense_table()
                                                   : forward_strided_table();
    fn = table.select(isa).fn(prob.in0.dt(), prob.out.dt());
    if (fn == nullptr) why = "types not vectorised on this ISA";
  } else {
    const auto& table = kind == kernel_kind::dense ? backward_dense_table()
                                                   : backward_strided_table();
    fn = table.select(isa).fn(prob.in0.dt(), prob.in1.dt(), prob.out.dt());
    if (fn == nullptr) why = "types not vectorised on this ISA (backward needs one type)";
  }
  return fn;
}

// Sets the plan's kernel to the vector kernel `fn` of `kind` on `isa`, with the layout's geometry.
void take_vector_kernel(plan& result, kernel_kind kind, kernel_fn fn, const kernel_args& geometry,
                        simd::isa isa) {
  result.kind = kind;
  result.fn = fn;
  result.geometry = geometry;
  result.geometry.alg = result.prob.alg;
  // Neither the f64 kernel (forward_f64.h) nor the post-op kernel (forward_post_ops.h) splits
  // a group along its axis.
  if (kind == kernel_kind::strided && result.prob.in0.dt() != data_type::f64 &&
      result.prob.attr.post_ops.empty()) {
    result.geometry.split = split_of(geometry, isa);
  }
  result.work_per_item = kind == kernel_kind::dense
                             ? std::max<dim_t>(1, geometry.dense.len)
                             : std::max<dim_t>(1, geometry.strided.len * geometry.strided.lanes);
}

}  // namespace

std::vector<std::string> kernel_names() {
  std::vector<std::string> names;
  for (int i = simd::kNumIsas - 1; i >= 0; --i) {
    names.push_back(vector_kernel_name(simd::kAllIsas[i], kernel_kind::dense));
    names.push_back(vector_kernel_name(simd::kAllIsas[i], kernel_kind::strided));
  }
  names.push_back(ref_kernel_name());
  return names;
}

absl::StatusOr<plan> make_plan(const problem& prob, const softmax_options& options) {
  plan result;
  result.prob = prob;
  result.out_padding = padding_of(prob.out);
  std::vector<std::string> refusals;

  kernel_kind layout_kind = kernel_kind::ref;
  kernel_args geometry;
  const bool with_post_ops = !prob.attr.post_ops.empty();
  const std::string layout_refusal =
      with_post_ops ? post_op_geometry(prob, layout_kind, geometry, result.post_ops)
                    : vector_geometry(prob, layout_kind, geometry);
  const simd::isa best = simd::max_isa();

  // Vector kernels, best ISA first: the caller's filter may name a weaker ISA to force it.
  for (int i = simd::index_of(best); i >= 0; --i) {
    const simd::isa isa = simd::kAllIsas[i];
    for (kernel_kind k : {kernel_kind::dense, kernel_kind::strided}) {
      std::string name = vector_kernel_name(isa, k);
      if (!absl::StrContains(name, options.impl_filter)) continue;
      std::string why;
      const kernel_fn fn = vector_kernel(prob, isa, k, layout_kind, layout_refusal, why);
      if (fn == nullptr) {
        refusals.push_back(absl::StrCat(name, ": ", why));
        continue;
      }
      result.impl_name = std::move(name);
      result.declined = std::move(refusals);
      take_vector_kernel(result, k, fn, geometry, isa);
      return result;
    }
  }
  std::string ref_name = ref_kernel_name();
  if (absl::StrContains(ref_name, options.impl_filter)) {
    result.impl_name = std::move(ref_name);
    result.declined = std::move(refusals);
    result.kind = kernel_kind::ref;
    result.work_per_item = std::max<dim_t>(1, prob.in0.dims()[prob.axis]);
    return result;
  }
  return absl::NotFoundError(absl::StrCat(
      "softmax: no kernel matches impl_filter \"", options.impl_filter, "\"",
      refusals.empty() ? "" : " that accepts this problem: ", absl::StrJoin(refusals, "; "),
      " (max ISA ", simd::name_of(best), ")"));
}

}  // namespace tessera::softmax_internal
