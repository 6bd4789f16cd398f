// Stored peak rates (harness/peak_rates.h): a store's peaks count only when measured by the current
// method (the arithmetic rate of a profile of several threads at least one thread's times the
// threads); peaks stored by the old method are measured again rather than trusted. A new store on a
// machine that measured them before takes them from the machine's cache, unless the file there is
// another machine's, another method's or damaged. The read bandwidth, measured again when a correct
// kernel read faster, is kept as the larger of old and new, never raised to the kernel's own rate,
// and not measured on a busy machine; a run measures it once, and its later attempts use it. (The
// measurement itself needs a quiet machine and is run by the first `ekb eval` on a machine, not
// here: the tests give their own measurement.)
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include <nlohmann/json.hpp>

#include <unistd.h>

#include "eval/read_bandwidth_check.h"
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

// Rates for `host` as a measurement stores them, with a read bandwidth of `read_gbps`.
void store_rates(ResultsStore& store, const DeviceProfile& host, double read_gbps) {
  PeakRates r{100.0, 12.0, "2026-01-01T00:00:00Z"};
  r.read_gbps = read_gbps;
  store.set_peaks(machine_id(), peak_store_key(host), StoredPeaks{r.gflops, r.gbps, r.measured, r.figures().dump()});
}

ReadProbe measuring(double gbps, int* calls = nullptr) {
  return {[] { return std::optional<double>(); }, [=] {
            if (calls) ++*calls;
            return gbps;
          }};
}

TEST(PeakRates, TheReadBandwidthMeasuredAgainIsKeptAsTheLargerNeverAsTheKernelsOwn) {
  OwnCacheDir cache;
  DeviceProfile host = find_device("host");
  std::string path = store_path();
  {
    ResultsStore store(path);
    store_rates(store, host, 10.0);
    // Faster now: the stored rate rises (in the store and this machine's cache), not to the kernel's 50.
    ReadRefresh up = refresh_read_bandwidth(store, host, 50.0, measuring(12.0));
    EXPECT_TRUE(up.measured);
    EXPECT_DOUBLE_EQ(up.before, 10.0);
    EXPECT_DOUBLE_EQ(up.stored, 12.0);
    EXPECT_DOUBLE_EQ(stored_peak_rates(store, host)->read_gbps, 12.0);
    EXPECT_DOUBLE_EQ(stored_peak_rates(store, host)->gflops, 100.0) << "the other rates stay";
    EXPECT_NE(up.text().find("rose from 10.0 to 12.0 GB/s"), std::string::npos) << up.text();
    EXPECT_NE(up.text().find("the kernel's 50.0 GB/s is still above it"), std::string::npos) << up.text();
    // Slower now: the larger stays.
    ReadRefresh down = refresh_read_bandwidth(store, host, 13.0, measuring(9.0));
    EXPECT_DOUBLE_EQ(down.stored, 12.0);
    EXPECT_DOUBLE_EQ(stored_peak_rates(store, host)->read_gbps, 12.0);
    // A busy machine: nothing measured, and the note says why.
    int calls = 0;
    ReadProbe busy{[] { return std::optional<double>(1.4); }, [&] { return ++calls, 99.0; }};
    ReadRefresh refused = refresh_read_bandwidth(store, host, 13.0, busy);
    EXPECT_FALSE(refused.measured);
    EXPECT_EQ(calls, 0);
    EXPECT_NE(refused.text().find("keep 1.4 of this machine's CPUs busy"), std::string::npos) << refused.text();
    EXPECT_DOUBLE_EQ(stored_peak_rates(store, host)->read_gbps, 12.0);
  }
  {
    ResultsStore fresh(store_path());  // a new store on this machine takes the raised rate from the cache
    EXPECT_DOUBLE_EQ(known_peak_rates(fresh, host)->read_gbps, 12.0);
  }
  std::filesystem::remove(path);
}

TEST(PeakRates, ARunMeasuresTheReadBandwidthOnceAndItsLaterAttemptsUseIt) {
  OwnCacheDir cache;
  DeviceProfile host = find_device("host");
  std::string path = store_path();
  ResultsStore store(path);
  store_rates(store, host, 10.0);
  int calls = 0;
  ReadBandwidthCheck check(store, host, measuring(11.0, &calls));
  EvalOptions o;
  o.read_gbps = 10.0;
  Evaluation plain;  // correct, no note: nothing to do
  check.after(plain, o);
  EXPECT_EQ(calls, 0);
  Evaluation fast;
  fast.must_read_gbps = 14.0;
  fast.notes = {make_note(NoteKind::beyond_read_bandwidth, "X in 0.1 ms")};
  check.after(fast, o);
  EXPECT_EQ(calls, 1);
  EXPECT_DOUBLE_EQ(o.read_gbps, 11.0) << "later attempts use the larger rate";
  EXPECT_NE(fast.notes[0].text.find("measured this machine's read bandwidth again: 11.0 GB/s"), std::string::npos) << fast.notes[0].text;
  Evaluation again = fast;
  again.notes = {make_note(NoteKind::beyond_read_bandwidth, "X in 0.1 ms")};
  check.after(again, o);
  EXPECT_EQ(calls, 1) << "once per run";
  EXPECT_NE(again.notes[0].text.find("earlier in this run"), std::string::npos) << again.notes[0].text;
  Evaluation failed = fast;
  failed.outcome = Outcome::wrong;
  check.after(failed, o);
  EXPECT_EQ(calls, 1);
  std::filesystem::remove(path);
}

}  // namespace
}  // namespace ekb
