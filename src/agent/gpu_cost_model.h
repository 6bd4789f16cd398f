// The cost model's terms for a GPU program (cost_model.h): the CPU walk sums every iteration as if
// one core ran them, which ranks GPU candidates by how much work there is, not by how well the
// device runs it. Here each kernel is costed as a GPU runs it: blocks in waves over the
// multiprocessors, as many resident at once as threads, registers and shared memory allow; within
// a multiprocessor, arithmetic and shared-memory accesses share its throughput; global traffic at
// the memory's bandwidth (compulsory bytes) and the caches' (the rest).
#pragma once
#include "agent/cost_model.h"

namespace ekb::agent {

CostTerms gpu_cost_terms(const lower::LoweredKernel& k, const Target& t);

}  // namespace ekb::agent
