// memory: a memory_desc plus the user's buffer (Tessera never owns tensor data).
//
//   tessera::memory src{*src_md, src_ptr};
//   tessera::memory scales{*tessera::memory_desc::with_strides({1}, data_type::f32, {1}), &s};
#ifndef TESSERA_PRIMITIVES_COMMON_MEMORY_H_
#define TESSERA_PRIMITIVES_COMMON_MEMORY_H_

#include "tessera/core/memory_desc.h"

namespace tessera {

struct memory {
  memory_desc desc;
  void* data = nullptr;
};

}  // namespace tessera

#endif  // TESSERA_PRIMITIVES_COMMON_MEMORY_H_
