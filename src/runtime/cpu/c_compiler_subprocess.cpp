// The C compile path for machines without LLVM development files (the GPU machine, edge boards):
// run the system C compiler (gcc or clang) as a subprocess to build a shared object, then dlopen it.
#include <dlfcn.h>

#include <cstdlib>
#include <filesystem>
#include <mutex>
#include <sstream>

#include "runtime/cpu/c_compiler.h"
#include "runtime/cpu/run_process.h"
#include "runtime/cpu/temp_dir.h"

namespace ekb {
namespace {

// A dlopen()ed kernel library and the private directory that holds it (kept while loaded, so that
// profilers and debuggers can still read the file).
class SharedObjectModule final : public CompiledModule {
 public:
  SharedObjectModule(std::unique_ptr<TempDir> dir, void* handle) : dir_(std::move(dir)), handle_(handle) {}
  ~SharedObjectModule() override { dlclose(handle_); }
  void* lookup(const std::string& symbol) override { return dlsym(handle_, symbol.c_str()); }

 private:
  std::unique_ptr<TempDir> dir_;  // destroyed after the dlclose above
  void* handle_;
};

// An OpenMP runtime that a kernel pulled in must outlive the kernel: its idle worker threads still
// run inside it, so unloading it with the kernel's dlclose() would crash them. Marks any loaded
// runtime RTLD_NODELETE (RTLD_NOLOAD: never loads one that is not already there).
void pin_openmp_runtimes() {
  for (const char* lib : {"libgomp.so.1", "libomp.so.5", "libomp.so", "libiomp5.so"})
    if (void* h = dlopen(lib, RTLD_NOW | RTLD_NOLOAD | RTLD_NODELETE)) dlclose(h);
}

std::unique_ptr<CompiledModule> open_library(std::unique_ptr<TempDir> dir, const std::string& so) {
  void* handle = dlopen(so.c_str(), RTLD_LOCAL | RTLD_NOW);
  if (!handle) {
    const char* err = dlerror();
    std::string log = err ? err : "dlopen failed";
    if (log.rfind(so + ": ", 0) == 0) log.erase(0, so.size() + 2);  // "undefined symbol: foo"
    throw CompileError("cannot load the compiled kernel: " + log, log);
  }
  pin_openmp_runtimes();
  return std::make_unique<SharedObjectModule>(std::move(dir), handle);
}

class SubprocessCCompiler final : public CCompiler {
 public:
  // cc may carry words before or after the program, as $CC does ("ccache gcc", "gcc -m64").
  explicit SubprocessCCompiler(std::string cc) : cc_(std::move(cc)) {
    std::istringstream words(cc_);
    for (std::string w; words >> w;) cc_words_.push_back(w);
    if (cc_words_.empty()) cc_words_.push_back("cc");
  }

  std::string name() const override {
    std::string n = resolve_in_path(cc_words_[0]);
    for (size_t i = 1; i < cc_words_.size(); ++i) n += " " + cc_words_[i];
    return n + " (subprocess)";
  }

  std::unique_ptr<CompiledModule> compile(const std::string& c_source, const CompileOptions& o) override {
    auto dir = std::make_unique<TempDir>("ekb-cc-");
    std::string so = dir->file("kernel.so");
    std::vector<std::string> mode = {"-fPIC", "-shared"};
    run_compiler(*dir, c_source, o, mode, so, /*link_libm=*/true);
    return open_library(std::move(dir), so);
  }

  std::string compile_binary(const std::string& c_source, const CompileOptions& o) override {
    TempDir dir("ekb-cc-");
    std::string so = dir.file("kernel.so");
    run_compiler(dir, c_source, o, {"-fPIC", "-shared"}, so, /*link_libm=*/true);
    return read_binary_file(so);
  }

  std::unique_ptr<CompiledModule> load_binary(const std::string& binary) override { return load_shared_object(binary); }

