// numpy.testing's array assertions (numpy_testing.hpp).
#include "interp/numpy_testing.hpp"

#include <cmath>

#include "interp/array.hpp"
#include "interp/builtins.hpp"
#include "interp/format.hpp"

namespace interp {

namespace {

// "(64, 128)", as NumPy prints a shape.
std::string shape_text(const typecheck::Shape& shape) {
  std::string out = "(";
  for (std::size_t d = 0; d < shape.size(); ++d) out += (d ? ", " : "") + std::to_string(shape[d]);
  return out + (shape.size() == 1 ? ",)" : ")");
}

// Raises NumPy's "Arrays are not equal" / "Not equal to tolerance" report
// unless every element pair (scalars broadcast) satisfies `close`.
template <class Close>
Value assert_arrays(Evaluator& evaluator, const Value& actual, const Value& desired, const std::string& headline,
                    const Value& err_msg, Close close) {
  ArrayRef x = to_array(evaluator, actual), y = to_array(evaluator, desired);
  if (x->abstract() || y->abstract()) return Value::none();  // check mode: no data to compare
  if (x->aval.shape != y->aval.shape && x->aval.ndim() != 0 && y->aval.ndim() != 0)
    raise(exc::AssertionError(), "\n" + headline + "\n\n(shapes " + shape_text(x->aval.shape) + ", " +
                                     shape_text(y->aval.shape) + " mismatch)");
  auto xs = element_values(evaluator, *x), ys = element_values(evaluator, *y);
  std::size_t n = std::max(xs.size(), ys.size()), mismatched = 0;
  for (std::size_t i = 0; i < n; ++i)
    if (!close(xs[xs.size() == 1 ? 0 : i], ys[ys.size() == 1 ? 0 : i])) ++mismatched;
  if (mismatched == 0) return Value::none();
  std::string message = "\n" + headline + "\n";
  if (const std::string* text = string_of(err_msg); text && !text->empty()) message += *text + "\n";
  message += "\nMismatched elements: " + std::to_string(mismatched) + " / " + std::to_string(n);
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
                             "Not equal to tolerance rtol=" + float_repr(rtol) + ", atol=" + float_repr(atol), a[5],
                             [=](double u, double v) {
                               if (std::isnan(u) || std::isnan(v)) return equal_nan && std::isnan(u) && std::isnan(v);
                               return std::fabs(u - v) <= atol + rtol * std::fabs(v);
                             });
      });
}

}  // namespace interp
