"""cc_library, cc_test, cc_binary: Bazel's rules, compiling C++ sources as C++20.

    load("//bazel:cc_rules.bzl", "cc_library", "cc_test")

    cc_library(name = "core", srcs = ["memory_desc.cc"], hdrs = ["memory_desc.h"])

Tessera needs C++20, and Bazel 4's auto-configured toolchain compiles with -std=c++0x unless the
workspace sets BAZEL_CXXOPTS. Every Tessera target therefore carries CXX_STANDARD in its own
copts, ahead of the target's (so a target may still name another -std), and a workspace that
depends on Tessera sets nothing for it. A target whose sources are all C (.c) gets nothing: clang
rejects -std=c++20 for C. The compiler, clang-19, is the one workspace-wide setting left
(docs/building.md).
"""

CXX_STANDARD = ["-std=c++20"]

def _standard_copts(srcs):
    if type(srcs) == "list" and srcs and all([s.endswith(".c") for s in srcs]):
        return []
    return CXX_STANDARD

def cc_library(copts = [], **kwargs):
    native.cc_library(copts = _standard_copts(kwargs.get("srcs", [])) + copts, **kwargs)

def cc_test(copts = [], **kwargs):
    native.cc_test(copts = _standard_copts(kwargs.get("srcs", [])) + copts, **kwargs)

def cc_binary(copts = [], **kwargs):
    native.cc_binary(copts = _standard_copts(kwargs.get("srcs", [])) + copts, **kwargs)
