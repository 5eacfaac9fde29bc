// Parsing of the TESSERA_MAX_ISA value, separate from reading the environment so tests can
// feed it any string.
//
//   std::string warning;
//   absl::optional<isa> cap = tessera::simd::internal::isa_cap_from_env_value("AVX2", &warning);
#ifndef TESSERA_SIMD_INTERNAL_ISA_ENV_H_
#define TESSERA_SIMD_INTERNAL_ISA_ENV_H_

#include <string>

#include "absl/strings/string_view.h"
#include "absl/types/optional.h"
#include "tessera/simd/isa.h"

namespace tessera::simd::internal {

// "" and "all" (any case) mean no cap (nullopt, no warning). A known ISA name (any case) is the
// cap. Anything else is no cap, and *warning says which value was ignored and why.
absl::optional<isa> isa_cap_from_env_value(absl::string_view value, std::string* warning);

}  // namespace tessera::simd::internal

#endif  // TESSERA_SIMD_INTERNAL_ISA_ENV_H_
