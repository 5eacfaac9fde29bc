"""tessera_pkg_config: writes the pkg-config file of the C API's shared library.

    load("//c:pkg_config.bzl", "tessera_pkg_config")

    tessera_pkg_config(name = "tessera", version = "0.1.0")   # -> tessera.pc

The prefix is the `prefix` attribute unless `--define=tessera_prefix=/opt/tessera` is given. The file
expects the header at ${prefix}/include/tessera/c/tessera.h and the library at
${prefix}/lib/libtessera.so; `pkg-config --define-variable=prefix=DIR` relocates it.
"""

def _tessera_pkg_config_impl(ctx):
    prefix = ctx.var.get("tessera_prefix", ctx.attr.prefix)
    out = ctx.actions.declare_file(ctx.label.name + ".pc")
    ctx.actions.write(out, "\n".join([
        "prefix=" + prefix,
        "libdir=${prefix}/lib",
        "includedir=${prefix}/include",
        "",
        "Name: tessera",
        "Description: Tensor memory formats, reorder and softmax (C API)",
        "Version: " + ctx.attr.version,
        "Libs: -L${libdir} -ltessera",
        "Cflags: -I${includedir}",
        "",
    ]))
    return [DefaultInfo(files = depset([out]), runfiles = ctx.runfiles(files = [out]))]

tessera_pkg_config = rule(
    implementation = _tessera_pkg_config_impl,
    attrs = {
        "prefix": attr.string(default = "/usr/local"),
        "version": attr.string(mandatory = True),
    },
)
