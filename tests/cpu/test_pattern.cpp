// NamePattern (include/divbench/core/pattern.hpp): attribute's --kernel matched without recursion, so a
// hostile name or pattern ends promptly instead of overflowing the stack or running for minutes.
#include <gtest/gtest.h>

#include <chrono>
#include <stdexcept>
#include <string>

#include "divbench/core/pattern.hpp"

using divbench::NamePattern;

TEST(NamePattern, MatchesLikeAnExtendedRegex) {
  const NamePattern k("kway_kernel");
  EXPECT_TRUE(k.search("_Z11kway_kernelILi4EEvPf"));
  EXPECT_FALSE(k.search("_Z5otherv"));
  EXPECT_TRUE(NamePattern("^_Z4Fan1").search("_Z4Fan1PfS_ii"));
  EXPECT_FALSE(NamePattern("^Fan1").search("_Z4Fan1PfS_ii"));
  EXPECT_TRUE(NamePattern("Fan(1|2)P").search("_Z4Fan2PfS_S_ii"));
  EXPECT_TRUE(NamePattern(".").search("x"));
  EXPECT_THROW(NamePattern("("), std::invalid_argument);
  EXPECT_THROW(NamePattern("a{2,1}"), std::invalid_argument);
}

TEST(NamePattern, HostileNamesAndPatternsEndPromptly) {
  // A 20,000-character name against '(a|b)*c' (std::regex: SIGSEGV in its recursion) and a pattern that
  // backtracks exponentially in std::regex on a name of 40 a's (minutes).
  const auto t0 = std::chrono::steady_clock::now();
  std::string name(20000, 'a');
  for (std::size_t i = 1; i < name.size(); i += 2) name[i] = 'b';
  EXPECT_FALSE(NamePattern("(a|b)*c").search(name));
  EXPECT_TRUE(NamePattern("(a|b)*c").search(name + "c"));
  EXPECT_FALSE(NamePattern("(a*)*b").search(std::string(40, 'a')));
  EXPECT_FALSE(NamePattern("(a|aa)+$x").search(std::string(5000, 'a')));
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 10.0);
}
