// The per-ISA namespace: where the code of a source built by tessera_isa_kernels lives.
//
// Such a source is compiled once per ISA, each time with that ISA's -m flags. An inline function
// or template that two of those compilations both define under one name would be one symbol to
// the linker, which keeps one copy: avx512 code could then run on an avx2-only CPU. Each
// compilation therefore puts its definitions in its own namespace, TESSERA_ISA_NS (isa_sse4_2,
// isa_avx2, isa_avx512bw, isa_avx512bw_bf16), defined by simd/build_defs.bzl, as Highway's
// HWY_NAMESPACE does. Only the entry points the dispatcher takes the address of are explicit
// instantiations outside it, and those differ by their Arch template argument. Templates the
// per-ISA code instantiates outside our namespaces and not on Arch (the std::copy through which
// xsimd converts f64 to int64 lane by lane without avx512dq, say) are still one symbol; left
// out of line (the sanitizer builds' -O1), one ISA's copy serves all, so per-ISA code keeps off
// those paths where it can (forward_f64.h's exp_f64).
//
//   // my_kernels_impl.h (included only from the per-ISA source)
//   #include "tessera/simd/per_isa.h"
//   namespace tessera::my_internal::TESSERA_ISA_NS {
//   template <class Arch> void add_one(float* p, int64_t n) { ... }
//   }  // namespace tessera::my_internal::TESSERA_ISA_NS
//
//   // my_kernels.cc (the per-ISA source)
//   namespace tessera::my_internal {
//   template <class Arch> kernel_fn* kernel_for() { return &TESSERA_ISA_NS::add_one<Arch>; }
//   template kernel_fn* kernel_for<TESSERA_SIMD_ARCH>();
//   }
#ifndef TESSERA_SIMD_PER_ISA_H_
#define TESSERA_SIMD_PER_ISA_H_

#if !defined(TESSERA_ISA_NS) || !defined(TESSERA_SIMD_ARCH)
#error "per-ISA code: include only from a source built by tessera_isa_kernels (simd/build_defs.bzl)"
#endif

#endif  // TESSERA_SIMD_PER_ISA_H_
