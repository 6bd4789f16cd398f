// Putting text into an HTML page safely: element text and attribute values escaped (kernel code
// has `<` and `&` in it), JSON placed inside a <script> element so that no string in it can end
// the element, and fragment identifiers made from names.
#pragma once
#include <nlohmann/json.hpp>

#include <string>
#include <string_view>

namespace ekb::report {

// `&`, `<`, `>`, `"` and `'` as character references: safe in element text and quoted attributes.
std::string escape_html(std::string_view text);

// The JSON text with `<`, `>` and `&` written as \u escapes (the same JSON value, and no `</script>`
// or `<!--` inside it); invalid UTF-8 in strings is replaced, never an exception.
std::string json_for_script(const nlohmann::json& j);

// A fragment identifier: `prefix` and `name` with every character outside [A-Za-z0-9_.-] written as
// `~` and two hex digits (distinct names give distinct ids).
std::string anchor_id(std::string_view prefix, std::string_view name);

}  // namespace ekb::report
