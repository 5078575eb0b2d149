// Running deep recursion (the grammar, the evaluator) on a large stack in the
// calling thread. A thread of its own would do too, but a process that has
// ever started a thread pays for it on every std::shared_ptr copy: libstdc++
// counts references with atomic instructions from then on.
#pragma once

#include <cstddef>
#include <functional>

namespace lang {

// Runs `work` on a stack of at least `bytes` (reserved, touched lazily) and
// returns when it has finished, rethrowing what it threw. Work already
// running on such a stack with `bytes` to spare runs where it is, and so
// does work when no memory can be mapped for a stack.
void run_on_large_stack(std::size_t bytes, const std::function<void()>& work);

// The lowest usable byte of the stack run_on_large_stack gave the calling
// code, or null when the code does not run on one.
const char* large_stack_lowest();

}  // namespace lang
