#include "tessera/primitives/common/quant_args.h"

#include <cstring>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tessera/core/convert.h"
#include "tessera/core/low_precision.h"

namespace tessera {
namespace {

// Value i of n given values of type dt, as f32 (scales) or s32 (zero points; exact).
template <class Out>
Out value_at(data_type dt, const void* given, int64_t i) {
  if (is_low_precision(dt)) {  // s4 / u4 zero points (exact integers), e8m0 scales
    const float v = low_precision_to_f32(dt, load_code(dt, given, i));
    return static_cast<Out>(v);
  }
  return visit_data_type(dt, [&](auto tag) -> Out {
    using T = decltype(tag);
    T v;
    std::memcpy(&v, static_cast<const char*>(given) + i * static_cast<int64_t>(sizeof(T)),
                sizeof(T));
    if constexpr (std::is_same_v<Out, int32_t> && IntegralElement<T>) {
      return static_cast<int32_t>(v);
    } else {
      return static_cast<Out>(to_f32(v));
    }
  });
}

template <class Out>
void expand(arg a, const quant_param& q, absl::Span<const dim_t> dims, const void* given,
            Out* out) {
  const data_type dt = quant_value_type(a, q);
  const int rank = static_cast<int>(dims.size());
  // Walk the masked dims row-major; for each index, the grouped index into `given`.
  std::vector<int> masked;
  for (int d = 0; d < rank; ++d) {
    if (q.mask & (1 << d)) masked.push_back(d);
  }
  const int64_t n = quant_value_count(q.mask, dims);
  std::vector<int64_t> x(masked.size(), 0);
  for (int64_t i = 0; i < n; ++i) {
    int64_t g = 0;
    for (size_t k = 0; k < masked.size(); ++k) {
      const int d = masked[k];
      const int64_t group = quant_group(q, rank, d);
      g = g * (dims[d] / group) + x[k] / group;
    }
    out[i] = value_at<Out>(dt, given, g);
    for (size_t k = masked.size(); k-- > 0;) {  // next index, last masked dim fastest
      if (++x[k] < dims[masked[k]]) break;
      x[k] = 0;
    }
  }
}

}  // namespace

absl::Status check_quant_type(arg a, data_type dt) {
  const bool zero_point = is_zero_point_arg(a);
  const bool ok = zero_point ? (dt == data_type::s32 || dt == data_type::s8 || dt == data_type::u8 ||
                                dt == data_type::s4 || dt == data_type::u4)
                             : (dt == data_type::f32 || dt == data_type::f16 ||
                                dt == data_type::bf16 || dt == data_type::e8m0);
  if (ok) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      name_of(a), " of type ", name_of(dt), ": ",
      zero_point ? "zero points are s32, s8 or u8, or 4-bit s4 or u4"
                 : "scales are f32, f16 or bf16, or e8m0 (a power of two)"));
}

absl::Status check_quant_groups(arg a, const quant_param& q, absl::Span<const dim_t> dims) {
  const int rank = static_cast<int>(dims.size());
  if (static_cast<int>(q.groups.size()) > rank) {
    return absl::InvalidArgumentError(absl::StrCat(name_of(a), " has ", q.groups.size(),
                                                   " groups; the tensor has ", rank, " dims"));
  }
  for (int d = rank - static_cast<int>(q.groups.size()); d < rank; ++d) {
    const int64_t g = quant_group(q, rank, d);
    const bool masked = (q.mask & (1 << d)) != 0;
    if (g < 1 || (masked && dims[d] % g != 0) || (!masked && g != 1)) {
      return absl::InvalidArgumentError(absl::StrCat(
          name_of(a), " group ", g, " on dim ", d, " (size ", dims[d], ") ",
          masked ? "does not divide the dim" : "is on a dim outside the mask (must be 1)"));
    }
  }
  return absl::OkStatus();
}

int64_t grouped_value_count(const quant_param& q, absl::Span<const dim_t> dims) {
  const int rank = static_cast<int>(dims.size());
  int64_t n = 1;
  for (int d = 0; d < rank; ++d) {
    if (q.mask & (1 << d)) n *= dims[d] / quant_group(q, rank, d);
  }
  return n;
}

void expand_quant_values(arg a, const quant_param& q, absl::Span<const dim_t> dims,
                         const void* given, void* out) {
  if (is_zero_point_arg(a)) {
    expand(a, q, dims, given, static_cast<int32_t*>(out));
  } else {
    expand(a, q, dims, given, static_cast<float*>(out));
  }
}

}  // namespace tessera
