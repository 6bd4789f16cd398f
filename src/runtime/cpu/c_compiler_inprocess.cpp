// The C compile path where clang/LLVM 19 is installed: clang in process to an llvm::Module, then an
// ORC LLJIT to native code in this process (one JITDylib per module, so each can be freed), or a
// TargetMachine to assembly / object bytes for emit().
#include <llvm/ExecutionEngine/Orc/Core.h>
#include <llvm/ExecutionEngine/Orc/ExecutionUtils.h>
#include <llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h>
#include <llvm/ExecutionEngine/Orc/LLJIT.h>
#include <llvm/ExecutionEngine/Orc/ThreadSafeModule.h>
#include <llvm/Config/llvm-config.h>
#include <llvm/IR/DiagnosticHandler.h>
#include <llvm/IR/DiagnosticInfo.h>
#include <llvm/IR/DiagnosticPrinter.h>
#include <llvm/IR/LegacyPassManager.h>
#include <llvm/IR/LLVMContext.h>
#include <llvm/IR/Module.h>
#include <llvm/MC/TargetRegistry.h>
#include <llvm/Support/MemoryBuffer.h>
#include <llvm/Support/raw_ostream.h>
#include <llvm/Target/TargetMachine.h>
#include <llvm/TargetParser/Triple.h>

#include <atomic>
#include <map>
#include <mutex>

#include "runtime/cpu/c_compiler.h"
#include "runtime/cpu/clang_frontend.h"
#include "runtime/cpu/llvm_passes.h"

namespace ekb {
namespace {

namespace orc = llvm::orc;

std::string join_features(const std::vector<std::string>& features) {
  std::string s;
  for (const std::string& f : features) s += (s.empty() ? "" : ",") + f;
  return s;
}

llvm::CodeGenOptLevel codegen_level(int opt_level) {
  if (opt_level <= 0) return llvm::CodeGenOptLevel::None;
  if (opt_level == 1) return llvm::CodeGenOptLevel::Less;
  if (opt_level == 2) return llvm::CodeGenOptLevel::Default;
  return llvm::CodeGenOptLevel::Aggressive;
}

// The code generator's errors (an asm statement that the assembler rejects, a `.include` or
// `.incbin` it cannot read) are collected here: LLVMContext's default prints them and calls
// exit(1), which would end the worker without an answer. They become CompileErrors instead.
struct BackendErrors final : llvm::DiagnosticHandler {
  std::shared_ptr<std::string> text;
  explicit BackendErrors(std::shared_ptr<std::string> t) : text(std::move(t)) {}
  bool handleDiagnostics(const llvm::DiagnosticInfo& di) override {
    if (di.getSeverity() != llvm::DS_Error) return false;  // warnings and remarks as before
    llvm::raw_string_ostream os(*text);
    llvm::DiagnosticPrinterRawOStream printer(os);
    bool assembler = di.getKind() == llvm::DK_SrcMgr || di.getKind() == llvm::DK_InlineAsm;
    os << (assembler ? "asm error: " : "code generation error: ");  // (an asm message starts "<inline asm>:1:10: ")
    di.print(printer);
    os << "\n";
    return true;
  }
};

std::shared_ptr<std::string> collect_backend_errors(llvm::LLVMContext& ctx) {
  auto text = std::make_shared<std::string>();
  ctx.setDiagnosticHandler(std::make_unique<BackendErrors>(text));
  return text;
}

void throw_backend_errors(const std::string& text) {
  if (!text.empty()) throw CompileError(first_error_line(text, "code generation failed"), text);
}

// One LLJIT, shared by the compiler and every module it made (a module may outlive its compiler).
struct Jit {
  std::unique_ptr<orc::LLJIT> lljit;
  std::atomic<uint64_t> next_id{0};
  std::mutex codegen_mutex;  // the JIT's one TargetMachine compiles one module at a time
  std::mutex errors_mutex;
  std::string errors;  // what the session reported while materializing (e.g. "Symbols not found")

