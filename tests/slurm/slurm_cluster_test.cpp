// Sharded evaluation on a real Slurm cluster: the test starts one on this host — its own munged
// (key, socket, pid and log in a temporary directory), slurmctld and two slurmd nodes (n1, n2: Debian's
// slurmd is built with multiple-slurmd support, `slurmd -N NAME`, each node on its own port) — runs
// `ekb slurm submit --shards 4 -- eval --defaults --quick --tasks GLOB` there, waits for the merge job,
// and checks that the merged store holds one finished run of 4 shards whose statuses are those of the
// same `ekb eval` run on one machine (run first, in this test). It stops every daemon it started, by
// the pid files they wrote, also when a check fails, and removes its directory.
//
// The device is `pocl-cpu` (OpenCL on this CPU, through PoCL): a CPU profile's peak rates are measured
// only on a quiet machine, which a test host where other work runs is not; the checks (and the
// statuses compared) are the same on every device.
//
// Statuses compared: the shards run two at a time on this host's cores, so a timing verdict given
// after every check passed (`background work`, `invalid`, `clock mismatch`) may differ from the
// one-machine run's on a loaded machine; those count as `ok` here. Every other status (compile, wrong,
// crash, ...) must be the same.
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <sstream>
#include <thread>

#include "command_util.h"

