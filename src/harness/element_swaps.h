// New input content with the same distribution, made the same way by the harness and by a worker:
// elements swapped whole (whatever their type), so that every value still comes from the task's
// input distribution and an index input stays in range. The timing protocol uses it so that no
// two timed calls see the same inputs (evaluate.h): results cached by pointer or by content are
// stale. Deterministic given the generator, so the harness can replay what a worker did.
#pragma once
#include <cstddef>
#include <random>

namespace ekb {

// A few hundred elements of one buffer swapped with others of the same buffer.
void swap_some_elements(void* data, size_t bytes, size_t element_bytes, std::mt19937_64& rng);
// A few hundred elements of `a` exchanged with elements of `b` (same size and type): the values
// themselves change, not only their places (a sum over `a` changes too).
void exchange_some_elements(void* a, void* b, size_t bytes, size_t element_bytes, std::mt19937_64& rng);

}  // namespace ekb
