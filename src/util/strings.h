// Small string helpers shared by diagnostics: "did you mean" suggestions and lists in prose.
#pragma once
#include <string>
#include <vector>

namespace ekb {

size_t edit_distance(const std::string& a, const std::string& b);
// The candidate closest to `name` (at most a third of its letters away), or "" when none is close.
std::string closest_match(const std::string& name, const std::vector<std::string>& candidates);
// "`a`, `b` and `c`"
std::string quoted_list(const std::vector<std::string>& items, const char* conj = "and");

}  // namespace ekb
