#include "tessera/testing/reorder/reference.h"

#include <cstring>
#include <type_traits>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tessera/core/convert.h"
#include "tessera/core/low_precision.h"
#include "tessera/core/stochastic_round.h"
#include "tessera/testing/index.h"

// Separate roundings for every operation, as the documented order requires.
#if defined(__clang__)
#pragma clang fp contract(off)
#endif

namespace tessera::testing {
namespace {

// The values of one quantization argument, of whatever type the caller gave them in (read
// element by element; integers exactly, floating values widened).
struct quant_values_of {
  const void* data = nullptr;
  data_type dt = data_type::undef;
  explicit operator bool() const { return data != nullptr; }
  double operator[](dim_t i) const {
    if (is_low_precision(dt)) return low_precision_to_f32(dt, load_code(dt, data, i));
    return visit_data_type(dt, [&](auto tag) -> double {
      using T = decltype(tag);
      return to_f64(static_cast<const T*>(data)[i]);
    });
  }
};

absl::StatusOr<quant_values_of> values_of(const exec_args& args, arg which,
                                          const std::optional<quant_param>& q) {
  if (!q) return quant_values_of{};
  const memory* m = args.find(which);
  if (m == nullptr || m->data == nullptr) {
    return absl::InvalidArgumentError(absl::StrCat("reference_reorder: missing ", name_of(which)));
  }
  return quant_values_of{m->data, m->desc.dt()};
}

dim_t masked_index(int mask, absl::Span<const dim_t> dims, absl::Span<const dim_t> x) {
  dim_t i = 0;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (mask & (1 << d)) i = i * dims[d] + x[d];
  }
  return i;
}

// The index of x's value under q: row-major over the masked dims, each index divided by its
// group (groups cover the last q.groups.size() dims).
dim_t masked_index(const quant_param& q, absl::Span<const dim_t> dims, absl::Span<const dim_t> x) {
  const size_t first = dims.size() - q.groups.size();
  dim_t i = 0;
  for (size_t d = 0; d < dims.size(); ++d) {
    if (!(q.mask & (1 << d))) continue;
    const dim_t g = d >= first ? q.groups[d - first] : 1;
    i = i * (dims[d] / g) + x[d] / g;
  }
  return i;
}

template <class Acc, class T>
Acc up(T v) {
  if constexpr (std::is_same_v<Acc, double>) return to_f64(v);
  else return to_f32(v);
}

template <class T, class Acc>
T down(Acc v) {
  if constexpr (std::is_same_v<Acc, double>) return from_f64<T>(v);
  else return from_f32<T>(v);
}

// Stands for the side of a reorder whose type is one of kLowPrecisionDataTypes (no C++ type).
struct low_precision_tag {};

template <class T>
constexpr bool is_low_precision_v = std::is_same_v<T, low_precision_tag>;

// Element `off` (an element offset) of m, widened.
template <class Acc, class T>
Acc read_at(const memory& m, dim_t off) {
  if constexpr (is_low_precision_v<T>) {
    return static_cast<Acc>(low_precision_to_f32(m.desc.dt(), load_code(m.desc.dt(), m.data, off)));
  } else {
    return up<Acc>(static_cast<const T*>(m.data)[off]);
  }
}

template <class T, class Acc>
void write_at(const memory& m, dim_t off, Acc v) {
  if constexpr (is_low_precision_v<T>) {
    const data_type dt = m.desc.dt();
    store_code(dt, m.data, off,
               std::is_same_v<Acc, double> ? low_precision_from_f64(dt, v) : low_precision_from_f32(dt, v));
  } else {
    static_cast<T*>(m.data)[off] = down<T>(v);
  }
}

// The bits of element `from` of src into element `to` of dst (same type).
template <class T>
void copy_bits(const memory& src, dim_t from, const memory& dst, dim_t to) {
  if constexpr (is_low_precision_v<T>) {
    store_code(dst.desc.dt(), dst.data, to, load_code(src.desc.dt(), src.data, from));
  } else {
    std::memcpy(static_cast<T*>(dst.data) + to, static_cast<const T*>(src.data) + from, sizeof(T));
  }
}

template <class T>
void zero_at(const memory& m, dim_t off) {
  if constexpr (is_low_precision_v<T>) {
    store_code(m.desc.dt(), m.data, off, 0);
  } else {
    std::memset(static_cast<T*>(m.data) + off, 0, sizeof(T));
  }
}

// Calls f(T{}) with the element type of dt, or low_precision_tag for the low-precision types.
template <class F>
absl::Status visit_side(data_type dt, F&& f) {
  if (is_low_precision(dt)) return f(low_precision_tag{});
  return visit_data_type(dt, f);
}

// The compensation buffers after dst's data (memory_extra.h): for each index c over the masked
// dims (at its offset in memory_desc::compensation_desc), -sum (zero-point buffer) and -128 * sum (s8s8 buffer) of the s8 values written at
// the logical indices projecting to c, summed in int64 and wrapped to 32 bits.
void write_compensation(const memory& dst) {
  const memory_extra& e = dst.desc.extra();
  if (!e.has_compensation()) return;
  const auto padded = dst.desc.padded_dims();
  const int64_t start = (dst.desc.data_size_bytes() + 3) / 4 * 4;
  const int64_t s8_count = e.has_s8s8_compensation() ? compensation_count(padded, e.compensation_mask) : 0;
  const int64_t zp_count = e.has_zp_compensation() ? compensation_count(padded, e.asymm_compensation_mask) : 0;
  std::vector<int64_t> s8_sum(static_cast<size_t>(s8_count), 0), zp_sum(static_cast<size_t>(zp_count), 0);
  const memory_desc s8_layout = dst.desc.compensation_desc(e.compensation_mask);
  const memory_desc zp_layout = dst.desc.compensation_desc(e.asymm_compensation_mask);
  auto index_over = [&](int mask, absl::Span<const dim_t> x) -> dim_t {
    const memory_desc& layout = mask == e.compensation_mask ? s8_layout : zp_layout;
    std::vector<dim_t> kept;
    for (size_t d = 0; d < x.size(); ++d) {
      if (mask & (1 << d)) kept.push_back(x[d]);
    }
    return kept.empty() ? 0 : offset_of(layout, kept);
  };
  const auto* values = static_cast<const int8_t*>(dst.data);
  for_each_index(dst.desc.dims(), [&](absl::Span<const dim_t> x) {
    const int64_t v = values[offset_of(dst.desc, x)];
    if (s8_count) s8_sum[index_over(e.compensation_mask, x)] += v;
    if (zp_count) zp_sum[index_over(e.asymm_compensation_mask, x)] += v;
  });
  char* out = static_cast<char*>(dst.data) + start;
  for (int64_t sum : s8_sum) {
    const uint32_t w = static_cast<uint32_t>(static_cast<uint64_t>(-128 * sum));
    std::memcpy(out, &w, 4);
    out += 4;
  }
  for (int64_t sum : zp_sum) {
    const uint32_t w = static_cast<uint32_t>(static_cast<uint64_t>(-sum));
    std::memcpy(out, &w, 4);
    out += 4;
  }
}

template <class S, class D>
absl::Status run(const memory& src, const memory& dst, const primitive_attr& attr,
                 const exec_args& args) {
  using Acc = std::conditional_t<std::is_same_v<S, double> || std::is_same_v<D, double>, double,
                                 float>;
  quant_values_of src_scale, dst_scale, src_zp, dst_zp;
  {
    auto a = values_of(args, arg::src_scales, attr.src_scales);
    auto b = values_of(args, arg::dst_scales, attr.dst_scales);
    auto c = values_of(args, arg::src_zero_points, attr.src_zero_points);
    auto d = values_of(args, arg::dst_zero_points, attr.dst_zero_points);
    for (const absl::Status& s : {a.status(), b.status(), c.status(), d.status()}) {
      if (!s.ok()) return s;
    }
    src_scale = *a;
    dst_scale = *b;
    src_zp = *c;
    dst_zp = *d;
  }
  const auto dims = dst.desc.dims();
  const bool stochastic = attr.dst_rounding == rounding_mode::stochastic;
  uint32_t seed = 0;
  if (stochastic) {
    const memory* m = args.find(arg::attr_rounding_seed);
    if (m == nullptr || m->desc.dt() != data_type::s32 || m->desc.nelems() != 1) {
      return absl::InvalidArgumentError("reference_reorder: stochastic rounding needs "
                                        "attr_rounding_seed, one s32 value");
    }
    int32_t s = 0;
    std::memcpy(&s, m->data, sizeof(s));
    seed = static_cast<uint32_t>(s);
  }
  const float adjust = dst.desc.extra().has_compensation() ? dst.desc.extra().applied_scale_adjust() : 1.0f;
  const bool bit_copy = src.desc.dt() == dst.desc.dt() && attr.empty() && adjust == 1.0f;
  for_each_index(dims, [&](absl::Span<const dim_t> x) {
    const dim_t from = offset_of(src.desc, x), to = offset_of(dst.desc, x);
    if constexpr (std::is_same_v<S, D>) {
      if (bit_copy) {
        copy_bits<D>(src, from, dst, to);
        return;
      }
    }
    Acc v = read_at<Acc, S>(src, from);
    if (src_zp) v -= static_cast<Acc>(src_zp[masked_index(*attr.src_zero_points, dims, x)]);
    if (src_scale || adjust != 1.0f) {
      // The adjustment multiplies the scale itself (in f32), as oneDNN's compensating reorders do.
      const float s = src_scale ? static_cast<float>(src_scale[masked_index(*attr.src_scales, dims, x)]) : 1.0f;
      v *= static_cast<Acc>(adjust == 1.0f ? s : s * adjust);
    }
    if (attr.oscale) {
      v *= static_cast<Acc>(attr.oscale->values[masked_index(attr.oscale->mask, dims, x)]);
    }
    if (attr.sum) {
      const double zp = dst_zp ? dst_zp[masked_index(*attr.dst_zero_points, dims, x)]
                               : attr.sum->zero_point;
      v += static_cast<Acc>(attr.sum->beta) * (read_at<Acc, D>(dst, to) - static_cast<Acc>(zp));
    }
    if (dst_scale) v /= static_cast<Acc>(dst_scale[masked_index(*attr.dst_scales, dims, x)]);
    if (dst_zp) v += static_cast<Acc>(dst_zp[masked_index(*attr.dst_zero_points, dims, x)]);
    if (stochastic) {
      // The bias is drawn by the row-major logical index, in f32 (oneDNN, benchdnn).
      v = static_cast<Acc>(stochastic_round(static_cast<float>(v), linear_index(dims, x), seed,
                                            dst.desc.dt()));
    }
    write_at<D>(dst, to, v);
  });
  // Padding: every index of the padded dims that is outside the logical dims.
  for_each_index(dst.desc.padded_dims(), [&](absl::Span<const dim_t> x) {
    for (size_t d = 0; d < dims.size(); ++d) {
      if (x[d] >= dims[d]) {
        zero_at<D>(dst, offset_of(dst.desc, x));
        return;
      }
    }
  });
  write_compensation(dst);
  return absl::OkStatus();
}

}  // namespace

absl::Status reference_reorder(const memory& src, const memory& dst, const primitive_attr& attr,
                               const exec_args& quant_args) {
  if (src.desc.rank() != dst.desc.rank()) {
    return absl::InvalidArgumentError("reference_reorder: ranks differ");
  }
  for (int d = 0; d < src.desc.rank(); ++d) {
    if (src.desc.dims()[d] != dst.desc.dims()[d]) {
      return absl::InvalidArgumentError(absl::StrCat("reference_reorder: dim ", d, " differs"));
    }
  }
  if ((src.data == nullptr && src.desc.size_bytes() > 0) ||
      (dst.data == nullptr && dst.desc.size_bytes() > 0)) {
    return absl::InvalidArgumentError("reference_reorder: null buffer");
  }
  return visit_side(src.desc.dt(), [&](auto s) {
    return visit_side(dst.desc.dt(), [&](auto d) {
      return run<decltype(s), decltype(d)>(src, dst, attr, quant_args);
    });
  });
}

}  // namespace tessera::testing
