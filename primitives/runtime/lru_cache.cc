#include "tessera/primitives/runtime/lru_cache.h"

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <mutex>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace tessera {
namespace {

std::atomic<int> g_capacity{kDefaultPrimitiveCacheCapacity};
std::once_flag g_env_once;

void read_environment() {
  const char* env = std::getenv("TESSERA_PRIMITIVE_CACHE_CAPACITY");
  if (env == nullptr || *env == '\0') return;
  int parsed = 0;
  if (absl::SimpleAtoi(env, &parsed) && parsed >= 0) {
    g_capacity.store(parsed, std::memory_order_relaxed);
  } else {
    std::fprintf(stderr,
                 "tessera: ignoring TESSERA_PRIMITIVE_CACHE_CAPACITY=%s (want an integer >= 0); "
                 "using %d\n",
                 env, kDefaultPrimitiveCacheCapacity);
  }
}

}  // namespace

int primitive_cache_capacity() {
  std::call_once(g_env_once, read_environment);
  return g_capacity.load(std::memory_order_relaxed);
}

absl::Status set_primitive_cache_capacity(int capacity) {
  if (capacity < 0) {
    return absl::InvalidArgumentError(absl::StrCat(
        "set_primitive_cache_capacity(", capacity, "): the capacity must be >= 0 (0 disables caching)"));
  }
  std::call_once(g_env_once, read_environment);  // the environment must not override this later
  g_capacity.store(capacity, std::memory_order_relaxed);
  return absl::OkStatus();
}

}  // namespace tessera
