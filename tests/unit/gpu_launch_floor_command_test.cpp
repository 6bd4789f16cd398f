// `ekb eval` on a GPU profile (OpenCL through PoCL here, on the CPU) reports each attempt's launch
// floor, an empty kernel timed as the attempt's calls are (docs/metrics.md "GPU candidates"): a
// column of the table, `floor_ms` in the JSON report, and a column of the results store that `ekb
// results` reads back. Skipped, with the reason, where there is no OpenCL device.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <filesystem>

#include "command_util.h"
#include "fixture_suite.h"
#include "harness/device_profiles.h"
#include "harness/gpu_probe.h"

namespace ekb::test {
namespace {

namespace fs = std::filesystem;

TEST(GpuLaunchFloor, TheEvalTableAndItsJsonShowIt) {
  GpuProbe probe = probe_gpu(find_device("pocl-cpu"));
  if (!probe.ok) GTEST_SKIP() << "no OpenCL device: " << probe.why;
  fs::path dir = fs::temp_directory_path() / ("ekb-floor-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  std::string db = (dir / "run.db").string();
  std::string ekb = std::string(EKB_BINARY) + " --suite " + fixture_suite_dir().string();
  CommandResult c = run_command(ekb + " eval --defaults --quick --device pocl-cpu --tasks scale_128 --db " + db + " 2>&1");
  ASSERT_EQ(c.status, 0) << c.out;
  EXPECT_NE(c.out.find("floor: an empty kernel's launch timed as each call is"), std::string::npos) << c.out;
  size_t header = c.out.find("memory        floor");
  EXPECT_NE(header, std::string::npos) << c.out;
  // The attempt's line ends with its floor, in ms.
  size_t line = c.out.find("scale_128", header == std::string::npos ? 0 : header);
  ASSERT_NE(line, std::string::npos) << c.out;
  std::string row = c.out.substr(line, c.out.find('\n', line) - line);
  EXPECT_EQ(row.rfind(" ms"), row.size() - 3) << row;

  CommandResult j = run_command(ekb + " results 1 --json --db " + db + " 2>/dev/null");
  ASSERT_EQ(j.status, 0) << j.out;
  auto report = nlohmann::json::parse(j.out);
  ASSERT_EQ(report["attempts"].size(), 1u) << j.out;
  double floor_ms = report["attempts"][0].value("floor_ms", 0.0);
  EXPECT_GT(floor_ms, 0.0) << j.out;
  EXPECT_LT(floor_ms, 1000.0) << j.out;
  fs::remove_all(dir);
}

}  // namespace
}  // namespace ekb::test
