"""tessera_deps(): every external dependency of Tessera, from Debian packages, offline.

Load it from the WORKSPACE of Tessera and of any workspace that depends on Tessera:

    local_repository(name = "tessera", path = "third_party/tessera")
    load("@tessera//bazel:deps.bzl", "tessera_deps")
    tessera_deps()                  # or tessera_deps(multiarch = "aarch64-linux-gnu")

Repositories it declares, each under its upstream name and with upstream's target names, and each
skipped when the caller declared one of that name before (for example Abseil from source):
  @com_google_absl//absl/status:statusor, //absl/types:span, ...   libabsl-dev (bazel/debian_abseil.bzl)
  @com_google_googletest//:gtest, :gtest_main, :gmock, :gmock_main  libgtest-dev
  @com_github_google_benchmark//:benchmark, :benchmark_main         libbenchmark-dev
  @xsimd//:xsimd                               libxsimd-dev (header only)
  @onetbb//:tbb                                libtbb-dev
  @onednn//:dnnl                               libdnnl-dev: tests and benchmarks only, never the library
  @aten//:aten                                 libtorch-dev when installed: benchmarks only
and local stand-ins for @rules_cc, @rules_java and @remote_coverage_tools, which Bazel 4.2.3's
built-in WORKSPACE suffix would otherwise download.

Libraries are linked from /usr/lib/<multiarch triplet>: `multiarch` names the triplet, by default
the host's, or aarch64-linux-gnu's under --config=aarch64 (bazel/multiarch.bzl).
"""

load("//bazel:debian_abseil.bzl", "debian_abseil")
load("//bazel:multiarch.bzl", "MULTIARCH_CONFIG_SETTINGS", "multiarch_lib_dir", "multiarch_linkopts")

# --- Stand-ins for rule sets Bazel 4 wants to download --------------------------------------
# Debian's bazel-rules-cc needs Bazel >= 5, so the stand-ins forward to Bazel 4's native rules.

def _native_rule_forwarder_impl(rctx):
    pkg = rctx.attr.package
    rctx.file("WORKSPACE", 'workspace(name = "%s")\n' % rctx.name)
    rctx.file("BUILD", "")
    rctx.file(pkg + "/BUILD", 'package(default_visibility = ["//visibility:public"])\n' +
                              'exports_files(["defs.bzl"])\n' + rctx.attr.extra_build)
    rctx.file(pkg + "/defs.bzl", "".join([
        "def %s(**kwargs):\n    native.%s(**kwargs)\n" % (r, r)
        for r in rctx.attr.rules
    ]))

_native_rule_forwarder = repository_rule(
    implementation = _native_rule_forwarder_impl,
    attrs = {
        "package": attr.string(mandatory = True),
        "rules": attr.string_list(mandatory = True),
        "extra_build": attr.string(),
    },
)

def _no_coverage_tools_impl(rctx):
    rctx.file("WORKSPACE", 'workspace(name = "remote_coverage_tools")\n')
    rctx.file("unavailable.sh", "#!/bin/sh\necho 'coverage tools are not available offline' >&2\nexit 1\n",
              executable = True)
    rctx.file("BUILD", """package(default_visibility = ["//visibility:public"])
sh_binary(name = "coverage_report_generator", srcs = ["unavailable.sh"])
sh_binary(name = "lcov_merger", srcs = ["unavailable.sh"])
""")

_no_coverage_tools = repository_rule(implementation = _no_coverage_tools_impl)

# --- Debian system libraries as cc_library repositories ----------------------------------------
# Headers are symlinked from /usr/include; libraries are linked with -L/usr/lib/<triplet> -l...
# Never add -Wl,--as-needed: fastbuild tests link per-library .so files and gold would drop absl.

def _debian_cc_library_impl(rctx):
    for path in rctx.attr.headers:
        rctx.symlink("/usr/include/" + path, "include/" + path)
    rctx.file("BUILD", """package(default_visibility = ["//visibility:public"])
{settings}
cc_library(
    name = "{name}",
    hdrs = glob(["include/**"]),
    includes = ["include"],
    linkopts = {linkopts} + {libs},
)
""".format(
        settings = MULTIARCH_CONFIG_SETTINGS,
        name = rctx.attr.target,
        linkopts = repr(list(rctx.attr.linkopts)),
        libs = multiarch_linkopts(rctx, rctx.attr.multiarch, list(rctx.attr.libs)),
    ) + rctx.attr.extra_build)

_debian_cc_library = repository_rule(
    implementation = _debian_cc_library_impl,
    attrs = {
        "target": attr.string(mandatory = True),
        "headers": attr.string_list(doc = "paths under /usr/include"),
        "libs": attr.string_list(),
        "multiarch": attr.string(doc = "multiarch triplet of the libraries; empty: the host's"),
        "linkopts": attr.string_list(),
        "extra_build": attr.string(),
    },
    local = True,
)

