#include "tessera/formats/tag.h"

#include <string>
#include <utility>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace tessera {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

// Compile time: the parser runs while compiling.
static_assert(tag<"abcd">.rank == 4 && tag<"abcd">.nblks == 0);
static_assert(tag<"nChw16c"> == tag<"aBcd16b">);
static_assert(tag<"OIhw4i16o4i"> == tag<"ABcd4b16a4b">);
static_assert(tag<"gOIhw16i16o"> == tag<"aBCde16c16b">);
static_assert(tag<"hwio"> == tag<"cdba">);
static_assert(tag<"aBx16b", 5> == tag<"aBcde16b">);
static_assert(tag<"axb", 4> == tag<"acdb">);
static_assert(tag<"x"> == tag<"a">);
static_assert(tag<"any">.is_any);
// oneDNN 2.6.3 quirks: the name means what oneDNN lays out (see internal/tag_parser.h).
static_assert(tag<"OhwI32o"> == tag<"Acdb32a">);
static_assert(tag<"gIOhw2i8o16i2o"> == tag<"aBCde2c8b16c2b">);
static_assert(tag<"ABcd4b16a4b">.block_product(1) == 16 && tag<"ABcd4b16a4b">.tile_size() == 256);
static_assert(!try_parse_tag("aBcd").ok());  // what would not compile as tag<"aBcd">

// Aliases of the spec (memory_formats.txt) and their letter forms, as the spec lists them.
const std::vector<std::pair<std::string, std::string>>& SpecAliases() {
  static const auto* aliases = new std::vector<std::pair<std::string, std::string>>{
      {"x", "a"},         {"nc", "ab"},         {"cn", "ba"},         {"tn", "ab"},
      {"nt", "ba"},       {"ncw", "abc"},       {"nwc", "acb"},       {"nchw", "abcd"},
      {"nhwc", "acdb"},   {"chwn", "bcda"},     {"ncdhw", "abcde"},   {"ndhwc", "acdeb"},
      {"oi", "ab"},       {"io", "ba"},         {"oiw", "abc"},       {"owi", "acb"},
      {"wio", "cba"},     {"iwo", "bca"},       {"oihw", "abcd"},     {"hwio", "cdba"},
      {"ohwi", "acdb"},   {"ihwo", "bcda"},     {"iohw", "bacd"},     {"oidhw", "abcde"},
      {"dhwio", "cdeba"}, {"odhwi", "acdeb"},   {"iodhw", "bacde"},   {"idhwo", "bcdea"},
      {"goiw", "abcd"},   {"wigo", "dcab"},     {"goihw", "abcde"},   {"hwigo", "decab"},
      {"giohw", "acbde"}, {"goidhw", "abcdef"}, {"dhwigo", "defcab"}, {"tnc", "abc"},
      {"ntc", "bac"},     {"ldnc", "abcd"},     {"ldigo", "abcde"},   {"ldgoi", "abdec"},
      {"ldio", "abcd"},   {"ldoi", "abdc"},     {"ldgo", "abcd"},
      // Blocked aliases (oneDNN's dnnl_types.h pairs).
      {"nChw16c", "aBcd16b"},         {"nChw8c", "aBcd8b"},          {"nCdhw16c", "aBcde16b"},
      {"nCw16c", "aBc16b"},           {"NChw16n16c", "ABcd16a16b"},  {"OIhw16i16o", "ABcd16b16a"},
      {"OIhw16o16i", "ABcd16a16b"},   {"gOIhw16i16o", "aBCde16c16b"}, {"IOhw16o16i", "BAcd16a16b"},
      {"OIhw4i16o4i", "ABcd4b16a4b"}, {"Goihw16g", "Abcde16a"},      {"gOhwi16o", "aBdec16b"},
      {"hwioG16g", "decbA16a"},       {"wIo2i", "cBa2b"},            {"ldgOi32o", "abdEc32e"},
      {"ldOI32o4i", "abDC32d4c"},     {"NCw2c32n8c", "ABc2b32a8b"},  {"OIdhw4o8i8o4i", "ABcde4a8b8a4b"},
      {"gOIw2i4o2i", "aBCd2c4b2c"},   {"Owhi16o", "Adcb16a"},
  };
  return *aliases;
}

TEST(Tag, EveryAliasMapsToItsLetterForm) {
  for (const auto& [alias, letters] : SpecAliases()) {
    absl::StatusOr<tag_layout> a = parse_tag(alias);
    absl::StatusOr<tag_layout> l = parse_tag(letters);
    ASSERT_TRUE(a.ok()) << alias << ": " << a.status();
    ASSERT_TRUE(l.ok()) << letters << ": " << l.status();
    EXPECT_EQ(*a, *l) << alias;
    EXPECT_EQ(to_string(*a), letters) << alias;
  }
}

