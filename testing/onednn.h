// The oneDNN 2.6.3 oracle bridge: Tessera descriptors as oneDNN descriptors (and back), a shared
// CPU engine, and oneDNN's reorder and softmax (with 3.x's post-ops emulated) run on raw
// buffers, for tests and benchmarks.
//
//   namespace tt = tessera::testing;
//   absl::StatusOr<dnnl::memory::desc> d = tt::to_dnnl(md);        // blocked, padded, offset0: all
//   tessera::primitive_attr attr;
//   attr.oscale = tessera::output_scales{.mask = 0, .values = {0.5f}};
//   ASSERT_TRUE(tt::onednn_reorder({{tessera::arg::src, src}, {tessera::arg::dst, want}}, attr).ok());
//   ASSERT_TRUE(tt::onednn_softmax_forward(src, want, /*axis=*/1, /*log=*/false).ok());
//
// oneDNN 2.6.3 knows f32, bf16, f16, s32, s8 and u8; f64 and the f8 types give kUnimplemented.
// Errors oneDNN raises (dnnl::error) come back as absl::Status, never as exceptions.
#ifndef TESSERA_TESTING_ONEDNN_H_
#define TESSERA_TESTING_ONEDNN_H_

#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "oneapi/dnnl/dnnl.hpp"
#include "tessera/core/memory_desc.h"
#include "tessera/primitives/common/arg.h"
#include "tessera/primitives/common/attr.h"
#include "tessera/primitives/common/memory.h"
#include "tessera/primitives/common/post_ops.h"

namespace tessera::testing {

absl::StatusOr<dnnl::memory::data_type> to_dnnl(data_type dt);
absl::StatusOr<data_type> from_dnnl(dnnl::memory::data_type dt);

// Every field of a blocked descriptor is carried over: dims, padded dims, padded offsets,
// offset0, strides, inner blocks and the extra fields (flags, compensation masks, scale
// adjustment). format_kind any -> dnnl any; undef -> an empty desc.
absl::StatusOr<dnnl::memory::desc> to_dnnl(const memory_desc& md);
// The inverse for blocked, any and empty descriptors. Errors: other oneDNN format kinds, data
// types Tessera lacks, and (memory_desc has no way to express them from outside) a nonzero
// offset0 or padded_offsets, or more padding than the inner blocks need.
absl::StatusOr<memory_desc> from_dnnl(const dnnl::memory::desc& md);

// One CPU engine for the process, and a stream per calling thread.
const dnnl::engine& cpu_engine();
dnnl::stream& cpu_stream();

// oneDNN's reorder from args[arg::src] to args[arg::dst] with 2.x attributes: attr.oscale
// (values at creation), attr.src_zero_points / dst_zero_points (values read at execution from
// args[arg::src_zero_points] / args[arg::dst_zero_points], s32), attr.sum (beta, zero point).
// attr.src_scales / dst_scales give kUnimplemented: 2.6.3's reorder only has output scales
// (express a common src_scale / dst_scale as oscale).
absl::Status onednn_reorder(const exec_args& args, const primitive_attr& attr = {});

// softmax_v2 forward (algorithm softmax_accurate, or softmax_log when log) over `axis`:
// src -> dst; the data types may differ.
absl::Status onednn_softmax_forward(const memory& src, const memory& dst, int axis, bool log);
// oneDNN 3.x's softmax with post-ops, built from 2.6.3 primitives (its softmax takes no
// post-ops): the softmax into a dense f32 buffer of src's dims, then each of `post_ops` as its
// own binary or eltwise primitive on that buffer, in place, then a reorder into dst. 3.x computes
// the chain in f32 registers after the f32 softmax; here each step rounds to f32 likewise. Binary
// operands are converted to f32 first (exactly).
// operands[i] is post-op i's second operand (binary; unused for eltwise).
absl::Status onednn_softmax_forward_with_post_ops(const memory& src, const memory& dst, int axis,
                                                  bool log, const post_ops_list& post_ops,
                                                  const std::vector<memory>& operands);
// softmax_v2 backward: (dst, diff_dst) -> diff_src.
absl::Status onednn_softmax_backward(const memory& dst, const memory& diff_dst,
                                     const memory& diff_src, int axis, bool log);

}  // namespace tessera::testing

#endif  // TESSERA_TESTING_ONEDNN_H_
