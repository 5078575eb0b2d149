#include "devices/array_text.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <system_error>
#include <vector>

#include <fmt/format.h>

#include "devices/buffer.hpp"
#include "devices/half_float.hpp"

namespace devices {
namespace {

using typecheck::DType;

// Every element of every supported dtype is exact in a double.
std::vector<double> read_values(DType dtype, std::span<const std::byte> storage, std::size_t count) {
  std::vector<double> values(count);
  auto read = [&]<DType D>() {
    using Storage = storage_t<D>;
    for (std::size_t i = 0; i < count; ++i) {
      Storage element;
      std::memcpy(&element, storage.data() + i * sizeof(Storage), sizeof(Storage));
      if constexpr (D == DType::bfloat16) {
        values[i] = float_from_bfloat16(element);
      } else if constexpr (D == DType::float16) {
        values[i] = float_from_float16(element);
      } else {
        values[i] = static_cast<double>(element);
      }
    }
  };
  switch (dtype) {
    case DType::bool_: read.template operator()<DType::bool_>(); break;
    case DType::int8: read.template operator()<DType::int8>(); break;
    case DType::int32: read.template operator()<DType::int32>(); break;
    case DType::uint32: read.template operator()<DType::uint32>(); break;
    case DType::float16: read.template operator()<DType::float16>(); break;
    case DType::bfloat16: read.template operator()<DType::bfloat16>(); break;
    case DType::float32: read.template operator()<DType::float32>(); break;
  }
  return values;
}

// ---- Decimal digits of floats (NumPy's Dragon4, unique mode) ----

// value = (negative ? -1 : 1) * d0.d1d2... * 10^exponent; no trailing zeros
// in `digits` except the single digit of zero.
struct Digits {
  bool negative = false;
  std::string digits;
  int exponent = 0;
};

// Parses to_chars' scientific output "-1.2345e-05".
Digits parse_scientific(std::string_view text) {
  Digits result;
  std::size_t position = 0;
  if (text[position] == '-') {
    result.negative = true;
    ++position;
  }
  std::size_t e = text.find('e', position);
  for (std::size_t i = position; i < e; ++i) {
    if (text[i] != '.') result.digits += text[i];
  }
  int exponent = 0;
  std::from_chars(text.data() + e + 1 + (text[e + 1] == '+' ? 1 : 0), text.data() + text.size(), exponent);
  result.exponent = exponent;
  return result;
}

void strip_trailing_zeros(Digits& digits) {
  while (digits.digits.size() > 1 && digits.digits.back() == '0') digits.digits.pop_back();
}

// The exact value of `value` rounded to `significant` digits.
Digits rounded_digits(double value, int significant) {
  char buffer[64];
  auto result = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::scientific, significant - 1);
  return parse_scientific(std::string_view(buffer, static_cast<std::size_t>(result.ptr - buffer)));
}

// The shortest digits that read back as the same float16 / float32.
Digits shortest_digits(double value, DType dtype) {
  char buffer[64];
  if (dtype == DType::float16) {
    std::uint16_t bits = float16_from_float(static_cast<float>(value));
    for (int significant = 1; significant < 17; ++significant) {
      auto result = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::scientific, significant - 1);
      std::string text(buffer, result.ptr);
      if (float16_from_float(static_cast<float>(std::strtod(text.c_str(), nullptr))) == bits) {
        Digits digits = parse_scientific(text);
        strip_trailing_zeros(digits);
        return digits;
      }
    }
  }
  auto result = std::to_chars(buffer, buffer + sizeof buffer, static_cast<float>(value), std::chars_format::scientific);
  Digits digits = parse_scientific(std::string_view(buffer, static_cast<std::size_t>(result.ptr - buffer)));
  strip_trailing_zeros(digits);
  return digits;
}

// Positional text split at the point: {"-12", "5"} for -12.5.
struct Positional {
  std::string integer;
  std::string fraction;
};

Positional positional_from_digits(const Digits& digits) {
  Positional text;
  text.integer = digits.negative ? "-" : "";
  const std::string& d = digits.digits;
  if (digits.exponent >= 0) {
    std::size_t integer_digits = static_cast<std::size_t>(digits.exponent) + 1;
    std::string padded = d;
    if (padded.size() < integer_digits) padded.append(integer_digits - padded.size(), '0');
    text.integer += padded.substr(0, integer_digits);
    text.fraction = padded.substr(integer_digits);
  } else {
    text.integer += "0";
    text.fraction = std::string(static_cast<std::size_t>(-digits.exponent - 1), '0') + d;
  }
  if (d == "0") text.fraction.clear();
  return text;
}