TEST(Tag, LetterFormFields) {
  absl::StatusOr<tag_layout> t = parse_tag("ABcd4b16a4b");
  ASSERT_TRUE(t.ok());
  EXPECT_EQ(t->rank, 4);
  EXPECT_EQ(t->order, (std::array<int, kMaxRank>{0, 1, 2, 3}));
  ASSERT_EQ(t->nblks, 3);
  EXPECT_EQ(t->blk_sizes[0], 4);
  EXPECT_EQ(t->blk_dims[0], 1);
  EXPECT_EQ(t->blk_sizes[1], 16);
  EXPECT_EQ(t->blk_dims[1], 0);
  EXPECT_EQ(t->blk_sizes[2], 4);
  EXPECT_EQ(t->blk_dims[2], 1);

  absl::StatusOr<tag_layout> p = parse_tag("dcab");
  ASSERT_TRUE(p.ok());
  EXPECT_EQ(p->order[0], 3);
  EXPECT_EQ(p->order[1], 2);
  EXPECT_EQ(p->order[2], 0);
  EXPECT_EQ(p->order[3], 1);
}

TEST(Tag, TwelveDimsAndMetaX) {
  EXPECT_TRUE(parse_tag("abcdefghijkl").ok());
  EXPECT_TRUE(parse_tag("lkjihgfedcba").ok());
  EXPECT_EQ(to_string(*parse_tag("abx", 12)), "abcdefghijkl");
  EXPECT_EQ(to_string(*parse_tag("axb", 3)), "acb");
  EXPECT_EQ(to_string(*parse_tag("abx", 2)), "ab");
  EXPECT_EQ(to_string(*parse_tag("aBx16b", 4)), "aBcd16b");
  EXPECT_EQ(to_string(*parse_tag("xba", 5)), "cdeba");
  EXPECT_EQ(parse_tag("any", 3)->rank, 3);
}

TEST(Tag, RoundTripOfEveryPermutationUpTo5D) {
  for (int rank = 1; rank <= 5; ++rank) {
    std::string s;
    for (int d = 0; d < rank; ++d) s += static_cast<char>('a' + d);
    do {
      absl::StatusOr<tag_layout> t = parse_tag(s);
      ASSERT_TRUE(t.ok()) << s;
      EXPECT_EQ(to_string(*t), s);
      for (int k = 0; k < rank; ++k) EXPECT_EQ(t->order[k], s[k] - 'a');
    } while (std::next_permutation(s.begin(), s.end()));
  }
}

struct BadTag {
  std::string tag;
  int rank;
  std::string rule;
};

TEST(Tag, EveryInvalidTagNamesTheTagAndTheRule) {
  const std::vector<BadTag> bad = {
      {"", -1, "must not be empty"},
      {"undef", -1, "names no layout"},
      {"abcd!", -1, "dims are letters"},
      {"aBcd", -1, "needs at least one block"},
      {"abcd16b", -1, "must split a dim written in uppercase"},
      {"aBcd16B", -1, "block letters are lowercase"},
      {"aBcd16", -1, "must be followed by its letter"},
      {"aBcd0b", -1, "must be positive"},
      {"aBcd99999999999b", -1, "must fit 2^31"},
      {"aBcd65536b65536b", -1, "must fit 2^31"},
      {"abca", -1, "appears once"},
      {"abd", -1, "first N letters"},
      {"abcdefghijklm", -1, "dims are letters"},
      {"axbx", 4, "may appear once"},
      {"aXb", 4, "cannot be blocked"},
      {"abx", -1, "needs the rank"},
      {"adx", 3, "must cover every letter"},
      {"abcd", 3, "the tag has 4 dims, the dims have 3"},
      {"nchwo", -1, "one domain only"},
      {"nChw16o", -1, "one domain only"},
      {"nChw16h", -1, "must split a dim written in uppercase"},
      {std::string(65, 'a'), -1, "at most 64"},
  };
  for (const BadTag& b : bad) {
    absl::StatusOr<tag_layout> t = parse_tag(b.tag, b.rank);
    ASSERT_FALSE(t.ok()) << b.tag;
    EXPECT_EQ(t.status().code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(std::string(t.status().message()),
                AllOf(HasSubstr("'" + b.tag + "'"), HasSubstr(b.rule)))
        << b.tag;
  }
}

TEST(Tag, ErrorPositionPointsAtTheBadCharacter) {
  absl::StatusOr<tag_layout> t = parse_tag("aBcd16B");
  ASSERT_FALSE(t.ok());
  EXPECT_THAT(std::string(t.status().message()), HasSubstr("position 6, 'B'"));
}

}  // namespace
}  // namespace tessera
