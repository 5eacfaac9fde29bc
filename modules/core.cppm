// Module tessera.core: the public surface of core/ (headers stay the source of truth).
module;
#include "tessera/core/data_type.h"
#include "tessera/core/version.h"
export module tessera.core;

export namespace tessera {
using ::tessera::bf16;
using ::tessera::bits_of;
using ::tessera::data_type;
using ::tessera::Element;
using ::tessera::element_t;
using ::tessera::element_traits;
using ::tessera::f16;
using ::tessera::f8_e4m3;
using ::tessera::f8_e5m2;
using ::tessera::FloatingElement;
using ::tessera::IntegralElement;
using ::tessera::kVersionString;
using ::tessera::name_of;
using ::tessera::parse_data_type;
using ::tessera::QuantizedElement;
}  // namespace tessera
