// The normalised form of a reorder: boxes of nested loops over (size, stride per operand) nodes.
//
//   TESSERA_ASSIGN_OR_RETURN(auto plan, normalise(src_md, dst_md, masks));
//   for (const nest_box& box : plan.data) ...   // copy/convert these elements
//   for (const nest_box& box : plan.padding) ... // write zeros to dst only
//
// The normalisation itself is formats/loop_nest.h's (`tessera::normalise`, its pre- and
// post-conditions there): every blocked dim split into digits on the common refinement of the src
// and dst block chains, partial blocks cut into rectangular boxes, nodes ordered outermost first by
// dst stride (then src stride) and merged where contiguous in every operand. What is the reorder's
// own is the operands: src and dst (nodes_of their memory_descs, offset0 as base), and the scale
// and zero-point arrays, plain strided operands over the dims of their masks (built here).
#ifndef TESSERA_PRIMITIVES_REORDER_INTERNAL_LOOP_NEST_H_
#define TESSERA_PRIMITIVES_REORDER_INTERNAL_LOOP_NEST_H_

#include <array>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "tessera/core/memory_desc.h"
#include "tessera/formats/loop_nest.h"

namespace tessera::reorder_internal {

// What every loop node strides over. Scale and zero-point operands index the value arrays given at
// execution (stride 0 along dims outside their mask).
enum operand : int { kSrc, kDst, kSrcScale, kDstScale, kSrcZp, kDstZp, kOscale, kOperands };
using strides_t = std::array<dim_t, kOperands>;

using nest_node = tessera::nest_node<kOperands>;
using nest_box = tessera::nest_box<kOperands>;    // base: per operand; nodes: outermost first
using loop_nest = tessera::joint_nest<kOperands>;  // data, padding (src strides meaningless)

// Masks of the per-dim operands (bit d: one value per index of logical dim d); -1 = absent.
struct operand_masks {
  int src_scale = -1, dst_scale = -1, src_zp = -1, dst_zp = -1, oscale = -1;
};

// Fails (kUnimplemented) only when the block chains of some dim do not divide each other
// (e.g. src blocks a dim by 16 and dst by 12); the caller then uses the element-wise kernel.
absl::StatusOr<loop_nest> normalise(const memory_desc& src, const memory_desc& dst,
                                    const operand_masks& masks);

// Sorts by dst stride (outermost first) and merges nodes contiguous in every operand.
inline void order_and_merge(std::vector<nest_node>& nodes) {
  tessera::order_and_merge(nodes, kDst, kSrc);
}

// "(size:src_stride/dst_stride) ..." for verbose lines and test messages.
std::string to_string(const nest_box& box);

}  // namespace tessera::reorder_internal

#endif  // TESSERA_PRIMITIVES_REORDER_INTERNAL_LOOP_NEST_H_
