#include "repl/lsp/text.hpp"

#include <algorithm>
#include <cctype>

namespace lsp {

namespace {

// The byte length of the UTF-8 sequence starting with `lead` (1 for a stray
// continuation byte, so that bad bytes still advance).
std::size_t sequence_length(unsigned char lead) {
  if (lead >= 0xf0) return 4;
  if (lead >= 0xe0) return 3;
  if (lead >= 0xc0) return 2;
  return 1;
}

// Code units of the code point starting with `lead`.
int units(unsigned char lead, PositionEncoding encoding) {
  std::size_t bytes = sequence_length(lead);
  if (encoding == PositionEncoding::utf8) return static_cast<int>(bytes);
  return bytes == 4 ? 2 : 1;  // a surrogate pair above U+FFFF
}

bool is_name_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '_' || static_cast<unsigned char>(c) >= 0x80;
}

}  // namespace

TextDocument::TextDocument(std::string text) : text_(std::move(text)) {
  line_starts_.push_back(0);
  for (std::size_t i = 0; i < text_.size(); ++i)
    if (text_[i] == '\n') line_starts_.push_back(i + 1);
}

std::string_view TextDocument::line(int index) const {
  if (index < 0 || index >= line_count()) return {};
  std::size_t begin = line_starts_[static_cast<std::size_t>(index)];
  std::size_t end = index + 1 < line_count() ? line_starts_[static_cast<std::size_t>(index) + 1] - 1 : text_.size();
  std::string_view line(text_.data() + begin, end - begin);
  if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
  return line;
}

int TextDocument::character(int index, int column, PositionEncoding encoding) const {
  std::string_view text = line(index);
  int character = 0;
  std::size_t at = 0;
  for (int seen = 0; seen < column && at < text.size(); ++seen) {
    auto lead = static_cast<unsigned char>(text[at]);
    character += units(lead, encoding);
    at += sequence_length(lead);
  }
  return character;
}

int TextDocument::column(int index, int character, PositionEncoding encoding) const {
  std::string_view text = line(index);
  int column = 0;
  int seen = 0;
  for (std::size_t at = 0; at < text.size() && seen < character; ++column) {
    auto lead = static_cast<unsigned char>(text[at]);
    seen += units(lead, encoding);
    at += sequence_length(lead);
  }
  return column;
}

std::size_t TextDocument::offset(int index, int character, PositionEncoding encoding) const {
  if (index < 0) return 0;
  if (index >= line_count()) return text_.size();
  std::string_view text = line(index);
  std::size_t begin = line_starts_[static_cast<std::size_t>(index)];
  std::size_t at = 0;
  for (int seen = 0; at < text.size() && seen < character;) {
    auto lead = static_cast<unsigned char>(text[at]);
    seen += units(lead, encoding);
    at += sequence_length(lead);
  }
  return begin + std::min(at, text.size());
}

int encoded_length(std::string_view text, PositionEncoding encoding) {
  int length = 0;
  for (std::size_t at = 0; at < text.size();) {
    auto lead = static_cast<unsigned char>(text[at]);
    length += units(lead, encoding);
    at += sequence_length(lead);
  }
  return length;
}

namespace {

// How far back enclosing_call starts reading: a call rarely spans more lines.
constexpr int lines_read_back = 40;

struct OpenBracket {
  char bracket = '(';
  std::string callee;
  int commas = 0;
  std::string keyword;
};

// The dotted name that ends at `end` in `text` (after skipping spaces).
std::string dotted_name_before(std::string_view text, std::size_t end) {
  while (end > 0 && text[end - 1] == ' ') --end;
  std::size_t begin = end;
  while (begin > 0 && (is_name_char(text[begin - 1]) || text[begin - 1] == '.')) --begin;
  std::string name(text.substr(begin, end - begin));
  if (!name.empty() && (name.front() == '.' || std::isdigit(static_cast<unsigned char>(name.front())))) return {};
  return name;
}

bool names_partition_spec(const std::string& callee) {
  std::string last = callee.substr(callee.rfind('.') == std::string::npos ? 0 : callee.rfind('.') + 1);
  return last == "P" || last == "PartitionSpec";
}

// A keyword argument's `name=` just written at the end of `text` (not `==`).
std::string keyword_before(std::string_view text, std::size_t equals) {
  if (equals + 1 < text.size() && text[equals + 1] == '=') return {};
  if (equals > 0 && (text[equals - 1] == '=' || text[equals - 1] == '!' || text[equals - 1] == '<' ||
                     text[equals - 1] == '>'))
    return {};
  std::string name = dotted_name_before(text, equals);
  return name.find('.') == std::string::npos ? name : std::string();
}

}  // namespace

