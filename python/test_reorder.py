"""tessera.reorder against NumPy references: transposes, conversions, blocked layouts, out=."""
import unittest

import numpy as np

import tessera
import tessera_test_util as util


def rng():
    return np.random.default_rng(54)


class TransposeTest(unittest.TestCase):
    def test_nchw_to_nhwc_and_back_every_type(self):
        for dtype in (np.float32, np.float64, np.float16, np.int32, np.int8, np.uint8, np.uint16):
            with self.subTest(dtype=dtype):
                x = (rng().integers(0, 100, size=(2, 19, 5, 7))).astype(dtype)
                y = tessera.reorder(x, "nchw", "nhwc")
                self.assertEqual(y.dtype, x.dtype)
                np.testing.assert_array_equal(y, x.transpose(0, 2, 3, 1))
                back = tessera.reorder(y, "nhwc", "nchw")
                np.testing.assert_array_equal(back, x)

    def test_two_dim_transpose_matches_numpy(self):
        x = rng().standard_normal((37, 65)).astype(np.float32)
        np.testing.assert_array_equal(tessera.reorder(x, "ab", "ba"), x.T)

    def test_strided_source_is_read_in_place_and_matches(self):
        base = rng().standard_normal((9, 40, 30)).astype(np.float32)
        view = base[:8:2, 3:35, ::3]
        self.assertTrue(tessera.array_desc(view, "abc")[1])
        np.testing.assert_array_equal(tessera.reorder(view, "abc", "cab"),
                                      view.transpose(2, 0, 1))
        for copied in (base[:, ::-1, :], base[1:, 1:]):
            self.assertFalse(tessera.array_desc(copied, "abc")[1])
            np.testing.assert_array_equal(tessera.reorder(copied, "abc", "bac"),
                                          copied.transpose(1, 0, 2))

    def test_result_is_one_new_c_contiguous_array(self):
        x = np.ones((4, 6), np.float32)
        y = tessera.reorder(x, "ab", "ba")
        self.assertTrue(y.flags.c_contiguous and y.flags.owndata)
        self.assertFalse(np.shares_memory(x, y))


class ConversionTest(unittest.TestCase):
    VALUES = np.array([-300.0, -128.5, -127.5, -2.5, -1.5, -0.5, 0.0, 0.5, 1.5, 2.5, 126.5, 127.4,
                       254.5, 255.5, 1e6], dtype=np.float32)

    def test_to_integers_rounds_half_to_even_and_saturates(self):
        for dtype in (np.int8, np.uint8, np.int32):
            with self.subTest(dtype=dtype):
                y = tessera.reorder(self.VALUES, "a", "a", dtype)
                self.assertEqual(y.dtype, dtype)
                np.testing.assert_array_equal(y, util.saturate_round(self.VALUES, dtype))

    def test_f32_to_f16_and_f64_match_numpy(self):
        x = np.concatenate([rng().standard_normal(1000).astype(np.float32) * 1000,
                            np.array([65504, 65520, 1e9, -1e9, 6e-8, np.inf, -np.inf], np.float32)])
        with np.errstate(over="ignore"):
            f16 = x.astype(np.float16)
        np.testing.assert_array_equal(tessera.reorder(x, "a", "a", np.float16), f16)
        np.testing.assert_array_equal(tessera.reorder(x, "a", "a", "f64"), x.astype(np.float64))
        d = rng().standard_normal(500) * 1e5
        np.testing.assert_array_equal(tessera.reorder(d, "a", "a", "f32"), d.astype(np.float32))

    def test_bf16_is_a_uint16_view_rounded_to_nearest_even(self):
        x = np.concatenate([rng().standard_normal(4096).astype(np.float32),
                            np.array([1.00390625, 1.01171875, 3.4e38, -0.0], np.float32)])
        bits = tessera.reorder(x, "a", "a", "bf16")
        self.assertEqual(bits.dtype, np.uint16)
        np.testing.assert_array_equal(bits, util.bf16_bits(x))
        back = tessera.reorder(bits, "a", "a", np.float32)
        np.testing.assert_array_equal(back, util.bf16_to_f32(bits))

    def test_fp8_is_named_over_uint8(self):
        x = np.array([0.0, 0.5, -1.0, 1.5, 448.0, -448.0, 0.015625], np.float32)
        f8 = tessera.reorder(x, "a", "a", "f8_e4m3")
        self.assertEqual(f8.dtype, np.uint8)
        np.testing.assert_array_equal(tessera.reorder(f8, "a", "a", "f32", src_dtype="f8_e4m3"), x)
        self.assertEqual(f8[4], 0x7E)  # 448 = 1.75 * 2^8: S.1111.110

    def test_reference_kernel_gives_the_same_bits(self):
        x = (rng().standard_normal((3, 40, 24)) * 50).astype(np.float32)
        for dtype in ("bf16", "s8", "f16"):
            with self.subTest(dtype=dtype):
                np.testing.assert_array_equal(tessera.reorder(x, "abc", "acb", dtype, impl="ref"),
                                              tessera.reorder(x, "abc", "acb", dtype))

    def test_s8_to_f32_with_transpose(self):
        x = rng().integers(-128, 128, size=(3, 33, 17)).astype(np.int8)
        np.testing.assert_array_equal(tessera.reorder(x, "abc", "acb", np.float32),
                                      x.transpose(0, 2, 1).astype(np.float32))


