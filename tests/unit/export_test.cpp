// `ekb export`: the files of a deployable kernel (the header's entry point and layouts, the CMake
// project, the launch contract of GPU exports), the rules for its directory, the command's errors;
// and the exports built standalone: with the system C compiler and run on the host, cross-built for
// aarch64 and run under qemu-aarch64, the OpenCL export run on this machine's OpenCL device (PoCL),
// the CUDA export compiled by nvcc. Each run's outputs are read back here and compared with the
// float64 reference by ekb's own rule (harness/compare.h).
#include <gtest/gtest.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>

#include "command_util.h"
#include "harness/compare.h"
#include "io/export.h"
#include "ir/check.h"
#include "loops/graph.h"
#include "test_util.h"
#include "util/npy.h"

namespace ekb::test {
namespace {

namespace fs = std::filesystem;

const char* kScaleRows = R"(kernel scale_rows
  dim M = 8, N = 32
  in X : f32[M, N] ~ uniform(-2, 2)
  in s : f32[M] ~ positive(0.5, 2)
  out Y : f32[M, N]
  Y[m, n] = X[m, n] * s[m]

schedule cpu
  Y: parallel m; vectorize n 8
)";

// A fresh directory for one test, removed when it passes.
struct TempDir {
  fs::path path;
  explicit TempDir(const std::string& name) {
    path = fs::temp_directory_path() / ("ekb-export-" + std::to_string(::getpid()) + "-" + name);
    fs::remove_all(path);
    fs::create_directories(path);
  }
  ~TempDir() {
    if (!::testing::Test::HasFailure()) fs::remove_all(path);
  }
};

std::string read_text(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

io::KernelExport export_of(const Program& p, const Target& t) {
  io::ExportOptions o;
  o.origin = "a test";
  return io::make_export(p, t, choose_schedule(p, t, ""), o);
}

bool contains(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

CommandResult ekb(const std::string& args) {
  return run_command(std::string(EKB_BINARY) + " --suite " + EKB_SOURCE_DIR + "/suite " + args + " 2>&1");
}

bool have(const std::string& program) { return run_command("command -v " + program + " >/dev/null 2>&1").status == 0; }

// --- the files ---

TEST(ExportFiles, CpuHeaderGivesTheEntryPointAndEveryLayout) {
  auto p = valid(kScaleRows);
  Target t = host_cpu_target(2);
  set_isa(t, Isa::avx2);
  io::KernelExport e = export_of(*p, t);
  EXPECT_EQ(e.name, "scale_rows");
  EXPECT_TRUE(e.uses_openmp);
  for (const char* f : {"scale_rows.c", "scale_rows.h", "main.c", "CMakeLists.txt", "README.txt", "example_support.h", "example_support.c"})
    EXPECT_TRUE(e.file(f)) << f;
  const std::string& h = e.file("scale_rows.h")->text;
  EXPECT_TRUE(contains(h, "void ekb_kernel(const float* scale_rows_RESTRICT X, const float* scale_rows_RESTRICT s, "
                          "float* scale_rows_RESTRICT Y, int32_t num_threads);"))
      << h;
  EXPECT_TRUE(contains(h, "/* X: input 1 of 3, f32 (float), shape [M, N] = [8, 32], strides [32, 1]")) << h;
  EXPECT_TRUE(contains(h, "values: positive(0.5, 2)")) << h;
  EXPECT_TRUE(contains(h, "#define scale_rows_X_SHAPE {8, 32}\n#define scale_rows_X_STRIDES {32, 1}\n")) << h;
  EXPECT_TRUE(contains(h, "#define scale_rows_s_RANK 1\n#define scale_rows_s_ELEMENTS 8\n#define scale_rows_s_BYTES 32\n")) << h;
  EXPECT_TRUE(contains(h, "#define scale_rows_Y_TOLERANCE 0.0001")) << h;
  EXPECT_TRUE(contains(h, "#define scale_rows_NUM_INPUTS 2\n#define scale_rows_NUM_OUTPUTS 1\n")) << h;
  EXPECT_TRUE(contains(h, "#define scale_rows_THREADS 2")) << h;
  EXPECT_TRUE(contains(h, "extern \"C\"")) << h;
  // The kernel is the translation unit ekb compiles, with its parallel loop and 8-lane vectors.
  const std::string& c = e.file("scale_rows.c")->text;
  EXPECT_TRUE(contains(c, "#pragma omp parallel num_threads")) << c;
  EXPECT_TRUE(contains(c, "#pragma omp for")) << c;
  EXPECT_TRUE(contains(c, "ekb_f32x8")) << c;
  const std::string& cm = e.file("CMakeLists.txt")->text;
  EXPECT_TRUE(contains(cm, "find_package(OpenMP COMPONENTS C)")) << cm;
  EXPECT_TRUE(contains(cm, "\"-mavx2 -mfma\"")) << cm;
  EXPECT_FALSE(contains(cm, EKB_SOURCE_DIR)) << "an export must not point into ekb's tree";
  // main.c fills inputs from the declared distributions and checks with ekb's tolerance.
  const std::string& m = e.file("main.c")->text;
  EXPECT_TRUE(contains(m, "{\"s\", EKB_F32, 1, shape_s, 8, 0, EKB_POSITIVE, 0.5, 2.0, 0.0, NULL}")) << m;
  EXPECT_TRUE(contains(m, "{\"Y\", EKB_F32, 2, shape_Y, 256, 1, EKB_UNIFORM, 0.0, 0.0, 0.0001, NULL}")) << m;
}

TEST(ExportFiles, IsaDecidesVectorWidthsAndBuildFlags) {
  auto p = valid(R"(kernel add1
  dim N = 64
  in X : f32[N]
  out Y : f32[N]
  Y[i] = X[i] + 1.0
)");
  Target t = host_cpu_target(1);
  set_isa(t, Isa::neon);
  io::KernelExport neon = export_of(*p, t);
  EXPECT_TRUE(contains(neon.file("add1.c")->text, "ekb_f32x4")) << neon.file("add1.c")->text;
  const std::string& cm = neon.file("CMakeLists.txt")->text;
  EXPECT_TRUE(contains(cm, "aarch64")) << cm;
  EXPECT_FALSE(contains(cm, "-mavx")) << cm;
  EXPECT_EQ(neon.uses_openmp, contains(neon.file("add1.c")->text, "#pragma omp"));
  EXPECT_EQ(contains(cm, "find_package(OpenMP"), neon.uses_openmp);
  // Plain loops (no schedule): no parallel loop, so no OpenMP in the project.
  io::KernelExport plain = io::make_export(*p, t, choose_schedule(*p, t, "none"), {});
  EXPECT_FALSE(plain.uses_openmp);
  EXPECT_FALSE(contains(plain.file("CMakeLists.txt")->text, "OpenMP")) << plain.file("CMakeLists.txt")->text;
  set_isa(t, Isa::none);
  io::KernelExport scalar = export_of(*p, t);
  EXPECT_FALSE(contains(scalar.file("add1.c")->text, "vector_size")) << scalar.file("add1.c")->text;
  EXPECT_FALSE(contains(scalar.file("CMakeLists.txt")->text, "CMAKE_SYSTEM_PROCESSOR MATCHES"));
}

TEST(ExportFiles, GpuExportsCarryTheLaunchContract) {
  auto p = valid(kScaleRows);
  io::KernelExport cu = export_of(*p, gpu_target(Backend::cuda));
  for (const char* f : {"scale_rows.cu", "scale_rows_launch.cu", "scale_rows.h", "main.c", "CMakeLists.txt"}) EXPECT_TRUE(cu.file(f)) << f;
  const std::string& kernels = cu.file("scale_rows.cu")->text;
  EXPECT_TRUE(contains(kernels, "@launch ekb_k0 grid(")) << kernels;
  EXPECT_TRUE(contains(kernels, "#ifdef __CUDACC_RTC__\ntypedef")) << kernels;  // NVRTC's types, <stdint.h>'s under nvcc
  const std::string& h = cu.file("scale_rows.h")->text;
  EXPECT_TRUE(contains(h, "cudaError_t scale_rows_launch(void* const* buffers, cudaStream_t stream);")) << h;
  EXPECT_TRUE(contains(h, "#define scale_rows_NUM_LAUNCHES 1\n#define scale_rows_NUM_SCRATCH 0\n#define scale_rows_NUM_BUFFERS 3\n")) << h;
  EXPECT_TRUE(contains(h, " *   ekb_k0  grid (")) << h;
  EXPECT_TRUE(contains(cu.file("scale_rows_launch.cu")->text, "cudaLaunchKernel((const void*)ekb_k0, dim3(")) << cu.file("scale_rows_launch.cu")->text;
  EXPECT_TRUE(contains(cu.file("CMakeLists.txt")->text, "set(CMAKE_CUDA_ARCHITECTURES 90)"));

  io::KernelExport cl = export_of(*p, gpu_target(Backend::opencl));
  for (const char* f : {"scale_rows.cl", "scale_rows_host.c", "scale_rows.h", "main.c", "CMakeLists.txt"}) EXPECT_TRUE(cl.file(f)) << f;
  EXPECT_TRUE(contains(cl.file("scale_rows.cl")->text, "__kernel void ekb_k0(")) << cl.file("scale_rows.cl")->text;
  const std::string& clh = cl.file("scale_rows.h")->text;
  EXPECT_TRUE(contains(clh, "cl_int scale_rows_enqueue(cl_command_queue queue, const scale_rows_program* program, const cl_mem* buffers);"))
      << clh;
  EXPECT_TRUE(contains(clh, "the global size is grid x block")) << clh;
  EXPECT_TRUE(contains(cl.file("CMakeLists.txt")->text, "find_package(OpenCL REQUIRED)"));
}

TEST(ExportFiles, NamesMustBeCIdentifiers) {
  EXPECT_TRUE(io::is_c_identifier("conv_3x3"));
  EXPECT_FALSE(io::is_c_identifier("3x3"));
  EXPECT_FALSE(io::is_c_identifier("a-b"));
  EXPECT_EQ(io::export_name_for("a-b.c"), "a_b_c");
  auto p = valid(kScaleRows);
  io::ExportOptions o;
  o.name = "no good";
  Target t = host_cpu_target(1);
  try {
    io::make_export(*p, t, choose_schedule(*p, t, ""), o);
    ADD_FAILURE() << "a name with a space was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_TRUE(contains(e.what(), "`no good` is not a C identifier")) << e.what();
  }
}

TEST(ExportFiles, DirectoryRulesKeepFilesEkbDidNotWrite) {
  TempDir d("dir-rules");
  auto p = valid(kScaleRows);
  io::KernelExport e = export_of(*p, host_cpu_target(1));
  // A directory with someone's file in it is refused, and the file stays as it was.
  fs::create_directories(d.path / "theirs");
  std::ofstream(d.path / "theirs" / "main.c") << "mine";
  EXPECT_THROW(io::write_export(e, d.path / "theirs", true), std::runtime_error);
  EXPECT_EQ(read_text(d.path / "theirs" / "main.c"), "mine");
  EXPECT_FALSE(fs::exists(d.path / "theirs" / "scale_rows.c"));
  // A fresh directory; then again without --replace (refused), and with it.
  fs::path out = d.path / "out";
  io::WriteReport first = io::write_export(e, out, false);
  EXPECT_EQ(first.written.size(), e.files.size());
  EXPECT_TRUE(fs::exists(out / io::kExportManifest));
  try {
    io::write_export(e, out, false);
    ADD_FAILURE() << "an earlier export was replaced without --replace";
  } catch (const std::runtime_error& err) {
    EXPECT_TRUE(contains(err.what(), "--replace")) << err.what();
  }
  fs::create_directories(out / "build");
  std::ofstream(out / "build" / "keep") << "x";
  std::ofstream(out / "notes.txt") << "x";
  // The OpenCL export of the same program: the C kernel file of the earlier one goes, the rest stays.
  io::KernelExport cl = export_of(*p, gpu_target(Backend::opencl));
  io::WriteReport second = io::write_export(cl, out, true);
  EXPECT_TRUE(fs::exists(out / "scale_rows.cl"));
  EXPECT_FALSE(fs::exists(out / "scale_rows.c"));
  EXPECT_NE(std::find(second.removed.begin(), second.removed.end(), "scale_rows.c"), second.removed.end());
  EXPECT_TRUE(fs::exists(out / "build" / "keep"));
  EXPECT_TRUE(fs::exists(out / "notes.txt"));
  // A file of the export's own name that ekb did not write is never overwritten.
  fs::remove(out / "scale_rows.c");
  io::KernelExport c = export_of(*p, host_cpu_target(1));
  std::ofstream(out / "scale_rows.c") << "hand-written";
  EXPECT_THROW(io::write_export(c, out, true), std::runtime_error);
  EXPECT_EQ(read_text(out / "scale_rows.c"), "hand-written");
}

// --- the command's errors ---

TEST(ExportCommand, ClearErrors) {
  TempDir d("errors");
  CommandResult unknown = ekb("export no_such_task_x -o " + (d.path / "a").string());
  EXPECT_NE(unknown.status, 0);
  EXPECT_TRUE(contains(unknown.out, "no_such_task_x")) << unknown.out;
  EXPECT_FALSE(fs::exists(d.path / "a"));

  fs::path bad = d.path / "bad.ekb";
  std::ofstream(bad) << "kernel bad\n  in X : f32[4]\n  out Y : f32[4]\n  Y[i] = X[i] + Z[i]\n";
  CommandResult unchecked = ekb("export " + bad.string() + " -o " + (d.path / "b").string());
  EXPECT_NE(unchecked.status, 0);
  EXPECT_TRUE(contains(unchecked.out, "bad.ekb:4:")) << unchecked.out;
  EXPECT_FALSE(fs::exists(d.path / "b"));

  fs::path sched = d.path / "sched.ekb";
  std::ofstream(sched) << "schedule cpu\n  Y: vectorize q 8\n";
  std::ofstream(d.path / "ok.ekb") << kScaleRows;
  CommandResult illegal = ekb("export " + (d.path / "ok.ekb").string() + " --schedule " + sched.string() + " -o " + (d.path / "c").string());
  EXPECT_NE(illegal.status, 0);
  EXPECT_TRUE(contains(illegal.out, "sched.ekb:2:")) << illegal.out;
  EXPECT_FALSE(fs::exists(d.path / "c"));

  CommandResult isa = ekb("export gelu_erf_64x512 --backend cuda --isa neon -o " + (d.path / "e").string());
  EXPECT_NE(isa.status, 0);
  EXPECT_TRUE(contains(isa.out, "--isa applies to the cpu backend")) << isa.out;
  CommandResult bad_isa = ekb("export gelu_erf_64x512 --isa sve -o " + (d.path / "e").string());
  EXPECT_TRUE(contains(bad_isa.out, "unknown --isa `sve`")) << bad_isa.out;

  fs::create_directories(d.path / "full");
  std::ofstream(d.path / "full" / "x.txt") << "x";
  CommandResult full = ekb("export gelu_erf_64x512 -o " + (d.path / "full").string());
  EXPECT_NE(full.status, 0);
  EXPECT_TRUE(contains(full.out, "is not empty and holds no earlier export")) << full.out;

  std::ofstream(d.path / "gelu_erf_64x512.c") << "void ekb_kernel(void) {}\n";
  CommandResult raw = ekb("export " + (d.path / "gelu_erf_64x512.c").string() + " -o " + (d.path / "f").string());
  EXPECT_NE(raw.status, 0);
  EXPECT_TRUE(contains(raw.out, "a raw submission is already its own source")) << raw.out;

  CommandResult ok = ekb("export gelu_erf_64x512 -o " + (d.path / "g").string() + " --json");
  ASSERT_EQ(ok.status, 0) << ok.out;
  EXPECT_TRUE(contains(ok.out, "\"gelu_erf_64x512.h\"")) << ok.out;
}

// --- built standalone and run ---

// Every element type but f64 and the 16-bit integers, a scalar output, and .npy inputs of other types
// than the kernel's (bf16 inputs are written as float32): not a suite task, an .ekb file.
const char* kMixedTypes = R"(kernel mixed_types
  dim N = 100
  in A : f16[N] ~ uniform(-2, 2)
  in B : bf16[N]
  in M : bool[N]
  in Q : i8[N]
  out Y : f16[N]
  out Z : bf16[N]
  out K : bool[N]
  out S : i32[]
  Y[i] = select(M[i], A[i] * 2.0, A[i] - B[i])
  Z[i] = B[i] * 0.5 + A[i]
  K[i] = A[i] > B[i]
  S = sum(i) i32(Q[i])
)";

// What a build test exports: a suite task, or an .ekb file (`arg`) whose kernel is `name`.
struct Exported {
  std::string arg, name;
};

// The program the reference is computed from: the task's text as `ekb show` gives it, or the file.
std::shared_ptr<Program> program_of(const Exported& x) {
  if (x.arg != x.name) return load_program(std::make_shared<SourceFile>(x.arg, read_text(x.arg)));
  CommandResult r = ekb("show " + x.name);
  if (r.status != 0) return nullptr;
  return load_program(std::make_shared<SourceFile>(x.name + ".ekb", r.out));
}

// Reads the example's outputs in `out` and the reference in `ref` and compares them by ekb's rule.
void expect_outputs_match(const Exported& x, const fs::path& out, const fs::path& ref) {
  auto p = program_of(x);
  ASSERT_TRUE(p) << x.arg;
  lower::Graph g = lower::build_graph(*p);
  std::vector<TensorData> got, want;
  for (const auto& o : g.outputs) {
    got.push_back(read_npy(out / (o.name + ".npy"), o.name));
    want.push_back(read_npy(ref / (o.name + ".npy"), o.name));
  }
  for (const auto& c : compare_outputs(*p, got, want))
    EXPECT_TRUE(c.pass) << x.name << ": " << c.name << " max error " << c.max_rel_error << " > " << c.tolerance << " at "
                        << c.worst_index << " (got " << c.worst_got << ", want " << c.worst_want << ")";
}

// Exports `x`, writes its inputs and reference, builds the export with CMake (`cmake_args`), runs the
// example (through `runner`, e.g. qemu) with --check, and compares its outputs here too.
void build_run_and_compare(const fs::path& root, const Exported& x, const std::string& export_args, const std::string& cmake_args,
                           const std::string& runner) {
  fs::path dir = root / x.name, ref = root / (x.name + "-ref"), out = root / (x.name + "-out");
  CommandResult ex = ekb("export " + x.arg + " " + export_args + " -o " + dir.string());
  ASSERT_EQ(ex.status, 0) << ex.out;
  CommandResult in = ekb("interp " + x.arg + " --out " + ref.string());
  ASSERT_EQ(in.status, 0) << in.out;
  std::string cmake = read_text(dir / "CMakeLists.txt");
  EXPECT_FALSE(contains(cmake, EKB_SOURCE_DIR)) << "the export points into ekb's tree";
  CommandResult conf = run_command("cmake -S " + dir.string() + " -B " + (dir / "build").string() + " " + cmake_args + " 2>&1");
  ASSERT_EQ(conf.status, 0) << conf.out;
  CommandResult build = run_command("cmake --build " + (dir / "build").string() + " 2>&1");
  ASSERT_EQ(build.status, 0) << build.out;
  fs::create_directories(out);
  std::string example = (dir / "build" / (x.name + "_example")).string();
  CommandResult run = run_command(runner + example + " --in " + ref.string() + " --out " + out.string() + " --check " + ref.string() + " 2>&1");
  EXPECT_EQ(run.status, 0) << run.out;
  EXPECT_TRUE(contains(run.out, "PASS")) << run.out;
  EXPECT_FALSE(contains(run.out, "FAIL")) << run.out;
  expect_outputs_match(x, out, ref);
}

// An elementwise task (vector erf), a convolution (parallel loops, vectors, a padded copy), a float
// reduction (layer norm), an integer one (argmax), and the program of every element type above.
std::vector<Exported> build_cases(const fs::path& root) {
  fs::path mixed = root / "mixed_types.ekb";
  std::ofstream(mixed) << kMixedTypes;
  std::vector<Exported> cases;
  for (const char* task : {"gelu_erf_64x512", "conv2d_bias_relu_nchw_16x32x32", "layernorm_64x128", "argmax_imagenet_1x1000"})
    cases.push_back({task, task});
  cases.push_back({mixed.string(), "mixed_types"});
  return cases;
}

TEST(ExportBuild, CpuExportBuildsStandaloneAndMatchesTheReference) {
  if (!have("cmake") || !have("cc")) GTEST_SKIP() << "no cmake or cc here";
  TempDir d("cpu");
  for (const auto& x : build_cases(d.path)) {
    SCOPED_TRACE(x.name);
    build_run_and_compare(d.path, x, "", "", "");
    // Nothing of ekb's is linked: the example needs the C library, libm and OpenMP only.
    CommandResult ldd = run_command("ldd " + (d.path / x.name / "build" / (x.name + "_example")).string() + " 2>&1");
    EXPECT_FALSE(contains(ldd.out, "ekb")) << ldd.out;
  }
}

TEST(ExportBuild, CpuExportCrossBuildsForAarch64AndRunsUnderQemu) {
  if (!have("cmake") || !have("aarch64-linux-gnu-gcc") || !have("qemu-aarch64"))
    GTEST_SKIP() << "needs cmake, aarch64-linux-gnu-gcc (gcc-aarch64-linux-gnu) and qemu-aarch64 (qemu-user): scripts/setup.sh";
  TempDir d("aarch64");
  fs::path toolchain = d.path / "aarch64.cmake";
  // The toolchain file of the export's README.txt, as a user would write it.
  std::ofstream(toolchain) << "set(CMAKE_SYSTEM_NAME Linux)\nset(CMAKE_SYSTEM_PROCESSOR aarch64)\n"
                              "set(CMAKE_C_COMPILER aarch64-linux-gnu-gcc)\n";
  for (const auto& x : build_cases(d.path)) {
    SCOPED_TRACE(x.name);
    build_run_and_compare(d.path, x, "--isa neon", "-DCMAKE_TOOLCHAIN_FILE=" + toolchain.string(),
                          "qemu-aarch64 -L /usr/aarch64-linux-gnu ");
    CommandResult file = run_command("file " + (d.path / x.name / "build" / (x.name + "_example")).string());
    if (file.status == 0) EXPECT_TRUE(contains(file.out, "aarch64")) << file.out;
  }
}

TEST(ExportBuild, OpenClExportRunsOnThisMachinesOpenClDevice) {
  if (!have("cmake") || !fs::exists("/usr/include/CL/cl.h"))
    GTEST_SKIP() << "needs cmake and the OpenCL headers and loader (ocl-icd-opencl-dev): scripts/setup.sh";
  if (!fs::exists("/etc/OpenCL/vendors/pocl.icd")) GTEST_SKIP() << "no PoCL here (pocl-opencl-icd)";
  TempDir d("opencl");
  build_run_and_compare(d.path, {"conv2d_bias_relu_nchw_16x32x32", "conv2d_bias_relu_nchw_16x32x32"},
                        "--backend opencl --device pocl-cpu", "", "");
}

std::string nvcc_path() {
  return have("nvcc") ? "nvcc" : fs::exists("/usr/local/cuda/bin/nvcc") ? "/usr/local/cuda/bin/nvcc" : "";
}

// Exports `task` for CUDA and builds it with CMake's CUDA language; returns the example's path.
fs::path build_cuda_export(const fs::path& root, const std::string& task) {
  fs::path dir = root / task;
  CommandResult ex = ekb("export " + task + " --backend cuda -o " + dir.string());
  EXPECT_EQ(ex.status, 0) << ex.out;
  CommandResult conf = run_command("cmake -S " + dir.string() + " -B " + (dir / "build").string() + " -DCMAKE_CUDA_COMPILER=" + nvcc_path() + " 2>&1");
  EXPECT_EQ(conf.status, 0) << conf.out;
  CommandResult build = run_command("cmake --build " + (dir / "build").string() + " 2>&1");
  EXPECT_EQ(build.status, 0) << build.out;
  return dir / "build" / (task + "_example");
}

TEST(ExportBuild, CudaExportCompilesWithNvcc) {
  if (nvcc_path().empty() || !have("cmake")) GTEST_SKIP() << "no CUDA toolkit (nvcc) here";
  TempDir d("cuda");
  EXPECT_TRUE(fs::exists(build_cuda_export(d.path, "conv2d_bias_relu_nchw_16x32x32")));
}

TEST(ExportBuild, CudaExportRunsOnTheGpuAndMatchesTheReference) {
  if (nvcc_path().empty() || !have("cmake")) GTEST_SKIP() << "no CUDA toolkit (nvcc) here";
  if (run_command("nvidia-smi -L >/dev/null 2>&1").status != 0) GTEST_SKIP() << "no CUDA GPU here (nvidia-smi -L fails)";
  TempDir d("cuda-run");
  const std::string task = "conv2d_bias_relu_nchw_16x32x32";
  fs::path example = build_cuda_export(d.path, task);
  fs::path ref = d.path / "ref", out = d.path / "out";
  ASSERT_EQ(ekb("interp " + task + " --out " + ref.string()).status, 0);
  fs::create_directories(out);
  CommandResult run = run_command(example.string() + " --in " + ref.string() + " --out " + out.string() + " --check " + ref.string() + " 2>&1");
  EXPECT_EQ(run.status, 0) << run.out;
  expect_outputs_match({task, task}, out, ref);
}

}  // namespace
}  // namespace ekb::test
