// Checking a parsed .ekb file: L0 names, types, shapes and index ranges (check_kernel), static
// bounds of tensor reads (check_bounds), the L1/L2 sections (check_sections in src/schedule), and a
// suite file's workload table. check_module runs them all.
#pragma once
#include <memory>

#include "ir/program.h"
#include "util/diagnostics.h"

namespace ekb {

// Largest allowed dimension and tensor size: beyond them no edge workload lives, and sizes stay
// far from 64-bit overflow.
inline constexpr int64_t kMaxDim = int64_t{1} << 31;
inline constexpr int64_t kMaxElements = int64_t{1} << 34;

// Resolves and type-checks the kernel; returns null (with diagnostics) when it is not valid.
// Annotates the module's expressions in place.
std::shared_ptr<Program> check_kernel(const std::shared_ptr<Module>& module, DiagnosticList& diags);

// Static bounds check of every tensor read whose indices are affine (docs/ir.md, "Bounds").
void check_bounds(const Program& p, DiagnosticList& diags);

// Well-formedness of the `workloads` table against the kernel's dims.
void check_workloads(const Program& p, DiagnosticList& diags);

// Everything above plus the schedule/memory sections. Returns the program when there is no error.
std::shared_ptr<Program> check_module(const std::shared_ptr<Module>& module, DiagnosticList& diags);

// Parses `src` and checks it; throws DiagnosticError when it has errors.
std::shared_ptr<Program> load_program(const SourcePtr& src, DiagnosticList* warnings = nullptr);

}  // namespace ekb
