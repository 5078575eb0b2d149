// numpy.testing's array assertions (numpy_testing.hpp).
#include "interp/library/numpy_testing.hpp"

#include <array>
#include <cmath>
#include <cstdio>

#include "devices/array_text.hpp"
#include "devices/host_values.hpp"

#include "interp/ops/array.hpp"
#include "interp/python/builtins.hpp"
#include "interp/python/format.hpp"
#include "interp/ops/runtime.hpp"
#include "typecheck/dtype.hpp"

namespace interp {

namespace {

// "(64, 128)", as NumPy prints a shape.
std::string shape_text(const typecheck::Shape& shape) {
  std::string out = "(";
  for (std::size_t d = 0; d < shape.size(); ++d) out += (d ? ", " : "") + std::to_string(shape[d]);
  return out + (shape.size() == 1 ? ",)" : ")");
}

// Python's f"{value:g}", as the assert_allclose header shows rtol and atol.
std::string g_text(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g", value);
  return buffer;
}

// One float formatted as NumPy 1.24's array2string formats a float64
// scalar at precision 8: "0.33333333", "2.", "inf".
std::string float64_text(double value) {
  if (std::isinf(value)) return value > 0 ? "inf" : "-inf";
  if (std::isnan(value)) return "nan";
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.8f", value);
  std::string text = buffer;
  while (text.back() == '0') text.pop_back();
  return text;
}

// array2string of one value of `dtype` (the brackets of a 1-element array dropped).
std::string element_text(Evaluator& evaluator, typecheck::DType dtype, double value) {
  auto made = devices::full(runtime_of(evaluator).ledger(), typecheck::DType::float32, {1}, value);
  if (!made) raise_devices_error(made.error());
  devices::LocalArray shown = *made;
  if (dtype != typecheck::DType::float32) {
    auto converted = devices::convert(*made, dtype);
    if (!converted) raise_devices_error(converted.error());
    shown = *converted;
  }
  std::int64_t shape[] = {1};
  auto text = devices::array_str(dtype, shape, devices::element_bytes(shown));
  if (!text) raise_devices_error(text.error());
  return text->substr(1, text->size() - 2);
}

// " x: array([...])": NumPy's repr of the operand, cut to 3 lines.
std::string operand_text(Evaluator& evaluator, const ArrayObject& array, const char* name) {
  auto global = global_value(evaluator, array);
  auto text = devices::array_repr(array.aval.dtype, array.aval.shape, devices::element_bytes(global));
  if (!text) raise_devices_error(text.error());
  std::string repr = *text;
  if (repr.starts_with("Array(")) repr[0] = 'a';
  // NumPy's default dtypes (bool here) print no dtype.
  if (auto at = repr.rfind(", dtype=bool)"); at != std::string::npos && at + 13 == repr.size()) repr.replace(at, 12, "");
  std::size_t lines = 0, at = 0;
  for (; at < repr.size(); ++at)
    if (repr[at] == '\n' && ++lines == 3) break;
  if (lines == 3) repr = repr.substr(0, at) + "...";
  return std::string(" ") + name + ": " + repr;
}

// Raises NumPy 1.24's "Arrays are not equal" / "Not equal to tolerance"
// report (assert_array_compare) unless every element pair (scalars
// broadcast) satisfies `close`.
template <class Close>
Value assert_arrays(Evaluator& evaluator, const Value& actual, const Value& desired, const std::string& headline,
                    const Value& err_msg, Close close) {
  ArrayRef x = to_array(evaluator, actual), y = to_array(evaluator, desired);
  if (x->abstract() || y->abstract()) return Value::none();  // check mode: no data to compare
  std::string user_message;
  if (const std::string* text = string_of(err_msg)) user_message = *text;
  if (x->aval.shape != y->aval.shape && x->aval.ndim() != 0 && y->aval.ndim() != 0)
    raise(exc::AssertionError(), "\n" + headline + "\n" + user_message + "\n(shapes " + shape_text(x->aval.shape) +
                                     ", " + shape_text(y->aval.shape) + " mismatch)\n" + operand_text(evaluator, *x, "x") +
                                     "\n" + operand_text(evaluator, *y, "y"));
  auto xs = element_values(evaluator, *x), ys = element_values(evaluator, *y);
  std::size_t n = std::max(xs.size(), ys.size()), mismatched = 0;
  double max_absolute = 0, max_relative = 0;
  bool any_nonzero = false, any_compared = false;
  for (std::size_t i = 0; i < n; ++i) {
    double u = xs[xs.size() == 1 ? 0 : i], v = ys[ys.size() == 1 ? 0 : i];
    if (!close(u, v)) ++mismatched;
    if (std::isnan(u) && std::isnan(v)) continue;  // flagged, left out of the differences
    double difference = std::fabs(u - v);
    if (!any_compared || difference > max_absolute || std::isnan(difference)) max_absolute = difference;
    any_compared = true;
    if (v != 0) {
      double relative = difference / std::fabs(v);
      if (!any_nonzero || relative > max_relative || std::isnan(relative)) max_relative = relative;
      any_nonzero = true;
    }
  }
  if (mismatched == 0) return Value::none();
  char percent[32];
  std::snprintf(percent, sizeof percent, "%.3g", 100.0 * static_cast<double>(mismatched) / static_cast<double>(n));
  std::string remarks = "Mismatched elements: " + std::to_string(mismatched) + " / " + std::to_string(n) + " (" +
                        percent + "%)";
  // NumPy computes the differences in the operands' promoted dtype; bools
  // have none.
  typecheck::DType common = typecheck::result_type(std::array{x->aval.element_type(), y->aval.element_type()}).dtype;
  if (common != typecheck::DType::bool_ && any_compared) {
    remarks += "\nMax absolute difference: " + element_text(evaluator, common, max_absolute);
    double relative = any_nonzero ? max_relative : INFINITY;
    remarks += "\nMax relative difference: " + (typecheck::is_floating(common) ? element_text(evaluator, common, relative)
                                                                               : float64_text(relative));
  }
  std::string message = "\n" + headline + "\n" + user_message + "\n" + remarks + "\n" + operand_text(evaluator, *x, "x") +
                        "\n" + operand_text(evaluator, *y, "y");
  raise(exc::AssertionError(), message);
}

}  // namespace

void install_numpy_testing(Evaluator& evaluator) {
  auto testing = evaluator.module("numpy.testing");
  testing->add_function("assert_array_equal(x, y, err_msg='', verbose=True)", [](Evaluator& ev, Arguments& a) {
    return assert_arrays(ev, a[0], a[1], "Arrays are not equal", a[2], [](double u, double v) {
      return u == v || (std::isnan(u) && std::isnan(v));
    });
  });
  testing->add_function(
      "assert_allclose(actual, desired, rtol=1e-07, atol=0, equal_nan=True, err_msg='', verbose=True)",
      [](Evaluator& ev, Arguments& a) {
        double rtol = to_float(ev, a[2]), atol = to_float(ev, a[3]);
        bool equal_nan = ev.truthy(a[4]);
        return assert_arrays(ev, a[0], a[1],
                             "Not equal to tolerance rtol=" + g_text(rtol) + ", atol=" + g_text(atol), a[5],
                             [=](double u, double v) {
                               if (std::isnan(u) || std::isnan(v)) return equal_nan && std::isnan(u) && std::isnan(v);
                               return std::fabs(u - v) <= atol + rtol * std::fabs(v);
                             });
      });
}

}  // namespace interp
