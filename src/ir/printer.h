// Canonical text of a Module, a kernel, or an expression. `ekb fmt` prints it; task texts are it;
// the interpreter's cache key hashes it. Printing the parse of printed text gives the same text.
#pragma once
#include <map>
#include <string>

#include "ir/ast.h"

namespace ekb {

std::string print_expr(const Expr& e);
std::string print_module(const Module& m);
// One L1/L2 directive as written canonically: `split i 16 -> io ii`.
std::string directive_text(const Directive& d);

// Options for printing a kernel: used to instantiate a suite workload as a task.
struct KernelPrintOptions {
  std::string name;                          // replaces the kernel's name when not empty
  std::string pattern;                       // adds `pattern X` when not empty (and none is written)
  std::map<std::string, std::string> dims;   // replaces `dim NAME = ...` values (already printed)
  std::string domain;                        // replaces the domain when not empty
  bool comments = true;
};
std::string print_kernel(const Kernel& k, const KernelPrintOptions& opts = {});

}  // namespace ekb
