// The compile confinement's rules (what a compile may use, and why each is there), applying them,
// and the sentence a failed compile's message gets when it named a file outside them.
#include "harness/compile_confinement.h"

#include <dlfcn.h>
#include <glob.h>
#include <link.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <set>
#include <sstream>

namespace ekb::worker {

namespace {

namespace fs = std::filesystem;

std::string env(const char* name) {
  const char* v = std::getenv(name);
  return v ? v : "";
}

std::vector<std::string> colon_list(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream in(s);
  for (std::string p; std::getline(in, p, ':');)
    if (!p.empty() && p[0] == '/') out.push_back(p);  // relative entries would name the current directory
  return out;
}

std::vector<std::string> glob_paths(const char* pattern) {
  std::vector<std::string> out;
  glob_t g{};
  if (glob(pattern, 0, nullptr, &g) == 0)
    for (size_t i = 0; i < g.gl_pathc; ++i) out.push_back(g.gl_pathv[i]);
  globfree(&g);
  return out;
}

// PoCL's kernel cache: $POCL_CACHE_DIR, else $XDG_CACHE_HOME/pocl, else $HOME/.cache/pocl (PoCL
// keeps its kcache beneath the latter two). Empty when none can be named.
std::string pocl_cache_dir() {
  if (std::string d = env("POCL_CACHE_DIR"); !d.empty()) return d;
  if (std::string d = env("XDG_CACHE_HOME"); !d.empty()) return d + "/pocl";
  if (std::string d = env("HOME"); !d.empty()) return d + "/.cache/pocl";
  return "";
}

// The NVIDIA driver's JIT cache: $CUDA_CACHE_PATH, else $HOME/.nv/ComputeCache (the driver's own
// default). Within reach, a worker's OpenCL context starts in about 0.1 s; out of reach, the
// driver compiles afresh what it keeps there, 1.2 to 1.5 s of CPU in every OpenCL context on the
// H200 (measured with CUDA_CACHE_DISABLE=1), twice per task. Empty when the cache is off or cannot
// be named, or no NVIDIA driver is installed (nothing is made in a home without one).
std::string nvidia_cache_dir() {
  if (env("CUDA_CACHE_DISABLE") == "1") return "";
  // (Loaded, not started: dlopen starts no thread; gpu_driver_dirs loads them too.)
  if (!dlopen("libcuda.so.1", RTLD_LAZY | RTLD_LOCAL) && !dlopen("libnvidia-opencl.so.1", RTLD_LAZY | RTLD_LOCAL)) return "";
  if (std::string d = env("CUDA_CACHE_PATH"); !d.empty()) return d;
  if (std::string d = env("HOME"); !d.empty()) return d + "/.nv/ComputeCache";
  return "";
}

// A directory a rule names, made first (a rule needs the directory to exist).
void add_made_dir(std::vector<PathRule>& r, const std::string& dir, PathAccess a) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  r.push_back({dir, a});
}

// The directories the GPU drivers' libraries really live in. A container or a driver package often
// installs libcuda.so.1 as a link into a directory of its own (the driver's version, a mount):
// opening it reads the link's target, and the driver loads its companions (the PTX JIT, NVVM) from
// there too. Each library is loaded to learn where its file is (dlopen alone starts no thread).
std::vector<std::string> gpu_driver_dirs() {
  std::vector<std::string> out;
  for (const char* lib : {"libcuda.so.1", "libnvidia-opencl.so.1", "libOpenCL.so.1"}) {
    void* h = dlopen(lib, RTLD_LAZY | RTLD_LOCAL);
    if (!h) continue;
    link_map* m = nullptr;
    if (dlinfo(h, RTLD_DI_LINKMAP, &m) == 0 && m && m->l_name && *m->l_name) {
      std::error_code ec;
      fs::path real = fs::canonical(m->l_name, ec);
      if (!ec) out.push_back(real.parent_path().string());
    }
  }
  return out;
}

}  // namespace

