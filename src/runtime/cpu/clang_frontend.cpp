// C source to an optimized llvm::Module through clang 19 in process (CompilerInstance on an
// in-memory buffer), plus the host target facts and process setup that the JIT shares.
#include "runtime/cpu/clang_frontend.h"

#include <clang/Basic/Diagnostic.h>
#include <clang/Basic/DiagnosticOptions.h>
#include <clang/CodeGen/CodeGenAction.h>
#include <clang/Frontend/CompilerInstance.h>
#include <clang/Frontend/CompilerInvocation.h>
#include <clang/Frontend/TextDiagnosticPrinter.h>
#include <clang/Frontend/Utils.h>
#include <clang/Lex/HeaderSearchOptions.h>
#include <clang/Lex/PreprocessorOptions.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/Support/CommandLine.h>
#include <llvm/Support/DynamicLibrary.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/TargetSelect.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/TargetParser/Host.h>
#include <llvm/TargetParser/Triple.h>

#include <algorithm>
#include <cstdlib>

#include "runtime/cpu/llvm_passes.h"
#include "runtime/cpu/restricted_vfs.h"

namespace ekb {
namespace {

constexpr const char* kFileName = "kernel.c";

std::string resource_dir() {
  const char* env = std::getenv("EKB_CLANG_RESOURCE_DIR");
  return env && *env ? env : EKB_CLANG_RESOURCE_DIR;
}

std::string options_key(const CompileOptions& o) {
  std::string key = std::to_string(o.opt_level) + (o.openmp ? "|omp" : "|noomp") + (o.cplusplus ? "|c++" : "|c") + "|" + o.cpu;
  for (const std::string& f : o.extra_flags) key += "|" + f;
  if (!passes_after_frontend(o).empty()) key += "|passes run after";
  for (const std::string& f : o.target_features) key += "|" + f;
  return key;
}

// What a compile may read: the invocation's include directories (clang's resource headers, the
// system's, any -I of the extra flags) and the files it is told to include (-include).
llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> include_dirs_only(const clang::CompilerInvocation& inv) {
  const clang::HeaderSearchOptions& h = inv.getHeaderSearchOpts();
  std::vector<std::string> dirs = {h.ResourceDir + "/include"};
  bool sysroot = !h.Sysroot.empty() && h.Sysroot != "/";
  for (const auto& e : h.UserEntries)
    dirs.push_back(sysroot && !e.IgnoreSysRoot && llvm::StringRef(e.Path).starts_with("/") ? h.Sysroot + e.Path : e.Path);
  const clang::PreprocessorOptions& pp = inv.getPreprocessorOpts();
  std::vector<std::string> files(pp.Includes.begin(), pp.Includes.end());
  files.insert(files.end(), pp.MacroIncludes.begin(), pp.MacroIncludes.end());
  return make_restricted_file_system(dirs, files);
}

}  // namespace

const HostTarget& host_target() {
  static const HostTarget host = [] {
    HostTarget h;
    h.triple = llvm::sys::getProcessTriple();
    h.cpu = llvm::sys::getHostCPUName().str();
    for (const auto& f : llvm::sys::getHostCPUFeatures())
      h.features.push_back((f.second ? "+" : "-") + f.first().str());
    std::sort(h.features.begin(), h.features.end());
    return h;
  }();
  return host;
}

TargetCpu target_cpu_for(const CompileOptions& o) {
  TargetCpu t = o.cpu == "native" || o.cpu.empty() ? TargetCpu{host_target().cpu, host_target().features} : TargetCpu{o.cpu, {}};
  t.features.insert(t.features.end(), o.target_features.begin(), o.target_features.end());
  return t;
}

std::string passes_after_frontend(const CompileOptions& o) {
  if (!o.pass_pipeline.empty()) return o.pass_pipeline;
  return o.opt_level > 0 && o.passes == CompileOptions::Passes::ekb ? ekb_pass_pipeline() : "";
}

namespace {
// Whether a compile with `o` runs the code generator without its post-RA scheduler (codegen_switches).
bool post_ra_scheduler_off(const CompileOptions& o) {
  return llvm::Triple(llvm::sys::getProcessTriple()).isX86() && !o.llvm_default_codegen;
}
}  // namespace

std::unique_lock<std::mutex> codegen_switches(const CompileOptions& o) {
  static std::mutex mutex;
  std::unique_lock<std::mutex> lock(mutex);
  static llvm::cl::Option* post_ra = [] {  // (what clang's -mllvm -post-RA-scheduler=false sets)
    auto& options = llvm::cl::getRegisteredOptions();
    auto it = options.find("post-RA-scheduler");
    return it == options.end() ? nullptr : it->second;
  }();
  if (post_ra) {
    if (post_ra_scheduler_off(o))
      post_ra->addOccurrence(1, "post-RA-scheduler", "false");
    else
      post_ra->setPosition(0);  // as if never given: the CPU's scheduling model decides
  }
  return lock;
}

std::string inprocess_code_identity() {
  CompileOptions defaults;
  return std::string("passes ") + passes_after_frontend(defaults) +
         (post_ra_scheduler_off(defaults) ? "; no post-RA scheduler" : "");
}

const std::string& init_llvm_native_once() {
  static const std::string problems = [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
    std::string out;
    // JIT'd code resolves libm and OpenMP runtime calls against the process (RTLD_GLOBAL).
    using llvm::sys::DynamicLibrary;
    std::string err;
    if (DynamicLibrary::LoadLibraryPermanently(EKB_LIBOMP_PATH, &err) &&
        DynamicLibrary::LoadLibraryPermanently("libomp.so.5", &err))
      out += "cannot load libomp (" EKB_LIBOMP_PATH " or libomp.so.5): " + err + "\n";
    if (DynamicLibrary::LoadLibraryPermanently("libm.so.6", &err)) out += "cannot load libm.so.6: " + err + "\n";
    return out;
  }();
  return problems;
}

std::vector<std::string> inprocess_compiler_dirs() {
  std::string clang = EKB_CLANG_EXECUTABLE, libomp = EKB_LIBOMP_PATH;
  auto parent = [](const std::string& p) { return p.substr(0, p.find_last_of('/')); };
  std::vector<std::string> dirs;
  for (const std::string& d : {resource_dir(), parent(parent(clang)), parent(libomp)})
    if (!d.empty() && d != "/usr") dirs.push_back(d);  // (/usr/bin, /usr/lib are the system's: allowed anyway)
  return dirs;
}

ClangFrontend::ClangFrontend() = default;
ClangFrontend::~ClangFrontend() = default;

std::shared_ptr<const clang::CompilerInvocation> ClangFrontend::base_invocation(const CompileOptions& o,
                                                                                std::string& log) {
  std::string key = options_key(o);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    auto it = invocations_.find(key);
    if (it != invocations_.end()) return it->second;
  }
  std::vector<std::string> args = {EKB_CLANG_EXECUTABLE, "-c", "-O" + std::to_string(o.opt_level)};
  std::vector<std::string> common = common_c_flags(o);
  args.insert(args.end(), common.begin(), common.end());
  args.insert(args.end(), {"-resource-dir", resource_dir(), kFileName});
  std::vector<const char*> argv;
  for (const std::string& a : args) argv.push_back(a.c_str());

