#include "tessera/testing/fill.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>

#include "absl/strings/str_cat.h"
#include "tessera/testing/index.h"
#include "tessera/testing/internal/element_codec.h"

namespace tessera::testing {
namespace {

using internal::write_element;

uint64_t splitmix64(uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

absl::Status check_target(const memory_desc& md, const void* data, absl::string_view what) {
  if (md.kind() != format_kind::blocked) {
    return absl::InvalidArgumentError(
        absl::StrCat(what, ": the descriptor must be blocked (a concrete layout), got format_kind ",
                     static_cast<int>(md.kind())));
  }
  if (data == nullptr && md.nelems() > 0) {
    return absl::InvalidArgumentError(absl::StrCat(what, ": data is null for a tensor of ",
                                                   md.nelems(), " elements"));
  }
  return absl::OkStatus();
}

// Sets every byte of the padding elements to `byte`.
void fill_padding(const memory_desc& md, void* data, uint8_t byte) {
  const int64_t elem_bytes = bits_of(md.dt()) / 8;
  auto* base = static_cast<uint8_t*>(data);
  for_each_index(md.padded_dims(), [&](absl::Span<const dim_t> idx) {
    for (int d = 0; d < md.rank(); ++d) {
      if (idx[d] >= md.dims()[d]) {
        std::memset(base + offset_of(md, idx) * elem_bytes, byte, elem_bytes);
        return;
      }
    }
  });
}

// Calls write(byte pointer, linear logical index) for every logical element.
template <class Write>
void for_each_element(const memory_desc& md, void* data, Write&& write) {
  const int64_t elem_bytes = bits_of(md.dt()) / 8;
  auto* base = static_cast<uint8_t*>(data);
  int64_t linear = 0;
  for_each_index(md.dims(), [&](absl::Span<const dim_t> idx) {
    write(base + offset_of(md, idx) * elem_bytes, linear++);
  });
}

// Appends x unless present (NaN matched by NaN, zeros by sign).
void add_unique(std::vector<double>& values, double x, bool signed_zero) {
  if (!signed_zero && x == 0) x = 0;  // integers have one zero
  for (double v : values) {
    if ((std::isnan(v) && std::isnan(x)) || (v == x && std::signbit(v) == std::signbit(x))) return;
  }
  values.push_back(x);
}

}  // namespace

absl::Status fill_random(const memory_desc& md, void* data, const fill_options& options) {
  if (absl::Status s = check_target(md, data, "fill_random"); !s.ok()) return s;
  const data_type dt = md.dt();
  double lo, hi;
  if (is_floating(dt)) {
    lo = -16, hi = 16;
  } else if (dt == data_type::s32) {
    lo = -(1 << 20), hi = 1 << 20;
  } else {
    lo = internal::lowest_of(dt), hi = internal::max_of(dt);
  }
  lo = options.lo.value_or(lo);
  hi = options.hi.value_or(hi);
  if (!std::isfinite(lo) || !std::isfinite(hi) || lo > hi) {
    return absl::InvalidArgumentError(absl::StrCat(
        "fill_random: the range [", lo, ", ", hi, "] must be finite and have lo <= hi"));
  }
  if (options.padding_byte) fill_padding(md, data, *options.padding_byte);
  const uint64_t seed = splitmix64(options.seed);
  for_each_element(md, data, [&](uint8_t* p, int64_t linear) {
    const uint64_t r = splitmix64(seed ^ static_cast<uint64_t>(linear));
    const double unit = static_cast<double>(r >> 11) * 0x1.0p-53;  // [0, 1)
    double x = lo + unit * (hi - lo);
    if (!is_floating(dt)) {
      x = std::ceil(lo) + std::floor(unit * (std::floor(hi) - std::ceil(lo) + 1));
    }
    write_element(dt, p, std::clamp(x, lo, hi));
  });
  return absl::OkStatus();
}

std::vector<double> probe_values(data_type src, data_type dst) {
  using namespace internal;
  std::vector<double> c;
  const double inf = std::numeric_limits<double>::infinity();
  const double max = max_of(dst), lowest = lowest_of(dst);
  // The range's edges, inside and out (in src's own steps, so src can hold them).
  for (double edge : {max, lowest}) {
    c.push_back(edge);
    if (representable(src, edge)) {
      c.push_back(next_up(src, edge));
      c.push_back(next_down(src, edge));
    }
  }
  c.push_back(max + 1);
  c.push_back(lowest - 1);
  c.push_back(2 * max);
  c.push_back(2 * lowest);
  c.insert(c.end(), {inf, -inf, std::numeric_limits<double>::quiet_NaN(), 0.0, -0.0});
  // Ties of round-half-to-even.
  c.insert(c.end(), {0.5, -0.5, 1.5, -1.5, 2.5, -2.5, max + 0.5, max - 0.5, lowest + 0.5,
                     lowest - 0.5});
  if (is_floating(dst)) {
    const double one_ulp = next_up(dst, 1.0) - 1.0;
    c.push_back(1.0 + one_ulp / 2);      // tie: rounds down to even 1
    c.push_back(1.0 + 3 * one_ulp / 2);  // tie: rounds up to even
    c.push_back(-(1.0 + one_ulp / 2));
    const double max_ulp = max - next_down(dst, max);
    c.push_back(max + max_ulp / 2);  // tie at the top: Inf (or saturation) by the rules
    c.push_back(max - max_ulp / 2);
    c.push_back(min_denormal_of(dst) / 2);  // tie with 0: rounds to 0
    c.push_back(min_denormal_of(dst) * 1.5);
    // The first integers dst cannot hold: ties between its neighbours (int -> float rounding).
    const double first_gap = 2 / (next_up(dst, 1.0) - 1.0);
    c.insert(c.end(), {first_gap + 1, first_gap + 3, -(first_gap + 1)});
  }
  for (data_type t : {dst, src}) {
    if (!is_floating(t)) continue;
    c.push_back(min_normal_of(t));
    c.push_back(-min_normal_of(t));
    c.push_back(min_denormal_of(t));
    c.push_back(-min_denormal_of(t));
    c.push_back(min_normal_of(t) - min_denormal_of(t));  // largest denormal
  }
  // The source's own extremes (they matter most when src is an integer type).
  c.insert(c.end(), {max_of(src), lowest_of(src), next_down(src, max_of(src)),
                     next_up(src, lowest_of(src))});
  c.insert(c.end(), {1024.0, -124.0, 1.0, -1.0, 2.0, -2.0, 127.0, 128.0, -127.0});
  std::vector<double> out;
  for (double x : c) {
    if (representable(src, x)) add_unique(out, x, is_floating(src));
  }
  return out;
}

absl::Status fill_probe(const memory_desc& md, void* data, data_type dst_type,
                        const fill_options& options) {
  if (absl::Status s = check_target(md, data, "fill_probe"); !s.ok()) return s;
  if (dst_type == data_type::undef) {
    return absl::InvalidArgumentError("fill_probe: the destination type is undef");
  }
  const std::vector<double> values = probe_values(md.dt(), dst_type);
  if (options.padding_byte) fill_padding(md, data, *options.padding_byte);
  for_each_element(md, data, [&](uint8_t* p, int64_t linear) {
    write_element(md.dt(), p, values[linear % values.size()]);
  });
  return absl::OkStatus();
}

}  // namespace tessera::testing
