// What language-model calls cost: token counts (from a reply's "usage") and a per-model price table
// the user edits (config/llm_prices.json), so that a run's spend is known and can be budgeted.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace ekb::llm {

// Tokens one call (or a run) used, as the endpoint reported them.
struct Usage {
  int64_t prompt_tokens = 0, completion_tokens = 0;
  int64_t total() const { return prompt_tokens + completion_tokens; }
  Usage& operator+=(const Usage& o) {
    prompt_tokens += o.prompt_tokens;
    completion_tokens += o.completion_tokens;
    return *this;
  }
};

struct PriceTable {  // dollars per million tokens, by model name
  struct Price {
    double input_per_mtok = 0, output_per_mtok = 0;
  };
  std::map<std::string, Price> models;
  // The price of `model`: exact name, else the longest entry that is a prefix of it (e.g. "gpt-4o"
  // for "gpt-4o-2024-08-06"), else nullopt.
  std::optional<Price> find(const std::string& model) const;
  double cost(const std::string& model, const Usage& u) const;  // 0 when unknown
};

// Reads a table: {"models": {"NAME": {"input_per_mtok": X, "output_per_mtok": Y}, ...}}; other
// top-level fields (a "note") are ignored. A malformed file is a std::runtime_error naming the file
// and what is wrong.
PriceTable load_prices(const std::string& path);
// The table the user edits: `flag` if set, else $EKB_LLM_PRICES, else the source tree's
// config/llm_prices.json.
std::string default_prices_path(const std::string& flag);

}  // namespace ekb::llm
