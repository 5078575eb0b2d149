// Where a generator's body paused when it runs on its caller's stack
// (compiled.cpp's resume_generator_body): no stack of its own to keep, so
// the place is kept as data, one level per statement around the yield.
#pragma once

#include <cstdint>
#include <vector>
#include <memory>
#include <optional>

#include "interp/python/loop_items.hpp"

namespace interp {

struct PausedBody {
  // One statement of the path from the body down to the paused yield.
  struct Level {
    std::uint32_t index = 0;  // of the statement, in its body
    bool orelse = false;      // an if's or a loop's else branch is the one running
    Value iterable;           // a for loop's, which its items read
    std::optional<LoopItems> items;
  };
  // Sized once (CompiledBody::paused_levels): a level stays put while the statement runs.
  std::vector<Level> levels;
  bool resuming = false;  // going back down the path to the yield that paused
  bool paused = false;    // the run stopped at a yield, whose value is `yielded`
  Value yielded;
  std::shared_ptr<ExceptionObject> thrown;  // raised at the paused yield when it resumes
};

}  // namespace interp
