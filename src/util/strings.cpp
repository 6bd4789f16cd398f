// Edit distance and prose lists for messages.
#include "util/strings.h"

#include <algorithm>

namespace ekb {

size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (size_t j = 1; j <= b.size(); ++j)
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (a[i - 1] == b[j - 1] ? 0 : 1)});
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

std::string closest_match(const std::string& name, const std::vector<std::string>& candidates) {
  std::string best;
  size_t best_d = std::max<size_t>(1, name.size() / 3) + 1;
  for (const auto& c : candidates) {
    size_t d = edit_distance(name, c);
    if (d < best_d) {
      best_d = d;
      best = c;
    }
  }
  return best;
}

std::string quoted_list(const std::vector<std::string>& items, const char* conj) {
  std::string out;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i) out += (i + 1 == items.size()) ? std::string(" ") + conj + " " : ", ";
    out += "`" + items[i] + "`";
  }
  return out;
}

}  // namespace ekb
