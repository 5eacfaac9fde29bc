// A created reorder: the normalised problem, the chosen kernel and what it needs at execution.
// Immutable once built; shared by every copy of a reorder and by the primitive cache.
#ifndef TESSERA_PRIMITIVES_REORDER_INTERNAL_PLAN_H_
#define TESSERA_PRIMITIVES_REORDER_INTERNAL_PLAN_H_

#include <string>
#include <vector>

#include "tessera/core/memory_desc.h"
#include "tessera/primitives/common/attr.h"
#include "tessera/primitives/reorder/internal/element_math.h"
#include "tessera/primitives/reorder/internal/loop_nest.h"
#include "tessera/primitives/reorder/internal/vector_kernels.h"

namespace tessera::reorder_internal {

// The buffers of one execution (quantization arrays already checked against the attributes).
struct exec_ctx {
  const char* src = nullptr;
  char* dst = nullptr;
  quant_ptrs q;
};

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

// One strip of a transpose box, listed at create (plan::listed_strips): element offsets of its
// first element in src and dst, and its column count.
struct strip_call {
  int64_t src = 0, dst = 0, cols = 0;
  size_t box = 0;  // index into plan::transpose_boxes
};

struct plan;
using run_fn = void(const plan&, const exec_ctx&);

struct plan {
  memory_desc src, dst;
  primitive_attr attr;
  operand_masks masks;
  // Equal types and no attributes: elements are copied as bits (NaN payloads, -0 kept).
  bool bit_copy = false;
  bool normalised = false;  // false: `nest` is empty and only the element-wise kernel applies
  std::string normalise_error;
  loop_nest nest;
  size_t main_box = 0;  // the data box with the most elements; kernels are chosen on it

  std::string impl_name;
  std::vector<std::string> declined;
  run_fn* run = nullptr;
  bool run_writes_padding = false;        // else execute() zeroes nest.padding itself
  convert_run_fn* convert = nullptr;      // the chosen ISA's, when the kernel converts runs
  transpose_fn* transpose = nullptr;      // the chosen ISA's, when the kernel transposes tiles
  transpose_convert_fn* transpose_convert = nullptr;  // fused transpose + conversion, if any
  bool byte_blocks64 = false;  // transpose_convert's 64-row byte blocks (8-bit dst; AVX2: streamed)
  bool wide_bands = false;     // banded strips of kWideBandCols (AVX2, streamed 32-bit bit copies)
  std::vector<transpose_box> transpose_boxes;         // one per nest.data box
  // Small transposes: every strip in execution order (run_transpose then skips the task split
  // and the walk). Empty: strips are found at execution.
  std::vector<strip_call> listed_strips;
  // The gather kernel (small problems of tiny tiles): for each dst element from gather_dst_base
  // on, in memory order, the src element offset it takes, or -1 for padding (zero).
  std::vector<int32_t> gather_src;
  int64_t gather_dst_base = 0;
  // With per-dimension quantization: each dst element's offsets into the five quantization
  // operands (kSrcScale .. kOscale, kGatherQuantOperands per element; 0 for padding), and the
  // exact conversions around the f32 arithmetic (src -> f32, dst -> f32 for the sum's old
  // values, f32 -> dst). Empty / null when the quantization is common.
  std::vector<int32_t> gather_quant;
  convert_run_fn* gather_src_to_f32 = nullptr;
  convert_run_fn* gather_dst_to_f32 = nullptr;
  convert_run_fn* gather_f32_to_dst = nullptr;
  bool stream_stores = false;  // dst large enough that caching its lines only evicts the src
  int64_t src_bytes = 0, dst_bytes = 0;  // size_bytes() of src and dst

  std::string descs_text;    // verbose line fields
  std::string problem_text;
};

}  // namespace tessera::reorder_internal

#endif  // TESSERA_PRIMITIVES_REORDER_INTERNAL_PLAN_H_
