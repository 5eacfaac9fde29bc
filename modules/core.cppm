// Module tessera.core: the public surface of core/ (the headers stay the source of truth).
// Macros (TESSERA_RETURN_IF_ERROR, ...) cannot cross a module boundary: include
// <tessera/core/status.h> for them.
module;
#include "tessera/core/convert.h"
#include "tessera/core/data_type.h"
#include "tessera/core/memory_desc.h"
#include "tessera/core/version.h"
export module tessera.core;

export namespace tessera {
// Element types and concepts.
using ::tessera::bf16;
using ::tessera::data_type;
using ::tessera::Element;
using ::tessera::element_kind;
using ::tessera::element_t;
using ::tessera::element_traits;
using ::tessera::f16;
using ::tessera::f8_e4m3;
using ::tessera::f8_e5m2;
using ::tessera::FloatingElement;
using ::tessera::IntegralElement;
using ::tessera::QuantizedElement;
using ::tessera::bits_of;
using ::tessera::is_floating;
using ::tessera::is_integral;
using ::tessera::kAllDataTypes;
using ::tessera::name_of;
using ::tessera::parse_data_type;
using ::tessera::visit_data_type;
// Scalar conversions.
using ::tessera::from_f32;
using ::tessera::from_f64;
using ::tessera::to_f32;
using ::tessera::to_f64;
// Memory descriptors.
using ::tessera::blocking_desc;
using ::tessera::dim_t;
using ::tessera::format_kind;
using ::tessera::kMaxRank;
using ::tessera::memory_desc;
// Version.
using ::tessera::kVersionString;
}  // namespace tessera
