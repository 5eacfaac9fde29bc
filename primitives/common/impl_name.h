// Implementation names, "<engine>:<isa>:<kernel>" as oneDNN's verbose lines show them: the engine
// ("xsimd", "native", "ref"), the ISA the kernel was built for ("avx512bw", "any") and the kernel
// ("transpose16x16", "dense", "scalar"). Built once per kernel when a candidate list is made;
// read back by tools that group results by kernel.
//
//   std::string name = impl_name("xsimd", "avx2", "convert");        // "xsimd:avx2:convert"
//   std::optional<impl_name_parts> p = parse_impl_name(name);        // {"xsimd", "avx2", "convert"}
#ifndef TESSERA_PRIMITIVES_COMMON_IMPL_NAME_H_
#define TESSERA_PRIMITIVES_COMMON_IMPL_NAME_H_

#include <optional>
#include <string>

#include "absl/strings/string_view.h"

namespace tessera {

// Engines of the kernels: xsimd vector code, plain C++ loops, the element-wise reference.
inline constexpr absl::string_view kEngineXsimd = "xsimd";
inline constexpr absl::string_view kEngineNative = "native";
inline constexpr absl::string_view kEngineRef = "ref";
// The ISA field of a kernel that runs on every ISA.
inline constexpr absl::string_view kAnyIsa = "any";

struct impl_name_parts {
  std::string engine, isa, kernel;
  friend bool operator==(const impl_name_parts&, const impl_name_parts&) = default;
};

std::string impl_name(absl::string_view engine, absl::string_view isa, absl::string_view kernel);

// The three fields of `name`, or nullopt unless it has exactly three non-empty fields.
std::optional<impl_name_parts> parse_impl_name(absl::string_view name);

}  // namespace tessera

#endif  // TESSERA_PRIMITIVES_COMMON_IMPL_NAME_H_