namespace {

namespace fs = std::filesystem;
using ekb::test::run_command;
using namespace std::chrono_literals;

// Eight small tasks of the real suite (two per shard), on a device every test machine has.
const char* kTasks = "[gr]elu*";
const char* kDevice = "pocl-cpu";

std::string quote(const std::string& s) {
  std::string out = "'";
  for (char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

// The program's path: in PATH, or in the sbin directories a non-login shell may leave out.
std::string find_program(const std::string& name) {
  std::string path = std::getenv("PATH") ? std::getenv("PATH") : "";
  path += ":/usr/sbin:/sbin:/usr/bin:/bin";
  std::stringstream ss(path);
  for (std::string dir; std::getline(ss, dir, ':');)
    if (!dir.empty() && ::access((fs::path(dir) / name).c_str(), X_OK) == 0) return (fs::path(dir) / name).string();
  return "";
}

int free_port() {
  int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = 0;
  socklen_t n = sizeof a;
  int port = -1;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 && ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &n) == 0)
    port = ntohs(a.sin_port);
  ::close(fd);
  return port;
}

std::string read_file(const fs::path& p) {
  std::ifstream f(p);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

pid_t pid_in(const fs::path& file) {
  std::ifstream f(file);
  long pid = 0;
  return (f >> pid) && pid > 1 ? static_cast<pid_t>(pid) : 0;
}

bool alive(pid_t pid) { return pid > 0 && ::kill(pid, 0) == 0; }

template <class F>
bool wait_for(F done, std::chrono::seconds limit) {
  auto end = std::chrono::steady_clock::now() + limit;
  while (std::chrono::steady_clock::now() < end) {
    if (done()) return true;
    std::this_thread::sleep_for(250ms);
  }
  return done();
}

// The cluster: munged, slurmctld and two slurmd, all of this test's making.
class Cluster {
 public:
  fs::path dir;
  std::string why_not;  // set when it did not start
  std::map<std::string, std::string> bin;

  Cluster() {
    for (const char* p : {"munged", "mungekey", "munge", "unmunge", "slurmctld", "slurmd", "sbatch", "sinfo", "scontrol", "scancel", "squeue"}) {
      bin[p] = find_program(p);
      if (bin[p].empty()) {
        why_not = std::string("`") + p + "` is not installed (Debian: munge, slurmctld, slurmd, slurm-client; scripts/setup.sh installs them)";
        return;
      }
    }
    if (::geteuid() != 0) {
      why_not = "the test cluster runs its daemons as root (SlurmUser=root), and this test is not root";
      return;
    }
    char tmpl[] = "/tmp/ekb-slurm-XXXXXX";
    if (!::mkdtemp(tmpl)) {
      why_not = "cannot make a temporary directory";
      return;
    }
    dir = tmpl;
    ::chmod(dir.c_str(), 0711);  // munged wants its socket's directories open to all for search, written by none
    for (const char* sub : {"munge", "state", "spool/n1", "spool/n2", "log"}) fs::create_directories(dir / sub);
    ::chmod((dir / "munge").c_str(), 0711);
    start();
  }

  ~Cluster() { stop(); }

  // A command line with this cluster's configuration; its output and exit status.
  ekb::test::CommandResult sh(const std::string& line) const { return run_command(line + " 2>&1"); }

  std::string logs() const {
    std::string out;
    for (const auto& f : {dir / "log" / "slurmctld.log", dir / "log" / "slurmd-n1.log", dir / "munge" / "munged.log"}) {
      std::string t = read_file(f);
      out += "--- " + f.string() + " (end)\n" + (t.size() > 3000 ? t.substr(t.size() - 3000) : t);
    }
    return out;
  }

 private:
  void start() {
    fs::path key = dir / "munge" / "munge.key", sock = dir / "munge" / "munged.sock";
    auto r = sh(quote(bin["mungekey"]) + " --create --keyfile=" + quote(key.string()));
    if (r.status != 0) {
      why_not = "mungekey failed: " + r.out;
      return;
    }
    ::chmod(key.c_str(), 0400);
    r = sh(quote(bin["munged"]) + " --socket=" + quote(sock.string()) + " --pid-file=" + quote((dir / "munge" / "munged.pid").string()) +
           " --log-file=" + quote((dir / "munge" / "munged.log").string()) + " --key-file=" + quote(key.string()) +
           " --seed-file=" + quote((dir / "munge" / "munged.seed").string()));
    pid_files.push_back(dir / "munge" / "munged.pid");
    if (r.status != 0 || sh(quote(bin["munge"]) + " -n -S " + quote(sock.string()) + " | " + quote(bin["unmunge"]) + " -S " +
                            quote(sock.string())).status != 0) {
      why_not = "munged did not start: " + r.out + read_file(dir / "munge" / "munged.log");
      return;
    }
    int ctld = free_port(), n1 = free_port(), n2 = free_port();
    std::ofstream conf(dir / "slurm.conf");
    conf << "# The test's own cluster: one controller and two nodes on this host (tests/slurm/slurm_cluster_test.cpp)\n"
         << "ClusterName=ekbtest\nSlurmctldHost=localhost(127.0.0.1)\nSlurmctldPort=" << ctld << "\n"
         << "SlurmUser=root\nSlurmdUser=root\nAuthType=auth/munge\nCredType=cred/munge\nAuthInfo=socket=" << sock.string() << "\n"
         << "StateSaveLocation=" << (dir / "state").string() << "\nSlurmdSpoolDir=" << (dir / "spool").string() << "/%n\n"
         << "SlurmctldPidFile=" << (dir / "slurmctld.pid").string() << "\nSlurmdPidFile=" << (dir / "slurmd-%n.pid").string() << "\n"
         << "SlurmctldLogFile=" << (dir / "log" / "slurmctld.log").string() << "\nSlurmdLogFile=" << (dir / "log").string() << "/slurmd-%n.log\n"
         << "ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\nSelectType=select/cons_tres\nSelectTypeParameters=CR_CPU\n"
         << "JobAcctGatherType=jobacct_gather/none\nAccountingStorageType=accounting_storage/none\nMpiDefault=none\n"
         << "ReturnToService=2\nMinJobAge=600\n"
         << "NodeName=n1 NodeHostname=localhost NodeAddr=127.0.0.1 Port=" << n1 << " CPUs=1 State=UNKNOWN\n"
         << "NodeName=n2 NodeHostname=localhost NodeAddr=127.0.0.1 Port=" << n2 << " CPUs=1 State=UNKNOWN\n"
         << "PartitionName=ekb Nodes=n1,n2 Default=YES MaxTime=INFINITE State=UP\n";
    conf.close();
    std::string conf_path = (dir / "slurm.conf").string();
    ::setenv("SLURM_CONF", conf_path.c_str(), 1);
    pid_files.push_back(dir / "slurmd-n1.pid");
    pid_files.push_back(dir / "slurmd-n2.pid");
    pid_files.push_back(dir / "slurmctld.pid");
    r = sh(quote(bin["slurmctld"]) + " -f " + quote(conf_path));
    if (r.status != 0 || !wait_for([&] { return alive(pid_in(dir / "slurmctld.pid")); }, 20s)) {
      why_not = "slurmctld did not start: " + r.out + logs();
      return;
    }
    for (const char* node : {"n1", "n2"}) {
      r = sh(quote(bin["slurmd"]) + " -f " + quote(conf_path) + " -N " + node);
      if (r.status != 0) {
        why_not = std::string("slurmd -N ") + node + " did not start: " + r.out + logs();
        return;
      }
    }
    bool idle = wait_for([&] {
      auto s = sh(quote(bin["sinfo"]) + " -h -N -o '%N %T'");
      return s.out.find("n1 idle") != std::string::npos && s.out.find("n2 idle") != std::string::npos;
    }, 60s);
    if (!idle) why_not = "the nodes did not become idle: " + sh(quote(bin["sinfo"]) + " -N").out + logs();
  }

  void stop() {
    if (dir.empty()) return;
    if (!bin["scancel"].empty() && alive(pid_in(dir / "slurmctld.pid"))) {
      sh(quote(bin["scancel"]) + " --user=root");  // (this cluster's jobs only: SLURM_CONF is the test's)
      wait_for([&] { return sh(quote(bin["squeue"]) + " -h").out.empty(); }, 20s);
    }
    for (const auto& f : pid_files) {
      pid_t pid = pid_in(f);
      if (!alive(pid)) continue;
      ::kill(pid, SIGTERM);
      if (!wait_for([&] { return !alive(pid); }, 15s)) ::kill(pid, SIGKILL);
    }
    ::unsetenv("SLURM_CONF");
    std::error_code ec;
    fs::remove_all(dir, ec);
  }

  std::vector<fs::path> pid_files;
};

// "ok" for a correct attempt whatever its timing verdict (see the top of the file), else its status.
std::string correctness(const std::string& status) {
  for (const char* timing : {"background work", "invalid", "clock mismatch"})
    if (status == timing) return "ok";
  return status;
}

std::map<std::string, std::string> statuses(const nlohmann::json& report) {
  std::map<std::string, std::string> out;
  for (const auto& a : report["attempts"])
    out[a["task"].get<std::string>() + " sample " + std::to_string(a["sample"].get<int>())] = correctness(a["status"]);
  return out;
}

nlohmann::json json_of(const ekb::test::CommandResult& r) { return nlohmann::json::parse(r.out, nullptr, false); }

TEST(SlurmCluster, FourShardsMergeIntoTheStatusesOfOneMachine) {
  Cluster c;
  if (!c.why_not.empty() && c.dir.empty()) GTEST_SKIP() << c.why_not;
  ASSERT_TRUE(c.why_not.empty()) << c.why_not;
  const std::string ekb = EKB_BINARY, work = c.dir.string();

  // One machine: the same evaluation, in one process, into the store the shards' stores start from
  // (--seed: the merged store then holds this run as it was, and the shards' run beside it).
  auto one = run_command(quote(ekb) + " eval --defaults --quick --device " + kDevice + " --tasks " + quote(kTasks) + " --db " + quote(work + "/one.db") +
                         " --json 2>" + quote(work + "/one.log"));
  ASSERT_EQ(one.status, 0) << one.out << read_file(work + "/one.log");
  nlohmann::json one_report = json_of(one);
  ASSERT_TRUE(one_report.is_object()) << one.out;
  auto expected = statuses(one_report);
  ASSERT_GE(expected.size(), 4u) << "the glob should give at least one task per shard";

  auto sub = c.sh("cd " + quote(work) + " && " + quote(ekb) + " slurm submit --shards 4 --dir run --seed one.db --json -- eval --defaults " +
                  "--quick --device " + kDevice + " --tasks " + quote(kTasks));
  ASSERT_EQ(sub.status, 0) << sub.out;
  nlohmann::json job = json_of(sub);
  ASSERT_TRUE(job.is_object() && job.contains("merge_job")) << sub.out;
  std::string merge_id = job["merge_job"];
  std::string state;
  bool ended = wait_for([&] {
    std::smatch m;
    std::string out = c.sh(quote(c.bin["scontrol"]) + " show job " + merge_id + " -o").out;
    if (std::regex_search(out, m, std::regex("JobState=([A-Z_]+)"))) state = m[1];
    return state == "COMPLETED" || state == "FAILED" || state == "CANCELLED" || state == "TIMEOUT" || state == "NODE_FAIL";
  }, 240s);
  std::string shard_logs;
  for (int i = 1; i <= 4; ++i) shard_logs += read_file(work + "/run/logs/shard-" + std::to_string(i) + ".log");
  ASSERT_TRUE(ended) << "the merge job did not end (state " << state << ")\n" << c.sh(quote(c.bin["squeue"])).out << shard_logs << c.logs();
  std::string merge_log = read_file(work + "/run/logs/merge.log");
  ASSERT_EQ(state, "COMPLETED") << merge_log << shard_logs;
  // The shards ran on both nodes.
  EXPECT_NE(shard_logs.find(" on n1,"), std::string::npos) << shard_logs;
  EXPECT_NE(shard_logs.find(" on n2,"), std::string::npos) << shard_logs;

  // The merged store: the seed's run as it was, and the 4 shards as one finished run.
  auto runs = json_of(run_command(quote(ekb) + " results --db " + quote(work + "/run/merged.db") + " --json 2>/dev/null"));
  ASSERT_TRUE(runs.is_array()) << merge_log;
  nlohmann::json merged;
  bool finished = false;
  for (const auto& r : runs) {
    auto report = json_of(run_command(quote(ekb) + " results " + std::to_string(r["run"].get<int>()) + " --db " +
                                      quote(work + "/run/merged.db") + " --json 2>/dev/null"));
    if (report["environment"].contains("merged_from")) {
      merged = report;
      finished = r.value("finished", false);
    }
  }
  ASSERT_TRUE(merged.is_object()) << "no merged run in the merged store\n" << merge_log;
  EXPECT_EQ(merged["environment"]["merged_from"].size(), 4u) << merge_log;
  EXPECT_TRUE(finished) << "every shard ended, and the merged run says so\n" << merge_log;
  EXPECT_EQ(merged["environment"].value("quick", false), true);
  EXPECT_EQ(statuses(merged), expected) << merge_log << shard_logs;
  std::cout << "one machine and 4 shards on n1, n2: " << expected.size() << " attempts, statuses alike\n" << merge_log;
}

}  // namespace
