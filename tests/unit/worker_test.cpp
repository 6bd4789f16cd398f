// The worker process and its sandbox: a good kernel runs and its output comes back through shared
// memory; kernels that crash, hang, fork, open sockets, write files, signal the harness or exit early
// are each classified, and the next worker runs normally.
#include <gtest/gtest.h>
#include <sys/mman.h>
#include <unistd.h>

#include <cstring>
#include <string>

#include "harness/worker_client.h"

namespace ekb::worker {
namespace {

constexpr int kN = 1024;

// One candidate in a fresh worker: compile, map X[kN] and Y[kN] (shared), sandbox, run once.
struct Attempt {
  Reply compile, run;
  float x[kN], y[kN];
};

Attempt attempt(const std::string& c_source, int run_timeout_ms = 3000) {
  Attempt a;
  WorkerProcess w;
  a.compile = w.request({{"op", "compile"}, {"source", c_source}}, 60000);
  if (!a.compile.ok()) return a;
  int fd = memfd_create("ekb-buffers", MFD_CLOEXEC);
  EXPECT_GE(fd, 0);
  size_t bytes = 2 * kN * sizeof(float);
  EXPECT_EQ(ftruncate(fd, static_cast<off_t>(bytes)), 0);
  auto* mem = static_cast<float*>(mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0));
  for (int i = 0; i < kN; ++i) mem[i] = static_cast<float>(i), mem[kN + i] = -1.0f;
  Reply b = w.request({{"op", "buffers"}, {"bytes", bytes}, {"sets", {{0, kN * sizeof(float)}}}}, 5000, fd);
  close(fd);
  EXPECT_TRUE(b.ok()) << b.message;
  Reply s = w.request({{"op", "sandbox"}, {"threads", 2}, {"memory_budget", uint64_t(256) << 20}, {"cpu_seconds", 20},
                       {"flush_bytes", 1 << 20}},
                      10000);
  EXPECT_TRUE(s.ok()) << s.message;
  a.run = w.request({{"op", "run"}, {"set", 0}, {"threads", 2}, {"calls", 1}}, run_timeout_ms);
  std::memcpy(a.x, mem, sizeof a.x);
  std::memcpy(a.y, mem + kN, sizeof a.y);
  munmap(mem, bytes);
  return a;
}

std::string kernel(const std::string& includes, const std::string& body) {
  return includes + "\n#include <stdint.h>\nvoid ekb_entry(void* const* args, int32_t num_threads) {\n"
                    "  const float* x = (const float*)args[0]; float* y = (float*)args[1]; (void)num_threads;\n" +
         body + "\n}\n";
}

TEST(Worker, GoodKernelRunsAndOutputsComeBackThroughSharedMemory) {
  Attempt a = attempt(kernel("", "  #pragma omp parallel for num_threads(num_threads)\n"
                                 "  for (int i = 0; i < 1024; ++i) y[i] = 2.0f * x[i];"));
  ASSERT_TRUE(a.compile.ok()) << a.compile.message;
  ASSERT_TRUE(a.run.ok()) << a.run.message;
  for (int i = 0; i < kN; ++i) ASSERT_EQ(a.y[i], 2.0f * i) << i;
}

TEST(Worker, CompileErrorIsReportedAndTheWorkerSurvives) {
  WorkerProcess w;
  Reply r = w.request({{"op", "compile"}, {"source", "void ekb_entry(void* const* a, int n) { oops; }"}}, 60000);
  EXPECT_EQ(r.outcome, Outcome::compile);
  EXPECT_NE(r.body.value("log", "").find("oops"), std::string::npos) << r.body.dump();
  EXPECT_TRUE(w.alive());
}

struct Bad {
  const char* name;
  std::string source;
  Outcome expected;
  const char* message_part;
};

void PrintTo(const Bad& b, std::ostream* os) { *os << b.name; }

class WorkerAdversarial : public ::testing::TestWithParam<Bad> {};

TEST_P(WorkerAdversarial, IsClassifiedAndTheNextWorkerRuns) {
  const Bad& b = GetParam();
  Attempt a = attempt(b.source, 1500);
  ASSERT_TRUE(a.compile.ok()) << a.compile.message;
  EXPECT_EQ(a.run.outcome, b.expected) << b.name << ": got " << outcome_name(a.run.outcome) << " (" << a.run.message << ")";
  EXPECT_NE(a.run.message.find(b.message_part), std::string::npos) << a.run.message;
  // The run goes on: a new worker runs a good kernel.
  Attempt good = attempt(kernel("", "  for (int i = 0; i < 1024; ++i) y[i] = x[i] + 1.0f;"));
  ASSERT_TRUE(good.run.ok()) << good.run.message;
  EXPECT_EQ(good.y[10], 11.0f);
}

INSTANTIATE_TEST_SUITE_P(
    Cases, WorkerAdversarial,
    ::testing::Values(
        Bad{"segfault", kernel("", "  *(volatile int*)0 = 1;"), Outcome::crash, "Segmentation"},
        Bad{"infinite_loop", kernel("", "  for (volatile int i = 0;; ) i++;"), Outcome::timeout, "no answer"},
        Bad{"fork", kernel("#include <unistd.h>", "  if (fork() == 0) for (;;) {}\n  y[0] = 1;"), Outcome::denied, "clone"},
        Bad{"socket", kernel("#include <sys/socket.h>", "  y[0] = (float)socket(AF_INET, SOCK_STREAM, 0);"), Outcome::denied,
            "socket"},
        Bad{"write_file", kernel("#include <stdio.h>", "  FILE* f = fopen(\"/tmp/ekb_pwned\", \"w\"); if (f) fputs(\"x\", f);"),
            Outcome::denied, "open"},
        Bad{"kill_harness", kernel("#include <signal.h>\n#include <unistd.h>", "  kill(getppid(), SIGKILL);"), Outcome::denied,
            "kill"},
        Bad{"exit_early", kernel("#include <stdlib.h>", "  exit(0);"), Outcome::exited, "status 0"},
        Bad{"abort", kernel("#include <stdlib.h>", "  abort();"), Outcome::crash, "Abort"}),
    [](const ::testing::TestParamInfo<Bad>& i) { return std::string(i.param.name); });

TEST(Worker, ReadingFilesFailsQuietly) {
  // Read-only opens fail with EACCES (the reference cache must stay out of reach) without a kill.
  Attempt a = attempt(kernel("#include <stdio.h>", "  FILE* f = fopen(\"/etc/hostname\", \"r\");\n  y[0] = f ? 1.0f : 7.0f;"));
  ASSERT_TRUE(a.run.ok()) << a.run.message;
  EXPECT_EQ(a.y[0], 7.0f);
}

TEST(Worker, OneAllocationLargerThanTheBudgetStopsTheWorker) {
  // 8 GiB against a 256 MiB budget, even if the kernel would cope with NULL: over budget.
  Attempt a = attempt(kernel("#include <stdlib.h>", "  char* volatile p = malloc((size_t)8 << 30);\n  y[0] = p ? 1.0f : 5.0f;"));
  EXPECT_EQ(a.run.outcome, Outcome::over_budget) << a.run.message;
}

TEST(Worker, AllocationsWithinTheBudgetWork) {
  Attempt a = attempt(kernel("#include <stdlib.h>", "  char* volatile p = malloc((size_t)64 << 20);\n  y[0] = p ? 1.0f : 5.0f;"));
  ASSERT_TRUE(a.run.ok()) << a.run.message;
  EXPECT_EQ(a.y[0], 1.0f);
}

}  // namespace
}  // namespace ekb::worker