class AttributeTest(unittest.TestCase):
    def test_common_scale_and_zero_point(self):
        x = rng().standard_normal((4, 50)).astype(np.float32) * 40
        y = tessera.reorder(x, "ab", "ab", np.uint8, src_scales=0.5, dst_zero_points=128)
        np.testing.assert_array_equal(y, util.saturate_round(x * np.float32(0.5) + 128, np.uint8))

    def test_per_channel_dst_scales(self):
        x = rng().standard_normal((2, 8, 3, 3)).astype(np.float32) * 10
        scales = np.linspace(0.25, 2.0, 8).astype(np.float32)
        y = tessera.reorder(x, "nchw", "nhwc", "s8", dst_scales=scales, dst_scales_mask=2)
        ref = util.saturate_round(x / scales[None, :, None, None], np.int8).transpose(0, 2, 3, 1)
        np.testing.assert_array_equal(y, ref)

    def test_sum_post_op_adds_to_out(self):
        x = np.arange(12, dtype=np.float32).reshape(3, 4)
        out = np.full((4, 3), 100.0, np.float32)
        y = tessera.reorder(x, "ab", "ba", out=out, sum_beta=2.0)
        self.assertIs(y, out)
        np.testing.assert_array_equal(out, x.T + 200.0)

    def test_output_scales(self):
        x = np.arange(6, dtype=np.float32)
        np.testing.assert_array_equal(tessera.reorder(x, "a", "a", output_scales=[3.0]), x * 3)


class BlockedTest(unittest.TestCase):
    def test_nchw_to_nchw16c_round_trip_with_zero_padding(self):
        x = rng().standard_normal((2, 17, 3, 5)).astype(np.float32)
        blocked = tessera.reorder(x, "nchw", "nChw16c")
        md = tessera.MemoryDesc(x.shape, "f32", tag="nChw16c")
        self.assertEqual(blocked.shape, (md.size,))
        for index in [(0, 0, 0, 0), (1, 16, 2, 4), (1, 5, 1, 3), (0, 16, 0, 1)]:
            self.assertEqual(blocked[md.offset(index)], x[index])
        pad = [md.offset((n, c, h, w)) for n in range(2) for c in range(17, 32)
               for h in range(3) for w in range(5)]
        self.assertTrue(np.all(blocked[pad] == 0))
        back = tessera.reorder(blocked, "nChw16c", "nchw", dims=x.shape)
        np.testing.assert_array_equal(back, x)

    def test_memory_desc_form_with_conversion(self):
        x = rng().standard_normal((3, 20, 4, 4)).astype(np.float32)
        md = tessera.MemoryDesc(x.shape, "bf16", tag="nChw8c")
        blocked = tessera.reorder(x, "nchw", md)
        self.assertEqual((blocked.dtype, blocked.shape), (np.dtype(np.uint16), (md.size,)))
        plain = tessera.MemoryDesc(x.shape, "f32", tag="nhwc")
        back = tessera.reorder(blocked, md, plain)
        self.assertEqual(back.shape, (plain.size,))  # not row-major: a 1-D buffer
        ref = util.bf16_to_f32(util.bf16_bits(x)).transpose(0, 2, 3, 1).reshape(-1)
        np.testing.assert_array_equal(back, ref)

    def test_strided_memory_desc_buffer(self):
        x = rng().standard_normal((4, 5)).astype(np.float32)
        col = tessera.MemoryDesc((4, 5), "f32", strides=(1, 4))
        buf = tessera.reorder(x, "ab", col)
        np.testing.assert_array_equal(buf, x.T.reshape(-1))
        np.testing.assert_array_equal(tessera.reorder(buf, col, "ab"), x)

    def test_weights_tag_round_trip(self):
        w = rng().standard_normal((24, 20, 3, 3)).astype(np.float32)
        blocked = tessera.reorder(w, "oihw", "OIhw16i16o")
        back = tessera.reorder(blocked, "OIhw16i16o", "oihw", dims=w.shape)
        np.testing.assert_array_equal(back, w)