  llvm::raw_string_ostream os(log);
  auto diag_opts = llvm::makeIntrusiveRefCnt<clang::DiagnosticOptions>();
  clang::TextDiagnosticPrinter printer(os, diag_opts.get());
  clang::CreateInvocationOptions opts;
  opts.Diags = clang::CompilerInstance::createDiagnostics(diag_opts.get(), &printer, /*ShouldOwnClient=*/false);
  opts.ProbePrecompiled = false;
  std::shared_ptr<clang::CompilerInvocation> inv = clang::createInvocation(argv, opts);
  os.flush();
  if (!inv || opts.Diags->hasErrorOccurred()) throw CompileError("clang rejected the compile flags", log);

  // Target the CPU explicitly (the same CPU and features the JIT and emit() use), and let clang
  // free what it allocates: the driver's -disable-free would leak every compile's AST.
  TargetCpu target = target_cpu_for(o);
  inv->getTargetOpts().CPU = target.cpu;
  inv->getTargetOpts().TuneCPU = "";  // as with -march: tune for the target CPU itself
  inv->getTargetOpts().Features = target.features;
  inv->getTargetOpts().FeaturesAsWritten = target.features;  // (clang derives the features from these)
  inv->getFrontendOpts().DisableFree = false;
  inv->getCodeGenOpts().DisableFree = false;
  if (!passes_after_frontend(o).empty()) inv->getCodeGenOpts().DisableLLVMPasses = true;  // the caller runs them
  inv->getDiagnosticOpts().ShowColors = false;

  std::lock_guard<std::mutex> lock(mutex_);
  if (invocations_.size() >= 32) invocations_.clear();
  invocations_[key] = inv;
  return inv;
}

std::unique_ptr<llvm::Module> ClangFrontend::compile(const std::string& c_source, const CompileOptions& o,
                                                     llvm::LLVMContext& ctx) {
  std::string log;
  auto inv = std::make_shared<clang::CompilerInvocation>(*base_invocation(o, log));
  inv->getPreprocessorOpts().addRemappedFile(kFileName,
                                             llvm::MemoryBuffer::getMemBufferCopy(c_source, kFileName).release());

  llvm::raw_string_ostream os(log);
  auto diag_opts = llvm::makeIntrusiveRefCnt<clang::DiagnosticOptions>();
  clang::TextDiagnosticPrinter printer(os, diag_opts.get());
  clang::CompilerInstance ci;
  auto files = include_dirs_only(*inv);
  ci.setInvocation(std::move(inv));
  ci.createDiagnostics(&printer, /*ShouldOwnClient=*/false);
  ci.createFileManager(std::move(files));  // the source sees its include directories, nothing else
  ci.setVerboseOutputStream(os);  // "N errors generated." goes with the diagnostics
  clang::EmitLLVMOnlyAction action(&ctx);
  bool ok = ci.ExecuteAction(action);
  os.flush();
  if (!ok || ci.getDiagnostics().hasErrorOccurred())
    throw CompileError(first_error_line(log, "clang failed"), log);
  std::unique_ptr<llvm::Module> module = action.takeModule();
  if (!module) throw CompileError("clang produced no module", log);
  return module;
}

}  // namespace ekb
