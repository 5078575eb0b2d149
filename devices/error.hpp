// Errors of the simulated mesh, returned as values (style.md §11): nothing in
// devices/ throws across its boundary. interp/ turns an Error into the Python
// exception a script sees (and a lang::Diagnostic at the offending call).
#pragma once

#include <string>
#include <utility>
#include <variant>

namespace devices {

enum class ErrorKind {
  invalid_argument,    // a request that cannot be met as asked (ValueError in a script)
  not_implemented,     // JAX raises NotImplementedError for the same request
  resource_exhausted,  // a device's HBM is full (XLA's RESOURCE_EXHAUSTED)
  host_out_of_memory,  // the host memory budget would be exceeded (MemoryError)
};

struct Error {
  ErrorKind kind = ErrorKind::invalid_argument;
  std::string message;
  // resource_exhausted: the device that could not take the allocation.
  int device = -1;
};

// A value or the Error that prevented it (std::expected is C++23).
template <class T>
class Expected {
 public:
  Expected(T value) : state_(std::move(value)) {}
  Expected(Error error) : state_(std::move(error)) {}

  bool ok() const { return std::holds_alternative<T>(state_); }
  explicit operator bool() const { return ok(); }
  // Call only when ok() / !ok().
  T& value() { return std::get<T>(state_); }
  const T& value() const { return std::get<T>(state_); }
  T& operator*() { return value(); }
  const T& operator*() const { return value(); }
  T* operator->() { return &value(); }
  const T* operator->() const { return &value(); }
  const Error& error() const { return std::get<Error>(state_); }

 private:
  std::variant<T, Error> state_;
};

// Success or an Error, for operations without a result.
class Status {
 public:
  Status() = default;
  Status(Error error) : error_(std::move(error)), failed_(true) {}
  bool ok() const { return !failed_; }
  explicit operator bool() const { return ok(); }
  const Error& error() const { return error_; }

 private:
  Error error_;
  bool failed_ = false;
};

}  // namespace devices
