#include "tessera/core/data_type.h"

#include "absl/strings/str_cat.h"

namespace tessera {

absl::string_view name_of(data_type dt) {
  switch (dt) {
    case data_type::f32: return "f32";
    case data_type::f64: return "f64";
    case data_type::bf16: return "bf16";
    case data_type::f16: return "f16";
    case data_type::f8_e5m2: return "f8_e5m2";
    case data_type::f8_e4m3: return "f8_e4m3";
    case data_type::s32: return "s32";
    case data_type::s8: return "s8";
    case data_type::u8: return "u8";
    case data_type::s4: return "s4";
    case data_type::u4: return "u4";
    case data_type::f4_e2m1: return "f4_e2m1";
    case data_type::f4_e3m0: return "f4_e3m0";
    case data_type::e8m0: return "e8m0";
    case data_type::undef: break;
  }
  return "undef";
}

absl::StatusOr<data_type> parse_data_type(absl::string_view name) {
  for (data_type dt : kAllDataTypes) {
    if (name_of(dt) == name) return dt;
  }
  for (data_type dt : kLowPrecisionDataTypes) {
    if (name_of(dt) == name) return dt;
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "unknown data type '", name,
      "': expected one of f32, f64, bf16, f16, f8_e5m2, f8_e4m3, s32, s8, u8, s4, u4, f4_e2m1, "
      "f4_e3m0, e8m0"));
}

}  // namespace tessera
