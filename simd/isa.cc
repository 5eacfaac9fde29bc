#include "tessera/simd/isa.h"

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <string>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "tessera/simd/internal/isa_env.h"

namespace tessera::simd {
namespace {

#if defined(__aarch64__)
constexpr absl::string_view kIsaNames[kNumIsas] = {"neon64"};
constexpr absl::string_view kIsaList = "neon64";

// Advanced SIMD (with double lanes) is part of the aarch64 base architecture.
isa detect_cpu_isa() { return isa::neon64; }
#else
constexpr absl::string_view kIsaNames[kNumIsas] = {"sse4_2", "avx2", "avx512bw"};
constexpr absl::string_view kIsaList = "sse4_2, avx2, avx512bw";
#endif

bool is_valid(isa i) { return index_of(i) >= 0 && index_of(i) < kNumIsas; }

#if !defined(__aarch64__)
// __builtin_cpu_supports also checks that the OS saves the wider registers (XGETBV).
isa detect_cpu_isa() {
  __builtin_cpu_init();
  const bool avx512bw = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512cd") &&
                        __builtin_cpu_supports("avx512dq") && __builtin_cpu_supports("avx512bw") &&
                        __builtin_cpu_supports("avx512vl");
  const bool avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma") &&
                    __builtin_cpu_supports("f16c") && __builtin_cpu_supports("bmi2");
  if (avx2 && avx512bw) return isa::avx512bw;
  if (avx2) return isa::avx2;
  return isa::sse4_2;  // the baseline Tessera requires
}
#endif

isa min_isa(isa a, isa b) { return index_of(a) < index_of(b) ? a : b; }

std::atomic<uint8_t>& api_cap() {
  static std::atomic<uint8_t> cap{static_cast<uint8_t>(kAllIsas[kNumIsas - 1])};
  return cap;
}

// The effective ISA, recomputed whenever the API cap changes so max_isa() is one load.
std::atomic<uint8_t>& effective() {
  static std::atomic<uint8_t> value{static_cast<uint8_t>(environment_isa_cap())};
  return value;
}

}  // namespace

namespace internal {

absl::optional<isa> isa_cap_from_env_value(absl::string_view value, std::string* warning) {
  const std::string lower = absl::AsciiStrToLower(value);
  if (lower.empty() || lower == "all") return absl::nullopt;
  for (isa i : kAllIsas) {
    if (lower == kIsaNames[index_of(i)]) return i;
  }
  if (warning != nullptr) {
    *warning = absl::StrCat("tessera: ignoring TESSERA_MAX_ISA=\"", value,
                            "\": not one of ", kIsaList, ", all (any case)");
  }
  return absl::nullopt;
}

}  // namespace internal

absl::string_view name_of(isa i) { return is_valid(i) ? kIsaNames[index_of(i)] : "invalid"; }

absl::StatusOr<isa> parse_isa(absl::string_view name) {
  const std::string lower = absl::AsciiStrToLower(name);
  for (isa i : kAllIsas) {
    if (lower == kIsaNames[index_of(i)]) return i;
  }
  return absl::InvalidArgumentError(
      absl::StrCat("unknown ISA \"", name, "\": expected one of ", kIsaList));
}

isa detected_isa() {
  static const isa detected = detect_cpu_isa();
  return detected;
}

std::vector<isa> cpu_isas() {
  std::vector<isa> result;
  for (isa i : kAllIsas) {
    if (index_of(i) <= index_of(detected_isa())) result.push_back(i);
  }
  return result;
}

bool cpu_has_avx512_bf16() {
#if defined(__aarch64__)
  return false;
#else
  static const bool has = detected_isa() == isa::avx512bw && __builtin_cpu_supports("avx512bf16");
  return has;
#endif
}

bool use_native_bf16() {
  static const bool use = [] {
    const char* value = std::getenv("TESSERA_NATIVE_BF16");
    return cpu_has_avx512_bf16() && !(value != nullptr && std::string(value) == "0");
  }();
  return use;
}

isa environment_isa_cap() {
  static const isa cap = [] {
    const char* value = std::getenv("TESSERA_MAX_ISA");
    if (value == nullptr) return detected_isa();
    std::string warning;
    absl::optional<isa> parsed = internal::isa_cap_from_env_value(value, &warning);
    if (!warning.empty()) std::fprintf(stderr, "%s\n", warning.c_str());
    return parsed ? min_isa(*parsed, detected_isa()) : detected_isa();
  }();
  return cap;
}

isa max_isa() { return static_cast<isa>(effective().load(std::memory_order_relaxed)); }

absl::Status set_max_isa(isa cap) {
  if (!is_valid(cap)) {
    return absl::InvalidArgumentError(absl::StrCat(
        "set_max_isa: isa value ", static_cast<int>(cap), " is not one of ", kIsaList));
  }
  api_cap().store(static_cast<uint8_t>(cap), std::memory_order_relaxed);
  effective().store(static_cast<uint8_t>(min_isa(cap, environment_isa_cap())),
                    std::memory_order_relaxed);
  return absl::OkStatus();
}

scoped_max_isa::scoped_max_isa(isa cap)
    : previous_(static_cast<isa>(api_cap().load(std::memory_order_relaxed))) {
  set_max_isa(cap).IgnoreError();  // an invalid isa leaves the cap as it was
}

scoped_max_isa::~scoped_max_isa() { set_max_isa(previous_).IgnoreError(); }

}  // namespace tessera::simd
