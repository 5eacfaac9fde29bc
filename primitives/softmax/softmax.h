// Softmax and logsoftmax, forward and backward, along any axis of any layout (oneDNN's semantics).
//
//   auto src_md = tessera::make_memory_desc({1024, 1000}, tessera::data_type::f32, "ab");
//   auto dst_md = tessera::memory_desc::any({1024, 1000}, tessera::data_type::f32);  // = src layout
//   TESSERA_ASSIGN_OR_RETURN(auto fwd, tessera::softmax_forward::create(
//       tessera::softmax_alg::softmax, *src_md, *dst_md, /*axis=*/1));
//   TESSERA_RETURN_IF_ERROR(fwd.execute({{tessera::arg::src, {*src_md, src_ptr}},
//                                        {tessera::arg::dst, {fwd.dst_desc(), dst_ptr}}}));
//   // fwd.impl_name() is e.g. "xsimd:avx512bw:dense"; force a kernel for testing with
//   // softmax_options{.impl_filter = "ref"}.
//
//   dst = exp(src - max) / sum(exp(src - max))          softmax
//   dst = (src - max) - log(sum(exp(src - max)))        logsoftmax
//   diff_src = dst * (diff_dst - sum(diff_dst * dst))   softmax backward
//   diff_src = diff_dst - exp(dst) * sum(diff_dst)      logsoftmax backward
// Sums and maxima run along `axis`; every other index is an independent row. A row that is all -Inf
// gives NaN with softmax (like oneDNN's accurate algorithm) and 0 with softmax_inf_as_zero.
// int8 outputs: dst = saturate(round(result * src_scale / dst_scale)); the scales are f32 values
// passed at execution (arg::src_scales, arg::dst_scales; common, mask 0) or a 2.x output scale.
#ifndef TESSERA_PRIMITIVES_SOFTMAX_SOFTMAX_H_
#define TESSERA_PRIMITIVES_SOFTMAX_SOFTMAX_H_

#include <memory>
#include <string>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"
#include "tessera/core/memory_desc.h"
#include "tessera/primitives/common/arg.h"
#include "tessera/primitives/common/attr.h"

namespace tessera {

class thread_pool;  // <tessera/primitives/runtime/threads.h>

enum class softmax_alg {
  softmax,
  logsoftmax,
  softmax_inf_as_zero,  // softmax, but a row that is all -Inf gives 0 (oneDNN 3.x accurate_inf_as_zero)
};

absl::string_view name_of(softmax_alg alg);  // "softmax", "logsoftmax", "softmax_inf_as_zero"

// Creation options beyond oneDNN's.
struct softmax_options {
  // Keep only the kernels whose impl_name contains this text ("" keeps all): "ref",
  // "avx2", "xsimd:avx512bw:dense". Creation fails, listing each kernel's refusal, when none fits.
  std::string impl_filter;
};

namespace softmax_internal {
struct plan;  // the chosen kernel and the normalised problem (internal/plan.h)
}

class softmax_forward {
 public:
  // dst may be format_kind::any: it then takes src's layout (made dense) with dst's type.
  // attr: src_scales / dst_scales with mask 0, or an output scale with mask 0; nothing else.
  static absl::StatusOr<softmax_forward> create(softmax_alg alg, const memory_desc& src,
                                                const memory_desc& dst, int axis,
                                                const primitive_attr& attr = {},
                                                const softmax_options& options = {});

  // arg::src, arg::dst (dst may be the same buffer as src when both descriptors are equal),
  // arg::src_scales / arg::dst_scales when the attributes ask for them. Thread-safe.
  absl::Status execute(const exec_args& args) const;
  // As above, with this call's parallel work on `pool` instead of the process-wide pool
  // (oneDNN's per-stream thread pool); same result. `pool` must follow thread_pool's contract.
  absl::Status execute(const exec_args& args, thread_pool& pool) const;

  const std::string& impl_name() const;
  const memory_desc& src_desc() const;
  const memory_desc& dst_desc() const;
  softmax_alg alg() const;
  int axis() const;

 private:
  explicit softmax_forward(std::shared_ptr<const softmax_internal::plan> p) : plan_(std::move(p)) {}
  std::shared_ptr<const softmax_internal::plan> plan_;
};

class softmax_backward {
 public:
  // diff_src may be format_kind::any: it then takes diff_dst's layout. Types: f32, f64, bf16, f16.
  static absl::StatusOr<softmax_backward> create(softmax_alg alg, const memory_desc& diff_src,
                                                 const memory_desc& diff_dst,
                                                 const memory_desc& dst, int axis,
                                                 const primitive_attr& attr = {},
                                                 const softmax_options& options = {});

  // arg::dst, arg::diff_dst, arg::diff_src (may be the buffer of diff_dst when the descriptors
  // are equal).
  absl::Status execute(const exec_args& args) const;
  // As above, with this call's parallel work on `pool` instead of the process-wide pool
  // (oneDNN's per-stream thread pool); same result. `pool` must follow thread_pool's contract.
  absl::Status execute(const exec_args& args, thread_pool& pool) const;

  const std::string& impl_name() const;
  const memory_desc& diff_src_desc() const;
  const memory_desc& diff_dst_desc() const;
  const memory_desc& dst_desc() const;
  softmax_alg alg() const;
  int axis() const;

 private:
  explicit softmax_backward(std::shared_ptr<const softmax_internal::plan> p) : plan_(std::move(p)) {}
  std::shared_ptr<const softmax_internal::plan> plan_;
};

// Names of every kernel this build knows, best first (for the driver's --impl listing).
std::vector<std::string> softmax_kernel_names();

}  // namespace tessera

#endif  // TESSERA_PRIMITIVES_SOFTMAX_SOFTMAX_H_
