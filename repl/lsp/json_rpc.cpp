#include "repl/lsp/json_rpc.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>

namespace lsp {

namespace {

constexpr std::string_view header_end = "\r\n\r\n";
constexpr std::string_view length_field = "content-length";

std::string lowercase(std::string_view text) {
  std::string out(text);
  std::transform(out.begin(), out.end(), out.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

std::string_view trimmed(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t')) text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t')) text.remove_suffix(1);
  return text;
}

// The Content-Length of a header block ("Name: value" lines split by
// "\r\n"); nullopt when it is missing, repeated, not a number or too large.
std::optional<std::size_t> content_length(std::string_view block) {
  std::optional<std::size_t> length;
  while (!block.empty()) {
    std::size_t end = block.find("\r\n");
    std::string_view line = block.substr(0, end);
    block = end == std::string_view::npos ? std::string_view() : block.substr(end + 2);
    if (line.empty()) continue;  // stray line breaks before the header
    std::size_t colon = line.find(':');
    if (colon == std::string_view::npos) return std::nullopt;
    if (lowercase(trimmed(line.substr(0, colon))) != length_field) continue;  // Content-Type and others
    std::string_view value = trimmed(line.substr(colon + 1));
    std::size_t parsed = 0;
    auto [rest, error] = std::from_chars(value.data(), value.data() + value.size(), parsed);
    if (length || error != std::errc() || rest != value.data() + value.size() || value.empty()) return std::nullopt;
    length = parsed;
  }
  if (length && *length > MessageReader::max_body_bytes) return std::nullopt;
  return length;
}

}  // namespace

bool MessageReader::fill() {
  if (ended_) return false;
  // Drop what was consumed before growing the buffer.
  if (position_ > 0) {
    buffer_.erase(0, position_);
    position_ = 0;
  }
  char chunk[65536];
  std::ptrdiff_t count = read_(chunk, sizeof chunk);
  if (count <= 0) {
    ended_ = true;
    return false;
  }
  buffer_.append(chunk, static_cast<std::size_t>(count));
  return true;
}

std::optional<std::string> MessageReader::header_block() {
  std::size_t searched_from = position_;
  while (true) {
    std::size_t end = buffer_.find(header_end, searched_from);
    if (end != std::string::npos) {
      std::string block = buffer_.substr(position_, end - position_);
      position_ = end + header_end.size();
      return block;
    }
    // Keep the last bytes: the terminator may straddle two reads.
    std::size_t unsearched = buffer_.size() >= header_end.size() ? buffer_.size() - header_end.size() + 1 : 0;
    std::size_t offset = std::max(unsearched, position_) - position_;
    if (!fill()) return std::nullopt;
    searched_from = offset;  // fill() moved the unread bytes to the front
  }
}

bool MessageReader::skip_to_next_header() {
  // Resynchronises on the next header whose first field is Content-Length,
  // the one field every client sends.
  while (true) {
    std::string lower = lowercase(std::string_view(buffer_).substr(position_));
    std::size_t found = lower.find(std::string(length_field) + ":");
    if (found != std::string::npos) {
      position_ += found;
      return true;
    }
    // Keep a possible partial match at the end.
    std::size_t keep = std::min(buffer_.size() - position_, length_field.size());
    position_ = buffer_.size() - keep;
    if (!fill()) return false;
  }
}

Incoming MessageReader::next() {
  if (resynchronise_) {
    resynchronise_ = false;
    if (!skip_to_next_header()) return Incoming{};
  }
  std::optional<std::string> block = header_block();
  if (!block) return Incoming{};
  std::optional<std::size_t> length = content_length(*block);
  if (!length) {
    Incoming bad{Incoming::Kind::bad_header, nullptr,
                 "a header block without a usable Content-Length: \"" + block->substr(0, 80) + "\""};
    // The block ended at "\r\n\r\n"; its body has no known end: the next
    // call skips to the next header (reported first: the skip may wait for input).
    resynchronise_ = true;
    return bad;
  }
  while (buffer_.size() - position_ < *length)
    if (!fill()) return Incoming{};
  std::string_view body(buffer_.data() + position_, *length);
  position_ += *length;
  Incoming message;
  message.body = Json::parse(body, nullptr, false);
  if (message.body.is_discarded()) {
    message.kind = Incoming::Kind::parse_error;
    message.body = nullptr;
    message.problem = "the message body is not JSON";
  } else {
    message.kind = Incoming::Kind::message;
  }
  return message;
}

std::string frame(const std::string& body) {
  return "Content-Length: " + std::to_string(body.size()) + "\r\n\r\n" + body;
}

void MessageWriter::send(const Json& message) {
  // Invalid UTF-8 in a string (a document's bytes) is replaced, not thrown.
  std::string framed = frame(message.dump(-1, ' ', false, Json::error_handler_t::replace));
  std::lock_guard lock(mutex_);
  write_(framed);
}

void MessageWriter::respond(const Json& id, Json result) {
  send(Json{{"jsonrpc", "2.0"}, {"id", id}, {"result", std::move(result)}});
}

void MessageWriter::respond_error(const Json& id, int code, const std::string& message) {
  send(Json{{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", code}, {"message", message}}}});
}

void MessageWriter::notify(const std::string& method, Json params) {
  send(Json{{"jsonrpc", "2.0"}, {"method", method}, {"params", std::move(params)}});
}

}  // namespace lsp
