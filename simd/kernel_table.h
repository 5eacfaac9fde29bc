// A kernel's per-ISA instantiations, indexed by ISA: the dispatcher.
//
//   // header: the kernel template, defined and explicitly instantiated per ISA elsewhere
//   template <class Arch> void scale_f32(const float* src, float* dst, int64_t n, float s);
//
//   // dispatching code (compiled without -m flags):
//   using scale_fn = void(const float*, float*, int64_t, float);
//   const tessera::simd::kernel_table<scale_fn>& scale_table() {
//     static const auto table = tessera::simd::make_kernel_table<scale_fn>(
//         "scale_f32", [](auto arch) { return &scale_f32<decltype(arch)>; });
//     return table;
//   }
//   auto k = scale_table().select();          // best for max_isa(), one array load
//   k.fn(src, dst, n, 2.f);
//   std::string impl = k.impl_name();         // "xsimd:avx512bw:scale_f32"
//
// Primitives select once (at creation) and keep the pointer; the lookup itself is one atomic
// load and an array index, never a walk over a list of architectures.
#ifndef TESSERA_SIMD_KERNEL_TABLE_H_
#define TESSERA_SIMD_KERNEL_TABLE_H_

#include <array>
#include <string>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "tessera/simd/arch.h"
#include "tessera/simd/isa.h"

namespace tessera::simd {

template <class Fn>
struct kernel_choice {
  Fn* fn = nullptr;
  isa chosen = kAllIsas[0];
  absl::string_view kernel_name;

  // "<engine>:<isa>:<kernel>", e.g. "xsimd:avx512bw:cvt_f32_to_bf16" ("xsimd:neon64:..." on
  // aarch64).
  std::string impl_name() const { return absl::StrCat("xsimd:", name_of(chosen), ":", kernel_name); }
};

// Whether a kernel also has an avx512bw_bf16 instantiation (tessera_isa_kernels(native_bf16 = True)).
enum class bf16_variant : bool { no, yes };

template <class Fn>
class kernel_table {
 public:
  // by_isa[i] is the instantiation for kAllIsas[i]; native_bf16, when not null, replaces the
  // avx512bw one when use_native_bf16(). `name` must outlive the table (a literal).
  kernel_table(absl::string_view name, std::array<Fn*, kNumIsas> by_isa, Fn* native_bf16)
      : name_(name), by_isa_(by_isa) {
#if !defined(__aarch64__)
    if (native_bf16 != nullptr && use_native_bf16()) {
      by_isa_[index_of(isa::avx512bw)] = native_bf16;
    }
#endif
  }

  // The instantiation for `target` (capped to what the CPU has; another architecture's ISA
  // selects the CPU's best).
  kernel_choice<Fn> select(isa target) const {
    if (index_of(target) < 0 || index_of(target) > index_of(detected_isa())) target = detected_isa();
    return {by_isa_[index_of(target)], target, name_};
  }
  // The instantiation for max_isa().
  kernel_choice<Fn> select() const { return select(max_isa()); }

  absl::string_view name() const { return name_; }

 private:
  absl::string_view name_;
  std::array<Fn*, kNumIsas> by_isa_;
};

// Builds a table from a generic lambda mapping an xsimd arch tag to the kernel's address:
//   [](auto arch) { return &my_kernel<decltype(arch)>; }
// Only addresses are taken here, so this compiles without -m flags; each instantiation must be
// provided by a per-ISA translation unit (simd/build_defs.bzl: tessera_isa_kernels).
// make_kernel_table<Fn, bf16_variant::yes>(...) also takes the avx512bw_bf16 instantiation
// (x86-64 only: aarch64 builds have one instantiation, neon64).
template <class Fn, bf16_variant Variant = bf16_variant::no, class Getter>
kernel_table<Fn> make_kernel_table(absl::string_view name, Getter get) {
#if defined(__aarch64__)
  return kernel_table<Fn>(name, {get(xsimd::neon64{})}, nullptr);
#else
  Fn* native = nullptr;
  if constexpr (Variant == bf16_variant::yes) native = get(avx512bw_bf16{});
  return kernel_table<Fn>(name, {get(xsimd::sse4_2{}), get(xsimd::avx2{}), get(xsimd::avx512bw{})},
                          native);
#endif
}

}  // namespace tessera::simd

#endif  // TESSERA_SIMD_KERNEL_TABLE_H_
