// JSON-RPC 2.0 over the Language Server Protocol's base protocol: messages
// framed by a `Content-Length: N` header block ("\r\n\r\n") and N bytes of
// UTF-8 JSON (LSP 3.17 "Base Protocol"). nlohmann::json holds the messages.
#pragma once

#include <cstddef>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

namespace lsp {

using Json = nlohmann::json;

// JSON-RPC's and LSP's error codes.
namespace error_code {
inline constexpr int parse_error = -32700;
inline constexpr int invalid_request = -32600;
inline constexpr int method_not_found = -32601;
inline constexpr int invalid_params = -32602;
inline constexpr int internal_error = -32603;
inline constexpr int server_not_initialized = -32002;
inline constexpr int request_cancelled = -32800;
inline constexpr int content_modified = -32801;
}  // namespace error_code

// One framed message read from the stream.
struct Incoming {
  enum class Kind {
    message,      // `body` holds the parsed JSON
    parse_error,  // the framing was valid but the body is not JSON (`problem` says why)
    bad_header,   // the header block had no usable Content-Length; skipped up to the next one
    end,          // the stream ended (or failed)
  };
  Kind kind = Kind::end;
  Json body;
  std::string problem;
};

// Reads framed messages from a byte source: `read` fills a buffer and
// returns the byte count, 0 at the end of the stream (read(2) on stdin).
class MessageReader {
 public:
  using ReadFunction = std::function<std::ptrdiff_t(char* buffer, std::size_t size)>;
  // Bodies longer than this are refused as a bad header (and skipped).
  static constexpr std::size_t max_body_bytes = 64u << 20;

  explicit MessageReader(ReadFunction read) : read_(std::move(read)) {}
  Incoming next();

 private:
  bool fill();                              // reads more bytes; false at the end
  std::optional<std::string> header_block();  // up to "\r\n\r\n", without it
  bool skip_to_next_header();               // to the next "Content-Length:"

  ReadFunction read_;
  std::string buffer_;
  std::size_t position_ = 0;
  bool ended_ = false;
  bool resynchronise_ = false;  // after a bad header: skip to the next one first
};

// Writes framed messages to a byte sink; safe to call from several threads.
class MessageWriter {
 public:
  using WriteFunction = std::function<bool(std::string_view bytes)>;
  explicit MessageWriter(WriteFunction write) : write_(std::move(write)) {}

  void send(const Json& message);
  void respond(const Json& id, Json result);
  void respond_error(const Json& id, int code, const std::string& message);
  void notify(const std::string& method, Json params);

 private:
  WriteFunction write_;
  std::mutex mutex_;
};

// "Content-Length: N\r\n\r\n" + the body.
std::string frame(const std::string& body);

}  // namespace lsp
