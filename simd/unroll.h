// TESSERA_UNROLL_FULL: placed before a loop whose trip count is a compile-time constant, asks the
// compiler to unroll it completely.
//
//   TESSERA_UNROLL_FULL
//   for (int v = 0; v < NV; ++v) e[v] = exp_of(x[v]);
//
// For the loops over a kernel's vectors whose body is long (an exp): past its size threshold
// clang keeps such a loop rolled, and the vector arrays it indexes then live on the stack.
#ifndef TESSERA_SIMD_UNROLL_H_
#define TESSERA_SIMD_UNROLL_H_

#if defined(__clang__)
#define TESSERA_UNROLL_FULL _Pragma("clang loop unroll(full)")
#elif defined(__GNUC__)
#define TESSERA_UNROLL_FULL _Pragma("GCC unroll 16")
#else
#define TESSERA_UNROLL_FULL
#endif

#endif  // TESSERA_SIMD_UNROLL_H_
