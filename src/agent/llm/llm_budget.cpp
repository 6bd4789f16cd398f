// The hard budget for language-model calls (llm_budget.h).
#include "agent/llm/llm_budget.h"

#include <fmt/format.h>

namespace ekb::llm {

Budget::Budget(Limits l, Usage spent_tokens, int64_t spent_requests, double spent_cost)
    : limits_(l), requests_(spent_requests), tokens_(spent_tokens), cost_(spent_cost) {}

std::string Budget::refusal(int64_t reserve_tokens, double reserve_cost) const {
  if (limits_.requests > 0 && requests_ + reserved_requests_ + 1 > limits_.requests) {
    if (requests_ >= limits_.requests) return fmt::format("the budget of {} requests is spent", limits_.requests);
    return fmt::format("the budget of {} requests would be passed: {} made, {} in flight", limits_.requests,
                       requests_, reserved_requests_);
  }
  if (limits_.tokens > 0 && tokens_.total() >= limits_.tokens)
    return fmt::format("the budget of {} tokens is spent", limits_.tokens);
  if (limits_.tokens > 0 && tokens_.total() + reserved_tokens_ + reserve_tokens > limits_.tokens)
    return fmt::format("the budget of {} tokens would be passed: {} used, {} reserved by requests in flight, "
                       "this request may use {}",
                       limits_.tokens, tokens_.total(), reserved_tokens_, reserve_tokens);
  if (limits_.cost > 0 && cost_ >= limits_.cost) return fmt::format("the budget of ${:.4f} is spent", limits_.cost);
  if (limits_.cost > 0 && cost_ + reserved_cost_ + reserve_cost > limits_.cost)
    return fmt::format("the budget of ${:.4f} would be passed: ${:.4f} spent, ${:.4f} reserved by requests in "
                       "flight, this request may cost ${:.4f}",
                       limits_.cost, cost_, reserved_cost_, reserve_cost);
  return "";
}

bool Budget::try_reserve(int64_t reserve_tokens, double reserve_cost, std::string* why) {
  std::lock_guard lock(mu_);
  std::string no = refusal(reserve_tokens, reserve_cost);
  if (!no.empty()) {
    if (why) *why = std::move(no);
    return false;
  }
  ++reserved_requests_;
  reserved_tokens_ += reserve_tokens;
  reserved_cost_ += reserve_cost;
  return true;
}

void Budget::settle(int64_t reserve_tokens, double reserve_cost, const Usage& used, double cost) {
  std::lock_guard lock(mu_);
  --reserved_requests_;
  reserved_tokens_ -= reserve_tokens;
  reserved_cost_ -= reserve_cost;
  ++requests_;
  tokens_ += used;
  cost_ += cost;
}

int64_t Budget::requests() const {
  std::lock_guard lock(mu_);
  return requests_;
}

Usage Budget::tokens() const {
  std::lock_guard lock(mu_);
  return tokens_;
}

double Budget::cost() const {
  std::lock_guard lock(mu_);
  return cost_;
}

bool Budget::exhausted() const {
  std::lock_guard lock(mu_);
  return (limits_.requests > 0 && requests_ >= limits_.requests) ||
         (limits_.tokens > 0 && tokens_.total() >= limits_.tokens) || (limits_.cost > 0 && cost_ >= limits_.cost);
}

Budget::Limits Budget::limits() const { return limits_; }

}  // namespace ekb::llm
