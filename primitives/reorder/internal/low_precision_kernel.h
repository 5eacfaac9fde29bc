// The element-wise path of the reference kernel (ref:any:scalar) for the low-precision types and
// for stochastic rounding: reorders where either side is s4, u4, f4_e2m1, f4_e3m0 or e8m0, or
// whose dst is rounded stochastically, index by index through memory_desc::offset, over the
// padded dst (padding written as code 0), one thread (two elements share a byte; stochastic
// rounding draws each element's bias by its logical index). Every other kernel declines them
// (candidates() in kernels.cc): they address whole bytes and round to nearest.
//
//   if (runs_element_by_element(p)) run_low_precision(p, ctx);
#ifndef TESSERA_PRIMITIVES_REORDER_INTERNAL_LOW_PRECISION_KERNEL_H_
#define TESSERA_PRIMITIVES_REORDER_INTERNAL_LOW_PRECISION_KERNEL_H_

namespace tessera::reorder_internal {

struct plan;
struct exec_ctx;

// Whether either side of p has a type of kLowPrecisionDataTypes.
bool involves_low_precision(const plan& p);
// Whether p takes this path: involves_low_precision, or stochastic rounding of dst.
bool runs_element_by_element(const plan& p);

// The reorder of p, in the element arithmetic of element_math.h.
void run_low_precision(const plan& p, const exec_ctx& ctx);

}  // namespace tessera::reorder_internal

#endif  // TESSERA_PRIMITIVES_REORDER_INTERNAL_LOW_PRECISION_KERNEL_H_
