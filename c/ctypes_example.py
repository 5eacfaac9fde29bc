"""Tessera's C API from Python through ctypes: a softmax over the rows of a 2x4 matrix.

    python3 ctypes_example.py /path/to/libtessera.so

Prints the softmax it computed and exits 0 when it matches math.exp's, 1 otherwise. The same
calls work from any FFI that can pass pointers, int64 arrays and C structs (docs/c_api.md).
"""
import ctypes
import math
import sys

TESSERA_F32 = 1
TESSERA_ARG_SRC, TESSERA_ARG_DST = 0, 1
TESSERA_SOFTMAX = 0


class ExecArg(ctypes.Structure):
    """tessera_exec_arg: {kind, data, md}."""
    _fields_ = [("kind", ctypes.c_int), ("data", ctypes.c_void_p), ("md", ctypes.c_void_p)]


def load(path):
    lib = ctypes.CDLL(path)
    handle = ctypes.c_void_p
    lib.tessera_last_error_message.restype = ctypes.c_char_p
    lib.tessera_version.restype = ctypes.c_char_p
    lib.tessera_memory_desc_create_with_tag.argtypes = [
        ctypes.POINTER(handle), ctypes.c_int, ctypes.POINTER(ctypes.c_int64), ctypes.c_int,
        ctypes.c_char_p]
    lib.tessera_softmax_forward_create.argtypes = [
        ctypes.POINTER(handle), ctypes.c_int, handle, handle, ctypes.c_int, handle]
    lib.tessera_primitive_execute.argtypes = [handle, ctypes.c_int, ctypes.POINTER(ExecArg)]
    lib.tessera_primitive_get_impl_name.argtypes = [handle, ctypes.POINTER(ctypes.c_char_p)]
    lib.tessera_primitive_destroy.argtypes = [handle]
    lib.tessera_memory_desc_destroy.argtypes = [handle]
    return lib


def check(lib, status):
    if status != 0:
        raise RuntimeError(lib.tessera_last_error_message().decode())


def softmax_rows(lib, rows):
    n, k = len(rows), len(rows[0])
    dims = (ctypes.c_int64 * 2)(n, k)
    src = (ctypes.c_float * (n * k))(*[x for row in rows for x in row])
    dst = (ctypes.c_float * (n * k))()
    md, prim = ctypes.c_void_p(), ctypes.c_void_p()
    check(lib, lib.tessera_memory_desc_create_with_tag(ctypes.byref(md), 2, dims, TESSERA_F32,
                                                       b"ab"))
    try:
        check(lib, lib.tessera_softmax_forward_create(ctypes.byref(prim), TESSERA_SOFTMAX, md, md,
                                                      1, None))
        try:
            args = (ExecArg * 2)(ExecArg(TESSERA_ARG_SRC, ctypes.addressof(src), None),
                                 ExecArg(TESSERA_ARG_DST, ctypes.addressof(dst), None))
            check(lib, lib.tessera_primitive_execute(prim, 2, args))
            name = ctypes.c_char_p()
            check(lib, lib.tessera_primitive_get_impl_name(prim, ctypes.byref(name)))
            print("impl:", name.value.decode())
        finally:
            lib.tessera_primitive_destroy(prim)
    finally:
        lib.tessera_memory_desc_destroy(md)
    return [list(dst[r * k:(r + 1) * k]) for r in range(n)]


def main():
    lib = load(sys.argv[1])
    print("tessera", lib.tessera_version().decode())
    rows = [[1.0, 2.0, 3.0, 4.0], [-1.0, 0.0, 0.5, 8.0]]
    got = softmax_rows(lib, rows)
    ok = True
    for row, out in zip(rows, got):
        total = sum(math.exp(x - max(row)) for x in row)
        for x, y in zip(row, out):
            ok &= abs(y - math.exp(x - max(row)) / total) <= 1e-6
        print(" ".join("%.6f" % y for y in out))
    # A bad tag: the status is non-zero and the message says why.
    md = ctypes.c_void_p()
    dims = (ctypes.c_int64 * 2)(2, 4)
    status = lib.tessera_memory_desc_create_with_tag(ctypes.byref(md), 2, dims, TESSERA_F32,
                                                     b"abq")
    message = lib.tessera_last_error_message().decode()
    print("bad tag:", status, message)
    ok &= status == 1 and "abq" in message and not md.value
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
