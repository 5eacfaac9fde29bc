// PyTorch's ATen CPU kernels as a benchmark peer: the operation a framework user runs for a
// Tessera problem, on the same buffers, written into preallocated outputs (a fresh output per call
// would time the allocator). A problem has an ATen equivalent when its tensors are plain strided
// (no inner blocks, no run-time dims, no offset) and ATen computes the same values: a copy between
// any strides, f32 <-> bf16 / f16 conversions (both round to nearest even), dst += src (sum with
// beta 1), and softmax / logsoftmax forward and backward along one axis. ATen's float -> int8
// conversion truncates where oneDNN rounds, and ATen has no output scales: those are not the same
// operation and have no peer.
//
// Built against Debian's libtorch-dev when it is installed (the @aten repository,
// bazel/deps.bzl); without it, aten_available() is false and every make_* returns Unavailable,
// so the benches register no ATen rows.
//
//   if (absl::Status ok = bench::aten_reorder_expresses(src_md, dst_md, 0.f); ok.ok()) {
//     auto call = bench::make_aten_reorder(src_md, dst_md, 0.f, {src_ptr}, {dst_ptr});
//     bench::set_aten_threads(1);
//     (*call)->run(0);   // dst_ptr <- src_ptr, by ATen
//   }
#ifndef TESSERA_BENCH_ATEN_PEER_H_
#define TESSERA_BENCH_ATEN_PEER_H_

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/types/span.h"
#include "tessera/core/memory_desc.h"
#include "tessera/primitives/softmax/softmax.h"

namespace tessera::bench {

// True when the bench was built with ATen.
bool aten_available();
// "aten <version>", or why it is unavailable.
std::string aten_label();
// ATen's intra-op threads (OpenMP).
void set_aten_threads(int n);

// One prepared ATen call over buffer sets: tensors are wrapped around the buffers once, at make.
class aten_call {
 public:
  virtual ~aten_call() = default;
  // Runs on buffer set `set` (0 <= set < the number of sets given at make).
  virtual void run(int set) = 0;
};

// OK when ATen computes dst = src (beta 0) or dst += src (beta 1) for these descriptors.
absl::Status aten_reorder_expresses(const memory_desc& src, const memory_desc& dst, float beta);
// Pre: aten_reorder_expresses(src, dst, beta).ok(); srcs and dsts the same length, each buffer
// holding its descriptor's bytes.
absl::StatusOr<std::unique_ptr<aten_call>> make_aten_reorder(const memory_desc& src,
                                                             const memory_desc& dst, float beta,
                                                             absl::Span<void* const> srcs,
                                                             absl::Span<void* const> dsts);

// OK when ATen has this softmax: md plain strided, f32 or bf16, and ATen's kernel accepts it.
absl::Status aten_softmax_expresses(const memory_desc& md);
// Forward: in0 = src, out = dst. Backward: in0 = dst, in1 = diff_dst, out = diff_src. One set.
absl::StatusOr<std::unique_ptr<aten_call>> make_aten_softmax(const memory_desc& md,
                                                             softmax_alg alg, int axis,
                                                             bool backward, void* in0, void* in1,
                                                             void* out);

}  // namespace tessera::bench

#endif  // TESSERA_BENCH_ATEN_PEER_H_
