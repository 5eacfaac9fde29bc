// The thread-local error message and the mappings from the C enums to the C++ ones.
#include "tessera/c/internal/api_support.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "tessera/core/version.h"

namespace tessera_c {
namespace {

std::string& last_error() {
  thread_local std::string message;
  return message;
}

tessera_status code_of(absl::StatusCode code) {
  switch (code) {
    case absl::StatusCode::kOk: return TESSERA_SUCCESS;
    case absl::StatusCode::kInvalidArgument: return TESSERA_INVALID_ARGUMENT;
    case absl::StatusCode::kOutOfRange: return TESSERA_INVALID_ARGUMENT;
    case absl::StatusCode::kNotFound: return TESSERA_NOT_FOUND;
    case absl::StatusCode::kFailedPrecondition: return TESSERA_FAILED_PRECONDITION;
    case absl::StatusCode::kUnimplemented: return TESSERA_UNIMPLEMENTED;
    case absl::StatusCode::kResourceExhausted: return TESSERA_OUT_OF_MEMORY;
    default: return TESSERA_INTERNAL;
  }
}

}  // namespace

tessera_status fail(tessera_status code, absl::string_view first,
                    absl::string_view second) noexcept {
  std::string& message = last_error();
  try {
    message.assign(first.data(), first.size());
    message.append(second.data(), second.size());
  } catch (...) {
    message.clear();
  }
  return code;
}

tessera_status from_status(const absl::Status& s) {
  if (s.ok()) return TESSERA_SUCCESS;
  return fail(code_of(s.code()), s.message());
}

void clear_error() { last_error().clear(); }

tessera_status require(const void* p, const char* function, const char* param) {
  if (p != nullptr) return TESSERA_SUCCESS;
  return fail(TESSERA_INVALID_ARGUMENT, absl::StrCat(function, ": ", param, " is NULL"));
}

std::optional<tessera::data_type> to_data_type(int type) {
  for (tessera::data_type dt : tessera::kAllDataTypes) {
    if (static_cast<int>(dt) == type) return dt;
  }
  if (type == TESSERA_DATA_TYPE_UNDEF) return tessera::data_type::undef;
  return std::nullopt;
}

std::optional<tessera::arg> to_arg(int kind) {
  if (kind < 0 || kind >= static_cast<int>(tessera::arg::kCount)) return std::nullopt;
  return static_cast<tessera::arg>(kind);
}

std::optional<tessera::softmax_alg> to_softmax_alg(int alg) {
  switch (alg) {
    case TESSERA_SOFTMAX: return tessera::softmax_alg::softmax;
    case TESSERA_LOGSOFTMAX: return tessera::softmax_alg::logsoftmax;
    case TESSERA_SOFTMAX_INF_AS_ZERO: return tessera::softmax_alg::softmax_inf_as_zero;
    default: return std::nullopt;
  }
}

const char* arg_name(tessera::arg a) {
  switch (a) {
    case tessera::arg::src: return "TESSERA_ARG_SRC";
    case tessera::arg::dst: return "TESSERA_ARG_DST";
    case tessera::arg::diff_src: return "TESSERA_ARG_DIFF_SRC";
    case tessera::arg::diff_dst: return "TESSERA_ARG_DIFF_DST";
    case tessera::arg::src_scales: return "TESSERA_ARG_SRC_SCALES";
    case tessera::arg::dst_scales: return "TESSERA_ARG_DST_SCALES";
    case tessera::arg::src_zero_points: return "TESSERA_ARG_SRC_ZERO_POINTS";
    case tessera::arg::dst_zero_points: return "TESSERA_ARG_DST_ZERO_POINTS";
    case tessera::arg::attr_rounding_seed: return "TESSERA_ARG_ATTR_ROUNDING_SEED";
    default: return "TESSERA_ARG_?";
  }
}

}  // namespace tessera_c

extern "C" {

const char* tessera_last_error_message(void) { return tessera_c::last_error().c_str(); }

const char* tessera_status_name(tessera_status status) {
  switch (tessera_c::raw_enum(status)) {
    case TESSERA_SUCCESS: return "SUCCESS";
    case TESSERA_INVALID_ARGUMENT: return "INVALID_ARGUMENT";
    case TESSERA_NOT_FOUND: return "NOT_FOUND";
    case TESSERA_FAILED_PRECONDITION: return "FAILED_PRECONDITION";
    case TESSERA_UNIMPLEMENTED: return "UNIMPLEMENTED";
    case TESSERA_OUT_OF_MEMORY: return "OUT_OF_MEMORY";
    case TESSERA_INTERNAL: return "INTERNAL";
  }
  return "UNKNOWN";
}

const char* tessera_version(void) { return tessera::kVersionString; }

}  // extern "C"
