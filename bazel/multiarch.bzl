"""multiarch_lib_dir(rctx, override): the directory of the target's Debian libraries;
multiarch_linkopts(rctx, override, libs): the linkopts of a repository's BUILD, per target cpu.

    load("//bazel:multiarch.bzl", "multiarch_lib_dir")

    def _impl(rctx):
        libdir = multiarch_lib_dir(rctx, rctx.attr.multiarch)   # "/usr/lib/x86_64-linux-gnu"

Debian installs a library for architecture T in /usr/lib/T, T being the multiarch triplet
(x86_64-linux-gnu, aarch64-linux-gnu, ...). The triplet is, in order: `override` when not empty
(a cross build names the target's triplet there), else `dpkg-architecture -qDEB_HOST_MULTIARCH`
(which honours DEB_HOST_ARCH in the environment), else `gcc -print-multiarch`.

    rctx.file("BUILD", MULTIARCH_CONFIG_SETTINGS + "cc_library(name = 'z', linkopts = %s)" %
              multiarch_linkopts(rctx, "", ["z"]))
    # linkopts = select({":target_aarch64": ["-L/usr/lib/aarch64-linux-gnu", "-lz"],
    #                    "//conditions:default": ["-L/usr/lib/x86_64-linux-gnu", "-lz"]})

A cross build (--config=aarch64, which sets --cpu=aarch64) links the aarch64-linux-gnu libraries
of the same repository, so one output base serves both builds without fetching again.
"""

AARCH64_TRIPLET = "aarch64-linux-gnu"

# Declared in each repository whose BUILD uses multiarch_linkopts.
MULTIARCH_CONFIG_SETTINGS = """config_setting(
    name = "target_aarch64",
    values = {"cpu": "aarch64"},
)
"""

def _first_line_of(rctx, command):
    if not rctx.which(command[0]):
        return ""
    result = rctx.execute(command)
    if result.return_code != 0:
        return ""
    return result.stdout.strip()

def multiarch_triplet(rctx, override):
    """The multiarch triplet to link for (see the file's comment); fails when none is found."""
    if override:
        return override
    for command in [["dpkg-architecture", "-qDEB_HOST_MULTIARCH"], ["gcc", "-print-multiarch"]]:
        triplet = _first_line_of(rctx, command)
        if triplet:
            return triplet
    fail("%s: cannot tell the multiarch triplet (no dpkg-architecture, no gcc): pass " % rctx.name +
         "tessera_deps(multiarch = \"x86_64-linux-gnu\") or the triplet of the target")

def multiarch_lib_dir(rctx, override):
    """/usr/lib/<triplet>; fails when that directory does not exist."""
    libdir = "/usr/lib/" + multiarch_triplet(rctx, override)
    if not rctx.path(libdir).exists:
        fail("%s: %s does not exist: the multiarch triplet is wrong, or the target's Debian " %
             (rctx.name, libdir) + "libraries are not installed (dpkg --add-architecture)")
    return libdir

def _link_flag(rctx, libdir, lib):
    """-l<lib>, or -l:lib<lib>.so.<N> where only the runtime package is installed (no .so link).

    Debian's libdnnl-dev cannot be installed for two architectures at once (its dnnl_config.h
    differs), so a cross build has the arm64 runtime library libdnnl.so.2 and the host's headers.
    """
    if rctx.path("%s/lib%s.so" % (libdir, lib)).exists or not rctx.path(libdir).exists:
        return "-l" + lib
    versioned = sorted([
        p.basename
        for p in rctx.path(libdir).readdir()
        if p.basename.startswith("lib%s.so." % lib) and p.basename.count(".") == 2
    ])
    return "-l:" + versioned[0] if versioned else "-l" + lib

def _flags(rctx, libdir, libs):
    return ["-L" + libdir] + [_link_flag(rctx, libdir, lib) for lib in libs]

def multiarch_linkopts(rctx, override, libs):
    """The linkopts (a Starlark expression) that link `libs` from the target's multiarch directory.

    With `override` the libraries of that triplet, always; without, a select() between the host's
    (multiarch_lib_dir) and, under --cpu=aarch64, /usr/lib/aarch64-linux-gnu. The BUILD must
    declare MULTIARCH_CONFIG_SETTINGS.
    """
    host = _flags(rctx, multiarch_lib_dir(rctx, override), libs)
    if override or not libs:
        return repr(host if libs else [])
    return "select(%s)" % repr({
        ":target_aarch64": _flags(rctx, "/usr/lib/" + AARCH64_TRIPLET, libs),
        "//conditions:default": host,
    })
