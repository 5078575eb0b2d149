#include "typecheck/shape_arithmetic.hpp"

#include <algorithm>
#include <vector>


namespace typecheck {

std::optional<std::int64_t> checked_add(std::int64_t a, std::int64_t b) {
  std::int64_t sum = 0;
  if (__builtin_add_overflow(a, b, &sum)) return std::nullopt;
  return sum;
}

std::optional<std::int64_t> checked_multiply(std::int64_t a, std::int64_t b) {
  std::int64_t product = 0;
  if (__builtin_mul_overflow(a, b, &product)) return std::nullopt;
  return product;
}

std::optional<std::int64_t> checked_product(std::span<const std::int64_t> sizes) {
  std::int64_t product = 1;
  // A zero anywhere makes the product zero, whatever the other sizes are.
  if (std::find(sizes.begin(), sizes.end(), 0) != sizes.end()) return 0;
  for (std::int64_t size : sizes)
    if (__builtin_mul_overflow(product, size, &product)) return std::nullopt;
  return product;
}

Checked<std::int64_t> scaled_dimension(std::int64_t size, std::int64_t factor) {
  if (std::optional<std::int64_t> scaled = checked_multiply(size, factor)) return *scaled;
  return array_too_big();
}

std::string exact_product_text(std::span<const std::int64_t> sizes) {
  if (auto product = checked_product(sizes)) return std::to_string(*product);
  // Decimal digits, least significant first, multiplied by each size in turn.
  std::vector<int> digits{1};
  bool negative = false;
  for (std::int64_t size : sizes) {
    negative ^= size < 0;
    unsigned long long factor = size < 0 ? 0ULL - static_cast<unsigned long long>(size) : static_cast<unsigned long long>(size);
    unsigned __int128 carry = 0;
    for (int& digit : digits) {
      unsigned __int128 value = static_cast<unsigned __int128>(digit) * factor + carry;
      digit = static_cast<int>(value % 10);
      carry = value / 10;
    }
    for (; carry > 0; carry /= 10) digits.push_back(static_cast<int>(carry % 10));
  }
  std::string text = negative ? "-" : "";
  for (auto digit = digits.rbegin(); digit != digits.rend(); ++digit) text += static_cast<char>('0' + *digit);
  return text;
}

Error array_too_big() {
  return Error{ErrorClass::ValueError,
               "array is too big; `arr.size * arr.dtype.itemsize` is larger than the maximum possible size."};
}

std::optional<Error> check_array_size(std::span<const std::int64_t> shape, DType dtype) {
  for (std::int64_t size : shape)
    if (size < 0) return Error{ErrorClass::ValueError, "negative dimensions are not allowed"};
  std::optional<std::int64_t> count = checked_product(shape);
  if (!count || !checked_multiply(*count, byte_size(dtype))) return array_too_big();
  return std::nullopt;
}

}  // namespace typecheck
