// Compensation buffers of a reorder whose dst carries oneDNN's extra flags (memory_extra.h), and
// the scale adjustment that comes with them.
//
//   TESSERA_RETURN_IF_ERROR(check_compensation(src, dst, attr));   // at create
//   const float adjust = scale_adjust_of(dst);                      // folded into the src scales
//   ...the kernel writes the data...
//   write_compensation(dst, dst_buffer);                            // at execution, after it
//
// The buffers are computed from the s8 values the kernel wrote, as oneDNN 2.6.3's reorders do:
// for each index c over the masked dims (laid out as memory_desc::compensation_desc), zp[c] =
// -sum of the written values whose index projects to c (every dim outside the mask summed,
// padding excluded) and s8s8[c] = -128 * that sum, in wrapping 32-bit arithmetic; entries of
// padded indices are 0.
#ifndef TESSERA_PRIMITIVES_REORDER_INTERNAL_COMPENSATION_H_
#define TESSERA_PRIMITIVES_REORDER_INTERNAL_COMPENSATION_H_

#include "absl/status/status.h"
#include "tessera/core/memory_desc.h"
#include "tessera/primitives/common/attr.h"

namespace tessera::reorder_internal {

// The create-time rules: no extra flags on src; with compensation, an s8 dst and no zero points,
// sum or post-ops (oneDNN pairs compensation with scales only). Each failure names the value.
absl::Status check_compensation(const memory_desc& src, const memory_desc& dst, const primitive_attr& attr);

// The factor every written value's scale is multiplied by: dst.extra().scale_adjust when dst has
// the scale_adjust flag and asks for a compensation buffer, else 1 (oneDNN applies it only in its
// compensating reorders).
float scale_adjust_of(const memory_desc& dst);

// Writes the compensation buffers dst asks for, reading the data already written in `dst_data`
// (the start of dst's buffer). Nothing when dst asks for none.
void write_compensation(const memory_desc& dst, char* dst_data);

}  // namespace tessera::reorder_internal

#endif  // TESSERA_PRIMITIVES_REORDER_INTERNAL_COMPENSATION_H_
