// The in-process compiler's view of the disk: only its include directories. Everything else (the
// source's own directory included: the source is an in-memory buffer) is "not found", so an
// `#include "/etc/passwd"`, an `#embed` or a `__has_include` probe of a path outside the include
// directories neither reads the file nor learns whether it exists. This holds on any kernel; the
// worker's Landlock confinement (harness/compile_confinement.h) is the other, process-wide layer,
// which also covers what does not go through clang's file system (the assembler's `.incbin`).
// Internal to src/runtime/cpu (only built with EKB_WITH_LLVM).
#pragma once
#include <llvm/ADT/IntrusiveRefCntPtr.h>
#include <llvm/Support/VirtualFileSystem.h>

#include <string>
#include <vector>

namespace ekb {

// The real file system, restricted to `dirs` (directories: everything beneath each; their real
// paths too, where symlinks lead) and `files` (exactly these). A path counts as inside when both
// its lexical form (made absolute, "." and ".." removed) and, where it exists, its real path are.
llvm::IntrusiveRefCntPtr<llvm::vfs::FileSystem> make_restricted_file_system(const std::vector<std::string>& dirs,
                                                                            const std::vector<std::string>& files = {});

}  // namespace ekb