  std::string take_errors() {
    std::lock_guard<std::mutex> lock(errors_mutex);
    return std::exchange(errors, {});
  }
};

std::shared_ptr<Jit> make_jit() {
  const HostTarget& host = host_target();
  orc::JITTargetMachineBuilder jtmb{llvm::Triple(host.triple)};
  jtmb.setCPU(host.cpu).addFeatures(host.features).setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  jtmb.getOptions().AllowFPOpFusion = llvm::FPOpFusion::Fast;
  auto jit = std::make_shared<Jit>();
  auto built = orc::LLJITBuilder()
                   .setJITTargetMachineBuilder(std::move(jtmb))
                   .setPlatformSetUp(orc::setUpInactivePlatform)  // C kernels need no static initializers
                   .setSupportConcurrentCompilation(false)        // one TargetMachine, reused (codegen_mutex)
                   .setProcessSymbolsJITDylibSetup([](orc::LLJIT& j) -> llvm::Expected<orc::JITDylibSP> {
                     // libm, libomp (loaded RTLD_GLOBAL) and libc, as this process sees them.
                     auto gen = orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(
                         j.getDataLayout().getGlobalPrefix());
                     if (!gen) return gen.takeError();
                     orc::JITDylib& jd = j.getExecutionSession().createBareJITDylib("<process>");
                     jd.addGenerator(std::move(*gen));
                     return &jd;
                   })
                   .create();
  if (!built) throw CompileError("cannot create the LLVM JIT", llvm::toString(built.takeError()));
  jit->lljit = std::move(*built);
  Jit* raw = jit.get();
  jit->lljit->getExecutionSession().setErrorReporter([raw](llvm::Error e) {
    std::string msg = llvm::toString(std::move(e));
    std::lock_guard<std::mutex> lock(raw->errors_mutex);
    raw->errors += msg + "\n";
  });
  return jit;
}

// The code of one compile(): its own JITDylib, removed (and its memory freed) on destruction.
class JitModule final : public CompiledModule {
 public:
  JitModule(std::shared_ptr<Jit> jit, orc::JITDylib& jd) : jit_(std::move(jit)), jd_(&jd) {}
  ~JitModule() override {
    llvm::consumeError(jit_->lljit->getExecutionSession().removeJITDylib(*jd_));
  }
  void* lookup(const std::string& symbol) override {
    auto addr = jit_->lljit->lookup(*jd_, symbol);  // this module only, never the process
    if (!addr) {
      llvm::consumeError(addr.takeError());
      return nullptr;
    }
    return addr->toPtr<void*>();
  }

 private:
  std::shared_ptr<Jit> jit_;
  orc::JITDylib* jd_;
};

class InProcessCCompiler final : public CCompiler {
 public:
  InProcessCCompiler() : jit_(make_jit()) {}

  std::string name() const override {
    return "clang " LLVM_VERSION_STRING " (in process, host CPU " + host_target().cpu + ")";
  }

  std::unique_ptr<CompiledModule> compile(const std::string& c_source, const CompileOptions& o) override {
    auto ctx = std::make_unique<llvm::LLVMContext>();
    std::unique_ptr<llvm::Module> module = optimized_module(c_source, o, *ctx);
    std::shared_ptr<std::string> backend_errors = collect_backend_errors(*ctx);
    // Everything the module defines and exports: looking them up below compiles the module now,
    // so codegen and link errors surface here rather than at the first lookup().
    orc::SymbolLookupSet defined;
    for (const llvm::GlobalValue& gv : module->global_values())
      if (!gv.isDeclaration() && !gv.hasLocalLinkage() && gv.hasName())
        defined.add(jit_->lljit->mangleAndIntern(gv.getName()));

    orc::LLJIT& lljit = *jit_->lljit;
    std::unique_lock<std::mutex> switches = codegen_switches(o);  // the lookup below generates the code
    std::lock_guard<std::mutex> lock(jit_->codegen_mutex);
    jit_->take_errors();  // start with a clean slate
    auto jd = lljit.createJITDylib("ekb_kernel_" + std::to_string(jit_->next_id++));
    if (!jd) throw CompileError("cannot create a JITDylib", llvm::toString(jd.takeError()));
    auto module_owner = std::make_unique<JitModule>(jit_, *jd);
    if (llvm::Error e = lljit.addIRModule(*jd, orc::ThreadSafeModule(std::move(module), std::move(ctx))))
      throw CompileError("the JIT rejected the module", llvm::toString(std::move(e)));
    if (!defined.empty()) {
      auto found = lljit.getExecutionSession().lookup(
          orc::makeJITDylibSearchOrder(&*jd, orc::JITDylibLookupFlags::MatchAllSymbols), std::move(defined));
      if (!found) {
        std::string reported = jit_->take_errors();  // e.g. "Symbols not found: [ foo ]"
        std::string log = reported + llvm::toString(found.takeError()) + "\n" + init_llvm_native_once();
        std::string first = reported.substr(0, reported.find('\n'));
        throw_backend_errors(*backend_errors);
        throw CompileError("JIT linking failed" + (first.empty() ? std::string() : ": " + first), log);
      }
    }
    throw_backend_errors(*backend_errors);
    return module_owner;
  }

  std::string compile_binary(const std::string& c_source, const CompileOptions& o) override {
    return emit(c_source, EmitKind::obj, o);
  }