std::optional<CallContext> enclosing_call(std::string_view text) {
  // Start at the beginning of a line a few lines back.
  std::size_t start = text.size();
  for (int lines = 0; start > 0; --start)
    if (text[start - 1] == '\n' && ++lines > lines_read_back) break;
  std::vector<OpenBracket> open;
  char quote = 0;
  bool triple = false;
  for (std::size_t i = start; i < text.size(); ++i) {
    char c = text[i];
    if (quote) {
      if (c == '\\') {
        ++i;
      } else if (c == quote && (!triple || text.substr(i, 3) == std::string(3, quote))) {
        if (triple) i += 2;
        quote = 0;
      } else if (c == '\n' && !triple) {
        quote = 0;  // an unterminated string ends with its line
      }
      continue;
    }
    if (c == '#') {
      while (i < text.size() && text[i] != '\n') ++i;
      continue;
    }
    if (c == '\'' || c == '"') {
      quote = c;
      triple = text.substr(i, 3) == std::string(3, c);
      if (triple) i += 2;
    } else if (c == '(' || c == '[' || c == '{') {
      open.push_back({c, c == '(' ? dotted_name_before(text, i) : std::string(), 0, {}});
    } else if ((c == ')' || c == ']' || c == '}') && !open.empty()) {
      open.pop_back();
    } else if (c == ',' && !open.empty()) {
      ++open.back().commas;
      open.back().keyword.clear();
    } else if (c == '=' && !open.empty() && open.back().bracket == '(') {
      std::string keyword = keyword_before(text, i);
      if (!keyword.empty()) open.back().keyword = keyword;
    }
  }
  // The innermost call with a callee; a P(...) around it counts too.
  CallContext context;
  context.in_string = quote != 0;
  bool found = false;
  for (auto entry = open.rbegin(); entry != open.rend(); ++entry) {
    if (entry->bracket != '(' || entry->callee.empty()) continue;
    if (!found) {
      context.callee = entry->callee;
      context.argument = entry->commas;
      context.keyword = entry->keyword;
      found = true;
    }
    if (names_partition_spec(entry->callee)) {
      context.in_partition_spec = true;
      break;
    }
  }
  if (!found) return std::nullopt;
  return context;
}

std::optional<NameBeingTyped> name_being_typed(std::string_view text) {
  std::size_t line_start = text.rfind('\n');
  line_start = line_start == std::string_view::npos ? 0 : line_start + 1;
  std::string_view line = text.substr(line_start);
  // Inside a string or a comment of this line: no name.
  char quote = 0;
  for (std::size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quote) {
      if (c == '\\') ++i;
      else if (c == quote) quote = 0;
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '#') {
      return std::nullopt;
    }
  }
  if (quote) return std::nullopt;
  std::size_t end = line.size();
  std::size_t begin = end;
  while (begin > 0 && is_name_char(line[begin - 1])) --begin;
  NameBeingTyped typed;
  typed.partial = std::string(line.substr(begin));
  if (begin > 0 && line[begin - 1] == '.') {
    typed.object = dotted_name_before(line, begin - 1);
    if (typed.object.empty()) return std::nullopt;  // "3." or "(a)."
  } else if (!typed.partial.empty() && std::isdigit(static_cast<unsigned char>(typed.partial.front()))) {
    return std::nullopt;
  }
  return typed;
}

std::vector<std::pair<std::size_t, std::size_t>> signature_parameters(std::string_view signature) {
  std::vector<std::pair<std::size_t, std::size_t>> parameters;
  std::size_t open = signature.find('(');
  if (open == std::string_view::npos) return parameters;
  int depth = 0;
  char quote = 0;
  std::size_t begin = open + 1;
  auto add = [&](std::size_t end) {
    while (begin < end && signature[begin] == ' ') ++begin;
    if (begin < end) parameters.emplace_back(begin, end);
  };
  for (std::size_t i = open + 1; i < signature.size(); ++i) {
    char c = signature[i];
    if (quote) {
      if (c == '\\') ++i;
      else if (c == quote) quote = 0;
    } else if (c == '\'' || c == '"') {
      quote = c;
    } else if (c == '(' || c == '[' || c == '{') {
      ++depth;
    } else if ((c == ')' || c == ']' || c == '}') && depth > 0) {
      --depth;
    } else if (c == ')') {
      add(i);
      break;
    } else if (c == ',' && depth == 0) {
      add(i);
      begin = i + 1;
    }
  }
  return parameters;
}

}  // namespace lsp
