// What the default schedule's CPU rules measure about a stage (default_cpu.cpp): how each of its
// reads and its write move in memory as a loop variable advances (the flattened stride), how much
// arithmetic one point costs, how many bytes it touches, and the widest value it computes (which
// sets how many vector lanes fit one register). Estimates for choosing a loop nest, not results.
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "loops/graph.h"
#include "target/target.h"

namespace ekb::default_schedule {

// One read of a buffer in a stage's value.
struct Access {
  std::string buffer;
  DType type = DType::f32;
  lir::ExprP load;     // the load itself
  double repeat = 1;   // how often per point of the stage's pure loops (the reductions around it)
  bool in_top_reduction = false;  // inside the stage's top-level reduction body
  // Inside a reduction in the expression whose innermost loop reads contiguously (or not at all):
  // on its own it runs in vector partial sums (lower/vector_reductions.h).
  bool vector_reduced = false;
};

std::vector<Access> stage_reads(const lower::LStage& s);

// The coefficient of `v` in an affine index expression; nullopt when it is not affine in v.
std::optional<int64_t> affine_coefficient(const lir::ExprP& e, const std::string& v);
// The flattened stride (in elements) of `load` in `g` as variable `v` advances by one: 0 when the
// index does not depend on v, nullopt when it is not affine in v (a gather, a division).
std::optional<int64_t> read_stride(const lower::Graph& g, const lir::ExprP& load, const std::string& v);
// The stride of the stage's own write along its pure variable `v` (row-major over its variables).
int64_t write_stride(const lower::LStage& s, const std::string& v);

// Arithmetic per point of the stage's pure loops, weighted by cost (a math function as 10
// operations, a division as 4), its nested reductions' bodies counted as often as they run.
double weighted_ops_per_point(const lower::LStage& s);
// Bytes a stage touches: every buffer it reads, whole, and its own output, once.
double touched_bytes(const lower::Graph& g, const lower::LStage& s);
// Points of the stage's pure loops.
double points(const lower::LStage& s);

// Bytes of the widest value the stage computes or stores (a comparison's mask counts 4: masks are
// 32-bit lanes; f16 and bf16 compute in f32): vector lanes are the register's bytes over this.
int widest_value_bytes(const lower::LStage& s);
int lanes_for(const lower::LStage& s, const Target& t);

// Integer divisions and remainders in the value whose operands change with `v` (lane by lane in
// vector code unless the divisor is a positive constant).
int varying_integer_divisions(const lower::LStage& s, const std::string& v);

// Math functions in the value with no vector form in the printer (pow, the trigonometric ones...):
// in lanes, each runs lane by lane anyway.
int scalar_only_calls(const lower::LStage& s);

// Does the expression contain a read whose index depends on data (a gather)?
bool has_data_dependent_read(const lir::ExprP& e);

}  // namespace ekb::default_schedule