  std::unique_ptr<CompiledModule> load_binary(const std::string& binary) override {
    orc::LLJIT& lljit = *jit_->lljit;
    std::lock_guard<std::mutex> lock(jit_->codegen_mutex);
    jit_->take_errors();
    auto jd = lljit.createJITDylib("ekb_kernel_" + std::to_string(jit_->next_id++));
    if (!jd) throw CompileError("cannot create a JITDylib", llvm::toString(jd.takeError()));
    auto module_owner = std::make_unique<JitModule>(jit_, *jd);
    if (llvm::Error e = lljit.addObjectFile(*jd, llvm::MemoryBuffer::getMemBufferCopy(binary, "kernel.o")))
      throw CompileError("the JIT rejected the object file", llvm::toString(std::move(e)));
    // Linking happens at the first lookup: do it now, so that a broken object fails here.
    auto entry = lljit.lookup(*jd, "ekb_entry");
    if (!entry) {
      std::string reported = jit_->take_errors();
      throw CompileError("JIT linking failed" + (reported.empty() ? "" : ": " + reported.substr(0, reported.find('\n'))),
                         reported + llvm::toString(entry.takeError()));
    }
    return module_owner;
  }

  std::string emit(const std::string& c_source, EmitKind kind, const CompileOptions& o) override {
    llvm::LLVMContext ctx;
    std::unique_ptr<llvm::Module> module = optimized_module(c_source, o, ctx);
    std::string out;
    llvm::raw_string_ostream os(out);
    if (kind == EmitKind::ll) {
      module->print(os, nullptr);
      os.flush();
      return out;
    }
    std::lock_guard<std::mutex> lock(mutex_);  // a TargetMachine emits one module at a time
    llvm::TargetMachine& tm = target_machine(o);
    llvm::SmallVector<char, 0> bytes;
    llvm::raw_svector_ostream bos(bytes);
    llvm::legacy::PassManager pm;
    auto type = kind == EmitKind::obj ? llvm::CodeGenFileType::ObjectFile : llvm::CodeGenFileType::AssemblyFile;
    if (tm.addPassesToEmitFile(pm, bos, nullptr, type))
      throw CompileError("this target cannot emit the requested file type", "");
    std::shared_ptr<std::string> backend_errors = collect_backend_errors(ctx);
    std::unique_lock<std::mutex> switches = codegen_switches(o);
    pm.run(*module);
    throw_backend_errors(*backend_errors);
    return std::string(bytes.begin(), bytes.end());
  }

 private:
  // The frontend's module, after ekb's passes when the frontend did not run clang's.
  std::unique_ptr<llvm::Module> optimized_module(const std::string& c_source, const CompileOptions& o,
                                                 llvm::LLVMContext& ctx) {
    std::unique_ptr<llvm::Module> module = frontend_.compile(c_source, o, ctx);
    std::string passes = passes_after_frontend(o);
    if (!passes.empty()) {
      std::lock_guard<std::mutex> lock(mutex_);  // (the TargetMachine's subtargets are made on demand)
      run_llvm_passes(*module, target_machine(o), passes);
    }
    return module;
  }

  // A TargetMachine per (cpu, opt level), created on first use and kept. Callers hold mutex_.
  llvm::TargetMachine& target_machine(const CompileOptions& o) {
    TargetCpu target = target_cpu_for(o);
    std::string key = target.cpu + "|" + join_features(target.features) + "|" + std::to_string(o.opt_level);
    auto& tm = machines_[key];
    if (!tm) {
      const std::string& triple = host_target().triple;
      std::string err;
      const llvm::Target* t = llvm::TargetRegistry::lookupTarget(triple, err);
      if (!t) throw CompileError("no LLVM target for " + triple, err);
      llvm::TargetOptions to;
      to.AllowFPOpFusion = llvm::FPOpFusion::Fast;
      tm.reset(t->createTargetMachine(triple, target.cpu, join_features(target.features), to, llvm::Reloc::PIC_,
                                      std::nullopt, codegen_level(o.opt_level)));
      if (!tm) throw CompileError("cannot create a TargetMachine for " + target.cpu, "");
    }
    return *tm;
  }

  std::shared_ptr<Jit> jit_;
  ClangFrontend frontend_;
  std::mutex mutex_;
  std::map<std::string, std::unique_ptr<llvm::TargetMachine>> machines_;
};

}  // namespace

std::unique_ptr<CCompiler> make_inprocess_c_compiler() {
  init_llvm_native_once();
  return std::make_unique<InProcessCCompiler>();
}

}  // namespace ekb
