// One ISA's instantiation of the softmax kernels: compiled once per ISA with -DTESSERA_SIMD_ARCH
// and that ISA's flags (simd/build_defs.bzl).
#include "tessera/primitives/softmax/internal/vector_kernels.h"

#include "tessera/primitives/softmax/internal/vector_kernels_impl.h"

namespace tessera::softmax_internal {

// avx512bw's tables are defined in that ISA's file; the avx512bw_bf16 instantiation calls them
// (vector_kernels_impl.h: visit_output_type) and must not compile them again. In the avx512bw
// file itself the definitions below follow these declarations, as the language allows.
extern template kernel_fn forward_dense_for<xsimd::avx512bw>(data_type, data_type);
extern template kernel_fn forward_strided_for<xsimd::avx512bw>(data_type, data_type);
extern template kernel_fn forward_post_ops_for<xsimd::avx512bw>(data_type, data_type);
extern template kernel_fn backward_dense_for<xsimd::avx512bw>(data_type, data_type, data_type);
extern template kernel_fn backward_strided_for<xsimd::avx512bw>(data_type, data_type, data_type);

template kernel_fn forward_dense_for<TESSERA_SIMD_ARCH>(data_type, data_type);
template kernel_fn forward_strided_for<TESSERA_SIMD_ARCH>(data_type, data_type);
template kernel_fn forward_post_ops_for<TESSERA_SIMD_ARCH>(data_type, data_type);
template kernel_fn backward_dense_for<TESSERA_SIMD_ARCH>(data_type, data_type, data_type);
template kernel_fn backward_strided_for<TESSERA_SIMD_ARCH>(data_type, data_type, data_type);

}  // namespace tessera::softmax_internal
