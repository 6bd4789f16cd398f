// Targets (target/target.h): the ISA read from CPU flags, lanes per register, the default schedule's
// vector width following the ISA, no vector code without a vector unit, and a device profile's GPU
// limits as lowering errors located at the directive to change.
#include <gtest/gtest.h>

#include "codegen/c_printer.h"
#include "harness/device_profiles.h"
#include "ir/check.h"
#include "lower/schedule_choice.h"
#include "schedule/default_schedule.h"
#include "target/target.h"
#include "util/diagnostics.h"

namespace ekb {
namespace {

TEST(Target, TheIsaComesFromTheCpuFlags) {
  EXPECT_EQ(isa_from_cpu_flags("fpu sse sse2 avx avx2 fma avx512f avx512vl avx512bw"), Isa::avx512);
  EXPECT_EQ(isa_from_cpu_flags("fpu sse sse2 avx avx2 fma bmi2"), Isa::avx2);
  EXPECT_EQ(isa_from_cpu_flags("fpu sse sse2"), Isa::sse);
  EXPECT_EQ(isa_from_cpu_flags("fp asimd evtstrm aes"), Isa::neon);
  EXPECT_EQ(isa_from_cpu_flags("rv64imac"), Isa::none);
}

Target cpu(Isa isa) {
  Target t;
  set_isa(t, isa);
  return t;
}

TEST(Target, LanesFollowTheRegisterWidth) {
  EXPECT_EQ(cpu(Isa::avx512).lanes(DType::f32), 16);
  EXPECT_EQ(cpu(Isa::avx2).lanes(DType::f32), 8);
  EXPECT_EQ(cpu(Isa::avx2).lanes(DType::f64), 4);
  EXPECT_EQ(cpu(Isa::avx2).lanes(DType::i8), 32);
  EXPECT_EQ(cpu(Isa::avx2).lanes(DType::f16), 8);  // computed in f32
  EXPECT_EQ(cpu(Isa::neon).lanes(DType::f32), 4);
  EXPECT_EQ(cpu(Isa::none).lanes(DType::f32), 1);
}

const char* kScale = R"(kernel scale
  dim R = 4, C = 256
  in X : f32[R, C]
  out Y : f32[R, C]
  Y[r, c] = X[r, c] * 2.0
)";

TEST(Target, TheDefaultScheduleVectorizesByOneRegisterOfTheIsa) {
  auto p = load_program(std::make_shared<SourceFile>("scale.ekb", kScale));
  EXPECT_NE(default_schedule_text(*p, cpu(Isa::avx512)).find("vectorize c 16"), std::string::npos);
  EXPECT_NE(default_schedule_text(*p, cpu(Isa::avx2)).find("vectorize c 8"), std::string::npos);
  EXPECT_NE(default_schedule_text(*p, cpu(Isa::neon)).find("vectorize c 4"), std::string::npos);
  EXPECT_EQ(default_schedule_text(*p, cpu(Isa::none)).find("vectorize"), std::string::npos);
}

TEST(Target, NoVectorUnitMeansNoVectorCode) {
  std::string text = std::string(kScale) + "\nschedule cpu\n  Y: vectorize c 8\n";
  auto p = load_program(std::make_shared<SourceFile>("scale.ekb", text));
  Target none = cpu(Isa::none), avx2 = cpu(Isa::avx2);
  std::string scalar = codegen::print_for_backend(lower_with(*p, none, choose_schedule(*p, none, "")));
  std::string vector = codegen::print_for_backend(lower_with(*p, avx2, choose_schedule(*p, avx2, "")));
  EXPECT_EQ(scalar.find("vectorized:"), std::string::npos);
  EXPECT_NE(vector.find("vectorized: 8 lanes"), std::string::npos);
}

TEST(Target, AProfilesThreadLimitIsALocatedLoweringError) {
  std::string text = std::string(kScale) + "\nschedule cuda\n  Y: fuse r c -> f; split f 512 -> b t; bind b block.x; bind t thread.x\n";
  auto p = load_program(std::make_shared<SourceFile>("scale.ekb", text));
  Target mali = find_device("mali-g57-opencl").target();
  mali.backend = Backend::cuda;  // the same limits, for this file's cuda section
  EXPECT_NO_THROW(lower_with(*p, default_target(Backend::cuda), choose_schedule(*p, default_target(Backend::cuda), "")));
  try {
    lower_with(*p, mali, choose_schedule(*p, mali, ""));
    ADD_FAILURE() << "512 threads per block accepted for a 384-thread profile";
  } catch (const DiagnosticError& e) {
    std::string r = e.diagnostics().render_all();
    EXPECT_NE(r.find("more than the 384 a block may have on device profile `mali-g57-opencl`"), std::string::npos) << r;
    EXPECT_NE(r.find("scale.ekb:8:"), std::string::npos) << r;  // the schedule line, at its bind directive
    EXPECT_NE(r.find("bind t thread.x"), std::string::npos) << r;
  }
}

}  // namespace
}  // namespace ekb
