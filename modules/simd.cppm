// Module tessera.simd: what users may touch of the SIMD layer — the ISA the dispatcher may use.
module;
#include "tessera/simd/isa.h"
export module tessera.simd;

export namespace tessera::simd {
using ::tessera::simd::cpu_has_avx512_bf16;
using ::tessera::simd::cpu_isas;
using ::tessera::simd::detected_isa;
using ::tessera::simd::environment_isa_cap;
using ::tessera::simd::isa;
using ::tessera::simd::kAllIsas;
using ::tessera::simd::max_isa;
using ::tessera::simd::name_of;
using ::tessera::simd::parse_isa;
using ::tessera::simd::scoped_max_isa;
using ::tessera::simd::set_max_isa;
}  // namespace tessera::simd
