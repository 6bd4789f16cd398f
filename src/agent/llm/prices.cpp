// The per-model price table (prices.h).
#include "agent/llm/prices.h"

#include <fmt/format.h>

#include <cstdlib>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#ifndef EKB_DATA_DIR
#define EKB_DATA_DIR "."
#endif

namespace ekb::llm {

std::optional<PriceTable::Price> PriceTable::find(const std::string& model) const {
  if (auto it = models.find(model); it != models.end()) return it->second;
  const std::pair<const std::string, Price>* best = nullptr;
  for (const auto& entry : models)
    if (model.starts_with(entry.first) && (!best || entry.first.size() > best->first.size())) best = &entry;
  if (!best) return std::nullopt;
  return best->second;
}

double PriceTable::cost(const std::string& model, const Usage& u) const {
  auto p = find(model);
  if (!p) return 0;
  return (double(u.prompt_tokens) * p->input_per_mtok + double(u.completion_tokens) * p->output_per_mtok) / 1e6;
}

namespace {

[[noreturn]] void malformed(const std::string& path, const std::string& what) {
  throw std::runtime_error(fmt::format("{}: not a price table: {} (expected {{\"models\": {{\"NAME\": "
                                       "{{\"input_per_mtok\": X, \"output_per_mtok\": Y}}}}}})",
                                       path, what));
}

double price_field(const std::string& path, const std::string& model, const nlohmann::json& entry, const char* key) {
  auto it = entry.find(key);
  if (it == entry.end()) return 0;
  if (!it->is_number() || it->get<double>() < 0)
    malformed(path, fmt::format("model \"{}\": \"{}\" must be a number of dollars, not negative", model, key));
  return it->get<double>();
}

}  // namespace

PriceTable load_prices(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw std::runtime_error(fmt::format("{}: cannot read the price table", path));
  std::stringstream ss;
  ss << in.rdbuf();
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(ss.str());
  } catch (const nlohmann::json::parse_error& e) {
    malformed(path, fmt::format("invalid JSON at byte {}", e.byte));
  }
  if (!j.is_object()) malformed(path, "the top level is not an object");
  auto models = j.find("models");
  if (models == j.end() || !models->is_object()) malformed(path, "no \"models\" object");
  PriceTable t;
  for (const auto& [name, entry] : models->items()) {
    if (!entry.is_object()) malformed(path, fmt::format("model \"{}\" is not an object", name));
    t.models[name] = {price_field(path, name, entry, "input_per_mtok"), price_field(path, name, entry, "output_per_mtok")};
  }
  return t;
}

std::string default_prices_path(const std::string& flag) {
  if (!flag.empty()) return flag;
  if (const char* env = std::getenv("EKB_LLM_PRICES"); env && *env) return env;
  return std::string(EKB_DATA_DIR) + "/config/llm_prices.json";
}

}  // namespace ekb::llm
