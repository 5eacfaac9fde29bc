// Runs with TESSERA_NUM_THREADS=3, TESSERA_VERBOSE=1, TESSERA_PRIMITIVE_CACHE_CAPACITY=7,
// TESSERA_SPIN_US=250 (see BUILD.bazel): each is read once, on first use; or, as
// env_bad_values_test, with values each variable rejects, which leave the defaults.
#include <cstdlib>

#include "gtest/gtest.h"
#include "tessera/primitives/runtime/lru_cache.h"
#include "tessera/primitives/runtime/threads.h"
#include "tessera/primitives/runtime/verbose.h"

namespace tessera {
namespace {

#ifndef TESSERA_ENV_BAD_VALUES
TEST(Environment, IsTheStartingState) {
  ASSERT_STREQ(std::getenv("TESSERA_NUM_THREADS"), "3");
  EXPECT_EQ(num_threads(), 3);
  EXPECT_TRUE(verbose_enabled());
  EXPECT_EQ(primitive_cache_capacity(), 7);
  EXPECT_EQ(thread_spin_micros(), 250);
}
#else
TEST(Environment, BadValuesLeaveTheDefaults) {
  ASSERT_STREQ(std::getenv("TESSERA_SPIN_US"), "-3");
  EXPECT_EQ(thread_spin_micros(), 0);
  ASSERT_STREQ(std::getenv("TESSERA_NUM_THREADS"), "0");
  EXPECT_GE(num_threads(), 1);
}
#endif

TEST(Environment, IsReadOnlyOnce) {
  const int64_t spin = thread_spin_micros();
  ASSERT_EQ(setenv("TESSERA_SPIN_US", "7", 1), 0);
  EXPECT_EQ(thread_spin_micros(), spin);
  ASSERT_EQ(setenv("TESSERA_NUM_THREADS", "2", 1), 0);
  ASSERT_EQ(setenv("TESSERA_VERBOSE", "0", 1), 0);
  ASSERT_EQ(setenv("TESSERA_PRIMITIVE_CACHE_CAPACITY", "9", 1), 0);
#ifndef TESSERA_ENV_BAD_VALUES
  EXPECT_EQ(num_threads(), 3);
  EXPECT_TRUE(verbose_enabled());
  EXPECT_EQ(primitive_cache_capacity(), 7);
#endif
}

TEST(Environment, ApiCallsOverrideIt) {
  ASSERT_TRUE(set_num_threads(1).ok());
  EXPECT_EQ(num_threads(), 1);
  set_verbose(false);
  EXPECT_FALSE(verbose_enabled());
  ASSERT_TRUE(set_primitive_cache_capacity(0).ok());
  EXPECT_EQ(primitive_cache_capacity(), 0);
}

}  // namespace
}  // namespace tessera
