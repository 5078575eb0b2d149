// What an evaluator does at its end to free the reference cycles among the
// objects its scripts made: shared_ptr counts references and never frees a
// cycle (loop.append(loop), self.parent = self, a function and the module
// namespace it lives in, an Enum's members and their class).
#pragma once

#include <vector>

#include "interp/python/value.hpp"

namespace interp {

// Empties every container reachable from `roots` (lists, dicts, sets, the
// namespaces of modules and user classes, the attributes of instances,
// exceptions and functions) after finding them all, so that each cycle among
// them frees. Cycles no root reaches (a self-holding list a function dropped)
// stay allocated: there is no cycle collector.
void break_reference_cycles(const std::vector<Value>& roots);

}  // namespace interp
