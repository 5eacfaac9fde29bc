// The library version, for `tessera_bench --version` and verbose lines.
#ifndef TESSERA_CORE_VERSION_H_
#define TESSERA_CORE_VERSION_H_

namespace tessera {
inline constexpr int kVersionMajor = 0;
inline constexpr int kVersionMinor = 1;
inline constexpr int kVersionPatch = 0;
inline constexpr const char kVersionString[] = "0.1.0";
}  // namespace tessera

#endif  // TESSERA_CORE_VERSION_H_
