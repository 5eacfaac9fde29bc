// The floating-point exception flags that tell whether arithmetic met denormals: read and clear
// the sticky underflow and denormal-operand flags of the thread's SIMD unit.
//
//   tessera::simd::clear_fp_flags();
//   run_kernel();
//   const tessera::simd::fp_flags raised = tessera::simd::read_fp_flags();
//   if (raised.underflow) ...   // some result was tiny (denormal or flushed to 0)
//
// On x86 both come from MXCSR (UE and DE); elsewhere underflow comes from <cfenv> and
// denormal_operand is not observable (always false). Clearing touches only these sticky flags'
// register, never the rounding mode or the flush-to-zero controls.
#ifndef TESSERA_SIMD_FP_FLAGS_H_
#define TESSERA_SIMD_FP_FLAGS_H_

#if defined(__SSE__)
#include <xmmintrin.h>
#else
#include <cfenv>
#endif

namespace tessera::simd {

struct fp_flags {
  bool underflow = false;         // a result was tiny
  bool denormal_operand = false;  // an operand was denormal (x86 only)
};

#if defined(__SSE__)
inline constexpr unsigned kMxcsrExceptionFlags = 0x3F;  // the six sticky flags
inline constexpr unsigned kMxcsrDenormal = 0x02;        // DE
inline constexpr unsigned kMxcsrUnderflow = 0x10;       // UE

inline void clear_fp_flags() { _mm_setcsr(_mm_getcsr() & ~kMxcsrExceptionFlags); }

inline fp_flags read_fp_flags() {
  const unsigned csr = _mm_getcsr();
  return {(csr & kMxcsrUnderflow) != 0, (csr & kMxcsrDenormal) != 0};
}
#else
inline void clear_fp_flags() { std::feclearexcept(FE_ALL_EXCEPT); }

inline fp_flags read_fp_flags() { return {std::fetestexcept(FE_UNDERFLOW) != 0, false}; }
#endif

}  // namespace tessera::simd

#endif  // TESSERA_SIMD_FP_FLAGS_H_
