"""Helpers of the tessera module's tests: NumPy references for the types NumPy lacks."""
import os

import numpy as np

import tessera

EPS32 = 2.0 ** -23


def module_is_the_built_one():
    """The imported module is the tessera.so that run_unittest.sh put first on PYTHONPATH."""
    first = os.environ.get("PYTHONPATH", "").split(os.pathsep)[0]
    built = os.path.realpath(os.path.join(first, "tessera.so"))
    return os.path.realpath(tessera.__file__) == built


def bf16_bits(values):
    """float32 -> bf16 bit patterns, rounded to nearest even (NaN kept quiet)."""
    bits = np.asarray(values, dtype=np.float32).view(np.uint32).astype(np.uint64)
    rounded = (bits + 0x7FFF + ((bits >> 16) & 1)) >> 16
    nan = np.isnan(np.asarray(values, dtype=np.float32))
    return np.where(nan, (bits >> 16) | 0x40, rounded).astype(np.uint16)


def bf16_to_f32(bits):
    return (np.asarray(bits, dtype=np.uint16).astype(np.uint32) << 16).view(np.float32)


def saturate_round(values, dtype):
    """oneDNN's conversion to an integer type: round half to even, then saturate."""
    info = np.iinfo(dtype)
    return np.clip(np.rint(np.asarray(values, dtype=np.float64)), info.min, info.max).astype(dtype)


def softmax_ref(x, axis):
    x = np.asarray(x, dtype=np.float64)
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def logsoftmax_ref(x, axis):
    x = np.asarray(x, dtype=np.float64)
    shifted = x - x.max(axis=axis, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))