class OutTest(unittest.TestCase):
    def test_out_is_written_in_place_and_returned(self):
        x = rng().standard_normal((5, 6)).astype(np.float32)
        out = np.empty((6, 5), np.float32)
        y = tessera.reorder(x, "ab", "ba", out=out)
        self.assertIs(y, out)
        np.testing.assert_array_equal(out, x.T)

    def test_strided_out_writes_only_its_elements(self):
        x = rng().standard_normal((5, 6)).astype(np.float32)
        big = np.zeros((12, 10), np.float32)
        view = big[::2, 2:7]
        y = tessera.reorder(x, "ab", "ba", out=view)
        self.assertTrue(np.shares_memory(y, big))
        np.testing.assert_array_equal(big[::2, 2:7], x.T)
        big[::2, 2:7] = 0
        self.assertFalse(big.any())

    def test_blocked_out_buffer(self):
        x = rng().standard_normal((1, 16, 2, 2)).astype(np.float32)
        out = np.full(64, 7.0, np.float32)
        self.assertIs(tessera.reorder(x, "nchw", "nChw16c", out=out), out)
        np.testing.assert_array_equal(out, x.transpose(0, 2, 3, 1).reshape(-1))


class ErrorTest(unittest.TestCase):
    def test_errors_raise_value_error_and_leave_out_untouched(self):
        x = np.ones((4, 6), np.float32)
        out = np.full((6, 4), 3.0, np.float32)
        cases = [
            (lambda: tessera.reorder(x, "ab", "b?"), r"b\?"),
            (lambda: tessera.reorder(x, "abc", "ab"), "rank"),
            (lambda: tessera.reorder(x, "ab", "ba", "complex64"), "complex64"),
            (lambda: tessera.reorder(x, "ab", "ba", out=np.empty((4, 6), np.float32)), r"\(6, 4\)"),
            (lambda: tessera.reorder(x, "ab", "ba", np.int8, out=out), "int8"),
            (lambda: tessera.reorder(x, "ab", "ba", out=out.tolist()), "ndarray"),
            (lambda: tessera.reorder(x, "ab", "ba", out=out, src_scales=[1.0, 2.0]), "src_scales"),
            (lambda: tessera.reorder(x, "ab", "ba", out=out, src_scales=1.0,
                                     src_scales_mask=4), "mask"),
            (lambda: tessera.reorder(x, "ab", "ba", out=out, dst_scales_mask=1), "dst_scales"),
            (lambda: tessera.reorder(x, "ab", "ba", out=out, dst_zero_points=0.5), "integers"),
            (lambda: tessera.reorder(x, "ab", "ba", out=out, dst_zero_points=2**31), "int32"),
            (lambda: tessera.reorder(x, "ab", "ba", out=out, scale=2.0), "'scale'"),
            (lambda: tessera.reorder(x, "ab", "ba", sum_beta=1.0), "out="),
            (lambda: tessera.reorder(x, "ab", "ba", out=out, impl="nothing"), "nothing"),
            (lambda: tessera.reorder(x.reshape(-1), "nChw16c", "nchw"), "dims="),
            (lambda: tessera.reorder(x.reshape(-1), "nChw16c", "nchw", dims=(1, 16, 2, 2)),
             "64 items"),
        ]
        for call, pattern in cases:
            with self.subTest(pattern=pattern):
                with self.assertRaisesRegex(ValueError, pattern):
                    call()
                np.testing.assert_array_equal(out, 3.0)

    def test_overlapping_src_and_out_is_refused(self):
        x = np.ones((4, 4), np.float32)
        with self.assertRaisesRegex(ValueError, "overlap"):
            tessera.reorder(x, "ab", "ba", out=x)

    def test_read_only_out_is_refused(self):
        out = np.zeros((2, 2), np.float32)
        out.flags.writeable = False
        with self.assertRaisesRegex(ValueError, "read-only"):
            tessera.reorder(np.ones((2, 2), np.float32), "ab", "ba", out=out)


if __name__ == "__main__":
    unittest.main()
