// Errors of the type system, as values.
//
// Contract: nothing in typecheck/ throws on user input. A check that can fail
// returns Checked<T> (a T or an Error) or std::optional<Error>. An Error names
// the Python exception class JAX raises for the same mistake and carries
// JAX's message text, so the evaluator can raise it in the script (where
// try/except sees it) or turn it into a lang::Diagnostic with the span of the
// offending call. typecheck/ has no spans: the caller adds them.
#pragma once

#include <string>
#include <string_view>
#include <utility>
#include <variant>

namespace typecheck {

// ORDER ErrorClass: python_class_name() in error.cpp lists the same.
enum class ErrorClass {
  ValueError,
  TypeError,
  ShardingTypeError,   // jax._src.core.ShardingTypeError(Exception)
  DuplicateSpecError,  // jax._src.named_sharding.DuplicateSpecError(Exception)
  AssertionError,      // with_sharding_constraint's assertion on Explicit meshes
  NotImplementedError,
  NameError,           // collectives over an unbound axis name
  IndexError,          // static indexing out of bounds
  KeyError,            // a mesh axis name the mesh lacks (auto_axes axes=)
  RuntimeError,        // lax.padtype_to_pads of an unknown padding string
};

std::string_view python_class_name(ErrorClass error_class);

struct Error {
  ErrorClass error_class = ErrorClass::ValueError;
  std::string message;

  // "ValueError: message", as Python prints an uncaught exception's last line.
  std::string str() const;
  bool operator==(const Error&) const = default;
};

// A T, or the Error that prevented computing it.
template <class T>
class Checked {
 public:
  Checked(T value) : state_(std::move(value)) {}
  Checked(Error error) : state_(std::move(error)) {}

  bool ok() const { return state_.index() == 0; }
  explicit operator bool() const { return ok(); }

  // Calling value() on an error (or error() on a value) is a programming
  // mistake in the caller, not a user error; std::get reports it.
  const T& value() const& { return std::get<0>(state_); }
  T& value() & { return std::get<0>(state_); }
  T&& value() && { return std::get<0>(std::move(state_)); }
  const Error& error() const { return std::get<1>(state_); }

 private:
  std::variant<T, Error> state_;
};

}  // namespace typecheck
