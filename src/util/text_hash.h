// The hash of a text that identifies a submission's code wherever it is stored or compared (an
// attempt's candidate_hash, a generated sample's file_hash, a run key's files): XXH3-64 as 16 hex
// digits. One definition, so that the hashes written in different places can be matched.
#pragma once
#include <string>

namespace ekb {

std::string text_hash_hex(const std::string& text);

}  // namespace ekb
