"""Compiler flags of each ISA Tessera instantiates its xsimd kernels for (best first)."""

# x86-64 builds.
TESSERA_ISAS = ["avx512bw", "avx2", "sse4_2"]

# aarch64 builds (--config=aarch64): Advanced SIMD is in the base architecture.
TESSERA_AARCH64_ISAS = ["neon64"]

ISA_COPTS = {
    # xsimd::avx512bw requires F, CD, DQ and BW; VL and BF16 let the native conversion
    # instructions be used inside the avx512bw kernels (the dispatcher checks the CPU for them).
    "avx512bw": ["-mavx512f", "-mavx512cd", "-mavx512dq", "-mavx512bw", "-mavx512vl",
                 "-mavx2", "-mfma", "-mf16c", "-mbmi2"],
    "avx2": ["-mavx2", "-mfma", "-mf16c", "-mbmi2"],
    "sse4_2": ["-msse4.2", "-mpopcnt"],
    "neon64": [],
}
