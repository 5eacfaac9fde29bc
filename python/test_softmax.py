"""tessera.softmax / logsoftmax, forward and backward, against float64 NumPy references within
the bounds of docs/softmax.md (eps = 2^-23)."""
import unittest

import numpy as np

import tessera
import tessera_test_util as util
from tessera_test_util import EPS32


def rng():
    return np.random.default_rng(54)


class ForwardTest(unittest.TestCase):
    def check_f32(self, y, ref):
        err = np.abs(y.astype(np.float64) - ref)
        self.assertTrue(np.all(err <= 4 * EPS32 * np.abs(ref) + 2.0 ** -148),
                        f"max relative error {np.max(err / np.maximum(np.abs(ref), 1e-300))}")

    def test_softmax_and_logsoftmax_every_axis(self):
        x = (rng().standard_normal((6, 33, 20)) * 5).astype(np.float32)
        for axis in (0, 1, 2, -1):
            with self.subTest(axis=axis):
                self.check_f32(tessera.softmax(x, axis), util.softmax_ref(x, axis))
                self.check_f32(tessera.logsoftmax(x, axis), util.logsoftmax_ref(x, axis))

    def test_strided_and_transposed_sources_are_read_in_place(self):
        base = (rng().standard_normal((40, 50)) * 3).astype(np.float32)
        for view in (base[:38:2, 5:45], base.T):
            with self.subTest(strides=view.strides):
                self.assertTrue(tessera.array_desc(view)[1])
                self.check_f32(tessera.softmax(view, 1), util.softmax_ref(view, 1))

    def test_f64(self):
        x = rng().standard_normal((7, 300)) * 10
        y = tessera.softmax(x)
        self.assertEqual(y.dtype, np.float64)
        ref = util.softmax_ref(x, -1)
        self.assertTrue(np.all(np.abs(y - ref) <= 1e-12 * np.abs(ref)))

    def test_f16_and_bf16_outputs_are_rounded_results(self):
        x = (rng().standard_normal((5, 64)) * 4).astype(np.float32)
        ref = util.softmax_ref(x, 1)
        y16 = tessera.softmax(x, 1, dst_dtype=np.float16).astype(np.float64)
        half_ulp16 = np.spacing(ref.astype(np.float16)).astype(np.float64) / 2
        self.assertTrue(np.all(np.abs(y16 - ref) <= half_ulp16 + 4 * EPS32 * np.abs(ref)))
        ybf = tessera.softmax(x, 1, dst_dtype="bf16")
        self.assertEqual(ybf.dtype, np.uint16)
        ybf = util.bf16_to_f32(ybf).astype(np.float64)
        half_ulp_bf = np.abs(ref) * 2.0 ** -8
        self.assertTrue(np.all(np.abs(ybf - ref) <= half_ulp_bf + 4 * EPS32 * np.abs(ref)))
        src_bf = util.bf16_bits(x)
        self.check_f32(tessera.softmax(src_bf, 1, dst_dtype="f32"),
                       util.softmax_ref(util.bf16_to_f32(src_bf), 1))

    def test_int8_outputs_with_scales(self):
        x = (rng().standard_normal((4, 40)) * 3).astype(np.float32)
        ref = util.softmax_ref(x, 1)
        u8 = tessera.softmax(x, 1, dst_dtype=np.uint8, dst_scales=1 / 255)
        self.assertEqual(u8.dtype, np.uint8)
        self.assertTrue(np.all(np.abs(u8.astype(np.float64) - np.clip(ref * 255, 0, 255)) <= 1))
        s8 = tessera.logsoftmax(x, 1, dst_dtype="s8", dst_scales=0.5)
        expected = np.clip(util.logsoftmax_ref(x, 1) / 0.5, -128, 127)
        self.assertTrue(np.all(np.abs(s8.astype(np.float64) - expected) <= 1))

    def test_all_minus_inf_row(self):
        x = np.full((2, 8), -np.inf, np.float32)
        x[1] = 0
        self.assertTrue(np.all(np.isnan(tessera.softmax(x)[0])))
        y = tessera.softmax(x, inf_as_zero=True)
        np.testing.assert_array_equal(y[0], 0)
        np.testing.assert_allclose(y[1], 1 / 8)

    def test_in_place_and_out(self):
        x = (rng().standard_normal((3, 100))).astype(np.float32)
        ref = util.softmax_ref(x, 1)
        same = tessera.softmax(x, 1, out=x)
        self.assertIs(same, x)
        self.check_f32(x, ref)
        out = np.empty((6, 100), np.float32)[::2]
        y = tessera.logsoftmax(x, 1, out=out)
        self.assertIs(y, out)
        self.assertTrue(np.shares_memory(y, out))

    def test_blocked_layout_through_a_memory_desc(self):
        x = (rng().standard_normal((2, 20, 3, 3)) * 2).astype(np.float32)
        md = tessera.MemoryDesc(x.shape, "f32", tag="nChw16c")
        buf = tessera.reorder(x, "nchw", md)
        y_buf = tessera.softmax(buf, 1, desc=md)
        self.assertEqual(y_buf.shape, (md.size,))
        y = tessera.reorder(y_buf, md, "nchw")
        self.check_f32(y.reshape(x.shape), util.softmax_ref(x, 1))


