#include "typecheck/type_parser.hpp"

#include <cctype>

namespace typecheck {
namespace {

// Dimension sizes are at most this many digits, so they fit an int64_t.
constexpr std::size_t max_size_digits = 18;

class TypeTextParser {
 public:
  TypeTextParser(std::string_view text, const MeshRef& mesh) : text_(text), mesh_(mesh) {}

  Checked<ArrayType> parse() {
    skip_spaces();
    const bool weak = accept('~');
    std::string dtype_name = identifier();
    std::optional<DType> dtype = parse_dtype(dtype_name);
    if (!dtype) return fail(dtype_name.empty() ? "expected a dtype" : "unknown dtype '" + dtype_name + "'");
    if (!accept('[')) return fail("expected '['");

    Shape shape;
    std::vector<SpecInput> partitions;
    if (!accept(']')) {
      do {
        std::optional<std::int64_t> size = dimension_size();
        if (!size) return fail("expected a dimension size");
        shape.push_back(*size);
        SpecInput partition = SpecInput::none();
        if (accept('@')) {
          std::optional<AxisList> axes = axis_names();
          if (!axes) return fail("expected a mesh axis name or '(' after '@'");
          std::vector<SpecInput> items;
          for (std::string& axis : *axes) items.push_back(SpecInput::name(std::move(axis)));
          partition = SpecInput::tuple(std::move(items));
        }
        partitions.push_back(std::move(partition));
      } while (accept(','));
      if (!accept(']')) return fail("expected ',' or ']'");
    }

    AxisSet spec_unreduced, spec_reduced;
    ManualAxisType manual;
    if (accept('{')) {
      do {
        std::string label = identifier();
        if (label != "V" && label != "U" && label != "R") return fail("expected V, U or R");
        if (!accept(':')) return fail("expected ':'");
        std::optional<AxisList> axes = axis_names();
        if (!axes) return fail("expected a mesh axis name or '('");
        for (std::string& axis : *axes) {
          const MeshAxis* found = mesh_ ? mesh_->find(axis) : nullptr;
          const bool manual_axis = label == "V" || (found && found->type == AxisType::Manual);
          AxisSet& target = label == "V"  ? manual.varying
                            : label == "U" ? (manual_axis ? manual.unreduced : spec_unreduced)
                                           : (manual_axis ? manual.reduced : spec_reduced);
          target.insert(std::move(axis));
        }
      } while (accept(','));
      if (!accept('}')) return fail("expected ',' or '}'");
    }
    skip_spaces();
    if (position_ != text_.size()) return fail("unexpected text after the type");

    Checked<PartitionSpec> spec = PartitionSpec::make(partitions, spec_unreduced, spec_reduced);
    if (!spec) return spec.error();
    return make_array_type({*dtype, weak}, std::move(shape), mesh_, spec.value(), std::move(manual));
  }

 private:
  Error fail(const std::string& what) const {
    return Error{ErrorClass::ValueError, "cannot parse the array type '" + std::string(text_) + "': " + what +
                                             " at column " + std::to_string(position_ + 1)};
  }

  void skip_spaces() {
    while (position_ < text_.size() && text_[position_] == ' ') ++position_;
  }

  bool accept(char c) {
    skip_spaces();
    if (position_ < text_.size() && text_[position_] == c) {
      ++position_;
      return true;
    }
    return false;
  }

  static bool is_name_char(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

  // A dtype or axis name: letters, digits, '_' (empty when none).
  std::string identifier() {
    skip_spaces();
    const std::size_t begin = position_;
    while (position_ < text_.size() && is_name_char(text_[position_])) ++position_;
    return std::string(text_.substr(begin, position_ - begin));
  }

  std::optional<std::int64_t> dimension_size() {
    skip_spaces();
    const std::size_t begin = position_;
    std::int64_t size = 0;
    while (position_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[position_]))) {
      if (position_ - begin == max_size_digits) return std::nullopt;
      size = size * 10 + (text_[position_] - '0');
      ++position_;
    }
    if (position_ == begin) return std::nullopt;
    return size;
  }

  // axes ::= name | "(" name ("," name)* ")"
  std::optional<AxisList> axis_names() {
    AxisList axes;
    if (accept('(')) {
      do {
        std::string name = identifier();
        if (name.empty()) return std::nullopt;
        axes.push_back(std::move(name));
      } while (accept(','));
      if (!accept(')')) return std::nullopt;
      return axes;
    }
    std::string name = identifier();
    if (name.empty()) return std::nullopt;
    axes.push_back(std::move(name));
    return axes;
  }

  std::string_view text_;
  const MeshRef& mesh_;
  std::size_t position_ = 0;
};

}  // namespace

Checked<ArrayType> parse_array_type(std::string_view text, const MeshRef& mesh) {
  return TypeTextParser(text, mesh).parse();
}

}  // namespace typecheck
