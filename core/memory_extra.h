// memory_extra: oneDNN's extra fields of a memory descriptor (flags, compensation masks, scale
// adjustment), which a reorder's destination carries to ask for compensation buffers after the
// data.
//
//   tessera::memory_extra e;
//   e.flags = tessera::extra_flags::compensation_conv_s8s8 | tessera::extra_flags::compensation_conv_asymmetric_src;
//   e.compensation_mask = 1;        // one s32 per index of dim 0 (padded)
//   e.asymm_compensation_mask = 1;
//   auto dst = md->with_extra(e);   // memory_desc::with_extra checks the masks against the dims
//   int64_t bytes = dst->size_bytes();  // data rounded up to 4 bytes, then both buffers
//
// Layout (oneDNN 3.x's memory_desc_wrapper::size): the data, rounded up to a multiple of 4 bytes,
// then the s8s8 compensation (s32, one per index of the dims in compensation_mask, padded, laid
// out as memory_desc::compensation_desc: the dst's layout of those dims), then the zero-point
// compensation (s32, asymm_compensation_mask).
// oneDNN 2.6.3 sizes the tail three times the first buffer; the offsets are the same.
#ifndef TESSERA_CORE_MEMORY_EXTRA_H_
#define TESSERA_CORE_MEMORY_EXTRA_H_

#include <cstdint>
#include <string>

#include "absl/types/span.h"

namespace tessera {

// oneDNN's dnnl_memory_extra_flags_t values Tessera implements.
namespace extra_flags {
inline constexpr uint64_t none = 0x0;
// s32 buffer: -128 * sum of the written s8 values over the dims outside compensation_mask.
inline constexpr uint64_t compensation_conv_s8s8 = 0x1;
// The written values are quantized with scale * scale_adjust (oneDNN sets 0.5 on ISAs without VNNI).
inline constexpr uint64_t scale_adjust = 0x2;
// s32 buffer: -sum of the written values over the dims outside asymm_compensation_mask.
inline constexpr uint64_t compensation_conv_asymmetric_src = 0x8;
inline constexpr uint64_t known = compensation_conv_s8s8 | scale_adjust | compensation_conv_asymmetric_src;
}  // namespace extra_flags

struct memory_extra {
  uint64_t flags = extra_flags::none;
  int compensation_mask = 0;        // dims of the s8s8 buffer (bit d: dim d)
  float scale_adjust = 1.0f;        // used when flags has scale_adjust
  int asymm_compensation_mask = 0;  // dims of the zero-point buffer

  bool has_s8s8_compensation() const { return (flags & extra_flags::compensation_conv_s8s8) != 0; }
  bool has_zp_compensation() const { return (flags & extra_flags::compensation_conv_asymmetric_src) != 0; }
  bool has_compensation() const { return has_s8s8_compensation() || has_zp_compensation(); }
  // The factor applied to the scale of every written value: scale_adjust, or 1 without the flag.
  float applied_scale_adjust() const { return (flags & extra_flags::scale_adjust) ? scale_adjust : 1.0f; }

  friend bool operator==(const memory_extra& a, const memory_extra& b) {
    // Fields a flag does not use take no part: two descriptors asking for the same buffers are equal.
    return a.flags == b.flags &&
           (!a.has_s8s8_compensation() || a.compensation_mask == b.compensation_mask) &&
           (!(a.flags & extra_flags::scale_adjust) || a.scale_adjust == b.scale_adjust) &&
           (!a.has_zp_compensation() || a.asymm_compensation_mask == b.asymm_compensation_mask);
  }
  friend bool operator!=(const memory_extra& a, const memory_extra& b) { return !(a == b); }
  template <typename H>
  friend H AbslHashValue(H h, const memory_extra& e) {
    return H::combine(std::move(h), e.flags, e.has_s8s8_compensation() ? e.compensation_mask : 0,
                      (e.flags & extra_flags::scale_adjust) ? e.scale_adjust : 1.0f,
                      e.has_zp_compensation() ? e.asymm_compensation_mask : 0);
  }
};

// Number of s32 values in a buffer over `mask`: the product of padded_dims[d] for d in mask.
int64_t compensation_count(absl::Span<const int64_t> padded_dims, int mask);

// Text of the extra fields, oneDNN's verbose field: "f<flags>" ("f0" without flags) followed by
// ":s8m<mask>", ":zpm<mask>" and ":sa<scale_adjust>" (when not 1) as they apply.
std::string extra_string(const memory_extra& e);

}  // namespace tessera

#endif  // TESSERA_CORE_MEMORY_EXTRA_H_
