// The instruction sets Tessera instantiates its kernels for, the CPU's, and the cap on them.
//
//   tessera::simd::isa best = tessera::simd::max_isa();        // avx512bw on an AVX-512 machine
//   absl::string_view n = tessera::simd::name_of(best);        // "avx512bw"
//   auto parsed = tessera::simd::parse_isa("AVX2");            // isa::avx2 (case-insensitive)
//   TESSERA_RETURN_IF_ERROR(tessera::simd::set_max_isa(tessera::simd::isa::avx2));
//   {
//     tessera::simd::scoped_max_isa force(tessera::simd::isa::sse4_2);  // tests: run the sse4_2 code
//     ...
//   }
//
// max_isa() = min(what the CPU has, TESSERA_MAX_ISA from the environment, set_max_isa()).
// TESSERA_MAX_ISA is read once; an unknown value is ignored with one warning on stderr, as
// ONEDNN_MAX_CPU_ISA does. Tessera needs at least SSE4.2 (x86-64-v2) on x86-64; on aarch64 its one
// ISA is neon64 (Advanced SIMD, which every aarch64 CPU has).
#ifndef TESSERA_SIMD_ISA_H_
#define TESSERA_SIMD_ISA_H_

#include <cstdint>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "absl/strings/string_view.h"

namespace tessera::simd {

// Every ISA is named on every architecture, so code may compare with any of them; only those of
// the architecture built for (kAllIsas) are ever detected, accepted as a cap, or dispatched to.
// Within one architecture, ordered by capability: a larger value can run everything a smaller
// one can.
enum class isa : uint8_t { sse4_2 = 0, avx2 = 1, avx512bw = 2, neon64 = 3 };

#if defined(__aarch64__)
inline constexpr int kNumIsas = 1;
inline constexpr isa kAllIsas[kNumIsas] = {isa::neon64};
// The position of `i` in kAllIsas (the index of kernel tables); negative for another
// architecture's ISA.
constexpr int index_of(isa i) { return static_cast<int>(i) - static_cast<int>(isa::neon64); }
#else
inline constexpr int kNumIsas = 3;
inline constexpr isa kAllIsas[kNumIsas] = {isa::sse4_2, isa::avx2, isa::avx512bw};
// The position of `i` in kAllIsas (the index of kernel tables); kNumIsas or more for another
// architecture's ISA.
constexpr int index_of(isa i) { return static_cast<int>(i); }
#endif

// "sse4_2", "avx2", "avx512bw"; "neon64" on aarch64.
absl::string_view name_of(isa i);
// Inverse of name_of, case-insensitive; the error names the bad string and the accepted names.
absl::StatusOr<isa> parse_isa(absl::string_view name);

// The best ISA this CPU (and OS) supports, detected once. For avx2 Tessera also requires FMA,
// F16C and BMI2; for avx512bw it requires AVX-512 F, CD, DQ, BW and VL. aarch64: neon64.
isa detected_isa();
// Every ISA the CPU supports, weakest first.
std::vector<isa> cpu_isas();
// Whether the CPU has AVX512-BF16 (vcvtneps2bf16): avx512bw alone does not imply it. Never on
// aarch64.
bool cpu_has_avx512_bf16();
// Whether kernel tables use their avx512bw_bf16 instantiations in place of the avx512bw ones:
// the CPU has AVX512-BF16 and TESSERA_NATIVE_BF16 (read once) is not "0". Tests set it to 0 to
// run the plain avx512bw kernels on such a CPU too.
bool use_native_bf16();

// The ISA kernels are dispatched to: min(detected, environment cap, API cap). Cheap (one atomic
// load); kernel tables index their arrays with it.
isa max_isa();
// Sets the API cap (a cap above the CPU's is allowed and has no effect beyond it). Fails, naming
// the value, for an isa that is not one of kAllIsas.
absl::Status set_max_isa(isa cap);
// The cap from TESSERA_MAX_ISA (read once), or the CPU's best when the variable is unset or bad.
isa environment_isa_cap();

// Sets the API cap for its lifetime and restores the previous cap after. For tests and for code
// that must compare ISAs; not meant to be nested across threads.
class scoped_max_isa {
 public:
  explicit scoped_max_isa(isa cap);
  ~scoped_max_isa();
  scoped_max_isa(const scoped_max_isa&) = delete;
  scoped_max_isa& operator=(const scoped_max_isa&) = delete;

 private:
  isa previous_;
};

}  // namespace tessera::simd

#endif  // TESSERA_SIMD_ISA_H_
