// What every function of the C API shares: the handle types behind the opaque pointers, the
// thread-local error message, the mapping of absl::Status to tessera_status, and the guard that
// keeps exceptions from crossing the C boundary.
//
//   tessera_status tessera_thing(const_tessera_memory_desc_t md, int* out) {
//     return tessera_c::guarded([&]() -> tessera_status {
//       if (auto s = tessera_c::require(md, "tessera_thing", "md")) return s;
//       return tessera_c::from_status(compute(md->desc, out));
//     });
//   }
#ifndef TESSERA_C_INTERNAL_API_SUPPORT_H_
#define TESSERA_C_INTERNAL_API_SUPPORT_H_

#include <cstring>
#include <new>
#include <optional>
#include <string>
#include <variant>

#include "absl/status/status.h"
#include "absl/strings/string_view.h"
#include "tessera/c/tessera.h"
#include "tessera/core/data_type.h"
#include "tessera/core/memory_desc.h"
#include "tessera/primitives/common/arg.h"
#include "tessera/primitives/common/attr.h"
#include "tessera/primitives/reorder/reorder.h"
#include "tessera/primitives/softmax/softmax.h"

struct tessera_memory_desc {
  tessera::memory_desc desc;
};

struct tessera_primitive_attr {
  tessera::primitive_attr attr;
  std::string impl_filter;
};

struct tessera_primitive {
  std::variant<tessera::reorder, tessera::softmax_forward, tessera::softmax_backward> impl;
};

namespace tessera_c {

// Sets this thread's message to first + second and returns `code` (the message stays empty if
// storing it runs out of memory).
tessera_status fail(tessera_status code, absl::string_view first,
                    absl::string_view second = "") noexcept;
// TESSERA_SUCCESS for OK; otherwise the code of s.code() with s.message() as the message.
tessera_status from_status(const absl::Status& s);
// Empties this thread's message (every entry point does it first).
void clear_error();

// TESSERA_INVALID_ARGUMENT naming the function and the parameter when p is NULL; else success.
tessera_status require(const void* p, const char* function, const char* param);

// The int a C caller passed for an enum. A C enum may hold any int, but in C++ a value outside
// the enumerators' range is undefined behaviour once loaded as the enum (UBSan's -fsanitize=enum
// flags it): read the object's bytes instead.
template <class Enum>
int raw_enum(const Enum& e) {
  static_assert(sizeof(Enum) == sizeof(int));
  int value;
  std::memcpy(&value, &e, sizeof value);
  return value;
}

// The C++ value of a C enum, or nullopt for a value outside its list.
std::optional<tessera::data_type> to_data_type(int type);
std::optional<tessera::arg> to_arg(int kind);
std::optional<tessera::softmax_alg> to_softmax_alg(int alg);
const char* arg_name(tessera::arg a);

// Runs body (returning tessera_status) with the message cleared; an exception becomes
// TESSERA_OUT_OF_MEMORY (std::bad_alloc) or TESSERA_INTERNAL with its what().
template <class Body>
tessera_status guarded(Body&& body) noexcept {
  try {
    clear_error();
    return body();
  } catch (const std::bad_alloc&) {
    return fail(TESSERA_OUT_OF_MEMORY, "out of memory");
  } catch (const std::exception& e) {
    return fail(TESSERA_INTERNAL, "unexpected exception: ", e.what());
  } catch (...) {
    return fail(TESSERA_INTERNAL, "unexpected exception of unknown type");
  }
}

}  // namespace tessera_c

#endif  // TESSERA_C_INTERNAL_API_SUPPORT_H_
