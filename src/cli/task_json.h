// The JSON description of a task shared by `ekb list --json` and `ekb show --json`.
#pragma once
#include <nlohmann/json.hpp>

#include "suite/suite.h"

namespace ekb::cli {

nlohmann::json task_json(const Task& t);

}  // namespace ekb::cli
