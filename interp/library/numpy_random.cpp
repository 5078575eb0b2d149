// numpy.random's legacy global generator (np.random.seed, random,
// random_sample, uniform): NumPy's MT19937 seeded as its _legacy_seeding
// seeds an integer, and its 53-bit doubles, so a seeded script draws the
// numbers NumPy draws. Scalars only (no size=).
#include <array>
#include <cstdint>
#include <memory>

#include "interp/python/builtins.hpp"

namespace interp {

void install_numpy_random(Evaluator& evaluator);

namespace {

class MersenneTwister {
 public:
  void seed(std::uint32_t value) {
    for (std::size_t i = 0; i < state_.size(); ++i) {
      state_[i] = value;
      value = 1812433253u * (value ^ (value >> 30)) + static_cast<std::uint32_t>(i) + 1;
    }
    position_ = state_.size();
  }
  std::uint32_t next() {
    if (position_ >= state_.size()) regenerate();
    std::uint32_t y = state_[position_++];
    y ^= y >> 11;
    y ^= (y << 7) & 0x9d2c5680u;
    y ^= (y << 15) & 0xefc60000u;
    return y ^ (y >> 18);
  }
  // NumPy's random_sample: a double in [0, 1) from two draws.
  double sample() {
    std::uint32_t a = next() >> 5, b = next() >> 6;
    return (a * 67108864.0 + b) / 9007199254740992.0;
  }

 private:
  void regenerate() {
    constexpr std::size_t n = 624, m = 397;
    for (std::size_t i = 0; i < n; ++i) {
      std::uint32_t y = (state_[i] & 0x80000000u) | (state_[(i + 1) % n] & 0x7fffffffu);
      state_[i] = state_[(i + m) % n] ^ (y >> 1) ^ ((y & 1u) ? 0x9908b0dfu : 0u);
    }
    position_ = 0;
  }
  std::array<std::uint32_t, 624> state_{};
  std::size_t position_ = 625;
};

double number(const Value& value, const char* what) {
  if (value.is_float()) return value.as_float();
  if (value.is_integral()) return static_cast<double>(value.as_int());
  raise(exc::TypeError(), std::string(what) + " must be a number");
}

}  // namespace

void install_numpy_random(Evaluator& evaluator) {
  auto random = evaluator.module("numpy.random");
  auto generator = std::make_shared<MersenneTwister>();
  // Unseeded, NumPy seeds from the operating system; here from a fixed
  // value, so runs are repeatable.
  generator->seed(5489u);
  random->add_function("seed(seed=None)", [generator](Evaluator&, Arguments& a) {
    std::int64_t value = a[0].is_none() ? 5489 : a[0].as_int();
    if (value < 0 || value > 0xffffffffLL) raise(exc::ValueError(), "Seed must be between 0 and 2**32 - 1");
    generator->seed(static_cast<std::uint32_t>(value));
    return Value();
  });
  for (const char* name : {"random()", "random_sample()"})
    random->add_function(name, [generator](Evaluator&, Arguments&) { return Value::floating(generator->sample()); });
  random->add_function("uniform(low=0.0, high=1.0)", [generator](Evaluator&, Arguments& a) {
    double low = number(a[0], "low"), high = number(a[1], "high");
    return Value::floating(low + (high - low) * generator->sample());
  });
  evaluator.module("numpy")->add("random", Value(random));
}

}  // namespace interp
