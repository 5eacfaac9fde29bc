// TESSERA_VERBOSE and TESSERA_VERBOSE_TIMESTAMP, read once on first use: each setting gets its own
// test process (BUILD.bazel); the variable VERBOSE_WANT names the flags the value must give.
#include <cstdlib>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tessera/primitives/runtime/verbose.h"

namespace tessera {
namespace {

TEST(VerboseEnvironment, GivesTheFlagsOfOnednnVerbose) {
  ::testing::internal::CaptureStderr();
  const verbose_flags flags = verbose_setting();
  const std::string warnings = ::testing::internal::GetCapturedStderr();
  ASSERT_NE(std::getenv("VERBOSE_WANT"), nullptr);
  EXPECT_EQ(flags, *parse_verbose_flags(std::getenv("VERBOSE_WANT")))
      << std::getenv("TESSERA_VERBOSE");
#ifdef VERBOSE_BAD
  // One warning, naming the value; verbose is off.
  EXPECT_EQ(flags, verbose_flags::none);
  EXPECT_THAT(warnings, ::testing::StartsWith("tessera: ignoring TESSERA_VERBOSE=\""));
  EXPECT_EQ(warnings.find('\n'), warnings.size() - 1) << warnings;
#else
  EXPECT_EQ(warnings, "");
#endif
  const char* stamp = std::getenv("TESSERA_VERBOSE_TIMESTAMP");
  EXPECT_EQ(verbose_timestamp(), stamp != nullptr && std::string(stamp) == "1");
  // Read once: changing the variable later changes nothing.
  ASSERT_EQ(setenv("TESSERA_VERBOSE", "all", 1), 0);
  EXPECT_EQ(verbose_setting(), flags);
}

}  // namespace
}  // namespace tessera
