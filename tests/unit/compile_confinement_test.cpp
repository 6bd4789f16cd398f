// A candidate's compile cannot read the machine's files (harness/compile_confinement.h). Raw C, C++
// and OpenCL candidates that #include a file by absolute or climbing relative path, #embed it, probe
// it with __has_include, pull it in through the assembler (.include, .incbin), or read the worker's
// own environment, each fail as `compile`, say the file is outside what a compile may read, and
// never quote it: the files hold a secret string, written into the reference cache and into /tmp.
// The system's headers still compile. Then the parts: Landlock in a child process, the rules (the
// reference cache and the source tree are outside them), the refusal without confinement, and the
// message rules.
#include <gtest/gtest.h>
#include <dlfcn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <random>
#include <string>

#include "harness/compile_confinement.h"
#include "harness/gpu_probe.h"
#include "harness/landlock.h"
#include "harness/worker_client.h"
#include "interp/reference.h"

namespace ekb::worker {
namespace {

namespace fs = std::filesystem;

constexpr const char* kOutside = "outside what a candidate's compile may read";
const bool kInProcess = EKB_WITH_LLVM;  // clang 19 in the worker (else the system's cc as a subprocess)

// A file whose content is a unique secret (an identifier: an unconfined compile's errors would quote
// it). The file's name is not the secret: messages may name the file.
struct Secret {
  fs::path path;
  std::string text;
  explicit Secret(const fs::path& dir) {
    std::random_device rd;
    text = "ekb_secret_" + std::to_string(rd()) + "_" + std::to_string(rd());
    fs::create_directories(dir);
    path = dir / ("ekb-confinement-test-" + std::to_string(::getpid()) + "-" + std::to_string(rd()) + ".txt");
    std::ofstream(path) << text << "\n";
  }
  ~Secret() { fs::remove(path); }
  std::string quoted() const { return "\"" + path.string() + "\""; }
};

fs::path reference_cache() { return cache_root() / "reference"; }

const char* kEntry = "void ekb_entry(void* const* args, int n) { (void)args; (void)n; }\n";

Reply compile(const std::string& source, bool cplusplus = false) {
  WorkerProcess w;
  return w.request({{"op", "compile"}, {"source", source}, {"cplusplus", cplusplus}}, 60000);
}

// The compile failed as a compile error, and nothing it says — its one-line error, its log — holds
// the secret; with `says_outside`, the error says the file is outside what a compile may read.
void expect_refused(const Reply& r, const Secret& s, bool says_outside = true) {
  ASSERT_EQ(r.outcome, Outcome::compile) << outcome_name(r.outcome) << ": " << r.message;
  std::string everything = r.message + "\n" + r.body.dump();
  EXPECT_EQ(everything.find(s.text), std::string::npos) << "the compile's messages quote the file:\n" << everything;
  if (says_outside) {
    EXPECT_NE(r.message.find(kOutside), std::string::npos) << r.message;
  }
}

TEST(CompileConfinement, TheWorkerSaysItsCompileIsConfined) {
  Reply r = compile(std::string("#include <stdint.h>\n") + kEntry);
  std::string why;
  if (landlock_abi(&why) == 0) {  // no confinement here: the worker refuses to compile
    EXPECT_EQ(r.outcome, Outcome::unavailable) << r.message;
    EXPECT_NE(r.message.find("EKB_UNCONFINED_COMPILE"), std::string::npos) << r.message;
    return;
  }
  ASSERT_TRUE(r.ok()) << r.message;
  EXPECT_TRUE(r.body.value("confined", false)) << r.body.dump();
  EXPECT_EQ(r.body.value("confinement", "").rfind("Landlock ABI ", 0), 0u) << r.body.dump();
}

TEST(CompileConfinement, SystemHeadersStillCompileInC) {
  Reply r = compile(R"(#include <math.h>
#include <stdint.h>
#include <immintrin.h>
#include <omp.h>
#include <string.h>
#include <stdlib.h>
void ekb_entry(void* const* args, int32_t n) {
  float* y = (float*)args[0];
  float* t = (float*)malloc(4 * sizeof(float));
  memset(t, 0, 4 * sizeof(float));
  __m128 v = _mm_set1_ps(sqrtf(4.0f));
  _mm_storeu_ps(t, v);
  y[0] = t[0] + (float)omp_get_max_threads() * 0.0f + (float)n * 0.0f;
  free(t);
}
)");
  ASSERT_TRUE(r.ok()) << r.message << "\n" << r.body.value("log", "");
}

TEST(CompileConfinement, SystemHeadersStillCompileInCxx) {
  Reply r = compile(R"(#include <cmath>
#include <algorithm>
#include <vector>
#include <cstdint>
extern "C" void ekb_entry(void* const* args, int32_t n) {
  std::vector<float> v = {3.0f, 1.0f, 2.0f};
  std::sort(v.begin(), v.end());
  static_cast<float*>(args[0])[0] = std::sqrt(v.back()) + static_cast<float>(n) * 0.0f;
}
)",
                    true);
  ASSERT_TRUE(r.ok()) << r.message << "\n" << r.body.value("log", "");
}

TEST(CompileConfinement, IncludingAFileOfTheReferenceCacheIsACompileErrorThatDoesNotQuoteIt) {
  Secret s(reference_cache());
  expect_refused(compile("#include " + s.quoted() + "\n" + kEntry), s);
}

TEST(CompileConfinement, IncludingAFileUnderTmpIsACompileErrorThatDoesNotQuoteIt) {
  Secret s(fs::temp_directory_path());
  expect_refused(compile("#include " + s.quoted() + "\n" + kEntry), s);
}

TEST(CompileConfinement, ARelativeIncludeThatClimbsOutIsACompileErrorThatDoesNotQuoteIt) {
  // From wherever the worker keeps the source, enough ".." reach "/": then the secret's own path.
  Secret s(reference_cache());
  std::string climb;
  for (int i = 0; i < 24; ++i) climb += "../";
  expect_refused(compile("#include \"" + climb + s.path.relative_path().string() + "\"\n" + kEntry), s);
}

TEST(CompileConfinement, EmbeddingAFileIsACompileError) {
  // Unconfined, this compiles (and the kernel holds the file's bytes). gcc 12 has no #embed at all:
  // there it fails for that, and only clang's error names the file.
  Secret s(reference_cache());
  expect_refused(compile("static const unsigned char b[] = {\n#embed " + s.quoted() + "\n};\n"
                         "void ekb_entry(void* const* a, int n) { ((unsigned char*)a[0])[0] = b[n]; }\n"),
                 s, kInProcess);
}

TEST(CompileConfinement, AHasIncludeProbeDoesNotReachTheFile) {
  Secret s(reference_cache());
  Reply r = compile("#if __has_include(" + s.quoted() + ")\n#include " + s.quoted() +
                    "\n#else\n#error the file is not visible\n#endif\n" + kEntry);
  expect_refused(r, s, !kInProcess);
  // In process, clang's file system shows only the include directories: the probe learns nothing,
  // not even that the file exists. (gcc opens the file to answer, and fails on it.)
  if (kInProcess) {
    EXPECT_NE(r.message.find("not visible"), std::string::npos) << r.message;
  }
}

TEST(CompileConfinement, TheAssemblerCannotReadAFileEither) {
  // `.include` would assemble the file (its errors quoting it), `.incbin` copy it into the kernel.
  Secret s(reference_cache());
  expect_refused(compile("__asm__(\".include \\\"" + s.path.string() + "\\\"\");\n" + kEntry), s);
  expect_refused(compile("__asm__(\".section .rodata\\n.incbin \\\"" + s.path.string() + "\\\"\\n.text\\n\");\n" + kEntry), s);
}

TEST(CompileConfinement, ACxxCandidateCannotIncludeAFileEither) {
  Secret s(reference_cache());
  expect_refused(compile("#include <cstdint>\n#include " + s.quoted() + "\nextern \"C\" " + kEntry, true), s);
}

TEST(CompileConfinement, TheWorkersEnvironmentIsNotReadable) {
  // The worker inherits the harness's environment (which may hold API keys): /proc/self/environ is
  // not among what a compile may read.
  Secret s(reference_cache());
  ASSERT_EQ(setenv("EKB_CONFINEMENT_TEST_SECRET", s.text.c_str(), 1), 0);
  Reply r = compile("#include \"/proc/self/environ\"\n" + std::string(kEntry));
  unsetenv("EKB_CONFINEMENT_TEST_SECRET");
  expect_refused(r, s);
}

// GPU candidates: OpenCL (PoCL here, compiling in the worker with its own clang and linking with
// `ld`), CUDA (NVRTC) where a GPU is.
class GpuCompileConfinement : public ::testing::TestWithParam<std::string> {};

TEST_P(GpuCompileConfinement, AGpuCandidateCannotIncludeAFile) {
  DeviceProfile dev;
  dev.backend = parse_backend(GetParam());
  const std::string api = GetParam();
  if (GpuProbe p = probe_gpu(dev); !p.ok) GTEST_SKIP() << "no " << api << " device: " << p.why;
  Secret s(reference_cache());
  auto compile_gpu = [&](const std::string& source) {
    WorkerProcess w(default_gpu_worker_path());
    return w.request({{"op", "compile"}, {"source", source}, {"api", api}, {"platform", ""}, {"name", "t." + api}}, 120000);
  };
  const std::string kernel = api == "cuda"
                                 ? "// @launch k grid(1) block(1)\nextern \"C\" __global__ void k(float* y) { y[0] = 1.0f; }\n"
                                 : "// @launch k grid(1) block(1)\n__kernel void k(__global float* y) { y[0] = 1.0f; }\n";
  Reply good = compile_gpu(kernel);
  ASSERT_TRUE(good.ok()) << good.message << "\n" << good.body.value("log", "");
  EXPECT_TRUE(good.body.value("confined", false)) << good.body.dump();
  expect_refused(compile_gpu("#include " + s.quoted() + "\n" + kernel), s);
}

INSTANTIATE_TEST_SUITE_P(Api, GpuCompileConfinement, ::testing::Values("opencl", "cuda"),
                         [](const ::testing::TestParamInfo<std::string>& i) { return i.param; });

// Landlock itself, in a child (it cannot be undone): a rule for /usr/include lets the child read a
// header there and nothing outside it.
TEST(Landlock, AChildReadsOnlyWhatItsRulesAllow) {
  if (std::string why; landlock_abi(&why) == 0) GTEST_SKIP() << why;
  Secret s(reference_cache());
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    LandlockResult l = landlock_restrict({{"/usr/include", PathAccess::read}});
    if (l.abi == 0) _exit(10);
    int header = open("/usr/include/stdio.h", O_RDONLY);
    if (header < 0) _exit(11);
    int secret = open(s.path.c_str(), O_RDONLY);
    if (secret >= 0 || errno != EACCES) _exit(12);
    int etc = open("/etc/hostname", O_RDONLY);
    _exit(etc >= 0 || errno != EACCES ? 13 : 0);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 0) << "10: not restricted, 11: the header unreadable, 12: the secret readable, 13: /etc readable";
}

