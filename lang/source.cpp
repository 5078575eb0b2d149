#include "lang/source.hpp"

#include <algorithm>

namespace lang {

std::shared_ptr<SourceFile> SourceFile::from_text(std::string name, std::string text) {
  return std::shared_ptr<SourceFile>(new SourceFile(std::move(name), std::move(text)));
}

SourceFile::SourceFile(std::string name, std::string text)
    : name_(std::move(name)), text_(std::move(text)) {
  line_starts_.push_back(0);
  for (std::uint32_t i = 0; i < text_.size(); ++i)
    if (text_[i] == '\n') line_starts_.push_back(i + 1);
}

Position SourceFile::position(std::uint32_t offset) const {
  offset = std::min<std::uint32_t>(offset, static_cast<std::uint32_t>(text_.size()));
  auto after = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  int line_index = static_cast<int>(after - line_starts_.begin()) - 1;
  int column = 1;
  for (std::uint32_t i = line_starts_[line_index]; i < offset; ++i)
    if ((static_cast<unsigned char>(text_[i]) & 0xC0) != 0x80) ++column;  // skip UTF-8 continuation bytes
  return Position{line_index + 1, column};
}

std::uint32_t SourceFile::offset(Position position) const {
  if (position.line < 1) return 0;
  if (position.line > static_cast<int>(line_starts_.size())) return static_cast<std::uint32_t>(text_.size());
  std::uint32_t at = line_starts_[position.line - 1];
  for (int column = 1; at < text_.size() && text_[at] != '\n'; ++at) {
    if ((static_cast<unsigned char>(text_[at]) & 0xC0) == 0x80) continue;  // UTF-8 continuation byte
    if (column++ == position.column) break;
  }
  return at;
}

std::string_view SourceFile::line(int line_number) const {
  if (line_number < 1 || line_number > static_cast<int>(line_starts_.size())) return {};
  std::uint32_t begin = line_starts_[line_number - 1];
  std::uint32_t end = line_number < static_cast<int>(line_starts_.size())
                          ? line_starts_[line_number] - 1
                          : static_cast<std::uint32_t>(text_.size());
  std::string_view text(text_);
  std::string_view result = text.substr(begin, end - begin);
  if (!result.empty() && result.back() == '\r') result.remove_suffix(1);
  return result;
}

SourceRange SourceFile::resolve(const Span& span) const {
  SourceRange range;
  range.file_name = name_;
  range.begin = position(span.begin);
  range.end = position(std::max(span.begin, span.end));
  range.line_text = std::string(line(range.begin.line));
  return range;
}

SourceRange resolve(const Span& span) {
  if (span.file == nullptr) return SourceRange{};
  return span.file->resolve(span);
}

Span first_line(const Span& span) {
  if (span.empty()) return span;
  const std::string& text = span.file->text();
  auto newline = text.find('\n', span.begin);
  Span out = span;
  if (newline != std::string::npos && newline < span.end) out.end = static_cast<std::uint32_t>(newline);
  return out;
}

}  // namespace lang
