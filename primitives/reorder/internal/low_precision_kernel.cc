#include "tessera/primitives/reorder/internal/low_precision_kernel.h"

#include <array>
#include <cstring>
#include <type_traits>

#include "absl/types/span.h"
#include "tessera/core/low_precision.h"
#include "tessera/core/stochastic_round.h"
#include "tessera/primitives/reorder/internal/element_math.h"
#include "tessera/primitives/reorder/internal/plan.h"
#include "tessera/primitives/reorder/internal/quant_offsets.h"

namespace tessera::reorder_internal {
namespace {

// Stands for a side whose type has no C++ element type (its codes are read and written through
// load_code / store_code).
struct code_tag {};

template <class T>
constexpr bool is_code_v = std::is_same_v<T, code_tag>;

template <class Acc, class T>
Acc read(data_type dt, const char* base, dim_t off) {
  if constexpr (is_code_v<T>) {
    return static_cast<Acc>(low_precision_to_f32(dt, load_code(dt, base, off)));
  } else {
    T v;
    std::memcpy(&v, base + off * static_cast<dim_t>(sizeof(T)), sizeof(T));
    return widen<Acc>(v);
  }
}

template <class T, class Acc>
void write(data_type dt, char* base, dim_t off, Acc v) {
  if constexpr (is_code_v<T>) {
    if constexpr (std::is_same_v<Acc, double>) {
      store_code(dt, base, off, low_precision_from_f64(dt, v));
    } else {
      store_code(dt, base, off, low_precision_from_f32(dt, v));
    }
  } else {
    const T out = narrow<T>(v);
    std::memcpy(base + off * static_cast<dim_t>(sizeof(T)), &out, sizeof(T));
  }
}

template <class T>
void write_zero(data_type dt, char* base, dim_t off) {
  if constexpr (is_code_v<T>) {
    store_code(dt, base, off, 0);
  } else {
    std::memset(base + off * static_cast<dim_t>(sizeof(T)), 0, sizeof(T));
  }
}

// One element, in apply_one's order (element_math.h), then stochastic rounding where the
// attributes ask for it (in f32, as oneDNN: `logical` is the element's row-major logical index).
template <class S, class D, class Acc>
void convert_one(const plan& p, const exec_ctx& ctx, dim_t from, dim_t to, const strides_t& off,
                 dim_t logical) {
  const quant_ptrs& q = ctx.q;
  Acc x = read<Acc, S>(p.src.dt(), ctx.src, from);
  if (q.src_zp) x -= static_cast<Acc>(q.src_zp[off[kSrcZp]]);
  if (q.src_scale) x *= static_cast<Acc>(q.src_scale[off[kSrcScale]]);
  if (q.oscale) x *= static_cast<Acc>(q.oscale[off[kOscale]]);
  if (q.has_sum) {
    const Acc zp = q.dst_zp ? static_cast<Acc>(q.dst_zp[off[kDstZp]]) : static_cast<Acc>(q.sum_zp);
    x += static_cast<Acc>(q.beta) * (read<Acc, D>(p.dst.dt(), ctx.dst, to) - zp);
  }
  if (q.dst_scale) x /= static_cast<Acc>(q.dst_scale[off[kDstScale]]);
  if (q.dst_zp) x += static_cast<Acc>(q.dst_zp[off[kDstZp]]);
  if (q.stochastic) {
    x = static_cast<Acc>(stochastic_round(static_cast<float>(x), logical, q.seed, p.dst.dt()));
  }
  write<D>(p.dst.dt(), ctx.dst, to, x);
}

template <class S, class D>
void elementwise(const plan& p, const exec_ctx& ctx) {
  using Acc = std::conditional_t<std::is_same_v<S, double> || std::is_same_v<D, double>, double,
                                 float>;
  const int rank = p.dst.rank();
  const auto dims = p.dst.dims();
  const auto padded = p.dst.padded_dims();
  for (int d = 0; d < rank; ++d) {
    if (padded[d] == 0) return;
  }
  std::array<dim_t, kMaxRank> idx{};
  // The row-major logical index of the next element converted: the walk meets the elements
  // inside dims in that order (bit copies never round stochastically).
  dim_t logical = 0;
  while (true) {
    bool inside = true;
    for (int d = 0; d < rank; ++d) inside = inside && idx[d] < dims[d];
    const absl::Span<const dim_t> index(idx.data(), rank);
    const dim_t to = p.dst.offset(index);
    if (!inside) {
      write_zero<D>(p.dst.dt(), ctx.dst, to);
    } else if (p.bit_copy) {
      store_code(p.dst.dt(), ctx.dst, to, load_code(p.src.dt(), ctx.src, p.src.offset(index)));
    } else {
      const strides_t off = quant_offsets(p.masks, p.dst.dims(), idx);
      convert_one<S, D, Acc>(p, ctx, p.src.offset(index), to, off, logical++);
    }
    int d = rank - 1;
    for (; d >= 0; --d) {
      if (++idx[d] < padded[d]) break;
      idx[d] = 0;
    }
    if (d < 0) break;
  }
}

template <class F>
void visit_side(data_type dt, F&& f) {
  if (is_low_precision(dt)) {
    f(code_tag{});
  } else {
    visit_data_type(dt, f);
  }
}

}  // namespace

bool involves_low_precision(const plan& p) {
  return is_low_precision(p.src.dt()) || is_low_precision(p.dst.dt());
}

bool runs_element_by_element(const plan& p) {
  return involves_low_precision(p) || p.attr.dst_rounding == rounding_mode::stochastic;
}

void run_low_precision(const plan& p, const exec_ctx& ctx) {
  visit_side(p.src.dt(), [&](auto s) {
    visit_side(p.dst.dt(), [&](auto d) { elementwise<decltype(s), decltype(d)>(p, ctx); });
  });
}

}  // namespace tessera::reorder_internal
