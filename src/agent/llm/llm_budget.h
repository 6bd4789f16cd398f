// A hard budget for language-model calls, in requests, tokens or dollars: a run stops cleanly when
// the next request could pass it, and a resumed run starts from what the store says was spent.
#pragma once
#include <cstdint>
#include <mutex>
#include <string>

#include "agent/llm/prices.h"

namespace ekb::llm {

// Thread-safe. A hard limit: a request starts only if, with every request in flight counted at its
// reservation, no limit would be passed. A request reserves what it may use at most (its prompt
// estimate plus max_tokens, and their price) and settles what it did use when it ends.
class Budget {
 public:
  struct Limits {
    int64_t requests = 0;
    int64_t tokens = 0;
    double cost = 0;
  };  // 0: no limit on that
  // `spent_*`: what a resumed run already used (from the store).
  explicit Budget(Limits l, Usage spent_tokens = {}, int64_t spent_requests = 0, double spent_cost = 0);

  // Reserve one request whose reply may use up to `reserve_tokens` tokens and cost up to
  // `reserve_cost`. False (and the reason in `why`, e.g. "the budget of 100 requests is spent") when
  // it would pass a limit.
  bool try_reserve(int64_t reserve_tokens, double reserve_cost, std::string* why);
  // The request ended (also on failure): its reservation is released and what it used is counted.
  void settle(int64_t reserve_tokens, double reserve_cost, const Usage& used, double cost);

  int64_t requests() const;  // spent so far (settled)
  Usage tokens() const;
  double cost() const;
  bool exhausted() const;  // any limit reached by what is settled
  Limits limits() const;

 private:
  std::string refusal(int64_t reserve_tokens, double reserve_cost) const;  // "" when it fits

  Limits limits_;
  mutable std::mutex mu_;
  int64_t requests_ = 0;
  Usage tokens_;
  double cost_ = 0;
  int64_t reserved_requests_ = 0, reserved_tokens_ = 0;  // by requests in flight
  double reserved_cost_ = 0;
};

}  // namespace ekb::llm