TEST(CompileRules, TheReferenceCacheTheSourceTreeAndTheMachinesFilesAreOutside) {
  for (WorkerKind kind : {WorkerKind::cpu, WorkerKind::gpu}) {
    std::vector<PathRule> rules = compile_rules({kind, "/tmp/ekb-worker-test", {}, {}});
    for (const std::string& p : {cache_root().string(), (cache_root() / "reference" / "x.bin").string(), std::string(EKB_SOURCE_DIR),
                                std::string("/etc/passwd"), std::string("/etc/shadow"), std::string("/root/.ssh/id_rsa"),
                                std::string("/home"), std::string("/tmp/other"), std::string("/proc/self/environ"),
                                std::string("/proc/1/cmdline"), std::string("/proc/thread-self/environ"),
                                std::string("/dev/shm/x")}) {
      EXPECT_TRUE(outside_compile_rules(p, rules)) << p;
      EXPECT_EQ(rule_reaching(p, rules), nullptr) << p << " is reached by " << rule_reaching(p, rules)->path;
    }
    for (const char* p : {"/usr/include/stdio.h", "/usr/lib/x86_64-linux-gnu/libm.so.6", "/etc/ld.so.cache",
                                "/tmp/ekb-worker-test/kernel.c", "/proc/self/status", "sys/../stdio.h"})
      EXPECT_FALSE(outside_compile_rules(p, rules)) << p;
    for (const char* p : {"/usr/include/../../etc/passwd", "../../etc/passwd", "/tmp/ekb-worker-test/../x"})
      EXPECT_TRUE(outside_compile_rules(p, rules)) << p;
  }
}

