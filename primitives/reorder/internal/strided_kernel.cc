#include "tessera/primitives/reorder/internal/strided_kernel.h"

#include <algorithm>
#include <cstring>

#include "tessera/core/status.h"
#include "tessera/primitives/reorder/internal/element_math.h"
#include "tessera/primitives/reorder/internal/kernel_rules.h"
#include "tessera/primitives/reorder/internal/nest_walk.h"
#include "tessera/primitives/reorder/internal/plan.h"
#include "tessera/primitives/runtime/threads.h"

namespace tessera::reorder_internal {
namespace {

template <class S, class D>
void strided_box(const plan& p, const exec_ctx& ctx, const nest_box& box) {
  const size_t n = box.nodes.size();
  const size_t outer = n == 0 ? 0 : n - 1;
  const nest_node inner = n == 0 ? nest_node{} : box.nodes[n - 1];
  const int64_t outer_count = product(box, 0, outer);
  const S* src = reinterpret_cast<const S*>(ctx.src);
  D* dst = reinterpret_cast<D*>(ctx.dst);
  const bool bit_copy = p.bit_copy;
  parallel_for(outer_count, std::max<int64_t>(1, kMinElementsPerTask / inner.size),
               [&](int64_t begin, int64_t end) {
                 walk(box, outer, begin, end, [&](strides_t off) {
                   for (dim_t i = 0; i < inner.size; ++i) {
                     if (bit_copy) {
                       std::memcpy(dst + off[kDst], src + off[kSrc], sizeof(D));
                     } else {
                       dst[off[kDst]] = apply_one<S, D>(src[off[kSrc]], dst + off[kDst], ctx.q, off);
                     }
                     for (int op = 0; op < kOperands; ++op) off[op] += inner.stride[op];
                   }
                 });
               });
}

}  // namespace

void run_strided_box(const plan& p, const exec_ctx& ctx, const nest_box& box) {
  visit_type_pair(p.src.dt(), p.dst.dt(), [&](auto s, auto d) {
    strided_box<decltype(s), decltype(d)>(p, ctx, box);
  });
}

void run_kernel(const plan& p, const strided_state&, const exec_ctx& ctx) {
  for (const nest_box& box : p.nest.data) run_strided_box(p, ctx, box);
}

absl::Status accept_strided(plan& p) {
  TESSERA_RETURN_IF_ERROR(need_nest(p));
  p.kernel = strided_state{};
  return absl::OkStatus();
}

}  // namespace tessera::reorder_internal
