#include "tessera/primitives/reorder/internal/reference_kernel.h"

#include <array>
#include <cstring>

#include "absl/types/span.h"
#include "tessera/primitives/reorder/internal/element_math.h"
#include "tessera/primitives/reorder/internal/low_precision_kernel.h"
#include "tessera/primitives/reorder/internal/plan.h"
#include "tessera/primitives/reorder/internal/quant_offsets.h"

namespace tessera::reorder_internal {
namespace {

template <class S, class D>
void elementwise(const plan& p, const exec_ctx& ctx) {
  const int rank = p.dst.rank();
  const S* src = reinterpret_cast<const S*>(ctx.src);
  D* dst = reinterpret_cast<D*>(ctx.dst);
  std::array<dim_t, kMaxRank> idx{};
  // Walks the padded dst index space; the logical part is converted, the rest zeroed.
  const auto padded = p.dst.padded_dims();
  for (int d = 0; d < rank; ++d) {
    if (padded[d] == 0) return;
  }
  while (true) {
    bool inside = true;
    for (int d = 0; d < rank; ++d) inside = inside && idx[d] < p.dst.dims()[d];
    const absl::Span<const dim_t> index(idx.data(), rank);
    D* out = dst + p.dst.offset(index);
    if (!inside) {
      std::memset(out, 0, sizeof(D));
    } else if (p.bit_copy) {
      std::memcpy(out, src + p.src.offset(index), sizeof(D));
    } else {
      const strides_t off = quant_offsets(p.masks, p.dst.dims(), idx);
      *out = apply_one<S, D>(src[p.src.offset(index)], out, ctx.q, off);
    }
    int d = rank - 1;
    for (; d >= 0; --d) {
      if (++idx[d] < padded[d]) break;
      idx[d] = 0;
    }
    if (d < 0) break;
  }
}

}  // namespace

void run_kernel(const plan& p, const reference_state&, const exec_ctx& ctx) {
  if (runs_element_by_element(p)) {
    run_low_precision(p, ctx);
    return;
  }
  visit_type_pair(p.src.dt(), p.dst.dt(), [&](auto s, auto d) {
    elementwise<decltype(s), decltype(d)>(p, ctx);
  });
}

absl::Status accept_reference(plan& p) {
  p.kernel = reference_state{};
  p.run_writes_padding = true;
  return absl::OkStatus();
}

}  // namespace tessera::reorder_internal
