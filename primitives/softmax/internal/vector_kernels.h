// The xsimd softmax kernels, one instantiation per ISA (vector_kernels.cc, built by
// tessera_isa_kernels), reached through simd/'s kernel_table dispatcher.
//
//   auto choice = forward_dense_table().select(tessera::simd::isa::avx2);
//   kernel_fn fn = choice.fn(data_type::f32, data_type::bf16);   // nullptr: types not vectorised
//   std::string name = choice.impl_name();                        // "xsimd:avx2:dense"
#ifndef TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_VECTOR_KERNELS_H_
#define TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_VECTOR_KERNELS_H_

#include "tessera/core/data_type.h"
#include "tessera/primitives/softmax/internal/kernel_args.h"

namespace tessera::softmax_internal {

// Each returns the kernel for the given element types, or nullptr when this ISA does not
// vectorise them (f32, bf16 everywhere; f16 on avx2 and avx512bw; forward also s8 and u8, src
// or dst, and f64 to f64; backward: one type for all, no s8, u8 or f64).
template <class Arch>
kernel_fn forward_dense_for(data_type src, data_type dst);
template <class Arch>
kernel_fn forward_strided_for(data_type src, data_type dst);
// Forward with a post-op chain (forward_post_ops.h), dense or strided by kernel_args::post_ops.
template <class Arch>
kernel_fn forward_post_ops_for(data_type src, data_type dst);
template <class Arch>
kernel_fn backward_dense_for(data_type dst, data_type diff_dst, data_type diff_src);
template <class Arch>
kernel_fn backward_strided_for(data_type dst, data_type diff_dst, data_type diff_src);

using forward_selector = kernel_fn(data_type, data_type);
using backward_selector = kernel_fn(data_type, data_type, data_type);

}  // namespace tessera::softmax_internal

#endif  // TESSERA_PRIMITIVES_SOFTMAX_INTERNAL_VECTOR_KERNELS_H_
