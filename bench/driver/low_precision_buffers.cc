#include "bench/driver/low_precision_buffers.h"

#include <random>
#include <vector>

#include "absl/strings/str_format.h"
#include "tessera/core/low_precision.h"
#include "tessera/testing/index.h"

namespace tessera::bench {

void fill_codes(const memory_desc& md, char* data, uint32_t seed) {
  std::mt19937 rng(seed);
  for (int64_t b = 0; b < md.size_bytes(); ++b) data[b] = static_cast<char>(rng());
  testing::for_each_index(md.padded_dims(), [&](absl::Span<const dim_t> idx) {
    for (int d = 0; d < md.rank(); ++d) {
      if (idx[d] >= md.dims()[d]) {
        store_code(md.dt(), data, testing::offset_of(md, idx), 0);
        return;
      }
    }
  });
}

std::string first_code_difference(const memory_desc& md, const char* got, const char* want,
                                  const char* got_name, const char* want_name) {
  const data_type dt = md.dt();
  int64_t differing = 0;
  std::vector<dim_t> first;
  uint8_t got_code = 0, want_code = 0;
  testing::for_each_index(md.dims(), [&](absl::Span<const dim_t> idx) {
    const dim_t off = testing::offset_of(md, idx);
    const uint8_t g = load_code(dt, got, off), w = load_code(dt, want, off);
    if (g == w) return;
    if (differing++ == 0) {
      first.assign(idx.begin(), idx.end());
      got_code = g;
      want_code = w;
    }
  });
  if (differing == 0) {
    for (int64_t b = 0; b < md.size_bytes(); ++b) {
      if (got[b] != want[b]) {
        return absl::StrFormat(
            "byte %d outside the logical elements (padding or gap) differs: %s 0x%02x, %s 0x%02x", b,
            got_name, static_cast<uint8_t>(got[b]), want_name, static_cast<uint8_t>(want[b]));
      }
    }
    return "";
  }
  return absl::StrFormat("%d of %d elements differ; first at %s: %s %.9g (0x%x), %s %.9g (0x%x)",
                         differing, md.nelems(), testing::index_string(first), got_name,
                         low_precision_to_f32(dt, got_code), got_code, want_name,
                         low_precision_to_f32(dt, want_code), want_code);
}

}  // namespace tessera::bench
