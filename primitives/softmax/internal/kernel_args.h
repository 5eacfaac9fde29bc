// What a vectorised softmax kernel sees: base pointers, element types and the geometry of the rows,
// already normalised by plan.cc. Kernels never look at a memory_desc.
#ifndef TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_KERNEL_ARGS_H_
#define TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_KERNEL_ARGS_H_

#include <array>
#include <cstdint>

#include "tessera/core/data_type.h"
#include "tessera/core/memory_desc.h"
#include "tessera/primitives/softmax/internal/post_op_chain.h"
#include "tessera/primitives/softmax/softmax.h"

namespace tessera::softmax_internal {

// The independent rows (or, for the strided kernel, groups of rows): a loop nest over the dims that
// are not the axis, outermost first. All tensors of a problem share it (kernels require equal
// layouts), so one element offset serves every tensor.
struct row_loops {
  int depth = 0;
  std::array<dim_t, kMaxRank> sizes{};
  std::array<dim_t, kMaxRank> strides{};
  dim_t count = 1;

  dim_t offset_of(dim_t row) const {
    dim_t off = 0;
    for (int l = depth - 1; l >= 0; --l) {
      off += (row % sizes[l]) * strides[l];
      row /= sizes[l];
    }
    return off;
  }
};

// Dense kernel: element a of a row sits at (a / chunk) * chunk_stride + a % chunk. A plain layout
// with the axis innermost has one chunk (chunk = len); nChw16c along C has chunk = 16.
struct dense_geometry {
  dim_t len = 0;
  dim_t chunk = 0;
  dim_t chunk_stride = 0;
};

// Strided kernel: `lanes` neighbouring rows are contiguous; element a of lane j sits at
// a * axis_stride + j. The kernel vectorises across lanes and loops along the axis.
struct strided_geometry {
  dim_t len = 0;
  dim_t axis_stride = 0;
  dim_t lanes = 0;
};

// Whether the strided forward takes a group of geometry g as one contiguous block of W-lane
// vectors (forward_interleaved): fewer lanes than a vector, a whole number of copies of them per
// vector, and the axis steps back to back (30000x8 along dim 0 with W = 16).
inline bool strided_is_interleaved(const strided_geometry& g, int width) {
  return g.lanes < width && width % g.lanes == 0 && g.axis_stride == g.lanes;
}

// A single strided group split along its axis, so that more than one thread can work on it
// (plan.cc decides when; threads otherwise split groups, never the axis). The axis is cut into
// `parts` parts of `part_len` steps (the last may be shorter), and the kernel runs once per phase,
// each a parallel_for over the parts (softmax.cc). Forward, three phases: phase 0 finds each
// part's per-lane max and min; phase 1 merges them and sums each part's exps; phase 2 merges the
// sums and normalises each part. Backward, two: phase 0 sums each part's dy * y (softmax) or dy
// (logsoftmax) per lane; phase 1 merges the sums and computes each part's dx. The parts depend on
// the problem only, not on the thread count, so neither do the results. The partial results go
// through buffers of parts x lanes entries, part-major.
struct axis_split {
  dim_t parts = 0;  // 0: the axis is not split
  dim_t part_len = 0;
  int phase = 0;
  float* max = nullptr;
  float* min = nullptr;
  double* count = nullptr;  // logsoftmax's count of elements equal to the max
  // The sum of the other exps (softmax: of all of them); backward: of dy * y (softmax) or dy.
  double* rest = nullptr;
};

struct kernel_args {
  softmax_alg alg = softmax_alg::softmax;
  // Forward: in0 = src, out = dst. Backward: in0 = dst, in1 = diff_dst, out = diff_src.
  // Pointers already include each tensor's offset0.
  const void* in0 = nullptr;
  const void* in1 = nullptr;
  void* out = nullptr;
  row_loops rows;
  dense_geometry dense;
  strided_geometry strided;
  axis_split split;  // strided kernels only
  // Forward kernels with an s8 or u8 tensor: their results are multiplied by this before the
  // conversion to dst (src_scale / dst_scale, or a 2.x output scale; 1 without scales). The
  // post-op kernel: the softmax's result is multiplied by this (src_scale or the output scale)
  // before the chain, and the chain's by post_op_scale (1 / dst_scale) after it.
  // Filled per execution. Other kernels ignore them (scaled_store.h).
  float out_scale = 1.f;
  float post_op_scale = 1.f;
  const post_op_chain* post_ops = nullptr;  // forward_post_ops only
};

// Processes rows (or row groups) [begin, end).
using kernel_fn = void (*)(const kernel_args& args, dim_t begin, dim_t end);

}  // namespace tessera::softmax_internal

#endif  // TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_KERNEL_ARGS_H_
