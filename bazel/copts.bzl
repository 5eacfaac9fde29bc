"""OPTIMIZED_IN_FASTBUILD: copts that compile a target with -O2 in Bazel's default mode.

    load("//bazel:copts.bzl", "OPTIMIZED_IN_FASTBUILD")

    cc_library(
        name = "reference",
        srcs = ["reference.cc"],
        copts = OPTIMIZED_IN_FASTBUILD,
    )

Used by the per-ISA kernels (simd/build_defs.bzl: xsimd at -O0 calls a function per vector
operation, about 50x slower) and by the test oracles and the heavy tests, which walk tens of
millions of elements one logical index at a time: at -O0 they took most of `tools/test`'s time
(docs/building.md: test times). The sanitizer configs keep their own -O1, and `-c dbg` its -O0.
"""

OPTIMIZED_IN_FASTBUILD = select({
    "//bazel:fastbuild_asan": [],
    "//bazel:fastbuild_tsan": [],
    "//bazel:fastbuild": ["-O2"],
    "//conditions:default": [],
})