class BackwardTest(unittest.TestCase):
    def setUp(self):
        g = rng()
        self.x = (g.standard_normal((9, 70)) * 3).astype(np.float32)
        self.dd = g.standard_normal((9, 70)).astype(np.float32)

    def test_softmax_backward(self):
        y = tessera.softmax(self.x, 1)
        yd, dd = y.astype(np.float64), self.dd.astype(np.float64)
        ref = yd * (dd - (dd * yd).sum(axis=1, keepdims=True))
        bound = 4 * EPS32 * np.abs(yd) * (np.abs(dd) + np.abs(dd * yd).sum(axis=1, keepdims=True))
        ds = tessera.softmax_backward(self.dd, y, 1)
        self.assertEqual(ds.dtype, np.float32)
        self.assertTrue(np.all(np.abs(ds - ref) <= bound))

    def test_logsoftmax_backward_in_place(self):
        y = tessera.logsoftmax(self.x, 1)
        yd, dd = y.astype(np.float64), self.dd.astype(np.float64)
        total = dd.sum(axis=1, keepdims=True)
        ref = dd - np.exp(yd) * total
        bound = 4 * EPS32 * (np.abs(dd) + np.exp(yd) * np.abs(dd).sum(axis=1, keepdims=True))
        dd_copy = self.dd.copy()
        ds = tessera.logsoftmax_backward(dd_copy, y, -1, out=dd_copy)
        self.assertIs(ds, dd_copy)
        self.assertTrue(np.all(np.abs(ds - ref) <= bound))

    def test_backward_in_a_blocked_layout(self):
        x = (rng().standard_normal((2, 20, 3, 3)) * 2).astype(np.float32)
        dd = rng().standard_normal(x.shape).astype(np.float32)
        md = tessera.MemoryDesc(x.shape, "f32", tag="nChw16c")
        y = tessera.softmax(x, 1)
        ds_buf = tessera.softmax_backward(tessera.reorder(dd, "nchw", md),
                                          tessera.reorder(y, "nchw", md), 1, desc=md)
        self.assertEqual(ds_buf.shape, (md.size,))
        ds = tessera.reorder(ds_buf, md, "nchw").reshape(x.shape)
        yd, ddd = y.astype(np.float64), dd.astype(np.float64)
        ref = yd * (ddd - (ddd * yd).sum(axis=1, keepdims=True))
        bound = 4 * EPS32 * np.abs(yd) * (np.abs(ddd) + np.abs(ddd * yd).sum(axis=1, keepdims=True))
        self.assertTrue(np.all(np.abs(ds - ref) <= bound))

    def test_f64_backward_axis0(self):
        x = rng().standard_normal((30, 4))
        dd = rng().standard_normal((30, 4))
        y = tessera.softmax(x, 0)
        ref = y * (dd - (dd * y).sum(axis=0, keepdims=True))
        np.testing.assert_allclose(tessera.softmax_backward(dd, y, 0), ref, rtol=0, atol=1e-13)


class ErrorTest(unittest.TestCase):
    def test_errors_raise_value_error(self):
        x = np.ones((4, 6), np.float32)
        cases = [
            (lambda: tessera.softmax(x, 2), "axis"),
            (lambda: tessera.softmax(x, -3), "axis"),
            (lambda: tessera.softmax(x.astype(np.int32)), "s32"),
            (lambda: tessera.softmax(x, out=np.empty((6, 4), np.float32)), r"\(4, 6\)"),
            (lambda: tessera.softmax(x, dst_dtype=np.uint8, dst_scales=0.0), "dst_scales"),
            (lambda: tessera.softmax(x, src_zero_points=1), "zero"),
            (lambda: tessera.softmax(x, impl="nothing"), "nothing"),
            (lambda: tessera.softmax(x.reshape(-1), desc=tessera.MemoryDesc((4, 5), "f32")),
             "20 items"),
            (lambda: tessera.softmax_backward(x, np.ones((4, 5), np.float32)), "dims"),
        ]
        for call, pattern in cases:
            with self.subTest(pattern=pattern):
                with self.assertRaisesRegex(ValueError, pattern):
                    call()


if __name__ == "__main__":
    unittest.main()
