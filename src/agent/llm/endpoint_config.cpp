// Resolving a language-model endpoint from flags and the environment (endpoint_config.h).
#include "agent/llm/endpoint_config.h"

#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace ekb::llm {

namespace {

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

std::string trimmed(std::string s) {
  const char* ws = " \t\r\n\v\f";
  s.erase(s.find_last_not_of(ws) + 1);
  s.erase(0, s.find_first_not_of(ws) == std::string::npos ? s.size() : s.find_first_not_of(ws));
  return s;
}

// A key inside an HTTP header must be one line: a key with a line break would forge headers.
void check_one_line(const std::string& key, const std::string& where) {
  if (key.find_first_of("\r\n") != std::string::npos)
    throw std::runtime_error(fmt::format("the API key in {} spans several lines; it must be one line", where));
}

std::string read_key_file(const std::string& path, const std::string& named_by) {
  std::error_code ec;
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  if (in && !std::filesystem::is_directory(path, ec)) ss << in.rdbuf();
  if (!in || in.bad() || std::filesystem::is_directory(path, ec))
    throw std::runtime_error(fmt::format("cannot read the API key file {} (named by {})", path, named_by));
  std::string key = trimmed(ss.str());
  if (key.empty()) throw std::runtime_error(fmt::format("the API key file {} (named by {}) is empty", path, named_by));
  check_one_line(key, "the file " + path);
  return key;
}

std::string resolve_key(const std::string& key_file_flag) {
  if (!key_file_flag.empty()) return read_key_file(key_file_flag, "--key-file");
  if (std::string f = env("EKB_LLM_API_KEY_FILE"); !f.empty()) return read_key_file(f, "$EKB_LLM_API_KEY_FILE");
  for (const char* name : {"EKB_LLM_API_KEY", "OPENAI_API_KEY"})
    if (std::string k = trimmed(env(name)); !k.empty()) {
      check_one_line(k, std::string("$") + name);
      return k;
    }
  return "";
}

}  // namespace

std::string redacted_url(const std::string& url) {
  auto scheme = url.find("://");
  size_t host = scheme == std::string::npos ? 0 : scheme + 3;
  size_t end = url.find_first_of("/?#", host);
  auto at = url.rfind('@', end == std::string::npos ? url.size() : end);
  if (at == std::string::npos || at < host) return url;
  return url.substr(0, host) + url.substr(at + 1);
}

std::string EndpointConfig::describe() const {
  return fmt::format("model {} at {}", model, redacted_url(base_url));
}

EndpointConfig resolve_endpoint(const std::string& endpoint_flag, const std::string& model_flag,
                                const std::string& key_file_flag) {
  EndpointConfig c;
  c.base_url = !endpoint_flag.empty() ? endpoint_flag : env("EKB_LLM_ENDPOINT");
  if (c.base_url.empty()) c.base_url = env("OPENAI_BASE_URL");
  while (!c.base_url.empty() && c.base_url.back() == '/') c.base_url.pop_back();
  if (c.base_url.empty())
    throw std::runtime_error(
        "no language-model endpoint: pass --endpoint URL or set EKB_LLM_ENDPOINT (or OPENAI_BASE_URL), "
        "e.g. https://api.openai.com/v1 or http://127.0.0.1:8000/v1 for a local server");
  c.model = !model_flag.empty() ? model_flag : env("EKB_LLM_MODEL");
  if (c.model.empty())
    throw std::runtime_error("no language model named: pass --model NAME or set EKB_LLM_MODEL (e.g. gpt-4o)");
  c.api_key = resolve_key(key_file_flag);
  return c;
}

}  // namespace ekb::llm
