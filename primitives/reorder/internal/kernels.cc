#include "tessera/primitives/reorder/internal/kernels.h"

#include "absl/strings/str_cat.h"
#include "tessera/primitives/common/impl_name.h"
#include "tessera/primitives/reorder/internal/copy_kernel.h"
#include "tessera/primitives/reorder/internal/gather_kernel.h"
#include "tessera/primitives/reorder/internal/low_precision_kernel.h"
#include "tessera/primitives/reorder/internal/quant_row_kernel.h"
#include "tessera/primitives/reorder/internal/reference_kernel.h"
#include "tessera/primitives/reorder/internal/strided_kernel.h"
#include "tessera/primitives/reorder/internal/transpose_kernel.h"
#include "tessera/simd/isa.h"
#include "tessera/simd/kernel_table.h"

namespace tessera::reorder_internal {
namespace {

using accept_fn = absl::Status(plan&);
using isa_accept_fn = absl::Status(plan&, const vector_kernels*);

// The kernels that run on every ISA, in C++ loops or the scalar reference.
struct any_isa_kernel {
  absl::string_view engine, kernel;
  accept_fn* accept;
};
// The kernels built per ISA (vector_kernels.cc), tried from the best ISA down; a transpose's
// name adds the ISA's tile ("transpose16x16"). Only the 4-bit kernel takes the types of
// runs_element_by_element (and declines stochastic rounding itself).
struct per_isa_kernel {
  absl::string_view kernel;
  isa_accept_fn* accept;
  bool names_tile;
  bool takes_4bit = false;
};

constexpr any_isa_kernel kFirst[] = {
    {kEngineNative, "copy", &accept_copy},
};
constexpr per_isa_kernel kPerIsa[] = {
    {"convert", &accept_convert, false},
    {"gather", &accept_gather, false},
    {"transpose", &accept_transpose, true},
    {"quant_rows", &accept_quant_rows, false, true},
};
constexpr any_isa_kernel kLast[] = {
    {kEngineNative, "strided", &accept_strided},
    {kEngineRef, "scalar", &accept_reference},
};

using vector_kernels_getter = const vector_kernels*();

const simd::kernel_table<vector_kernels_getter>& vector_table() {
  static const auto table = simd::make_kernel_table<vector_kernels_getter>(
      "reorder", [](auto arch) { return &vector_kernels_for<decltype(arch)>; });
  return table;
}

// Every kernel but the element-wise reference and the 4-bit one addresses whole bytes per element
// and rounds to nearest: it declines the 4-bit types, e8m0 and stochastic rounding.
std::function<absl::Status(plan&)> byte_types_only(std::function<absl::Status(plan&)> accept) {
  return [accept = std::move(accept)](plan& p) {
    if (runs_element_by_element(p)) {
      return absl::FailedPreconditionError(
          "s4, u4, f4_e2m1, f4_e3m0, e8m0 and stochastic rounding take the element-wise "
          "reference kernel");
    }
    return accept(p);
  };
}

void add_any_isa(const any_isa_kernel& k, std::vector<candidate>& list) {
  std::function<absl::Status(plan&)> accept = k.accept;
  if (k.accept != &accept_reference) accept = byte_types_only(std::move(accept));
  list.push_back({impl_name(k.engine, kAnyIsa, k.kernel), std::move(accept)});
}

}  // namespace

std::vector<candidate> candidates() {
  std::vector<candidate> list;
  for (const any_isa_kernel& k : kFirst) add_any_isa(k, list);
  // Best ISA first, down to the weakest: the dispatcher's cap (simd::max_isa) bounds the list.
  for (int i = simd::index_of(simd::max_isa()); i >= 0; --i) {
    const auto choice = vector_table().select(simd::kAllIsas[i]);
    if (choice.chosen != simd::kAllIsas[i]) continue;
    const vector_kernels* vk = choice.fn();
    const int tile = vk->transpose_tile();
    for (const per_isa_kernel& k : kPerIsa) {
      const std::string kernel =
          k.names_tile ? absl::StrCat(k.kernel, tile, "x", tile) : std::string(k.kernel);
      std::function<absl::Status(plan&)> accept = [vk, accept = k.accept](plan& p) {
        return accept(p, vk);
      };
      if (!k.takes_4bit) accept = byte_types_only(std::move(accept));
      list.push_back({impl_name(kEngineXsimd, simd::name_of(choice.chosen), kernel),
                      std::move(accept)});
    }
  }
  for (const any_isa_kernel& k : kLast) add_any_isa(k, list);
  return list;
}

}  // namespace tessera::reorder_internal
