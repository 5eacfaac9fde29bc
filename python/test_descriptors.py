"""MemoryDesc and array_desc: descriptors and the zero-copy rule for inputs."""
import unittest

import numpy as np

import tessera
import tessera_test_util as util


class MemoryDescTest(unittest.TestCase):
    def test_module_is_the_built_one(self):
        self.assertTrue(util.module_is_the_built_one(), tessera.__file__)

    def test_blocked_descriptor_has_padded_size_and_offsets(self):
        md = tessera.MemoryDesc((2, 17, 3, 3), "f32", tag="nChw16c")
        self.assertEqual(md.dims, (2, 17, 3, 3))
        self.assertEqual(md.padded_dims, (2, 32, 3, 3))
        self.assertEqual(md.inner_blocks, [(1, 16)])
        self.assertEqual(md.size, 2 * 32 * 3 * 3)
        self.assertEqual(md.nbytes, 4 * md.size)
        self.assertTrue(md.is_blocked)
        self.assertEqual(md.dtype, "f32")
        self.assertEqual(md.numpy_dtype, np.dtype(np.float32))
        # index (n, c, h, w) -> ((n * 2 + c // 16) * 9 + h * 3 + w) * 16 + c % 16
        self.assertEqual(md.offset((1, 17, 2, 1)), ((1 * 2 + 1) * 9 + 2 * 3 + 1) * 16 + 1)

    def test_strides_and_default_row_major(self):
        col = tessera.MemoryDesc((4, 5), np.float32, strides=(1, 4))
        self.assertEqual(col.strides, (1, 4))
        self.assertEqual(col.offset((3, 2)), 3 + 2 * 4)
        row = tessera.MemoryDesc((4, 5), "bf16")
        self.assertEqual(row.strides, (5, 1))
        self.assertEqual(row.numpy_dtype, np.dtype(np.uint16))
        self.assertEqual(row, tessera.MemoryDesc((4, 5), np.uint16, tag="ab"))

    def test_bad_descriptors_raise_value_error_naming_the_value(self):
        with self.assertRaisesRegex(ValueError, "nChw17q"):
            tessera.MemoryDesc((2, 3, 4, 5), "f32", tag="nChw17q")
        with self.assertRaisesRegex(ValueError, "-2"):
            tessera.MemoryDesc((4, 5), "f32", strides=(-2, 1))
        with self.assertRaisesRegex(ValueError, "complex64"):
            tessera.MemoryDesc((4, 5), np.complex64)
        with self.assertRaisesRegex(ValueError, "not both"):
            tessera.MemoryDesc((4, 5), "f32", tag="ab", strides=(5, 1))
        with self.assertRaisesRegex(ValueError, "padded dims"):
            tessera.MemoryDesc((4, 5), "f32").offset((4, 0))


class ArrayDescTest(unittest.TestCase):
    def test_contiguous_and_strided_views_are_read_in_place(self):
        x = np.zeros((6, 8, 10), dtype=np.float32)
        md, in_place = tessera.array_desc(x)
        self.assertTrue(in_place)
        self.assertEqual(md.strides, (80, 10, 1))
        view = x[1:5:2, :, ::2]
        md, in_place = tessera.array_desc(view)
        self.assertTrue(in_place)
        self.assertEqual(md.dims, view.shape)
        self.assertEqual(md.strides, tuple(s // 4 for s in view.strides))
        md, in_place = tessera.array_desc(x.transpose(2, 0, 1))
        self.assertTrue(in_place)
        self.assertEqual(md.strides, (1, 80, 10))

    def test_plain_tag_maps_array_axes_to_logical_dims(self):
        nhwc = np.zeros((2, 5, 7, 3), dtype=np.float32)  # N, H, W, C
        md, in_place = tessera.array_desc(nhwc, "nhwc")
        self.assertTrue(in_place)
        self.assertEqual(md.dims, (2, 3, 5, 7))
        self.assertEqual(md, tessera.MemoryDesc((2, 3, 5, 7), "f32", tag="nhwc"))

    def test_strides_no_descriptor_holds_are_copied(self):
        x = np.arange(12, dtype=np.float32).reshape(3, 4)
        md, in_place = tessera.array_desc(x[:, ::-1])
        self.assertFalse(in_place)
        self.assertEqual(md.strides, (4, 1))
        broadcast = np.broadcast_to(np.float32(1), (3, 4))
        self.assertFalse(tessera.array_desc(broadcast)[1])
        # Interleaved strides: Tessera's overlap rule (sorted strides nest) does not hold.
        y = np.zeros((6, 8, 10), dtype=np.float32)
        self.assertFalse(tessera.array_desc(y[:, :, ::3])[1])

    def test_views_whose_span_passes_their_owners_end_are_copied(self):
        # A descriptor spans dims[0] * strides[0] items from the first element: for y[2:, 4:]
        # that is 4 * 80 items from item 204, past the end (480) of y's buffer.
        y = np.zeros((6, 8, 10), dtype=np.float32)
        self.assertTrue(tessera.array_desc(y[2:, :4])[1])
        self.assertFalse(tessera.array_desc(y[2:, 4:])[1])

    def test_bf16_is_uint16_and_fp8_is_named(self):
        self.assertEqual(tessera.array_desc(np.zeros(3, np.uint16))[0].dtype, "bf16")
        self.assertEqual(tessera.array_desc(np.zeros(3, np.uint8))[0].dtype, "u8")
        self.assertEqual(tessera.array_desc(np.zeros(3, np.uint8), dtype="f8_e4m3")[0].dtype,
                         "f8_e4m3")
        with self.assertRaisesRegex(ValueError, "cannot hold type f8_e4m3"):
            tessera.array_desc(np.zeros(3, np.float32), dtype="f8_e4m3")
        with self.assertRaisesRegex(ValueError, "int64"):
            tessera.array_desc(np.zeros(3, np.int64))
        with self.assertRaisesRegex(ValueError, "big-endian"):
            tessera.array_desc(np.zeros(3, ">f4"))


if __name__ == "__main__":
    unittest.main()
