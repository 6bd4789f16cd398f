// What a board loads (remote/elf_check.h): a shared object for its own machine, and nothing in it
// that runs when it is loaded. The objects are built here the way the host builds a board's kernels
// (-shared -fPIC -nostartfiles), by this machine's compiler and, where installed, the cross ones.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "remote/elf_check.h"
#include "runtime/cpu/run_process.h"
#include "runtime/cpu/temp_dir.h"
#include "target/arch.h"

namespace {

using namespace ekb;
using namespace ekb::remote;

const char* kKernel = R"(
#include <math.h>
void ekb_entry(void* const* a, int n) {
  float* x = (float*)a[0];
  #pragma omp parallel for num_threads(n)
  for (int i = 0; i < 64; ++i) x[i] = sqrtf(x[i]);
}
)";
const char* kConstructor = R"(
int g;
__attribute__((constructor)) static void before_the_sandbox(void) { g = 42; }
void ekb_entry(void* const* a, int n) { *(int*)a[0] = g; }
)";
const char* kIfunc = R"(
static int impl(void) { return 1; }
static int (*resolve(void))(void) { return impl; }
int f(void) __attribute__((ifunc("resolve")));
void ekb_entry(void* const* a, int n) { *(int*)a[0] = f(); }
)";

// The shared object `cc` builds from `source` as the host builds a board's kernel, or "" (and why).
std::string build(const std::string& cc, const std::string& source, std::string* why) {
  if (resolve_in_path(cc) == cc && access(cc.c_str(), X_OK) != 0) {
    *why = cc + " is not installed";
    return "";
  }
  TempDir dir("ekb-elf-");
  write_binary_file(dir.file("k.c"), source);
  ProcessResult r = run_process({cc, "-O2", "-fPIC", "-shared", "-nostartfiles", "-fopenmp", dir.file("k.c"), "-o", dir.file("k.so"), "-lm"});
  if (r.exit_code != 0) {
    *why = cc + " failed: " + r.output;
    return "";
  }
  return read_binary_file(dir.file("k.so"));
}

struct CompilerCase {
  const char* cc;
  Arch arch;
};

void PrintTo(const CompilerCase& c, std::ostream* os) { *os << c.cc; }

class ElfCheck : public ::testing::TestWithParam<CompilerCase> {};

TEST_P(ElfCheck, AKernelLoadsOnItsOwnMachineOnlyAndNothingOfItRunsAtLoad) {
  const auto [cc, arch] = GetParam();
  std::string why;
  std::string kernel = build(cc, kKernel, &why);
  if (kernel.empty()) GTEST_SKIP() << why;
  const int mine = arch_info(arch).elf_machine;
  auto ok = check_kernel_object(kernel, mine);
  EXPECT_TRUE(ok.ok()) << ok.message;
  for (Arch other : {Arch::x86_64, Arch::aarch64, Arch::riscv64}) {
    if (other == arch) continue;
    auto c = check_kernel_object(kernel, arch_info(other).elf_machine);
    EXPECT_EQ(c.problem, ElfProblem::wrong_machine) << arch_name(other);
    EXPECT_NE(c.message.find(elf_machine_name(mine)), std::string::npos) << c.message;
    EXPECT_NE(c.message.find(elf_machine_name(arch_info(other).elf_machine)), std::string::npos) << c.message;
  }
  for (const char* source : {kConstructor, kIfunc}) {
    std::string o = build(cc, source, &why);
    ASSERT_FALSE(o.empty()) << why;
    auto c = check_kernel_object(o, mine);
    EXPECT_EQ(c.problem, ElfProblem::runs_at_load) << source;
    EXPECT_NE(c.message.find("before the sandbox"), std::string::npos) << c.message;
  }
  // Cut short, not ELF, too large.
  EXPECT_EQ(check_kernel_object(kernel.substr(0, 40), mine).problem, ElfProblem::malformed);
  EXPECT_EQ(check_kernel_object("#!/bin/sh\nrm -rf /\n", mine).problem, ElfProblem::malformed);
  EXPECT_EQ(check_kernel_object(std::string(kMaxKernelObjectBytes + 1, '\0'), mine).problem, ElfProblem::too_large);
}

INSTANTIATE_TEST_SUITE_P(Compilers, ElfCheck,
                         ::testing::Values(CompilerCase{"cc", native_arch()}, CompilerCase{"aarch64-linux-gnu-gcc", Arch::aarch64},
                                           CompilerCase{"riscv64-linux-gnu-gcc", Arch::riscv64}),
                         [](const auto& info) { return std::string(arch_name(info.param.arch)) + (info.index == 0 ? "_native" : "_cross"); });

}  // namespace
