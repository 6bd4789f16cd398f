// The outcome table (harness/outcome.h): every kind listed once, in enum order, with a name that
// reads back as itself; the failure kinds' flags as the metrics and the feedback rely on them.
#include <gtest/gtest.h>

#include <set>

#include "harness/outcome.h"

namespace ekb {
namespace {

TEST(Outcome, TheTableListsEveryKindOnceInOrderAndNamesReadBack) {
  std::set<std::string> names;
  const auto& t = outcome_table();
  for (size_t i = 0; i < t.size(); ++i) {
    EXPECT_EQ(static_cast<size_t>(t[i].outcome), i) << t[i].name;
    EXPECT_TRUE(names.insert(t[i].name).second) << "twice: " << t[i].name;
    EXPECT_EQ(find_outcome(t[i].name), t[i].outcome);
    EXPECT_STRNE(t[i].hint, "") << t[i].name;
  }
  EXPECT_EQ(t.back().outcome, Outcome::no_reply);  // the last enumerator: nothing left out
}

TEST(Outcome, FlagsSayWhatCompiledAndWhoseFaultItIs) {
  EXPECT_FALSE(outcome_info(Outcome::compile).compiled);
  EXPECT_FALSE(outcome_info(Outcome::mismatch).compiled);
  EXPECT_TRUE(outcome_info(Outcome::wrong).compiled);
  EXPECT_TRUE(outcome_info(Outcome::wrong).candidate_fault);
  EXPECT_FALSE(outcome_info(Outcome::baseline).candidate_fault);
  EXPECT_FALSE(outcome_info(Outcome::unavailable).candidate_fault);
  EXPECT_FALSE(outcome_info(Outcome::internal).candidate_fault);
  // A model's reply without code (or in another language) is the model's failure and compiled nothing;
  // a request that got no reply is the endpoint's.
  EXPECT_TRUE(outcome_info(Outcome::no_code).candidate_fault);
  EXPECT_FALSE(outcome_info(Outcome::no_code).compiled);
  EXPECT_TRUE(outcome_info(Outcome::wrong_language).candidate_fault);
  EXPECT_FALSE(outcome_info(Outcome::no_reply).candidate_fault);
  EXPECT_FALSE(outcome_info(Outcome::no_reply).compiled);
}

TEST(Outcome, OlderAndWorkerSpellingsAndUnknownNames) {
  EXPECT_EQ(find_outcome("compile error"), Outcome::compile);
  EXPECT_EQ(find_outcome("limits"), Outcome::launch_limits);
  EXPECT_FALSE(find_outcome("frobnicated"));
  EXPECT_EQ(outcome_named("frobnicated"), Outcome::protocol);
  EXPECT_EQ(outcome_named("frobnicated", Outcome::internal), Outcome::internal);
}

}  // namespace
}  // namespace ekb
