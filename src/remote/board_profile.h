// A board's device profile file (`--device path/to/board.json`): a device profile like the built-in
// ones (threads, memory budget), plus where the board's `ekb worker --listen` is, the token file
// that proves this host to it, its architecture and how kernels are built for it, and its peak
// rates as measured there. docs/scale.md ("Remote boards") shows one. Every error names the file
// and the field (or the line and column of a syntax error).
#pragma once
#include <string>

#include "harness/device_profiles.h"

namespace ekb {

// Whether `device` names a profile file rather than a built-in profile (it ends in .json).
bool is_profile_file(const std::string& device);

// Reads and checks the profile file at `path`, and the token file it names (relative to the
// profile's directory); throws std::runtime_error naming the file and the field.
DeviceProfile read_board_profile(const std::string& path);
// The same from the file's text (for tests); `path` is used in messages and for relative paths.
DeviceProfile parse_board_profile(const std::string& text, const std::string& path);

}  // namespace ekb
