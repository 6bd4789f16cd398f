// Stored peak rates (harness/peak_rates.h): a store's peaks count only when measured by the current
// method (the arithmetic rate of a profile of several threads at least one thread's times the
// threads); peaks stored by the old method are measured again rather than trusted. A new store on a
// machine that measured them before takes them from the machine's cache, unless the file there is
// another machine's, another method's or damaged. (The measurement itself needs a quiet machine and is
// run by the first `ekb eval` on a machine, not here.)
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

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
  store.set_peaks(machine_id(), host.name, StoredPeaks{94.6, 13.8});  // as the old method stored them: under the profile's name
  EXPECT_NE(peak_store_key(host), host.name);
  EXPECT_FALSE(stored_peak_rates(store, host).has_value()) << "old peaks would make an honest 2-thread SGEMM invalid";
  std::filesystem::remove(path);
}

TEST(PeakRates, PeaksOfOneProfileAreNotAnothers) {
  std::string path = store_path();
  ResultsStore store(path);
  DeviceProfile host = find_device("host"), one = find_device("edge-1core");
  store.set_peaks(machine_id(), peak_store_key(host), StoredPeaks{159.0, 13.8});  // as peak_rates() stores them
  auto p = stored_peak_rates(store, host);
  ASSERT_TRUE(p.has_value());
  EXPECT_DOUBLE_EQ(p->gflops, 159.0);
  EXPECT_DOUBLE_EQ(p->gbps, 13.8);
  EXPECT_FALSE(stored_peak_rates(store, one).has_value());
  std::filesystem::remove(path);
}

// A cache directory of its own for the test, restored after.
struct OwnCacheDir {
  std::filesystem::path dir = std::filesystem::temp_directory_path() / ("ekb_peaks_cache_" + std::to_string(getpid()));
  std::string before;
  bool had = false;
  OwnCacheDir() {
    if (const char* v = std::getenv("EKB_CACHE_DIR")) had = true, before = v;
    std::filesystem::remove_all(dir);
    setenv("EKB_CACHE_DIR", dir.c_str(), 1);
  }
  ~OwnCacheDir() {
    if (had) setenv("EKB_CACHE_DIR", before.c_str(), 1);
    else unsetenv("EKB_CACHE_DIR");
    std::filesystem::remove_all(dir);
  }
};

void write_cache_file(const DeviceProfile& dev, const nlohmann::json& j) {
  auto p = machine_peak_cache_path(dev);
  std::filesystem::create_directories(p.parent_path());
  std::ofstream(p) << j.dump();
}

TEST(PeakRates, ANewStoreTakesThisMachinesCachedPeaksWithoutMeasuring) {
  OwnCacheDir cache;
  DeviceProfile host = find_device("host");
  EXPECT_EQ(machine_peak_cache_path(host).parent_path(), cache.dir / "peaks");
  write_cache_file(host, {{"machine", machine_id()}, {"key", peak_store_key(host)}, {"gflops", 123.5}, {"gbps", 17.25},
                          {"measured", "2026-12-01 10:00:00"}});
  std::string path = store_path();
  {
    ResultsStore store(path);
    EXPECT_FALSE(stored_peak_rates(store, host).has_value());
    auto known = known_peak_rates(store, host);
    ASSERT_TRUE(known.has_value());
    EXPECT_DOUBLE_EQ(known->gflops, 123.5);
    // peak_rates() takes them (a measurement would give other figures and the time of now) and stores them.
    PeakRates r = peak_rates(store, host);
    EXPECT_DOUBLE_EQ(r.gflops, 123.5);
    EXPECT_DOUBLE_EQ(r.gbps, 17.25);
    auto stored = stored_peak_rates(store, host);
    ASSERT_TRUE(stored.has_value());
    EXPECT_DOUBLE_EQ(stored->gbps, 17.25);
    EXPECT_EQ(stored->measured, "2026-12-01 10:00:00");
    // Another profile's rates are not in the file.
    EXPECT_FALSE(known_peak_rates(store, find_device("edge-1core")).has_value());
  }
  std::filesystem::remove(path);
}

TEST(PeakRates, ACachedFileOfAnotherMachineOrMethodOrDamagedIsNotTrusted) {
  OwnCacheDir cache;
  DeviceProfile host = find_device("host");
  std::string path = store_path();
  ResultsStore store(path);
  write_cache_file(host, {{"machine", "another CPU | 64 CPUs | elsewhere"}, {"key", peak_store_key(host)}, {"gflops", 900.0}, {"gbps", 90.0}});
  EXPECT_FALSE(known_peak_rates(store, host).has_value()) << "another machine's peaks";
  write_cache_file(host, {{"machine", machine_id()}, {"key", host.name}, {"gflops", 94.6}, {"gbps", 13.8}});
  EXPECT_FALSE(known_peak_rates(store, host).has_value()) << "the old method's key";
  write_cache_file(host, {{"machine", machine_id()}, {"key", peak_store_key(host)}, {"gflops", 0.0}, {"gbps", 13.8}});
  EXPECT_FALSE(known_peak_rates(store, host).has_value()) << "no arithmetic rate";
  std::ofstream(machine_peak_cache_path(host)) << "{\"machine\": ";
  EXPECT_FALSE(known_peak_rates(store, host).has_value()) << "a damaged file";
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace ekb