// dragon4_positional(unique=True, precision, trim='.'): the shortest digits,
// or the exact value rounded to `precision` fractional digits when the
// shortest need more.
Positional positional(double value, DType dtype, int precision) {
  Digits digits = shortest_digits(value, dtype);
  int fraction_digits = std::max(0, static_cast<int>(digits.digits.size()) - 1 - digits.exponent);
  if (digits.digits == "0") fraction_digits = 0;
  if (precision >= 0 && fraction_digits > precision) {
    char buffer[400];
    auto result = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::fixed, precision);
    std::string text(buffer, result.ptr);
    std::size_t point = text.find('.');
    Positional split{text.substr(0, point), point == std::string::npos ? "" : text.substr(point + 1)};
    while (!split.fraction.empty() && split.fraction.back() == '0') split.fraction.pop_back();
    return split;
  }
  return positional_from_digits(digits);
}

// Scientific text: mantissa integer part, fraction, exponent ("-05").
struct Scientific {
  std::string integer;
  std::string fraction;
  std::string exponent;
};

// dragon4_scientific(unique=True, precision, min_digits, exp_digits): the
// shortest digits capped at `precision` fractional digits, extended with
// the exact value's digits to `min_digits`.
Scientific scientific(double value, DType dtype, int precision, int min_digits, int exponent_digits) {
  Digits digits = shortest_digits(value, dtype);
  int fraction_digits = static_cast<int>(digits.digits.size()) - 1;
  if (fraction_digits > precision) {
    digits = rounded_digits(value, precision + 1);
    strip_trailing_zeros(digits);
    fraction_digits = static_cast<int>(digits.digits.size()) - 1;
  }
  if (fraction_digits < min_digits && digits.digits != "0") {
    digits = rounded_digits(value, min_digits + 1);
  } else if (fraction_digits < min_digits) {
    digits.digits.append(static_cast<std::size_t>(min_digits - fraction_digits), '0');
  }
  Scientific text;
  text.integer = std::string(digits.negative ? "-" : "") + digits.digits[0];
  text.fraction = digits.digits.substr(1);
  std::string magnitude = std::to_string(std::abs(digits.exponent));
  if (static_cast<int>(magnitude.size()) < std::max(exponent_digits, 2)) {
    magnitude.insert(0, static_cast<std::size_t>(std::max(exponent_digits, 2)) - magnitude.size(), '0');
  }
  text.exponent = (digits.exponent < 0 ? "-" : "+") + magnitude;
  return text;
}

std::string pad_left(std::string text, std::size_t width) {
  if (text.size() < width) text.insert(0, width - text.size(), ' ');
  return text;
}

std::string pad_right(std::string text, std::size_t width) {
  if (text.size() < width) text.append(width - text.size(), ' ');
  return text;
}

// ---- Element formatters (NumPy's FloatingFormat, IntegerFormat, BoolFormat) ----

using ElementFormat = std::function<std::string(double)>;

std::string integer_text(double value) { return fmt::format("{}", static_cast<std::int64_t>(value)); }

// ml_dtypes' repr of a bfloat16: ostream << float, NaN without its sign.
std::string bfloat16_repr(double value, bool keep_nan_sign) {
  if (std::isnan(value) && !keep_nan_sign) value = std::abs(value);
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%g", value);
  return buffer;
}