// A GPU driver library reached through a link into a directory of its own (libcuda.so.1 into
// /usr/local/nvidia/lib64 on the H200 machine): the GPU worker's rules admit the directory the
// library really lives in. (In a child: it loads a copy of the OpenCL ICD loader from a temporary
// directory by its link, so that the rules' lookup by name finds that one.)
TEST(CompileRules, AGpuWorkerReadsTheDirectoryTheDriverLibraryReallyLivesIn) {
  const std::filesystem::path system_lib = "/usr/lib/x86_64-linux-gnu/libOpenCL.so.1";
  if (!std::filesystem::exists(system_lib)) GTEST_SKIP() << system_lib << " is not installed (ocl-icd-libopencl1)";
  std::filesystem::path root = std::filesystem::temp_directory_path() / ("ekb-driver-dir-" + std::to_string(getpid()));
  std::filesystem::create_directories(root / "real");
  std::filesystem::create_directories(root / "link");
  std::filesystem::copy_file(system_lib, root / "real" / "libOpenCL.so.1", std::filesystem::copy_options::overwrite_existing);
  std::filesystem::create_symlink("../real/libOpenCL.so.1", root / "link" / "libOpenCL.so.1");
  const std::string real_dir = std::filesystem::canonical(root / "real").string();
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    if (dlopen("libOpenCL.so.1", RTLD_LAZY | RTLD_NOLOAD)) _exit(3);  // this process has the system's already
    if (!dlopen((root / "link" / "libOpenCL.so.1").c_str(), RTLD_LAZY | RTLD_LOCAL)) _exit(2);
    std::vector<PathRule> gpu = compile_rules({WorkerKind::gpu, "", {}, {}});
    std::vector<PathRule> cpu = compile_rules({WorkerKind::cpu, "", {}, {}});
    auto has = [&](const std::vector<PathRule>& rules) {
      return std::any_of(rules.begin(), rules.end(), [&](const PathRule& r) { return r.path == real_dir; });
    };
    _exit(has(gpu) && !has(cpu) ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  std::filesystem::remove_all(root);
  ASSERT_TRUE(WIFEXITED(status));
  // (ctest runs each test in a process of its own; several in one process may have loaded it before.)
  if (WEXITSTATUS(status) == 3) GTEST_SKIP() << "an earlier test in this process loaded the system's libOpenCL.so.1";
  EXPECT_NE(WEXITSTATUS(status), 2) << "the copy of the ICD loader did not load";
  EXPECT_EQ(WEXITSTATUS(status), 0) << "the GPU worker's rules do not admit " << real_dir;
}

// The NVIDIA driver's JIT cache: a GPU worker reads and writes it where that driver is installed
// (else each NVIDIA OpenCL context compiles its kernels afresh, over a second of CPU), never with
// the cache turned off, never a CPU worker; and on a machine without the driver nothing is made in
// the home directory. (In a child: the environment changes.)
TEST(CompileRules, AGpuWorkerKeepsTheNvidiaJitCacheOnlyWhereTheDriverIs) {
  std::filesystem::path dir = std::filesystem::temp_directory_path() / ("ekb-nv-cache-" + std::to_string(getpid())) / "nv";
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    setenv("CUDA_CACHE_PATH", dir.c_str(), 1);
    unsetenv("CUDA_CACHE_DISABLE");
    const bool driver = dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL) || dlopen("libnvidia-opencl.so.1", RTLD_LAZY | RTLD_LOCAL);
    auto admits = [&](const std::vector<PathRule>& rules) {
      return std::any_of(rules.begin(), rules.end(),
                         [&](const PathRule& r) { return r.path == dir.string() && r.access == PathAccess::read_write; });
    };
    bool gpu = admits(compile_rules({WorkerKind::gpu, "", {}, {}}));
    bool made = std::filesystem::is_directory(dir);
    if (admits(compile_rules({WorkerKind::cpu, "", {}, {}}))) _exit(4);
    if (driver != gpu) _exit(driver ? 5 : 6);
    if (driver != made) _exit(7);
    setenv("CUDA_CACHE_DISABLE", "1", 1);
    if (admits(compile_rules({WorkerKind::gpu, "", {}, {}}))) _exit(8);
    _exit(driver ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  std::filesystem::remove_all(dir.parent_path());
  ASSERT_TRUE(WIFEXITED(status));
  EXPECT_NE(WEXITSTATUS(status), 4) << "a CPU worker may write the NVIDIA cache";
  EXPECT_NE(WEXITSTATUS(status), 5) << "an NVIDIA driver is installed, but the GPU worker's rules do not admit its cache " << dir;
  EXPECT_NE(WEXITSTATUS(status), 6) << "no NVIDIA driver is installed, but the GPU worker's rules admit its cache";
  EXPECT_NE(WEXITSTATUS(status), 7) << "the cache directory was made where no driver is, or not made where one is";
  EXPECT_NE(WEXITSTATUS(status), 8) << "CUDA_CACHE_DISABLE=1, but the rules still admit the cache";
  EXPECT_TRUE(WEXITSTATUS(status) == 0 || WEXITSTATUS(status) == 1) << "exit " << WEXITSTATUS(status);
}

TEST(CompileRules, AReferenceCacheWithinReachMeansNoConfinement) {
  // $EKB_COMPILE_READ_DIRS naming the cache's parent: the worker must not call that confined. (In a
  // child: confine_compile restricts the process when it does go ahead.)
  if (std::string why; landlock_abi(&why) == 0) GTEST_SKIP() << why;
  pid_t pid = fork();
  ASSERT_GE(pid, 0);
  if (pid == 0) {
    setenv("EKB_COMPILE_READ_DIRS", cache_root().parent_path().c_str(), 1);
    Confinement c = confine_compile({WorkerKind::cpu, "", {}, {cache_root().string()}});
    _exit(!c.confined && c.problem.find("must stay unreadable") != std::string::npos && !compile_refusal(c).empty() ? 0 : 1);
  }
  int status = 0;
  ASSERT_EQ(waitpid(pid, &status, 0), pid);
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
}

TEST(CompileRules, WithoutConfinementTheWorkerRefusesUnlessTold) {
  Confinement none;
  none.problem = "this kernel has no Landlock";
  std::string no = compile_refusal(none);
  EXPECT_NE(no.find("this kernel has no Landlock"), std::string::npos) << no;
  EXPECT_NE(no.find("EKB_UNCONFINED_COMPILE=1"), std::string::npos) << no;
  EXPECT_EQ(none.describe(), "none: this kernel has no Landlock");
  setenv("EKB_UNCONFINED_COMPILE", "1", 1);
  EXPECT_EQ(compile_refusal(none), "");
  unsetenv("EKB_UNCONFINED_COMPILE");
  Confinement yes;
  yes.confined = true;
  yes.how = "Landlock ABI 7";
  EXPECT_EQ(compile_refusal(yes), "");
}

TEST(CompileRules, AFailedCompileIsExplainedOnlyForFilesOutside) {
  Confinement c;
  c.rules = compile_rules({WorkerKind::cpu, "/tmp/ekb-worker-test", {}, {}});
  // A header that is simply missing: nothing added.
  CompileFailure missing = explain_compile_failure("kernel.c:1:10: fatal error: 'nope.h' file not found",
                                                   "kernel.c:1:10: fatal error: 'nope.h' file not found\n", c);
  EXPECT_EQ(missing.error, "kernel.c:1:10: fatal error: 'nope.h' file not found");
  EXPECT_EQ(missing.log.find(kOutside), std::string::npos);
  // gcc's and clang's ways of saying a file outside could not be read: each named once.
  std::string log = "kernel.c:2:10: fatal error: /etc/shadow: Permission denied\n"
                    "kernel.c:3:10: fatal error: cannot open file '../../../etc/hosts': Permission denied\n"
                    "kernel.c:4:10: fatal error: '/etc/shadow' file not found\n";
  CompileFailure f = explain_compile_failure("kernel.c:2:10: fatal error: /etc/shadow: Permission denied", log, c);
  EXPECT_NE(f.error.find("/etc/shadow, ../../../etc/hosts are " + std::string(kOutside)), std::string::npos) << f.error;
  EXPECT_NE(f.log.find("note: /etc/shadow is " + std::string(kOutside)), std::string::npos) << f.log;
  EXPECT_NE(f.log.find("note: ../../../etc/hosts is " + std::string(kOutside)), std::string::npos) << f.log;
  // A line that is not about reading a file names no path to explain.
  CompileFailure other = explain_compile_failure("kernel.c:3:5: error: use of undeclared identifier 'x'",
                                                 "kernel.c:3:5: error: a/b/c is not a type\n", c);
  EXPECT_EQ(other.log.find(kOutside), std::string::npos);
}

}  // namespace
}  // namespace ekb::worker
