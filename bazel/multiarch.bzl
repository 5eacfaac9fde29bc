"""multiarch_lib_dir(rctx, override): the directory of the target's Debian libraries.

    load("//bazel:multiarch.bzl", "multiarch_lib_dir")

    def _impl(rctx):
        libdir = multiarch_lib_dir(rctx, rctx.attr.multiarch)   # "/usr/lib/x86_64-linux-gnu"

Debian installs a library for architecture T in /usr/lib/T, T being the multiarch triplet
(x86_64-linux-gnu, aarch64-linux-gnu, ...). The triplet is, in order: `override` when not empty
(a cross build names the target's triplet there), else `dpkg-architecture -qDEB_HOST_MULTIARCH`
(which honours DEB_HOST_ARCH in the environment), else `gcc -print-multiarch`.
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
