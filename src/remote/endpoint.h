// Where a board listens: HOST:PORT, parsed once (frame.h connects and listens with it).
#pragma once
#include <string>

namespace ekb::remote {

// TCP endpoints. "HOST:PORT" (HOST a name or an IPv4/IPv6 address; "[::1]:7450" for IPv6).
struct Endpoint {
  std::string host;
  int port = 0;
  std::string text() const;
};
// Parses "HOST:PORT"; throws std::invalid_argument saying what is wrong.
Endpoint parse_endpoint(const std::string& text);

}  // namespace ekb::remote
