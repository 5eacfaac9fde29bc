// A consumer's own template code on Tessera's compile-time layouts: where the 16-channel tile of a
// given pixel starts in an nChw16c image whose shape is known at compile time.
#ifndef BAZEL_CONSUMER_IMAGE_TILES_H_
#define BAZEL_CONSUMER_IMAGE_TILES_H_

#include <cstdint>

#include <tessera/formats/layout.h>

namespace consumer {

template <int64_t N, int64_t C, int64_t H, int64_t W>
struct blocked_image {
  using layout = tessera::static_layout<"nChw16c", N, C, H, W>;
  static_assert(tessera::StaticLayout<layout>);

  // Elements a buffer must hold, padding of C to a multiple of 16 included.
  static constexpr int64_t buffer_elements = layout::required_span_size();
  // Offset of channel block `cb` of pixel (n, h, w): its 16 channels follow contiguously.
  static constexpr int64_t tile_offset(int64_t n, int64_t cb, int64_t h, int64_t w) {
    return layout::offset(n, cb * 16, h, w);
  }
};

// Checked where the template is defined, so every user of this header relies on them.
static_assert(blocked_image<1, 17, 2, 2>::buffer_elements == 1 * 32 * 2 * 2);
static_assert(blocked_image<1, 17, 2, 2>::tile_offset(0, 1, 0, 0) == 16 * 2 * 2);
static_assert(blocked_image<2, 16, 3, 3>::tile_offset(1, 0, 2, 1) == 16 * 9 + (2 * 3 + 1) * 16);

}  // namespace consumer

#endif  // BAZEL_CONSUMER_IMAGE_TILES_H_
