// numpy.random's legacy global generator (np.random.seed, random,
// random_sample, uniform, normal): NumPy's MT19937 seeded as its
// _legacy_seeding seeds an integer, its 53-bit doubles and its legacy polar
// Gaussian (two draws give two normals; the second is kept for the next
// call), so a seeded script draws the numbers NumPy draws. normal's size=
// gives an array (float32, the language's float; NumPy's is float64).
#include <array>
#include <cmath>
#include <cstdint>
#include <memory>

#include "devices/host_values.hpp"
#include "interp/library/numpy_module.hpp"
#include "interp/ops/array.hpp"
#include "interp/ops/runtime.hpp"
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
    has_gauss_ = false;
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
  // NumPy's legacy_gauss: the Marsaglia polar method.
  double gauss() {
    if (has_gauss_) {
      has_gauss_ = false;
      return gauss_;
    }
    double x1, x2, r2;
    do {
      x1 = 2.0 * sample() - 1.0;
      x2 = 2.0 * sample() - 1.0;
      r2 = x1 * x1 + x2 * x2;
    } while (r2 >= 1.0 || r2 == 0.0);
    double f = std::sqrt(-2.0 * std::log(r2) / r2);
    gauss_ = f * x1;
    has_gauss_ = true;
    return f * x2;
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
  bool has_gauss_ = false;
  double gauss_ = 0.0;
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
  random->add_function("normal(loc=0.0, scale=1.0, size=None)", [generator](Evaluator& ev, Arguments& a) {
    double loc = number(a[0], "loc"), scale = number(a[1], "scale");
    if (scale < 0) raise(exc::ValueError(), "scale < 0");
    if (a[2].is_none()) return Value::floating(loc + scale * generator->gauss());
    typecheck::ArrayType aval;
    aval.dtype = typecheck::DType::float32;
    aval.shape = int_values(ev, a[2]);
    aval.sharding = typecheck::Sharding::replicated(nullptr, aval.shape.size());
    std::vector<double> values(static_cast<std::size_t>(devices::element_count(aval.shape)));
    for (double& value : values) value = loc + scale * generator->gauss();
    return Value(host_array(ev, aval, [&]() {
      auto made = devices::from_values(runtime_of(ev).ledger(), aval.dtype, aval.shape, values);
      if (!made) raise_devices_error(made.error());
      return *made;
    }));
  });
  evaluator.module("numpy")->add("random", Value(random));
}

}  // namespace interp
