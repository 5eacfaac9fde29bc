// The transpose kernel (xsimd:<isa>:transpose<N>x<N>): the src-contiguous node against the
// dst-contiguous one, moved in tiles by the chosen ISA's register transposes, converted in the
// same pass or through scratch. Boxes without such a pair run through the strided kernel.
//
//   absl::Status why = accept_transpose(p, vk);   // ok: p.kernel holds a transpose_state
#ifndef TESSERA_PRIMITIVES_REORDER_INTERNAL_TRANSPOSE_KERNEL_H_
#define TESSERA_PRIMITIVES_REORDER_INTERNAL_TRANSPOSE_KERNEL_H_

#include <cstddef>
#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "tessera/primitives/reorder/internal/loop_nest.h"
#include "tessera/primitives/reorder/internal/vector_kernels.h"

namespace tessera::reorder_internal {

struct plan;
struct exec_ctx;

// The transpose kernel's view of one data box: the src-contiguous node `a`, the dst-contiguous
// innermost node `b` and the remaining (outer) nodes; computed at create. A short `a` run may be
// widened by the node `g` that continues it in src (src stride = a's size): the tile columns are
// then the g.size x a.size contiguous src elements, with dst offsets from `columns`.
struct transpose_box {
  int a = -1;  // -1: the box has no such pair and runs through the strided kernel
  nest_box outer;
  nest_node na, nb;
  nest_node ng;  // size 1: no widening
  // > nb.size when nb is a partial dst block: the tile also writes the block's padding (zeros).
  dim_t pad_rows = 0;

  dim_t cols() const { return na.size * ng.size; }
  // The dst offset of each column.
  dst_columns columns() const {
    return ng.size > 1 ? dst_columns{na.stride[kDst], na.size, ng.stride[kDst]}
                       : dst_columns{na.stride[kDst]};
  }
};

// One strip of a transpose box, listed at create (transpose_state::listed_strips): element
// offsets of its first element in src and dst, and its column count.
struct strip_call {
  int64_t src = 0, dst = 0, cols = 0;
  size_t box = 0;  // index into transpose_state::boxes
};

struct transpose_state {
  transpose_fn* transpose = nullptr;                  // the chosen ISA's
  convert_run_fn* convert = nullptr;                  // conversions: the second pass
  transpose_convert_fn* transpose_convert = nullptr;  // fused transpose + conversion, if any
  bool byte_blocks64 = false;  // transpose_convert's 64-row byte blocks (8-bit dst; AVX2: streamed)
  bool wide_bands = false;     // banded strips of kWideBandCols (AVX2, streamed 32-bit bit copies)
  bool stream_stores = false;  // dst written around the cache (stream_transposed_dst)
  std::vector<transpose_box> boxes;  // one per nest.data box
  // Small transposes: every strip in execution order (run_kernel then skips the task split and
  // the walk). Empty: strips are found at execution.
  std::vector<strip_call> listed_strips;
};

absl::Status accept_transpose(plan& p, const vector_kernels* vk);
void run_kernel(const plan& p, const transpose_state& s, const exec_ctx& ctx);

}  // namespace tessera::reorder_internal

#endif  // TESSERA_PRIMITIVES_REORDER_INTERNAL_TRANSPOSE_KERNEL_H_