ElementFormat floating_format(DType dtype, const std::vector<double>& data, const PrintOptions& options) {
  std::vector<double> finite;
  bool has_negative_infinity = false;
  for (double value : data) {
    if (std::isfinite(value)) {
      finite.push_back(value);
    } else if (std::isinf(value) && value < 0) {
      has_negative_infinity = true;
    }
  }
  bool exponential = false;
  double max_value = 0;
  double min_value = 0;
  bool any_nonzero = false;
  for (double value : finite) {
    if (value == 0) continue;
    double magnitude = std::abs(value);
    max_value = any_nonzero ? std::max(max_value, magnitude) : magnitude;
    min_value = any_nonzero ? std::min(min_value, magnitude) : magnitude;
    any_nonzero = true;
  }
  if (any_nonzero) {
    // max/min is computed in the array's dtype, as NumPy divides its scalars.
    float ratio = static_cast<float>(max_value) / static_cast<float>(min_value);
    double dtype_ratio = dtype == DType::float16 ? float_from_float16(float16_from_float(ratio)) : ratio;
    exponential = max_value >= 1.e8 || (!options.suppress_small && (min_value < 0.0001 || dtype_ratio > 1000.));
  }

  int precision = options.precision;
  int left_width = 0;
  int right_width = 0;
  int exponent_digits = -1;
  if (finite.empty()) {
    exponential = false;
  } else if (exponential) {
    int widest_exponent = 0;
    int widest_fraction = 0;
    for (double value : finite) {
      Scientific text = scientific(value, dtype, options.precision, 0, -1);
      widest_exponent = std::max(widest_exponent, static_cast<int>(text.exponent.size()));
      widest_fraction = std::max(widest_fraction, static_cast<int>(text.fraction.size()));
      left_width = std::max(left_width, static_cast<int>(text.integer.size()));
    }
    exponent_digits = widest_exponent - 1;
    precision = widest_fraction;
    right_width = exponent_digits + 2 + precision;
  } else {
    for (double value : finite) {
      Positional text = positional(value, dtype, options.precision);
      left_width = std::max(left_width, static_cast<int>(text.integer.size()));
      right_width = std::max(right_width, static_cast<int>(text.fraction.size()));
    }
  }
  if (finite.size() != data.size()) {
    int offset = right_width + 1;
    left_width = std::max({left_width, 3 - offset, 3 + (has_negative_infinity ? 1 : 0) - offset});
  }
  return [=](double value) -> std::string {
    if (!std::isfinite(value)) {
      std::string text = std::isnan(value) ? "nan" : (value < 0 ? "-inf" : "inf");
      return pad_left(text, static_cast<std::size_t>(left_width + right_width + 1));
    }
    if (exponential) {
      Scientific text = scientific(value, dtype, precision, precision, exponent_digits);
      return pad_left(text.integer, static_cast<std::size_t>(left_width)) + "." + text.fraction + "e" + text.exponent;
    }
    Positional text = positional(value, dtype, precision);
    return pad_left(text.integer, static_cast<std::size_t>(left_width)) + "." +
           pad_right(text.fraction, static_cast<std::size_t>(right_width));
  };
}

ElementFormat element_format(DType dtype, const std::vector<double>& data, bool zero_dimensional,
                             const PrintOptions& options) {
  switch (dtype) {
    case DType::bool_: {
      std::string true_text = zero_dimensional ? "True" : " True";
      return [true_text](double value) { return value != 0 ? true_text : std::string("False"); };
    }
    case DType::int8:
    case DType::int32:
    case DType::uint32: {
      std::size_t width = 0;
      if (!data.empty()) {
        auto [low, high] = std::minmax_element(data.begin(), data.end());
        width = std::max(integer_text(*low).size(), integer_text(*high).size());
      }
      return [width](double value) { return pad_left(integer_text(value), width); };
    }
    case DType::bfloat16:
      return [](double value) { return bfloat16_repr(value, false); };
    case DType::float16:
    case DType::float32:
      return floating_format(dtype, data, options);
  }
  return integer_text;
}

// ---- np.array2string's layout (_formatArray) ----

class ArrayLayout {
 public:
  ArrayLayout(std::span<const std::int64_t> shape, const std::vector<double>& values, const PrintOptions& options,
              bool summarize)
      : shape_(shape), values_(values), options_(options), summarize_(summarize), strides_(shape.size(), 1) {
    for (std::size_t axis = shape.size(); axis-- > 1;) strides_[axis - 1] = strides_[axis] * shape[axis];
  }

  // The values NumPy formats to choose widths: with summarisation only the
  // leading and trailing `edgeitems` of each long axis.
  std::vector<double> shown_values() const {
    std::vector<double> shown;
    collect(0, 0, shown);
    return shown;
  }

  std::string format(const ElementFormat& format, std::string_view separator, std::size_t prefix_length,
                     int line_width) const {
    std::string hanging_indent = " " + std::string(prefix_length, ' ');
    return recurse(format, separator, 0, 0, hanging_indent, line_width);
  }

