// The softmax's rules for the arguments of its creation: algorithm, descriptors, axis, types and
// attributes. Each returns the InvalidArgument status `create` returns (its message is part of
// the interface: docs/softmax.md, "Bad input"), or OK.
//
//   TESSERA_RETURN_IF_ERROR(check_forward_create(alg, src, dst, axis, attr));
#ifndef TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_CREATE_CHECKS_H_
#define TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_CREATE_CHECKS_H_

#include "absl/status/status.h"
#include "tessera/core/memory_desc.h"
#include "tessera/primitives/common/attr.h"
#include "tessera/primitives/softmax/softmax.h"

namespace tessera::softmax_internal {

// src concrete, dst of the same dims (or `any`), axis in range, types of the forward, and only
// the int8 scales as attributes.
absl::Status check_forward_create(softmax_alg alg, const memory_desc& src, const memory_desc& dst,
                                  int axis, const primitive_attr& attr);

// diff_dst and dst concrete, all three of the same dims, axis in range, types of the backward,
// no attributes.
absl::Status check_backward_create(softmax_alg alg, const memory_desc& diff_src,
                                   const memory_desc& diff_dst, const memory_desc& dst, int axis,
                                   const primitive_attr& attr);

}  // namespace tessera::softmax_internal

#endif  // TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_CREATE_CHECKS_H_
