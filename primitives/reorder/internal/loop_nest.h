// The normalised form of a reorder: boxes of nested loops over (size, stride per operand) nodes.
//
//   TESSERA_ASSIGN_OR_RETURN(auto plan, normalise(src_md, dst_md, masks));
//   for (const nest_box& box : plan.data) ...   // copy/convert these elements
//   for (const nest_box& box : plan.padding) ... // write zeros to dst only
//
// Every blocked dim is split into digits on the common refinement of the src and dst block chains;
// a dim whose size is not a multiple of its blocks is cut into rectangular boxes (full blocks, then
// the partial one), so every box is a plain loop nest. Nodes of a box that are contiguous in every
// operand are merged, size-1 nodes dropped, and the rest ordered outermost first by dst stride.
#ifndef TESSERA_PRIMITIVES_REORDER_INTERNAL_LOOP_NEST_H_
#define TESSERA_PRIMITIVES_REORDER_INTERNAL_LOOP_NEST_H_

#include <array>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tessera/core/memory_desc.h"

namespace tessera::reorder_internal {

// What every loop node strides over. Scale and zero-point operands index the value arrays given at
// execution (stride 0 along dims outside their mask).
enum operand : int { kSrc, kDst, kSrcScale, kDstScale, kSrcZp, kDstZp, kOscale, kOperands };
using strides_t = std::array<dim_t, kOperands>;

struct nest_node {
  dim_t size = 1;
  strides_t stride{};
};

struct nest_box {
  strides_t base{};               // element offsets of the box's first element per operand
  std::vector<nest_node> nodes;   // outermost first
  dim_t elements() const;
};

struct loop_nest {
  std::vector<nest_box> data;     // src -> dst elements
  std::vector<nest_box> padding;  // dst padding to zero (src strides meaningless)
  dim_t total_elements = 0;       // over `data`
};

// Masks of the per-dim operands (bit d: one value per index of logical dim d); -1 = absent.
struct operand_masks {
  int src_scale = -1, dst_scale = -1, src_zp = -1, dst_zp = -1, oscale = -1;
};

// Fails (kUnimplemented) only when the block chains of some dim do not divide each other
// (e.g. src blocks a dim by 16 and dst by 12); the caller then uses the element-wise kernel.
absl::StatusOr<loop_nest> normalise(const memory_desc& src, const memory_desc& dst,
                                    const operand_masks& masks);

// Sorts by dst stride (outermost first) and merges nodes contiguous in every operand.
void order_and_merge(std::vector<nest_node>& nodes);

// "(size:src_stride/dst_stride) ..." for verbose lines and test messages.
std::string to_string(const nest_box& box);

}  // namespace tessera::reorder_internal

#endif  // TESSERA_PRIMITIVES_REORDER_INTERNAL_LOOP_NEST_H_
