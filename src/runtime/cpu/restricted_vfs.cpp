// A ProxyFileSystem over the real one that answers "not found" for everything outside the allowed
// directories and files (restricted_vfs.h).
#include "runtime/cpu/restricted_vfs.h"

#include <llvm/ADT/SmallString.h>
#include <llvm/Support/FileSystem.h>
#include <llvm/Support/Path.h>

namespace ekb {
namespace {

namespace path = llvm::sys::path;

std::error_code not_found() { return std::make_error_code(std::errc::no_such_file_or_directory); }

class RestrictedFileSystem final : public llvm::vfs::ProxyFileSystem {
 public:
  RestrictedFileSystem(const std::vector<std::string>& dirs, const std::vector<std::string>& files)
      : ProxyFileSystem(llvm::vfs::getRealFileSystem()) {
    for (const std::string& d : dirs) add(d, dirs_);
    for (const std::string& f : files) add(f, files_);
  }

  llvm::ErrorOr<llvm::vfs::Status> status(const llvm::Twine& p) override {
    if (!allowed(p)) return not_found();
    return ProxyFileSystem::status(p);
  }
  bool exists(const llvm::Twine& p) override { return allowed(p) && ProxyFileSystem::exists(p); }
  llvm::ErrorOr<std::unique_ptr<llvm::vfs::File>> openFileForRead(const llvm::Twine& p) override {
    if (!allowed(p)) return not_found();
    return ProxyFileSystem::openFileForRead(p);
  }
  llvm::vfs::directory_iterator dir_begin(const llvm::Twine& dir, std::error_code& ec) override {
    if (!allowed(dir)) {
      ec = not_found();
      return {};
    }
    return ProxyFileSystem::dir_begin(dir, ec);
  }
  std::error_code getRealPath(const llvm::Twine& p, llvm::SmallVectorImpl<char>& out) override {
    if (!allowed(p)) return not_found();
    return ProxyFileSystem::getRealPath(p, out);
  }

 private:
  // Each allowed path as written (made absolute, dots removed) and, where it exists, its real path.
  void add(const std::string& p, std::vector<std::string>& to) {
    llvm::SmallString<256> s(p);
    if (!absolute(s) || s == "/") return;  // never the whole disk (e.g. a sysroot of "/")
    to.push_back(std::string(s));
    llvm::SmallString<256> real;
    if (!llvm::sys::fs::real_path(s, real) && real != s) to.push_back(std::string(real));
  }

  bool absolute(llvm::SmallString<256>& s) const {
    if (getUnderlyingFS().makeAbsolute(s)) return false;
    path::remove_dots(s, /*remove_dot_dot=*/true);
    return true;
  }

  bool listed(llvm::StringRef p) const {
    for (const std::string& f : files_)
      if (p == f) return true;
    for (const std::string& d : dirs_)
      if (p == d || (p.starts_with(d) && path::is_separator(p[d.size()]))) return true;
    return false;
  }

  bool allowed(const llvm::Twine& p) const {
    llvm::SmallString<256> s;
    p.toVector(s);
    if (s.empty() || !absolute(s) || !listed(s)) return false;
    // A symlink beneath an allowed directory must not lead out of it.
    llvm::SmallString<256> real;
    if (llvm::sys::fs::real_path(s, real)) return true;  // it does not exist: the lookup itself says so
    return listed(real);
  }

  std::vector<std::string> dirs_, files_;
};

}  // namespace

llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> make_restricted_file_system(const std::vector<std::string>& dirs,
                                                                            const std::vector<std::string>& files) {
  return llvm::makeIntrusiveRefCnt<RestrictedFileSystem>(dirs, files);
}

}  // namespace ekb
