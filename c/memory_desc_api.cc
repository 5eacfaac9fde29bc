// The C API's memory descriptors: creation from a tag or strides, and the queries.
#include <cstring>
#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "absl/strings/str_cat.h"
#include "absl/types/span.h"
#include "tessera/c/internal/api_support.h"
#include "tessera/c/tessera.h"
#include "tessera/formats/make_memory_desc.h"
#include "tessera/formats/md_string.h"

namespace {

using tessera_c::fail;
using tessera_c::require;

// Checks what every creation takes: the out pointer, ndims, the dims array and the type.
tessera_status check_shape(const char* function, tessera_memory_desc_t* out, int ndims,
                           const int64_t* dims, int type, tessera::data_type& dt) {
  if (auto s = require(out, function, "md")) return s;
  *out = nullptr;
  if (ndims < 0 || ndims > TESSERA_MAX_NDIMS) {
    return fail(TESSERA_INVALID_ARGUMENT,
                absl::StrCat(function, ": ndims ", ndims, " is outside [0, ", TESSERA_MAX_NDIMS,
                             "]"));
  }
  if (ndims > 0) {
    if (auto s = require(dims, function, "dims")) return s;
  }
  const std::optional<tessera::data_type> t = tessera_c::to_data_type(type);
  if (!t) {
    return fail(TESSERA_INVALID_ARGUMENT,
                absl::StrCat(function, ": data type ", type,
                             " is not a tessera_data_type (TESSERA_F32 .. TESSERA_U8)"));
  }
  dt = *t;
  return TESSERA_SUCCESS;
}

tessera_status store(absl::StatusOr<tessera::memory_desc> md, tessera_memory_desc_t* out) {
  if (!md.ok()) return tessera_c::from_status(md.status());
  *out = new tessera_memory_desc{*std::move(md)};
  return TESSERA_SUCCESS;
}

absl::Span<const tessera::dim_t> span_of(const int64_t* values, int n) {
  static_assert(sizeof(int64_t) == sizeof(tessera::dim_t));
  return {reinterpret_cast<const tessera::dim_t*>(values), static_cast<size_t>(n)};
}

// Checks a query's descriptor and out pointer.
tessera_status check_query(const char* function, const_tessera_memory_desc_t md,
                           const void* out, const char* out_name) {
  if (auto s = require(md, function, "md")) return s;
  return require(out, function, out_name);
}

tessera_status check_capacity(const char* function, const_tessera_memory_desc_t md, int capacity,
                              const char* what) {
  if (capacity < md->desc.rank()) {
    return fail(TESSERA_INVALID_ARGUMENT,
                absl::StrCat(function, ": capacity ", capacity, " is less than the ",
                             md->desc.rank(), " ", what, " of the descriptor"));
  }
  return TESSERA_SUCCESS;
}

}  // namespace