  std::string emit(const std::string& c_source, EmitKind kind, const CompileOptions& o) override {
    std::vector<std::string> mode = {"-fPIC"};
    std::string out_name = "kernel.o";
    switch (kind) {
      case EmitKind::ll:
        if (!is_clang())
          throw CompileError("LLVM IR needs clang; " + cc_ + " is not clang",
                             "set CC to a clang (e.g. clang-19) to emit LLVM IR");
        mode.insert(mode.end(), {"-S", "-emit-llvm"});
        out_name = "kernel.ll";
        break;
      case EmitKind::asm_text:
        mode.push_back("-S");
        out_name = "kernel.s";
        break;
      case EmitKind::obj:
        mode.push_back("-c");
        break;
    }
    TempDir dir("ekb-cc-");
    std::string out = dir.file(out_name);
    run_compiler(dir, c_source, o, mode, out, /*link_libm=*/false);
    return read_binary_file(out);
  }

 private:
  void run_compiler(const TempDir& dir, const std::string& c_source, const CompileOptions& o,
                    const std::vector<std::string>& mode, const std::string& out, bool link_libm) {
    std::string src = dir.file("kernel.c");
    write_binary_file(src, c_source);
    std::vector<std::string> argv = cc_words_;
    std::vector<std::string> common = common_c_flags(o);
    argv.insert(argv.end(), common.begin(), common.end());
    argv.insert(argv.end(), {"-O" + std::to_string(o.opt_level), "-march=" + (o.cpu.empty() ? "native" : o.cpu)});
    argv.insert(argv.end(), mode.begin(), mode.end());
    argv.insert(argv.end(), {"-o", out, src});
    if (link_libm) argv.push_back("-lm");
    ProcessResult r;
    try {
      r = run_process(argv);
    } catch (const std::runtime_error& e) {
      throw CompileError(e.what(), "");
    }
    if (r.exit_code != 0) {
      // Name the source as the in-process path does ("kernel.c:3:5: error: ..."), without the temp dir.
      std::string log = r.output, dir_prefix = dir.path() + "/";
      for (size_t at; (at = log.find(dir_prefix)) != std::string::npos;) log.erase(at, dir_prefix.size());
      std::string fallback = cc_ + " failed (exit status " + std::to_string(r.exit_code) + ")";
      throw CompileError(first_error_line(log, fallback), log);
    }
  }

  bool is_clang() {
    std::call_once(probed_, [&] {
      try {
        std::vector<std::string> argv = cc_words_;
        argv.push_back("--version");
        clang_ = run_process(argv).output.find("clang") != std::string::npos;
      } catch (const std::runtime_error&) {
        clang_ = false;
      }
    });
    return clang_;
  }

  std::string cc_;
  std::vector<std::string> cc_words_;
  std::once_flag probed_;
  bool clang_ = false;
};

}  // namespace

std::unique_ptr<CompiledModule> load_shared_object(const std::string& bytes) {
  auto dir = std::make_unique<TempDir>("ekb-cc-");
  std::string so = dir->file("kernel.so");
  write_binary_file(so, bytes);
  return open_library(std::move(dir), so);
}

std::vector<std::string> subprocess_c_compiler_dirs(std::string cc) {
  if (cc.empty()) {
    const char* env = std::getenv("CC");
    cc = env && *env ? env : "cc";
  }
  std::istringstream words(cc);
  std::string program;
  words >> program;
  std::error_code ec;
  std::filesystem::path real = std::filesystem::canonical(resolve_in_path(program.empty() ? "cc" : program), ec);
  if (ec || !real.has_parent_path()) return {};
  std::filesystem::path prefix = real.parent_path().parent_path();  // PREFIX/bin/gcc -> PREFIX
  if (prefix == "/" || prefix == "/usr") return {};                   // the system's: allowed anyway
  return {prefix.string()};
}

std::unique_ptr<CCompiler> make_subprocess_c_compiler(std::string cc) {
  if (cc.empty()) {
    const char* env = std::getenv("CC");
    cc = env && *env ? env : "cc";
  }
  return std::make_unique<SubprocessCCompiler>(std::move(cc));
}

}  // namespace ekb
