// The driver's buffers of the low-precision types (s4, u4, f4_e2m1, f4_e3m0, e8m0), which the
// byte-addressed fills and comparisons of testing/ do not take: random codes, and the first
// element whose code differs.
//
//   if (is_low_precision(md.dt())) fill_codes(md, buf.data(), /*seed=*/11);
//   std::string diff = first_code_difference(md, got, want, "got", "want");  // "" when equal
#ifndef TESSERA_BENCH_DRIVER_LOW_PRECISION_BUFFERS_H_
#define TESSERA_BENCH_DRIVER_LOW_PRECISION_BUFFERS_H_

#include <cstdint>
#include <string>

#include "tessera/core/memory_desc.h"

namespace tessera::bench {

// Every byte of md.size_bytes() random (every bit pattern is a valid code of these types), then
// the padding elements set to code 0.
void fill_codes(const memory_desc& md, char* data, uint32_t seed);

// The number of logical elements whose codes differ and the first of them, or (when only bytes
// outside the logical elements differ) the first such byte; "" when the buffers agree.
std::string first_code_difference(const memory_desc& md, const char* got, const char* want,
                                  const char* got_name, const char* want_name);

}  // namespace tessera::bench

#endif  // TESSERA_BENCH_DRIVER_LOW_PRECISION_BUFFERS_H_