extern "C" {

tessera_status tessera_memory_desc_create_with_tag(tessera_memory_desc_t* md, int ndims,
                                                   const int64_t* dims, tessera_data_type type,
                                                   const char* tag) {
  return tessera_c::guarded([&]() -> tessera_status {
    constexpr const char* kFn = "tessera_memory_desc_create_with_tag";
    tessera::data_type dt;
    if (auto s = check_shape(kFn, md, ndims, dims, tessera_c::raw_enum(type), dt)) return s;
    if (auto s = require(tag, kFn, "tag")) return s;
    return store(tessera::make_memory_desc(span_of(dims, ndims), dt, tag), md);
  });
}

tessera_status tessera_memory_desc_create_with_strides(tessera_memory_desc_t* md, int ndims,
                                                       const int64_t* dims,
                                                       tessera_data_type type,
                                                       const int64_t* strides) {
  return tessera_c::guarded([&]() -> tessera_status {
    constexpr const char* kFn = "tessera_memory_desc_create_with_strides";
    tessera::data_type dt;
    if (auto s = check_shape(kFn, md, ndims, dims, tessera_c::raw_enum(type), dt)) return s;
    if (ndims > 0) {
      if (auto s = require(strides, kFn, "strides")) return s;
    }
    return store(
        tessera::memory_desc::with_strides(span_of(dims, ndims), dt, span_of(strides, ndims)), md);
  });
}

tessera_status tessera_memory_desc_clone(tessera_memory_desc_t* md,
                                         const_tessera_memory_desc_t source) {
  return tessera_c::guarded([&]() -> tessera_status {
    if (auto s = require(md, "tessera_memory_desc_clone", "md")) return s;
    *md = nullptr;
    if (auto s = require(source, "tessera_memory_desc_clone", "source")) return s;
    *md = new tessera_memory_desc{source->desc};
    return TESSERA_SUCCESS;
  });
}

void tessera_memory_desc_destroy(tessera_memory_desc_t md) { delete md; }

tessera_status tessera_memory_desc_get_size(const_tessera_memory_desc_t md, size_t* bytes) {
  return tessera_c::guarded([&]() -> tessera_status {
    if (auto s = check_query("tessera_memory_desc_get_size", md, bytes, "bytes")) return s;
    *bytes = static_cast<size_t>(md->desc.size_bytes());
    return TESSERA_SUCCESS;
  });
}

tessera_status tessera_memory_desc_get_ndims(const_tessera_memory_desc_t md, int* ndims) {
  return tessera_c::guarded([&]() -> tessera_status {
    if (auto s = check_query("tessera_memory_desc_get_ndims", md, ndims, "ndims")) return s;
    *ndims = md->desc.rank();
    return TESSERA_SUCCESS;
  });
}

tessera_status tessera_memory_desc_get_dims(const_tessera_memory_desc_t md, int capacity,
                                            int64_t* dims) {
  return tessera_c::guarded([&]() -> tessera_status {
    constexpr const char* kFn = "tessera_memory_desc_get_dims";
    if (auto s = check_query(kFn, md, dims, "dims")) return s;
    if (auto s = check_capacity(kFn, md, capacity, "dims")) return s;
    for (int d = 0; d < md->desc.rank(); ++d) dims[d] = md->desc.dims()[d];
    return TESSERA_SUCCESS;
  });
}

tessera_status tessera_memory_desc_get_strides(const_tessera_memory_desc_t md, int capacity,
                                               int64_t* strides) {
  return tessera_c::guarded([&]() -> tessera_status {
    constexpr const char* kFn = "tessera_memory_desc_get_strides";
    if (auto s = check_query(kFn, md, strides, "strides")) return s;
    if (md->desc.kind() != tessera::format_kind::blocked) {
      return fail(TESSERA_INVALID_ARGUMENT,
                  absl::StrCat(kFn, ": the descriptor has no layout (format \"",
                               tessera::verbose_md_string(md->desc), "\")"));
    }
    if (auto s = check_capacity(kFn, md, capacity, "strides")) return s;
    for (int d = 0; d < md->desc.rank(); ++d) strides[d] = md->desc.blocking().strides[d];
    return TESSERA_SUCCESS;
  });
}

tessera_status tessera_memory_desc_get_data_type(const_tessera_memory_desc_t md,
                                                 tessera_data_type* type) {
  return tessera_c::guarded([&]() -> tessera_status {
    if (auto s = check_query("tessera_memory_desc_get_data_type", md, type, "type")) return s;
    *type = static_cast<tessera_data_type>(md->desc.dt());
    return TESSERA_SUCCESS;
  });
}

tessera_status tessera_memory_desc_equal(const_tessera_memory_desc_t a,
                                         const_tessera_memory_desc_t b, int* equal) {
  return tessera_c::guarded([&]() -> tessera_status {
    constexpr const char* kFn = "tessera_memory_desc_equal";
    if (auto s = require(a, kFn, "a")) return s;
    if (auto s = require(b, kFn, "b")) return s;
    if (auto s = require(equal, kFn, "equal")) return s;
    *equal = a->desc == b->desc ? 1 : 0;
    return TESSERA_SUCCESS;
  });
}

tessera_status tessera_memory_desc_to_string(const_tessera_memory_desc_t md, char* text,
                                             size_t capacity, size_t* length) {
  return tessera_c::guarded([&]() -> tessera_status {
    constexpr const char* kFn = "tessera_memory_desc_to_string";
    if (auto s = require(md, kFn, "md")) return s;
    const std::string form = tessera::verbose_md_string(md->desc);
    if (length != nullptr) *length = form.size();
    if (capacity == 0 && text == nullptr) return TESSERA_SUCCESS;  // a length query
    if (auto s = require(text, kFn, "text")) return s;
    if (capacity <= form.size()) {
      return fail(TESSERA_INVALID_ARGUMENT,
                  absl::StrCat(kFn, ": capacity ", capacity, " cannot hold \"", form, "\" (",
                               form.size() + 1, " bytes with the terminating NUL)"));
    }
    std::memcpy(text, form.c_str(), form.size() + 1);
    return TESSERA_SUCCESS;
  });
}

}  // extern "C"
