// A document's text as the server sees it: LSP positions (0-based line and
// character in UTF-16 code units, or UTF-8 bytes when the client says so)
// against shardlang's locations (1-based line and code-point column), and
// the little reading of source text that completion and signature help need
// while the document may not parse.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace lsp {

enum class PositionEncoding { utf16, utf8 };

class TextDocument {
 public:
  explicit TextDocument(std::string text = {});

  const std::string& text() const { return text_; }
  int line_count() const { return static_cast<int>(line_starts_.size()); }
  // Line `index` (0-based) without its line break; empty past the end.
  std::string_view line(int index) const;

  // The character (in `encoding` units) of code-point column `column`
  // (0-based) of line `index`; clamped to the line.
  int character(int index, int column, PositionEncoding encoding) const;
  // The code-point column of character `character`; clamped to the line.
  int column(int index, int character, PositionEncoding encoding) const;
  // The byte offset of an LSP position in the text; clamped.
  std::size_t offset(int index, int character, PositionEncoding encoding) const;

 private:
  std::string text_;
  std::vector<std::size_t> line_starts_;
};

// Code units of `text` in `encoding` (a signature label's offsets).
int encoded_length(std::string_view text, PositionEncoding encoding);

// What the text before the cursor says about the call the cursor is in:
// the callee as written ("jnp.einsum", "P"; empty for a bare bracket), which
// argument (0-based commas at its level), the keyword being written
// (`out_sharding=`), whether the cursor is inside a string literal, and
// whether the call is inside a P(...)/PartitionSpec(...) (then `callee` is
// that P, possibly around nested brackets).
struct CallContext {
  std::string callee;
  int argument = 0;
  std::string keyword;
  bool in_string = false;
  bool in_partition_spec = false;
};
// The innermost open call before the end of `text` (the document up to the
// cursor), read from the start of the last few lines; nullopt outside any.
std::optional<CallContext> enclosing_call(std::string_view text);

// The dotted name being typed at the end of `text`: "jax.sharding.Na" gives
// {"jax.sharding", "Na"}; "x" gives {"", "x"}; nullopt inside a string or a
// comment, or after a character that cannot end a name.
struct NameBeingTyped {
  std::string object;   // before the last dot; empty without one
  std::string partial;  // after it
};
std::optional<NameBeingTyped> name_being_typed(std::string_view text);

// A signature's parameters as [begin, end) byte ranges of its text
// ("f(a, b=(1, 2), *, c)": a, b=(1, 2), *, c), the `/` and `*` markers too.
std::vector<std::pair<std::size_t, std::size_t>> signature_parameters(std::string_view signature);

}  // namespace lsp
