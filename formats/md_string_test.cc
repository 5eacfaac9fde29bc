#include "tessera/formats/md_string.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/formats/make_memory_desc.h"

namespace tessera {
namespace {

using ::testing::HasSubstr;

TEST(MdString, VerboseFormMatchesOneDnn) {
  // oneDNN 2.6.3 ONEDNN_VERBOSE for a reorder of 2x17x3x3 nchw -> nChw16c prints
  // "src_f32::blocked:abcd:f0 dst_f32:p:blocked:aBcd16b:f0 ... 2x17x3x3".
  memory_desc src = *make_memory_desc({2, 17, 3, 3}, data_type::f32, "nchw");
  memory_desc dst = *make_memory_desc({2, 17, 3, 3}, data_type::f32, "nChw16c");
  EXPECT_EQ(verbose_md_string(src), "f32::blocked:abcd:f0");
  EXPECT_EQ(verbose_md_string(dst), "f32:p:blocked:aBcd16b:f0");
  EXPECT_EQ(dims_to_string(dst.dims()), "2x17x3x3");
}

TEST(MdString, OnednnVerboseV1Form) {
  // oneDNN 3.6+ ONEDNN_VERBOSE (format v1) prints
  // "src:f32::blocked:abcd::f0 dst:f32:p:blocked:aBcd16b::f0" for the same reorder.
  memory_desc src = *make_memory_desc({2, 17, 3, 3}, data_type::f32, "nchw");
  memory_desc dst = *make_memory_desc({2, 17, 3, 3}, data_type::f32, "nChw16c");
  EXPECT_EQ(onednn_verbose_md_string("src", src), "src:f32::blocked:abcd::f0");
  EXPECT_EQ(onednn_verbose_md_string("dst", dst), "dst:f32:p:blocked:aBcd16b::f0");
  // Not dense: the strides follow the tag.
  memory_desc lead = *memory_desc::with_strides({2, 3}, data_type::f32, {10, 1});
  EXPECT_EQ(onednn_verbose_md_string("src", lead), "src:f32::blocked:ab:10x1:f0");
  EXPECT_EQ(onednn_verbose_md_string("dst", *make_memory_desc({4, 5}, data_type::bf16, "ba")),
            "dst:bf16::blocked:ba::f0");
  EXPECT_EQ(onednn_verbose_md_string("dst", *memory_desc::any({2, 3}, data_type::s8)),
            "dst:s8::any:any::f0");
  // A submemory: offset0 ('0') and strides of the parent.
  memory_desc parent = *make_memory_desc({4, 6}, data_type::f32, "ab");
  memory_desc sub = *parent.submemory({2, 3}, {1, 2});
  EXPECT_EQ(onednn_verbose_md_string("src", sub), "src:f32:0:blocked:ab:6x1:f0");
}

TEST(MdString, RoundTripsOfTagsStridesAndAny) {
  std::vector<memory_desc> mds = {
      *make_memory_desc({2, 17, 3, 3}, data_type::f32, "nChw16c"),
      *make_memory_desc({4, 5}, data_type::bf16, "ba"),
      *make_memory_desc({20, 17, 2, 3}, data_type::s8, "OIhw4i16o4i"),
      *make_memory_desc({3, 1, 1, 4}, data_type::u8, "acdb"),
      *make_memory_desc({2, 0, 3}, data_type::f16, "acb"),
      *make_memory_desc({7}, data_type::s32, "x"),
      *memory_desc::with_strides({2, 3}, data_type::f32, {10, 1}),
      *memory_desc::with_strides({2, 3, 4}, data_type::f64, {1, 40, 8}),
      *memory_desc::any({2, 3}, data_type::f32),
  };
  for (const memory_desc& md : mds) {
    const std::string s = verbose_md_string(md);
    absl::StatusOr<memory_desc> back = parse_verbose_md(s, dims_to_string(md.dims()));
    ASSERT_TRUE(back.ok()) << s << ": " << back.status();
    EXPECT_EQ(*back, md) << s;
  }
  EXPECT_EQ(verbose_md_string(mds[6]), "f32::blocked:ab@10x1:f0");
  EXPECT_EQ(*tag_of(mds[1]), "ba");
  EXPECT_FALSE(tag_of(mds[6]).ok());
}

TEST(MdString, BenchdnnRoundTrip) {
  memory_desc md = *make_memory_desc({2, 17, 3, 3}, data_type::bf16, "nChw16c");
  absl::StatusOr<std::string> args = benchdnn_args(md);
  ASSERT_TRUE(args.ok());
  EXPECT_EQ(*args, "--sdt=bf16 --stag=aBcd16b 2x17x3x3");
  absl::StatusOr<memory_desc> back = parse_benchdnn_args(*args);
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(*back, md);
  // Meta tags and domain tags parse too.
  // Meta and domain tags parse too; the data type defaults to f32 like benchdnn's.
  EXPECT_EQ(*parse_benchdnn_args("--stag=aBx16b 2x17x3x3"),
            *make_memory_desc({2, 17, 3, 3}, data_type::f32, "nChw16c"));
  EXPECT_FALSE(benchdnn_args(*memory_desc::with_strides({2, 3}, data_type::f32, {10, 1})).ok());
}

// Dims of size 0 or 1 make strides tie ("ba" 1x10 has strides 1,1); the printed tag must still
// give back the same descriptor.
TEST(MdString, BenchdnnRoundTripWithDegenerateDims) {
  for (const char* text : {"--sdt=f32 --stag=ba 1x10", "--sdt=f32 --stag=ba 0x8",
                           "--sdt=s8 --stag=acdb 1x1x4x1", "--sdt=f32 --stag=cab 1x1x5",
                           "--sdt=f16 --stag=aBcd16b 2x1x1x3"}) {
    absl::StatusOr<memory_desc> md = parse_benchdnn_args(text);
    ASSERT_TRUE(md.ok()) << text << ": " << md.status();
    absl::StatusOr<std::string> args = benchdnn_args(*md);
    ASSERT_TRUE(args.ok()) << text << ": " << args.status();
    absl::StatusOr<memory_desc> back = parse_benchdnn_args(*args);
    ASSERT_TRUE(back.ok()) << *args << ": " << back.status();
    EXPECT_EQ(*back, *md) << text << " -> " << *args;
  }
}

TEST(MdString, ParseErrorsNameTheBadField) {
  auto msg = [](const absl::StatusOr<memory_desc>& m) { return std::string(m.status().message()); };
  EXPECT_THAT(msg(parse_verbose_md("f32::blocked:abcd:f0", "2x17xfoo")), HasSubstr("'foo'"));
  EXPECT_THAT(msg(parse_verbose_md("f32::blocked:abcd", "2x17x3x3")),
              HasSubstr("'f32::blocked:abcd' is not of the form"));
  EXPECT_THAT(msg(parse_verbose_md("f33::blocked:abcd:f0", "2x17x3x3")), HasSubstr("f33"));
  EXPECT_THAT(msg(parse_verbose_md("f32::blocked:aBcd16b:f0", "2x17x3x3")),
              HasSubstr("the 'p' flag"));
  EXPECT_THAT(msg(parse_verbose_md("f32::weird:abcd:f0", "2x17x3x3")), HasSubstr("'weird'"));
  EXPECT_THAT(msg(parse_verbose_md("f32::blocked:ab@1x1:f0", "2x3")), HasSubstr("memory_desc"));
  EXPECT_THAT(msg(parse_benchdnn_args("--stag=abcd")), HasSubstr("need a --stag="));
  EXPECT_THAT(msg(parse_benchdnn_args("--foo=1 --stag=ab 2x3")), HasSubstr("'--foo=1'"));
}

}  // namespace
}  // namespace tessera
