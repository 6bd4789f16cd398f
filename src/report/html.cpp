// Escaping for the HTML report (html.h).
#include "report/html.h"

#include <fmt/format.h>

namespace ekb::report {

std::string escape_html(std::string_view text) {
  std::string out;
  out.reserve(text.size() + text.size() / 16);
  for (char c : text) {
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default: out += c;
    }
  }
  return out;
}

std::string json_for_script(const nlohmann::json& j) {
  std::string s = j.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
  std::string out;
  out.reserve(s.size() + s.size() / 32);
  // Outside strings JSON has none of these characters, so each is inside a string, where \uXXXX
  // stands for the same character.
  for (char c : s) {
    switch (c) {
      case '<': out += "\\u003c"; break;
      case '>': out += "\\u003e"; break;
      case '&': out += "\\u0026"; break;
      default: out += c;
    }
  }
  return out;
}

std::string anchor_id(std::string_view prefix, std::string_view name) {
  std::string out(prefix);
  out += '-';
  for (unsigned char c : name) {
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.' || c == '-') out += static_cast<char>(c);
    else out += fmt::format("~{:02x}", c);
  }
  return out;
}

}  // namespace ekb::report
