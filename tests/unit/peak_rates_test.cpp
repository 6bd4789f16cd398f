// Stored peak rates (harness/peak_rates.h): a store's peaks count only when measured by the current
// method (the arithmetic rate of a profile of several threads at least one thread's times the
// threads); peaks stored by the old method are measured again rather than trusted. (The measurement
// itself needs a quiet machine and is run by every first `ekb eval`, not here.)
#include <gtest/gtest.h>

#include <filesystem>

#include <unistd.h>

#include "harness/peak_rates.h"

namespace ekb {
namespace {

std::string store_path() {
  auto p = std::filesystem::temp_directory_path() / ("ekb_peaks_test_" + std::to_string(getpid()) + ".db");
  std::filesystem::remove(p);
  return p.string();
}

TEST(PeakRates, PeaksStoredByTheOldMethodAreNotTrusted) {
  std::string path = store_path();
  ResultsStore store(path);
  DeviceProfile host = find_device("host");
  EXPECT_FALSE(stored_peak_rates(store, host).has_value());
  store.set_peaks(machine_id(), host.name, 94.6, 13.8);  // as the old method stored them: under the profile's name
  EXPECT_NE(peak_store_key(host), host.name);
  EXPECT_FALSE(stored_peak_rates(store, host).has_value()) << "old peaks would make an honest 2-thread SGEMM invalid";
  std::filesystem::remove(path);
}

TEST(PeakRates, PeaksOfOneProfileAreNotAnothers) {
  std::string path = store_path();
  ResultsStore store(path);
  DeviceProfile host = find_device("host"), one = find_device("edge-1core");
  store.set_peaks(machine_id(), peak_store_key(host), 159.0, 13.8);  // as peak_rates() stores them
  auto p = stored_peak_rates(store, host);
  ASSERT_TRUE(p.has_value());
  EXPECT_DOUBLE_EQ(p->gflops, 159.0);
  EXPECT_DOUBLE_EQ(p->gbps, 13.8);
  EXPECT_FALSE(stored_peak_rates(store, one).has_value());
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace ekb
