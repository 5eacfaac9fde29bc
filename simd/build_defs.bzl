"""tessera_isa_kernels: compile one kernel source once per ISA, each with that ISA's flags.

    load("//simd:build_defs.bzl", "tessera_isa_kernels")

    tessera_isa_kernels(
        name = "softmax_kernels",
        src = "internal/softmax_kernels.cc",        # defines the templates, instantiates for TESSERA_SIMD_ARCH
        hdrs = ["internal/softmax_kernels.h"],      # declarations the dispatching code includes
        include_prefix = "tessera/primitives/softmax",
        deps = ["//core"],
    )
    # -> cc_library :softmax_kernels (link this), built from :softmax_kernels_sse4_2,
    #    :softmax_kernels_avx2, :softmax_kernels_avx512bw (and :softmax_kernels_avx512bw_bf16 with
    #    native_bf16 = True) on x86-64, and from :softmax_kernels_neon64 under --config=aarch64.

Each per-ISA library compiles `src` with bazel/isa.bzl's ISA_COPTS[isa] and
-DTESSERA_SIMD_ARCH=<xsimd arch type>, so `src` ends with explicit instantiations such as
    template void my_kernel<TESSERA_SIMD_ARCH>(const float*, float*, int64_t);
See docs/architecture.md.
"""

load("//bazel:cc_rules.bzl", "CXX_STANDARD")
load("//bazel:copts.bzl", "OPTIMIZED_IN_FASTBUILD")
load("//bazel:isa.bzl", "ISA_COPTS", "TESSERA_AARCH64_ISAS", "TESSERA_ISAS")

_ARCH_OF = {
    "sse4_2": "xsimd::sse4_2",
    "avx2": "xsimd::avx2",
    "avx512bw": "xsimd::avx512bw",
    "neon64": "xsimd::neon64",
}

# Each per-ISA library compiles its source only when building for that ISA's architecture, and is
# an empty library otherwise: `bazel build //...` then never hands -mavx2 to an aarch64 compile.
_AARCH64 = "//bazel:aarch64"

def _on_arch(isa, value, empty):
    if isa in TESSERA_AARCH64_ISAS:
        return select({_AARCH64: value, "//conditions:default": empty})
    return select({_AARCH64: empty, "//conditions:default": value})

def _per_isa_library(name, isa, arch, copts, src, hdrs, include_prefix, deps, visibility, tags):
    native.cc_library(
        name = name,
        srcs = _on_arch(isa, [src], []),
        hdrs = hdrs,
        include_prefix = include_prefix,
        # -O2 in fastbuild too: xsimd at -O0 calls a function per vector operation, about 50x
        # slower, and the kernel tests then take minutes (dbg keeps its -O0 for debugging).
        # The sanitizer configs keep their -O1 (docs/building.md: compile time).
        copts = CXX_STANDARD + _on_arch(isa, copts, []) + OPTIMIZED_IN_FASTBUILD,
        # TESSERA_ISA_NS names the per-ISA namespace the source's definitions live in
        # (simd/per_isa.h), so that no two ISAs' instantiations share a symbol.
        local_defines = ["TESSERA_SIMD_ARCH=" + arch, "TESSERA_ISA_NS=isa_" + isa],
        deps = deps + ["//simd:vector"],
        visibility = visibility,
        tags = tags,
    )

def tessera_isa_kernels(
        name,
        src,
        hdrs = [],
        include_prefix = None,
        deps = [],
        native_bf16 = False,
        visibility = None,
        tags = []):
    """Per-ISA cc_libraries of `src` and one cc_library `name` that links them all.

    Args:
      name: the library the dispatching code depends on.
      src: the .cc that defines the kernel templates and instantiates them for TESSERA_SIMD_ARCH.
      hdrs: headers `src` and the dispatching code include (declarations of the templates).
      include_prefix: as for cc_library, so hdrs are included as <tessera/...>.
      deps: what `src` needs besides //simd:vector (which every per-ISA library gets).
      native_bf16: also build an avx512bw_bf16 instantiation (-mavx512bf16), which
        make_kernel_table<Fn, bf16_variant::yes> picks on CPUs with AVX512-BF16.
      visibility, tags: as for cc_library.
    """
    libs = []
    for isa in TESSERA_ISAS + TESSERA_AARCH64_ISAS:
        lib = name + "_" + isa
        _per_isa_library(lib, isa, _ARCH_OF[isa], ISA_COPTS[isa], src, hdrs, include_prefix, deps,
                         ["//visibility:private"], tags)
        libs.append(":" + lib)
    if native_bf16:
        lib = name + "_avx512bw_bf16"
        _per_isa_library(lib, "avx512bw_bf16", "tessera::simd::avx512bw_bf16",
                         ISA_COPTS["avx512bw"] + ["-mavx512bf16"], src, hdrs, include_prefix,
                         deps, ["//visibility:private"], tags)
        libs.append(":" + lib)
    native.cc_library(
        name = name,
        hdrs = hdrs,
        include_prefix = include_prefix,
        deps = libs + deps + ["//simd:dispatch"],
        visibility = visibility,
        tags = tags,
    )