 private:
  bool shows_summary(std::size_t axis) const {
    return summarize_ && 2 * static_cast<std::int64_t>(options_.edgeitems) < shape_[axis];
  }

  void collect(std::size_t axis, std::int64_t offset, std::vector<double>& shown) const {
    if (axis == shape_.size()) {
      shown.push_back(values_[static_cast<std::size_t>(offset)]);
      return;
    }
    for (std::int64_t i = 0; i < shape_[axis]; ++i) {
      if (shows_summary(axis) && i >= options_.edgeitems && i < shape_[axis] - options_.edgeitems) {
        i = shape_[axis] - options_.edgeitems - 1;
        continue;
      }
      collect(axis + 1, offset + i * strides_[axis], shown);
    }
  }

  static std::string right_stripped(std::string_view text) {
    std::size_t end = text.find_last_not_of(' ');
    return std::string(end == std::string_view::npos ? std::string_view() : text.substr(0, end + 1));
  }

  // _extendLine: wrap before `word` when it would pass `line_width`, unless
  // the line holds nothing but its indent.
  static void extend_line(std::string& text, std::string& line, const std::string& word, int line_width,
                          const std::string& next_line_prefix) {
    bool needs_wrap = static_cast<int>(line.size() + word.size()) > line_width;
    if (line.size() <= next_line_prefix.size()) needs_wrap = false;
    if (needs_wrap) {
      text += right_stripped(line) + "\n";
      line = next_line_prefix;
    }
    line += word;
  }

  std::string recurse(const ElementFormat& format, std::string_view separator, std::size_t axis, std::int64_t offset,
                      const std::string& hanging_indent, int current_width) const {
    if (axis == shape_.size()) return format(values_[static_cast<std::size_t>(offset)]);
    std::string next_hanging_indent = hanging_indent + " ";
    int next_width = current_width - 1;  // room for the closing ']'
    std::int64_t length = shape_[axis];
    bool summary = shows_summary(axis);
    std::int64_t leading = summary ? options_.edgeitems : 0;
    std::int64_t trailing = summary ? options_.edgeitems : length;
    auto child = [&](std::int64_t i) {
      return recurse(format, separator, axis + 1, offset + i * strides_[axis], next_hanging_indent, next_width);
    };
    std::string text;
    std::size_t axes_left = shape_.size() - axis;
    if (axes_left == 1) {
      int element_width = current_width - std::max(static_cast<int>(right_stripped(separator).size()), 1);
      std::string line = hanging_indent;
      for (std::int64_t i = 0; i < leading; ++i) {
        extend_line(text, line, child(i), element_width, hanging_indent);
        line += separator;
      }
      if (summary) {
        extend_line(text, line, "...", element_width, hanging_indent);
        line += separator;
      }
      for (std::int64_t i = trailing; i > 1; --i) {
        extend_line(text, line, child(length - i), element_width, hanging_indent);
        line += separator;
      }
      extend_line(text, line, child(length - 1), element_width, hanging_indent);
      text += line;
    } else {
      std::string line_separator = right_stripped(separator) + std::string(axes_left - 1, '\n');
      for (std::int64_t i = 0; i < leading; ++i) text += hanging_indent + child(i) + line_separator;
      if (summary) text += hanging_indent + "..." + line_separator;
      for (std::int64_t i = trailing; i > 1; --i) text += hanging_indent + child(length - i) + line_separator;
      text += hanging_indent + child(length - 1);
    }
    return "[" + text.substr(hanging_indent.size()) + "]";
  }

  std::span<const std::int64_t> shape_;
  const std::vector<double>& values_;
  PrintOptions options_;
  bool summarize_;
  std::vector<std::int64_t> strides_;
};

// np.array2string(values, separator, prefix, suffix) for a non-empty array.
std::string array_to_string(DType dtype, std::span<const std::int64_t> shape, const std::vector<double>& values,
                            std::string_view separator, std::string_view prefix, std::string_view suffix,
                            const PrintOptions& options) {
  bool summarize = static_cast<std::int64_t>(values.size()) > options.threshold;
  ArrayLayout layout(shape, values, options, summarize);
  ElementFormat format = element_format(dtype, layout.shown_values(), shape.empty(), options);
  int line_width = options.linewidth - static_cast<int>(suffix.size());
  return layout.format(format, separator, prefix.size(), line_width);
}