# --- ATen, an optional benchmark peer ----------------------------------------------------------
# @aten//:aten is Debian's libtorch-dev (PyTorch's C++ library) with TESSERA_HAVE_ATEN=1 when it is
# installed for the target, and an empty library without the define otherwise (an aarch64 build,
# a machine without it): the benches then register no ATen rows. Never a dependency of the library.

_ATEN_HEADERS = ["ATen", "c10", "caffe2", "torch"]

def _optional_aten_impl(rctx):
    libdir = multiarch_lib_dir(rctx, rctx.attr.multiarch)
    have = (rctx.path("/usr/include/ATen/ATen.h").exists and
            rctx.path(libdir + "/libtorch_cpu.so").exists)
    if have:
        for path in _ATEN_HEADERS:
            rctx.symlink("/usr/include/" + path, "include/" + path)
    host = ["TESSERA_HAVE_ATEN=1"] if have else []
    rctx.file("BUILD", """package(default_visibility = ["//visibility:public"])
{settings}
cc_library(
    name = "aten",
    hdrs = glob(["include/**/*.h"]),
    includes = ["include"],
    defines = select({{":target_aarch64": [], "//conditions:default": {defines}}}),
    linkopts = select({{":target_aarch64": [], "//conditions:default": {linkopts}}}),
)
""".format(
        settings = MULTIARCH_CONFIG_SETTINGS,
        defines = repr(host),
        linkopts = repr(["-L" + libdir, "-ltorch_cpu", "-lc10"] if have else []),
    ))

_optional_aten = repository_rule(
    implementation = _optional_aten_impl,
    attrs = {"multiarch": attr.string()},
    local = True,
)

def _declare(name, rule, **kwargs):
    if not native.existing_rule(name):
        rule(name = name, **kwargs)

def tessera_deps(multiarch = ""):
    """Declares Tessera's external repositories. Call once from a WORKSPACE.

    Args:
      multiarch: the Debian multiarch triplet whose libraries to link (x86_64-linux-gnu,
        aarch64-linux-gnu, ...); empty: the host's, from dpkg-architecture or gcc.
    """
    _declare(
        "rules_cc",
        _native_rule_forwarder,
        package = "cc",
        rules = ["cc_binary", "cc_library", "cc_test", "cc_import", "cc_toolchain",
                 "cc_toolchain_suite", "cc_proto_library", "objc_library", "objc_import",
                 "fdo_profile", "fdo_prefetch_hints"],
        extra_build = 'alias(name = "toolchain_type", actual = "@bazel_tools//tools/cpp:toolchain_type")\n',
    )
    _declare(
        "rules_java",
        _native_rule_forwarder,
        package = "java",
        rules = ["java_binary", "java_import", "java_library", "java_test", "java_plugin",
                 "java_runtime", "java_toolchain", "java_package_configuration",
                 "java_proto_library", "java_lite_proto_library"],
    )

    # Declared unconditionally: it must override Bazel's built-in (downloading) definition.
    _no_coverage_tools(name = "remote_coverage_tools")

    # Debian's absl 20220623 is built with ABSL_OPTION_USE_STD_STRING_VIEW=0 (and optional,
    # variant, any = 0): absl::string_view is not std::string_view.
    _declare("com_google_absl", debian_abseil, multiarch = multiarch)
    _declare("com_google_googletest", _debian_cc_library, multiarch = multiarch,
             target = "gtest", headers = ["gtest", "gmock"], libs = ["gmock", "gtest"],
             linkopts = ["-pthread"],
             extra_build = """
cc_library(name = "gtest_main", linkopts = ["-lgtest_main"], deps = [":gtest"])
alias(name = "gmock", actual = ":gtest")
alias(name = "gmock_main", actual = ":gtest_main")
""")
    _declare("com_github_google_benchmark", _debian_cc_library, multiarch = multiarch,
             target = "benchmark", headers = ["benchmark"], libs = ["benchmark"],
             linkopts = ["-pthread"],
             extra_build = """
cc_library(name = "benchmark_main", linkopts = ["-lbenchmark_main"], deps = [":benchmark"])
""")
    _declare("xsimd", _debian_cc_library, target = "xsimd", headers = ["xsimd"])
    _declare("onetbb", _debian_cc_library, multiarch = multiarch,
             target = "tbb", headers = ["tbb", "oneapi/tbb", "oneapi/tbb.h"], libs = ["tbb"],
             linkopts = ["-pthread"])
    _declare("onednn", _debian_cc_library, multiarch = multiarch,
             target = "dnnl",
             headers = ["oneapi/dnnl", "dnnl.h", "dnnl.hpp", "dnnl_config.h", "dnnl_debug.h",
                        "dnnl_types.h", "dnnl_version.h"],
             libs = ["dnnl"])
    _declare("aten", _optional_aten, multiarch = multiarch)
