// reorder: copies a tensor between any two layouts and element types, with optional
// quantization attributes (oneDNN's reorder semantics).
//
//   auto src_md = tessera::make_memory_desc({2, 16, 8, 8}, tessera::data_type::f32, "nchw");
//   auto dst_md = tessera::make_memory_desc({2, 16, 8, 8}, tessera::data_type::bf16, "nChw16c");
//   TESSERA_ASSIGN_OR_RETURN(tessera::reorder r, tessera::reorder::create(*src_md, *dst_md));
//   TESSERA_RETURN_IF_ERROR(r.execute({{tessera::arg_from, {*src_md, src_ptr}},
//                                      {tessera::arg_to, {*dst_md, dst_ptr}}}));
//   r.impl_name();   // e.g. "xsimd:avx512bw:transpose"
//
//   // Quantize with a scale given at execution: dst = src * scale, rounded half to even, saturated.
//   tessera::primitive_attr attr;
//   attr.src_scales = tessera::quant_param{.mask = 0};
//   auto q = tessera::reorder::create(*src_md, *s8_md, attr);
//   q->execute({{tessera::arg_from, src}, {tessera::arg_to, dst}, {tessera::arg::src_scales, scale}});
//
//   // Created once for shapes known at execution: dims (and strides) kRuntimeDim in the
//   // descriptors of creation, the concrete descriptors passed with the buffers.
//   auto p = tessera::make_memory_desc({tessera::kRuntimeDim, 16}, tessera::data_type::f32, "ab");
//   auto rt = tessera::reorder::create(*p, *p);              // impl_name() "native:any:per_shape"
//   auto c = tessera::make_memory_desc({5, 16}, tessera::data_type::f32, "ab");
//   rt->execute({{tessera::arg_from, {*c, src_ptr}}, {tessera::arg_to, {*c, dst_ptr}}});
//
//   // Templated, memory-object free:
//   TESSERA_RETURN_IF_ERROR(tessera::reorder_typed<float, tessera::bf16>(src, *src_md, dst, *dst_md));
//
// Semantics (docs/reorder.md): for every logical index x,
//   dst(x) = (src_scale * oscale * (src(x) - src_zp) + beta * (dst(x) - dst_zp)) / dst_scale + dst_zp
// computed in f32 (f64 when either side is f64) in exactly that order, then converted with the
// scalar conversions of <tessera/core/convert.h> (round half to even, saturation). A reorder
// between equal types without attributes copies bits. Padding of a blocked dst is written with
// zeros. Errors leave the destination untouched.
#ifndef TESSERA_PRIMITIVES_REORDER_REORDER_H_
#define TESSERA_PRIMITIVES_REORDER_REORDER_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "tessera/core/data_type.h"
#include "tessera/core/memory_desc.h"
#include "tessera/primitives/common/arg.h"
#include "tessera/primitives/common/attr.h"
#include "tessera/primitives/common/memory.h"

namespace tessera {

class thread_pool;  // <tessera/primitives/runtime/threads.h>

namespace reorder_internal {
struct plan;
}

// Restricts which implementations create() may choose.
struct reorder_options {
  // Only candidates whose impl_name() contains this text: "ref", "transpose", "avx2:",
  // "xsimd:sse4_2:convert". Empty: all.
  std::string impl_filter;
};

class reorder {
 public:
  static absl::StatusOr<reorder> create(const memory_desc& src, const memory_desc& dst,
                                        const primitive_attr& attr = {});
  // As above, choosing only among the candidates the options allow; fails (naming every
  // candidate's reason) when none of them accepts. Not cached.
  static absl::StatusOr<reorder> create(const memory_desc& src, const memory_desc& dst,
                                        const primitive_attr& attr, const reorder_options& options);

  // Arguments: arg_from and arg_to (descriptors equal to those given at creation), plus
  // src_scales / dst_scales (f32) and src_zero_points / dst_zero_points (s32) when the attributes
  // declare them: one value for mask 0, else one per index of the masked dims (row-major).
  // Created with run-time dims or strides: arg_from and arg_to carry concrete descriptors that
  // fit the created ones (memory_desc::check_fits; the error names the dim that does not fit),
  // the values are counted over the concrete dims, and the kernel is the one create() would
  // choose for the concrete descriptors, planned on a shape's first call and then looked up.
  absl::Status execute(const exec_args& args) const;
  // As above, with this call's parallel work on `pool` instead of the process-wide pool
  // (oneDNN's per-stream thread pool); same result. `pool` must follow thread_pool's contract.
  absl::Status execute(const exec_args& args, thread_pool& pool) const;

  // "<engine>:<isa>:<kernel>", e.g. "xsimd:avx512bw:transpose", "native:any:strided".
  const std::string& impl_name() const;
  const memory_desc& src_desc() const;
  const memory_desc& dst_desc() const;
  const primitive_attr& attr() const;
  // "<candidate>: <reason>" for each candidate tried before the chosen one.
  const std::vector<std::string>& declined() const;

 private:
  explicit reorder(std::shared_ptr<const reorder_internal::plan> plan) : plan_(std::move(plan)) {}
  std::shared_ptr<const reorder_internal::plan> plan_;
};

// The names of the kernels create() tries, in its order (best first), under the current ISA cap
// (simd::max_isa). Each is a valid reorder_options::impl_filter that forces that kernel.
std::vector<std::string> reorder_kernel_names();

// Values for reorder_typed's quantization attributes (only those the attr declares are read).
struct quant_values {
  std::vector<float> src_scales, dst_scales;
  std::vector<int32_t> src_zero_points, dst_zero_points;
};

// The reorder of typed buffers: checks that S and D are the descriptors' element types, creates
// (through the cache) and executes.
template <Element S, Element D>
absl::Status reorder_typed(const S* src, const memory_desc& src_desc, D* dst,
                           const memory_desc& dst_desc, const primitive_attr& attr = {},
                           const quant_values& quant = {});

namespace reorder_internal {
absl::Status reorder_untyped(data_type s, const void* src, const memory_desc& src_desc,
                             data_type d, void* dst, const memory_desc& dst_desc,
                             const primitive_attr& attr, const quant_values& quant);
}

template <Element S, Element D>
absl::Status reorder_typed(const S* src, const memory_desc& src_desc, D* dst,
                           const memory_desc& dst_desc, const primitive_attr& attr,
                           const quant_values& quant) {
  return reorder_internal::reorder_untyped(element_traits<S>::type, src, src_desc,
                                           element_traits<D>::type, dst, dst_desc, attr, quant);
}

}  // namespace tessera

#endif  // TESSERA_PRIMITIVES_REORDER_REORDER_H_
