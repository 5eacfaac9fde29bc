"""cc_module: C++20 named modules with Bazel 4 and clang-19.

    cc_module(name = "tessera.core", interface = "core.cppm", deps = [...])
    cc_test(name = "t", srcs = ["t.cc"], deps = [":tessera.core"],
            copts = module_copts([":tessera.core"]), tags = ["modules"])

The rule precompiles `interface` (the primary interface unit of module `name`) into a BMI
(`name.pcm`) with the same toolchain, features and flags as ordinary C++ compiles, compiles the BMI
into an object, and returns CcInfo: the BMI travels as a header of dependents, the object is linked
into them. Module names equal target names, so a dependent can find the BMI.

Why the flags are what they are (clang-19):
  * `-Xclang -fmodules-embed-all-files`: otherwise the BMI refers to the headers it read by their
    absolute path inside the precompile action's sandbox, which is gone when a consumer compiles.
  * CXX_STANDARD (bazel/cc_rules.bzl): -std must match between a BMI and its importers, and
    every Tessera target carries it; a consumer's importing target names the same -std.
  * every transitively imported module must be named with `-fmodule-file=<name>=<pcm>`; a response
    file per module (`name.modmap`) lists them and module_copts() passes it.
GCC 12 cannot build these (its -fmodules-ts rejects the export-using pattern): tag module targets
and their users "modules" so that --config=gcc filters them out.
"""

load("@bazel_tools//tools/cpp:toolchain_utils.bzl", "find_cpp_toolchain")
load("//bazel:cc_rules.bzl", "CXX_STANDARD")

CcModuleInfo = provider(fields = {
    "flags": "depset of -fmodule-file=<name>=<pcm> for this module and all it imports",
    "pcms": "depset of the BMI files of this module and all it imports",
})

def _compile_command(ctx, features, toolchain, compilation, src, out, extra_flags):
    variables = cc_common.create_compile_variables(
        feature_configuration = features,
        cc_toolchain = toolchain,
        user_compile_flags = ctx.fragments.cpp.copts + ctx.fragments.cpp.cxxopts + CXX_STANDARD +
                             ctx.attr.copts + extra_flags,
        source_file = src.path,
        output_file = out.path,
        include_directories = compilation.includes if compilation else depset(),
        quote_include_directories = compilation.quote_includes if compilation else depset(),
        system_include_directories = compilation.system_includes if compilation else depset(),
        preprocessor_defines = compilation.defines if compilation else depset(),
        use_pic = True,
    )
    return cc_common.get_memory_inefficient_command_line(
        feature_configuration = features,
        action_name = "c++-compile",
        variables = variables,
    )

def _cc_module_impl(ctx):
    toolchain = find_cpp_toolchain(ctx)
    if toolchain.compiler != "clang":
        fail("cc_module %s needs clang-19; the toolchain is '%s' (use the default config, not --config=gcc)" %
             (ctx.label, toolchain.compiler))
    features = cc_common.configure_features(
        ctx = ctx,
        cc_toolchain = toolchain,
        requested_features = ctx.features,
        unsupported_features = ctx.disabled_features,
    )
    compiler = cc_common.get_tool_for_action(feature_configuration = features, action_name = "c++-compile")
    deps_info = cc_common.merge_cc_infos(cc_infos = [d[CcInfo] for d in ctx.attr.deps])
    compilation = deps_info.compilation_context
    imported = [d[CcModuleInfo] for d in ctx.attr.deps if CcModuleInfo in d]
    import_flags = depset(transitive = [m.flags for m in imported])
    import_pcms = depset(transitive = [m.pcms for m in imported])

    name = ctx.label.name
    pcm = ctx.actions.declare_file(name + ".pcm")
    obj = ctx.actions.declare_file("_objs/%s/%s.o" % (name, name))

    ctx.actions.run(
        executable = compiler,
        arguments = _compile_command(
            ctx, features, toolchain, compilation, ctx.file.interface, pcm,
            ["--precompile", "-Xclang", "-fmodules-embed-all-files"] + import_flags.to_list(),
        ),
        inputs = depset([ctx.file.interface], transitive = [compilation.headers, import_pcms, toolchain.all_files]),
        outputs = [pcm],
        mnemonic = "CppModulePrecompile",
        progress_message = "Precompiling C++ module %s" % name,
    )
    ctx.actions.run(
        executable = compiler,
        arguments = _compile_command(
            ctx, features, toolchain, None, pcm, obj,
            ["-Wno-unused-command-line-argument"] + import_flags.to_list(),
        ),
        inputs = depset([pcm], transitive = [import_pcms, toolchain.all_files]),
        outputs = [obj],
        mnemonic = "CppModuleCompile",
        progress_message = "Compiling C++ module %s" % name,
    )

    flags = depset(["-fmodule-file=%s=%s" % (name, pcm.path)], transitive = [import_flags])
    pcms = depset([pcm], transitive = [import_pcms])
    modmap = ctx.actions.declare_file(name + ".modmap")
    ctx.actions.write(modmap, "\n".join(flags.to_list()) + "\n")

    own = CcInfo(
        compilation_context = cc_common.create_compilation_context(
            headers = depset([modmap], transitive = [pcms]),
        ),
        linking_context = cc_common.create_linking_context(linker_inputs = depset([
            cc_common.create_linker_input(
                owner = ctx.label,
                user_link_flags = depset([obj.path]),
                additional_inputs = depset([obj]),
            ),
        ])),
    )
    return [
        DefaultInfo(files = depset([pcm, obj, modmap])),
        cc_common.merge_cc_infos(direct_cc_infos = [own], cc_infos = [deps_info]),
        CcModuleInfo(flags = flags, pcms = pcms),
    ]

cc_module = rule(
    implementation = _cc_module_impl,
    attrs = {
        "interface": attr.label(mandatory = True, allow_single_file = [".cppm"]),
        "deps": attr.label_list(providers = [[CcInfo]]),
        "copts": attr.string_list(),
        "_cc_toolchain": attr.label(default = "@bazel_tools//tools/cpp:current_cc_toolchain"),
    },
    fragments = ["cpp"],
    toolchains = ["@bazel_tools//tools/cpp:toolchain_type"],
    incompatible_use_toolchain_transition = True,
)

def module_copts(modules):
    """copts for a cc_* target importing the given cc_module labels (also list them in deps).

    Each label becomes `@$(BINDIR)/<package>/<name>.modmap`, a response file naming the BMIs of
    the module and of everything it imports. $(BINDIR) keeps it right in every configuration and
    when Tessera is an external repository of another workspace.
    """
    out = []
    for label in modules:
        repo = native.repository_name()
        if label.startswith("@"):
            repo, label = label.split("//", 1)
        elif label.startswith("//"):
            label = label[2:]
        else:
            label = native.package_name() + ":" + label.lstrip(":")
        if ":" in label:
            pkg, name = label.split(":", 1)
        else:
            pkg, name = label, label.split("/")[-1]
        root = "$(BINDIR)/" if repo in ("@", "") else "$(BINDIR)/external/%s/" % repo[1:]
        out.append("@%s%s%s.modmap" % (root, pkg + "/" if pkg else "", name))
    return out