std::vector<PathRule> compile_rules(const ConfinementRequest& req) {
  std::vector<PathRule> r;
  auto add = [&](const std::string& p, PathAccess a) { r.push_back({p, a}); };
  // Programs and libraries: the compiler driver, cc1, as, ld and their plugins; the shared libraries
  // the worker loads after it starts (libomp, libm, the OpenCL and CUDA libraries); gcc's and clang's
  // own headers and crt files live here too (/usr/lib/gcc, /usr/lib/llvm-19/lib/clang).
  for (const char* p : {"/usr/bin", "/bin", "/usr/libexec", "/usr/lib", "/usr/lib32", "/usr/lib64", "/usr/libx32", "/lib",
                        "/lib32", "/lib64", "/libx32", "/usr/local/lib"})
    add(p, PathAccess::read_exec);
  // The system's headers.
  for (const char* p : {"/usr/include", "/usr/local/include"}) add(p, PathAccess::read);
  // The dynamic loader's cache (dlopen by name).
  add("/etc/ld.so.cache", PathAccess::read);
  // What the hardware is: OpenMP, PoCL's hwloc and the CUDA driver read /sys and a few /proc files.
  // (Not the rest of /proc/self: its environ holds the harness's environment.)
  add("/sys", PathAccess::read);
  for (const char* p : {"/proc/cpuinfo", "/proc/meminfo", "/proc/stat", "/proc/self/status", "/proc/self/stat",
                        "/proc/self/statm", "/proc/self/maps", "/proc/self/cpuset", "/proc/self/cgroup", "/proc/self/mounts",
                        "/proc/self/mountinfo"})
    add(p, PathAccess::read);
  add("/dev/null", PathAccess::device);
  for (const char* p : {"/dev/zero", "/dev/urandom", "/dev/random"}) add(p, PathAccess::read);
  // The worker's own directory: its TMPDIR (the subprocess compiler's objects) and current directory.
  if (!req.private_dir.empty()) add(req.private_dir, PathAccess::read_write);
  for (const std::string& p : req.read_dirs) add(p, PathAccess::read_exec);
  for (const std::string& p : colon_list(env("LD_LIBRARY_PATH"))) add(p, PathAccess::read_exec);
  for (const std::string& p : colon_list(env("EKB_COMPILE_READ_DIRS"))) add(p, PathAccess::read_exec);
  if (req.kind == WorkerKind::gpu) {
    // OpenCL: the ICD loader's vendor files; PoCL's kernel library and its cache (which it writes).
    add("/etc/OpenCL/vendors", PathAccess::read);
    if (std::string v = env("OCL_ICD_VENDORS"); !v.empty()) add(v, PathAccess::read);
    for (const std::string& f : colon_list(env("OCL_ICD_FILENAMES"))) add(f, PathAccess::read_exec);  // (absolute ones)
    add("/usr/share/pocl", PathAccess::read);
    if (std::string cache = pocl_cache_dir(); !cache.empty()) add_made_dir(r, cache, PathAccess::read_write);
    if (std::string cache = nvidia_cache_dir(); !cache.empty()) add_made_dir(r, cache, PathAccess::read_write);
    // CUDA: the driver's device files and its /proc entries. cuInit names its threads, writing
    // /proc/self/task/TID/comm (it fails with CUDA_ERROR_OPERATING_SYSTEM otherwise): write, never
    // read (a thread's environ is there too).
    for (const std::string& d : gpu_driver_dirs()) add(d, PathAccess::read_exec);
    add("/proc/driver/nvidia", PathAccess::read);
    add("/proc/sys", PathAccess::read);
    add("/proc/self/task", PathAccess::write_only);
    for (const char* pattern : {"/dev/nvidia*", "/dev/dri", "/dev/kfd", "/dev/mali*"})
      for (const std::string& p : glob_paths(pattern)) add(p, PathAccess::device);
  }
  return r;
}

Confinement confine_compile(const ConfinementRequest& req) {
  Confinement c;
  if (!req.private_dir.empty()) {
    setenv("TMPDIR", req.private_dir.c_str(), 1);  // the subprocess compiler's files, gcc's own temporaries
    if (chdir(req.private_dir.c_str()) != 0) {       // relative paths start there, not in the harness's directory
      c.problem = "cannot enter the worker's directory " + req.private_dir;
      return c;
    }
  }
  // The NVIDIA driver reads its cache's place when it starts, after this: the one the rules admit.
  if (req.kind == WorkerKind::gpu)
    if (std::string cache = nvidia_cache_dir(); !cache.empty()) setenv("CUDA_CACHE_PATH", cache.c_str(), 1);
  c.rules = compile_rules(req);
  for (const std::string& p : req.unreadable)
    if (const PathRule* r = rule_reaching(p, c.rules)) {
      c.problem = p + " must stay unreadable, but a compile may read " + r->path +
                  " (see $EKB_CACHE_DIR, $LD_LIBRARY_PATH, $EKB_COMPILE_READ_DIRS)";
      return c;
    }
  LandlockResult l = landlock_restrict(c.rules);
  if (l.abi > 0) {
    c.confined = true;
    c.how = "Landlock ABI " + std::to_string(l.abi);
  } else {
    c.problem = l.error;
  }
  return c;
}

