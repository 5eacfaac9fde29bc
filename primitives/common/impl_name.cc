#include "tessera/primitives/common/impl_name.h"

#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"

namespace tessera {

std::string impl_name(absl::string_view engine, absl::string_view isa, absl::string_view kernel) {
  return absl::StrCat(engine, ":", isa, ":", kernel);
}

std::optional<impl_name_parts> parse_impl_name(absl::string_view name) {
  const std::vector<absl::string_view> f = absl::StrSplit(name, ':');
  if (f.size() != 3 || f[0].empty() || f[1].empty() || f[2].empty()) return std::nullopt;
  return impl_name_parts{std::string(f[0]), std::string(f[1]), std::string(f[2])};
}

}  // namespace tessera
