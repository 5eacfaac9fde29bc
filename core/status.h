// Status helpers missing from Abseil 20220623 (it has no ABSL_RETURN_IF_ERROR/ASSIGN_OR_RETURN).
//
//   absl::StatusOr<memory_desc> make() {
//     TESSERA_RETURN_IF_ERROR(check_dims(dims));
//     TESSERA_ASSIGN_OR_RETURN(layout l, parse_tag(tag));
//     ...
//   }
#ifndef TESSERA_CORE_STATUS_H_
#define TESSERA_CORE_STATUS_H_

#include "absl/status/status.h"
#include "absl/status/statusor.h"

#define TESSERA_STATUS_CONCAT_INNER_(a, b) a##b
#define TESSERA_STATUS_CONCAT_(a, b) TESSERA_STATUS_CONCAT_INNER_(a, b)

#define TESSERA_RETURN_IF_ERROR(expr)                      \
  do {                                                     \
    ::absl::Status tessera_status_ = (expr);               \
    if (!tessera_status_.ok()) return tessera_status_;     \
  } while (0)

#define TESSERA_ASSIGN_OR_RETURN(lhs, expr)                                           \
  TESSERA_ASSIGN_OR_RETURN_IMPL_(TESSERA_STATUS_CONCAT_(tessera_statusor_, __LINE__), \
                                 lhs, expr)
#define TESSERA_ASSIGN_OR_RETURN_IMPL_(tmp, lhs, expr) \
  auto tmp = (expr);                                   \
  if (!tmp.ok()) return std::move(tmp).status();       \
  lhs = std::move(tmp).value()

#endif  // TESSERA_CORE_STATUS_H_