std::string compile_refusal(const Confinement& c) {
  if (c.confined || env("EKB_UNCONFINED_COMPILE") == "1") return "";
  return "this machine cannot confine a candidate's compile to the system's headers (" + c.problem +
         "), so the worker does not compile; set EKB_UNCONFINED_COMPILE=1 to compile unconfined (only sources you trust)";
}

namespace {

bool beneath(const fs::path& p, const fs::path& dir) {
  auto [d, q] = std::mismatch(dir.begin(), dir.end(), p.begin(), p.end());
  return d == dir.end() || (std::next(d) == dir.end() && d->empty());  // (a trailing "/" ends in an empty name)
}

// A compile's messages name files in quotes ('...', "...") or bare ("fatal error: /a/b: Permission denied").
std::vector<std::string> path_tokens(const std::string& line) {
  std::vector<std::string> out;
  for (char q : {'\'', '"', '`'})
    for (size_t at = line.find(q); at != std::string::npos;) {
      size_t end = line.find(q, at + 1);
      if (end == std::string::npos) break;
      out.push_back(line.substr(at + 1, end - at - 1));
      at = line.find(q, end + 1);
    }
  std::stringstream words(line);
  for (std::string w; words >> w;) {
    if (w.find('/') == std::string::npos) continue;
    while (!w.empty() && std::string("'\"`(").find(w.front()) != std::string::npos) w.erase(0, 1);
    while (!w.empty() && std::string("'\"`:,.)").find(w.back()) != std::string::npos) w.pop_back();
    if (!w.empty()) out.push_back(w);
  }
  return out;
}

bool says_unreadable(std::string line) {
  std::transform(line.begin(), line.end(), line.begin(), [](unsigned char ch) { return std::tolower(ch); });
  for (const char* phrase : {"not found", "no such file", "permission denied", "cannot open", "can't open", "could not find",
                             "couldn't find", "unable to open", "failed to open"})
    if (line.find(phrase) != std::string::npos) return true;
  return false;
}

}  // namespace

bool outside_compile_rules(const std::string& path, const std::vector<PathRule>& rules) {
  if (path.empty()) return false;
  fs::path lexical = fs::path(path).lexically_normal();
  if (lexical.is_relative()) return !lexical.empty() && *lexical.begin() == "..";  // climbs out of where it is looked up
  std::error_code ec;
  fs::path canonical = fs::weakly_canonical(lexical, ec);
  for (const PathRule& r : rules) {
    if (r.access == PathAccess::write_only) continue;  // nothing there can be read
    fs::path dir = fs::path(r.path).lexically_normal();
    fs::path real = fs::weakly_canonical(dir, ec);
    for (const fs::path& p : {lexical, canonical})
      if (!p.empty() && (beneath(p, dir) || (!real.empty() && beneath(p, real)))) return false;
  }
  return true;
}

const PathRule* rule_reaching(const std::string& dir, const std::vector<PathRule>& rules) {
  std::error_code ec;
  fs::path d = fs::path(dir).lexically_normal(), real_d = fs::weakly_canonical(d, ec);
  for (const PathRule& r : rules) {
    if (r.access == PathAccess::write_only) continue;
    fs::path p = fs::path(r.path).lexically_normal(), real_p = fs::weakly_canonical(p, ec);
    for (const fs::path& a : {d, real_d})
      for (const fs::path& b : {p, real_p})
        if (!a.empty() && !b.empty() && (beneath(a, b) || beneath(b, a))) return &r;
  }
  return nullptr;
}

CompileFailure explain_compile_failure(const std::string& error, const std::string& log, const Confinement& c) {
  CompileFailure out{error, log};
  std::set<std::string> seen;
  std::stringstream lines(error + "\n" + log);
  for (std::string line; std::getline(lines, line);) {
    if (!says_unreadable(line)) continue;
    for (const std::string& p : path_tokens(line)) {
      if (!outside_compile_rules(p, c.rules) || !seen.insert(p).second) continue;
      out.error += (seen.size() == 1 ? "; " : ", ") + p;
      if (!out.log.empty() && out.log.back() != '\n') out.log += "\n";
      out.log += "note: " + p +
                 " is outside what a candidate's compile may read: the compiler's and the system's headers and libraries "
                 "only (docs/metrics.md, \"Where candidate code runs\")\n";
    }
  }
  if (!seen.empty())
    out.error += seen.size() == 1 ? " is outside what a candidate's compile may read (system headers only)"
                                  : " are outside what a candidate's compile may read (system headers only)";
  return out;
}

}  // namespace ekb::worker