// Reads and checks the storage of `shape`.
Expected<std::vector<double>> checked_values(DType dtype, std::span<const std::int64_t> shape,
                                             std::span<const std::byte> storage) {
  std::int64_t count = 1;
  for (std::int64_t extent : shape) {
    if (extent < 0) return Error{ErrorKind::invalid_argument, "array text: negative dimension"};
    count *= extent;
  }
  if (static_cast<std::int64_t>(storage.size()) != count * typecheck::byte_size(dtype)) {
    return Error{ErrorKind::invalid_argument,
                 fmt::format("array text: {} bytes for {} elements of {}", storage.size(), count,
                             typecheck::long_name(dtype))};
  }
  return read_values(dtype, storage, static_cast<std::size_t>(count));
}

// Python's repr of a shape tuple: (8,) or (2, 3).
std::string shape_tuple(std::span<const std::int64_t> shape) {
  std::string text = "(";
  for (std::size_t axis = 0; axis < shape.size(); ++axis) {
    if (axis > 0) text += ", ";
    text += std::to_string(shape[axis]);
  }
  return text + (shape.size() == 1 ? ",)" : ")");
}

}  // namespace

std::string scalar_str(DType dtype, double value) {
  switch (dtype) {
    case DType::bool_:
      return value != 0 ? "True" : "False";
    case DType::int8:
    case DType::int32:
    case DType::uint32:
      return integer_text(value);
    case DType::bfloat16:
      return bfloat16_repr(value, true);
    case DType::float16:
    case DType::float32:
      break;
  }
  if (std::isnan(value)) return "nan";
  if (std::isinf(value)) return value < 0 ? "-inf" : "inf";
  double magnitude = std::abs(value);
  if (magnitude == 0 || (1.e-4 <= magnitude && magnitude < 1.e16)) {
    Positional text = positional(value, dtype, -1);
    return text.integer + "." + (text.fraction.empty() ? "0" : text.fraction);
  }
  Digits digits = shortest_digits(value, dtype);
  std::string mantissa = std::string(digits.negative ? "-" : "") + digits.digits[0];
  if (digits.digits.size() > 1) mantissa += "." + digits.digits.substr(1);
  return fmt::format("{}e{}{:02d}", mantissa, digits.exponent < 0 ? '-' : '+', std::abs(digits.exponent));
}

Expected<std::string> array_str(DType dtype, std::span<const std::int64_t> shape, std::span<const std::byte> storage,
                                const PrintOptions& options) {
  Expected<std::vector<double>> values = checked_values(dtype, shape, storage);
  if (!values) return values.error();
  if (shape.empty()) return scalar_str(dtype, values->front());
  if (values->empty()) return std::string("[]");
  return array_to_string(dtype, shape, *values, " ", "", "", options);
}

Expected<std::string> array_repr(DType dtype, std::span<const std::int64_t> shape, std::span<const std::byte> storage,
                                 bool weak_type, const PrintOptions& options) {
  Expected<std::vector<double>> values = checked_values(dtype, shape, storage);
  if (!values) return values.error();
  constexpr std::string_view prefix = "Array(";
  std::string dtype_text =
      fmt::format("dtype={}{})", typecheck::long_name(dtype), weak_type ? ", weak_type=True" : "");
  std::string body = values->empty() ? "[], shape=" + shape_tuple(shape)
                                     : array_to_string(dtype, shape, *values, ", ", prefix, ",", options);
  // JAX's own arithmetic: the length of the last line plus two.
  std::size_t newline = body.rfind('\n');
  std::ptrdiff_t newline_index = newline == std::string::npos ? -1 : static_cast<std::ptrdiff_t>(newline);
  std::ptrdiff_t last_line_length = static_cast<std::ptrdiff_t>(body.size()) - newline_index + 1;
  std::string spacer = " ";
  if (last_line_length + static_cast<std::ptrdiff_t>(dtype_text.size()) + 1 > options.linewidth) {
    spacer = std::string(prefix.size(), ' ');
  }
  return std::string(prefix) + body + "," + spacer + dtype_text;
}

}  // namespace devices
