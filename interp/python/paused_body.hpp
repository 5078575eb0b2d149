// Where a generator's body paused when it runs on its caller's stack
// (compiled_statements.cpp's resume_generator): no stack of its own to keep,
// so the place is kept as data, one level per statement around the yield.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

#include "interp/python/compiled_nodes.hpp"
#include "interp/python/loop_items.hpp"

namespace interp {

struct PausedBody {
  // One body of the path from the function's body down to the paused yield,
  // and its statement running.
  struct Level {
    const Compiled::Body* body = nullptr;
    std::uint32_t index = 0;  // of the statement running, in `body`
    bool orelse = false;      // a loop's else branch is the one running
    Value iterable;           // a for loop's, which its items read
    std::optional<LoopItems> items;
  };
  // Sized once (CompiledBody::paused_levels): a level stays put while the statement runs.
  std::vector<Level> levels;
  std::size_t yield_level = 0;  // the level of the yield that paused
  bool resuming = false;        // going on from the yield that paused, not from the body's start
  bool paused = false;          // the run stopped at a yield, whose value is `yielded`
  Value yielded;
  std::shared_ptr<ExceptionObject> thrown;  // raised at the paused yield when it resumes
};

}  // namespace interp
