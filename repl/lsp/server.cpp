#include "repl/lsp/server.hpp"

#include <unistd.h>

#include <cerrno>
#include <condition_variable>
#include <csignal>
#include <cstdio>
#include <deque>
#include <thread>

#include "repl/lsp/features.hpp"

namespace lsp {

namespace {

// A request whose params do not say what the method needs.
struct InvalidParams {
  std::string message;
};

// A request about text a change has replaced since it was sent.
struct ContentModified {};

// The document a didChange or didClose message is about: what on_arrival
// counts and handle() uncounts.
std::optional<std::string> changed_document(const Json& body) {
  if (!body.is_object()) return std::nullopt;
  const Json method = body.value("method", Json());
  if (method != "textDocument/didChange" && method != "textDocument/didClose") return std::nullopt;
  if (!body.contains("params") || !body["params"].is_object()) return std::nullopt;
  const Json document = body["params"].value("textDocument", Json());
  if (!document.is_object()) return std::nullopt;
  const Json uri = document.value("uri", Json());
  if (!uri.is_string()) return std::nullopt;
  return uri.get<std::string>();
}

const Json& member(const Json& object, const char* name) {
  if (!object.is_object() || !object.contains(name)) throw InvalidParams{std::string("missing '") + name + "'"};
  return object.at(name);
}

const std::string& string_member(const Json& object, const char* name) {
  const Json& value = member(object, name);
  if (!value.is_string()) throw InvalidParams{std::string("'") + name + "' must be a string"};
  return value.get_ref<const std::string&>();
}

int int_member(const Json& object, const char* name) {
  const Json& value = member(object, name);
  if (!value.is_number_integer()) throw InvalidParams{std::string("'") + name + "' must be an integer"};
  return value.get<int>();
}

const std::string& uri_of(const Json& params) { return string_member(member(params, "textDocument"), "uri"); }

void log(const std::string& message) { std::fprintf(stderr, "shardlang lsp: %s\n", message.c_str()); }

bool is_configuration_file(const std::string& path) {
  std::string name = std::filesystem::path(path).filename().string();
  return name == "shardlang.toml" || name == "pyproject.toml";
}

}  // namespace

Server::Server(Settings flags, MessageWriter& writer) : flags_(std::move(flags)), writer_(writer) {}
Server::~Server() = default;

void Server::handle(const Incoming& incoming) {
  switch (incoming.kind) {
    case Incoming::Kind::parse_error:
      writer_.respond_error(nullptr, error_code::parse_error, incoming.problem);
      return;
    case Incoming::Kind::bad_header:
      writer_.respond_error(nullptr, error_code::parse_error, incoming.problem);
      return;
    case Incoming::Kind::end:
      return;
    case Incoming::Kind::message:
      break;
  }
  try {
    handle_message(incoming.body);
  } catch (const std::exception& error) {
    // Nothing above should throw; keep serving if something does.
    log(std::string("internal error: ") + error.what());
    const Json& body = incoming.body;
    if (body.is_object() && body.contains("id") && body.contains("method"))
      writer_.respond_error(body["id"], error_code::internal_error, error.what());
  }
  if (auto uri = changed_document(incoming.body)) change_handled(*uri);
}

void Server::handle_message(const Json& message) {
  if (!message.is_object()) {
    writer_.respond_error(nullptr, error_code::invalid_request, "a message must be a JSON object");
    return;
  }
  Json id = message.contains("id") ? message["id"] : Json();
  bool has_id = message.contains("id");
  if (has_id && !id.is_number_integer() && !id.is_string()) {
    writer_.respond_error(nullptr, error_code::invalid_request, "a request id must be an integer or a string");
    return;
  }
  auto method = message.find("method");
  if (method == message.end()) {
    if (has_id && (message.contains("result") || message.contains("error"))) return;  // a response: we send no requests
    writer_.respond_error(id, error_code::invalid_request, "a message needs a 'method'");
    return;
  }
  if (!method->is_string() || message.value("jsonrpc", Json()) != "2.0") {
    if (has_id) writer_.respond_error(id, error_code::invalid_request, "a request needs \"jsonrpc\": \"2.0\" and a string 'method'");
    else log("ignored a notification without \"jsonrpc\": \"2.0\" or a string 'method'");
    return;
  }
  Json params = message.contains("params") ? message["params"] : Json::object();
  const std::string& name = method->get_ref<const std::string&>();
  if (has_id) handle_request(id, name, params);
  else handle_notification(name, params);
}

void Server::handle_request(const Json& id, const std::string& method, const Json& params) {
  {
    std::lock_guard lock(arrival_mutex_);
    if (cancelled_.erase(id.dump())) {
      writer_.respond_error(id, error_code::request_cancelled, "cancelled");
      return;
    }
  }
  try {
    if (method == "initialize") {
      if (initialized_) writer_.respond_error(id, error_code::invalid_request, "initialize was already received");
      else writer_.respond(id, initialize(params));
    } else if (!initialized_) {
      writer_.respond_error(id, error_code::server_not_initialized, "the server is not initialized");
    } else if (shutdown_) {
      writer_.respond_error(id, error_code::invalid_request, "the server is shutting down");
    } else if (method == "shutdown") {
      shutdown_ = true;
      writer_.respond(id, nullptr);
    } else if (method.starts_with("textDocument/")) {
      Json result = document_request(method, params);
      if (result.is_discarded()) writer_.respond_error(id, error_code::method_not_found, "unknown method " + method);
      else writer_.respond(id, std::move(result));
    } else {
      writer_.respond_error(id, error_code::method_not_found, "unknown method " + method);
    }
  } catch (const InvalidParams& error) {
    writer_.respond_error(id, error_code::invalid_params, method + ": " + error.message);
  } catch (const ContentModified&) {
    writer_.respond_error(id, error_code::content_modified, "the document changed");
  } catch (const Json::exception& error) {
    writer_.respond_error(id, error_code::invalid_params, method + ": " + error.what());
  }
}

void Server::handle_notification(const std::string& method, const Json& params) {
  if (method == "exit") {
    exited_ = true;
    return;
  }
  if (!initialized_ || shutdown_) return;  // dropped, as LSP says
  try {
    if (method == "textDocument/didOpen") {
      open(params);
    } else if (method == "textDocument/didChange") {
      change(params);
    } else if (method == "textDocument/didClose") {
      close(params);
    } else if (method == "textDocument/didSave") {
      if (is_configuration_file(path_of_uri(uri_of(params)))) reload_configuration();
      else if (Document* document = find(params)) document->stale = true;
    } else if (method == "workspace/didChangeWatchedFiles") {
      reload_configuration();
    }
    // Others ("initialized", "$/cancelRequest" (taken on arrival), "$/setTrace", ...) need nothing.
  } catch (const InvalidParams& error) {
    log("ignored " + method + ": " + error.message);
  } catch (const Json::exception& error) {
    log("ignored " + method + ": " + error.what());
  }
}

Json Server::initialize(const Json& params) {
  if (!params.is_object()) throw InvalidParams{"params must be an object"};
  std::string root_uri;
  if (params.contains("rootUri") && params["rootUri"].is_string()) root_uri = params["rootUri"];
  else if (params.contains("workspaceFolders") && params["workspaceFolders"].is_array() &&
           !params["workspaceFolders"].empty() && params["workspaceFolders"][0].value("uri", Json()).is_string())
    root_uri = params["workspaceFolders"][0]["uri"];
  if (!root_uri.empty()) root_ = path_of_uri(root_uri);
  else if (params.contains("rootPath") && params["rootPath"].is_string()) root_ = params["rootPath"].get<std::string>();
  Json encodings = params.value("capabilities", Json::object()).value("general", Json::object()).value("positionEncodings", Json::array());
  bool utf8 = encodings.is_array() && std::find(encodings.begin(), encodings.end(), "utf-8") != encodings.end();
  encoding_ = utf8 ? PositionEncoding::utf8 : PositionEncoding::utf16;
  initialized_ = true;
  Json capabilities{
      {"positionEncoding", utf8 ? "utf-8" : "utf-16"},
      {"textDocumentSync", {{"openClose", true}, {"change", 1}, {"save", {{"includeText", false}}}}},
      {"hoverProvider", true},
      {"inlayHintProvider", true},
      {"codeActionProvider", {{"codeActionKinds", Json::array({"quickfix"})}}},
      {"completionProvider", {{"triggerCharacters", Json::array({".", "(", "'", "\"", ","})}}},
      {"signatureHelpProvider", {{"triggerCharacters", Json::array({"(", ","})}}},
  };
  return Json{{"capabilities", capabilities},
              {"serverInfo", {{"name", "shardlang"}, {"version", shardlang::Interpreter::version()}}}};
}

Json Server::document_request(const std::string& method, const Json& params) {
  bool completion = method == "textDocument/completion";
  bool signature_help = method == "textDocument/signatureHelp";
  bool hover = method == "textDocument/hover";
  bool ranged = method == "textDocument/inlayHint" || method == "textDocument/codeAction";
  if (!completion && !signature_help && !hover && !ranged) return Json(Json::value_t::discarded);
  int line = 0, character = 0, first_line = 0, last_line = 0;
  if (ranged) {
    const Json& range = member(params, "range");
    first_line = int_member(member(range, "start"), "line");
    last_line = int_member(member(range, "end"), "line");
  } else {
    const Json& position = member(params, "position");
    line = int_member(position, "line");
    character = int_member(position, "character");
  }
  Document* document = find(params);
  Json nothing = ranged ? Json::array() : completion ? Json{{"isIncomplete", false}, {"items", Json::array()}} : Json();
  if (!document) return nothing;
  DocumentView view{document->text, encoding_, document->uri, document->path};
  // Completion and signature help answer from the last analysis that parsed,
  // at once: while the user types the document rarely parses.
  if (completion || signature_help) {
    if (!document->names) return nothing;
    return completion ? completion_json(*document->names, view, line, character)
                      : signature_help_json(*document->names, view, line, character);
  }
  if (!refresh(*document, hover)) throw ContentModified{};
  const shardlang::Analysis& analysis = *document->analysis;
  if (hover) return hover_json(analysis, view, line, character);
  if (method == "textDocument/inlayHint") return inlay_hints_json(analysis, view, first_line, last_line);
  return code_actions_json(analysis, view, first_line, last_line);
}

// ------------------------------------------------------------ documents

Server::Document* Server::find(const Json& params) {
  auto found = documents_.find(uri_of(params));
  return found == documents_.end() ? nullptr : &found->second;
}

void Server::open(const Json& params) {
  const Json& item = member(params, "textDocument");
  Document document;
  document.uri = string_member(item, "uri");
  document.path = path_of_uri(document.uri);
  document.version = item.contains("version") ? int_member(item, "version") : 0;
  document.text = TextDocument(string_member(item, "text"));
  configure(document);
  std::string uri = document.uri;
  documents_[uri] = std::move(document);
}

void Server::change(const Json& params) {
  Document* document = find(params);
  if (!document) throw InvalidParams{"the document is not open"};
  const Json& changes = member(params, "contentChanges");
  if (!changes.is_array()) throw InvalidParams{"'contentChanges' must be an array"};
  for (const Json& edit : changes) {
    const std::string& text = string_member(edit, "text");
    if (!edit.contains("range")) {
      document->text = TextDocument(text);
      continue;
    }
    // An incremental edit (a client may send them even though we ask for full text).
    const Json& range = member(edit, "range");
    const Json& start = member(range, "start");
    const Json& end = member(range, "end");
    std::size_t from = document->text.offset(int_member(start, "line"), int_member(start, "character"), encoding_);
    std::size_t to = document->text.offset(int_member(end, "line"), int_member(end, "character"), encoding_);
    std::string updated = document->text.text();
    updated.replace(from, to > from ? to - from : 0, text);
    document->text = TextDocument(std::move(updated));
  }
  const Json& item = member(params, "textDocument");
  if (item.contains("version") && item["version"].is_number_integer()) document->version = item["version"];
  document->stale = true;
}

void Server::close(const Json& params) {
  auto found = documents_.find(uri_of(params));
  if (found == documents_.end()) return;
  std::string uri = found->first;
  documents_.erase(found);
  writer_.notify("textDocument/publishDiagnostics", {{"uri", uri}, {"diagnostics", Json::array()}});
}

void Server::configure(Document& document) {
  std::filesystem::path path(document.path);
  std::filesystem::path folder = path.is_absolute() ? path.parent_path() : root_;
  std::optional<ConfigFile> config = folder.empty() ? std::nullopt : find_config(folder, root_);
  document.settings = flags_.over(config ? config->settings : Settings{});
  document.config_error = config ? config->error : std::string();
  document.stale = true;
}

void Server::reload_configuration() {
  for (auto& [uri, document] : documents_) configure(document);
}

bool Server::has_stale_documents() const {
  return std::any_of(documents_.begin(), documents_.end(), [](const auto& entry) { return entry.second.stale; });
}

void Server::analyse_stale_documents() {
  for (auto& [uri, document] : documents_)
    if (document.stale && !refresh(document)) return;  // interrupted: a change is waiting
}

shardlang::Interpreter& Server::interpreter_for(const Settings& settings) {
  std::unique_ptr<shardlang::Interpreter>& slot = interpreters_[settings.options_key()];
  if (!slot) slot = std::make_unique<shardlang::Interpreter>(settings.options());
  return *slot;
}

bool Server::refresh(Document& document, bool line_costs) {
  if (!document.stale && (document.line_costs || !line_costs)) return true;
  shardlang::Interpreter& interpreter = interpreter_for(document.settings);
  {
    std::lock_guard lock(arrival_mutex_);
    if (unhandled_changes_[document.uri] > 0) return false;
    analysing_uri_ = document.uri;
    analysing_ = &interpreter;
    interrupt_sent_ = false;
  }
  shardlang::AnalysisOptions options;
  options.context_mesh = document.settings.mesh.value_or(std::vector<shardlang::MeshAxis>{});
  options.line_costs = line_costs;
  auto analysis = std::make_shared<shardlang::Analysis>(interpreter.analyze(document.text.text(), document.path, options));
  {
    std::lock_guard lock(arrival_mutex_);
    analysing_ = nullptr;
    analysing_uri_.clear();
    if (interrupt_sent_) return false;
  }
  const auto& diagnostics = analysis->diagnostics();
  bool parsed = std::none_of(diagnostics.begin(), diagnostics.end(),
                             [](const shardlang::Diagnostic& d) { return d.code == "syntax"; });
  if (parsed) document.names = analysis;
  document.analysis = std::move(analysis);
  document.line_costs = line_costs;
  if (document.stale) {
    document.stale = false;
    publish(document);
  }
  return true;
}

void Server::publish(const Document& document) {
  DocumentView view{document.text, encoding_, document.uri, document.path};
  Json diagnostics = diagnostics_json(document.analysis->diagnostics(), view);
  if (!document.config_error.empty())
    diagnostics.insert(diagnostics.begin(), Json{{"range", {{"start", {{"line", 0}, {"character", 0}}}, {"end", {{"line", 0}, {"character", 0}}}}},
                                                  {"severity", 1},
                                                  {"source", "shardlang"},
                                                  {"code", "config"},
                                                  {"message", document.config_error}});
  writer_.notify("textDocument/publishDiagnostics",
                 {{"uri", document.uri}, {"version", document.version}, {"diagnostics", diagnostics}});
}

void Server::on_arrival(const Incoming& incoming) {
  if (incoming.kind != Incoming::Kind::message || !incoming.body.is_object()) return;
  const Json& body = incoming.body;
  const Json method = body.value("method", Json());
  if (!method.is_string() || !body.contains("params") || !body["params"].is_object()) return;
  const Json& params = body["params"];
  std::lock_guard lock(arrival_mutex_);
  if (method == "$/cancelRequest") {
    if (params.contains("id")) cancelled_.insert(params["id"].dump());
    return;
  }
  std::optional<std::string> uri = changed_document(body);
  if (!uri) return;
  ++unhandled_changes_[*uri];
  if (analysing_ && *uri == analysing_uri_) {
    analysing_->interrupt();
    interrupt_sent_ = true;
  }
}

void Server::change_handled(const std::string& uri) {
  std::lock_guard lock(arrival_mutex_);
  auto found = unhandled_changes_.find(uri);
  if (found != unhandled_changes_.end() && --found->second <= 0) unhandled_changes_.erase(found);
}

// ------------------------------------------------------------ stdio

namespace {

// What the reading thread and the main thread share; it outlives both (the
// reader may still be blocked in read() when the server exits).
struct Channel {
  std::mutex mutex;
  std::condition_variable arrived;
  std::deque<Incoming> queue;
};

bool write_all(std::string_view bytes) {
  while (!bytes.empty()) {
    ssize_t written = ::write(STDOUT_FILENO, bytes.data(), bytes.size());
    if (written < 0 && errno == EINTR) continue;
    if (written <= 0) return false;
    bytes.remove_prefix(static_cast<std::size_t>(written));
  }
  return true;
}

std::ptrdiff_t read_some(char* buffer, std::size_t size) {
  while (true) {
    ssize_t count = ::read(STDIN_FILENO, buffer, size);
    if (count < 0 && errno == EINTR) continue;
    return count;
  }
}

}  // namespace

int run_server(const Settings& flags) {
  std::signal(SIGPIPE, SIG_IGN);  // a client gone: writes fail, reads end
  auto writer = std::make_shared<MessageWriter>(write_all);
  auto server = std::make_shared<Server>(flags, *writer);
  auto channel = std::make_shared<Channel>();
  std::thread reader([writer, server, channel]() {
    MessageReader messages(read_some);
    while (true) {
      Incoming incoming = messages.next();
      server->on_arrival(incoming);
      bool end = incoming.kind == Incoming::Kind::end;
      {
        std::lock_guard lock(channel->mutex);
        channel->queue.push_back(std::move(incoming));
      }
      channel->arrived.notify_one();
      if (end) return;
    }
  });
  reader.detach();
  while (!server->exited()) {
    Incoming next;
    {
      std::unique_lock lock(channel->mutex);
      if (channel->queue.empty() && server->has_stale_documents()) {
        lock.unlock();
        server->analyse_stale_documents();
        continue;
      }
      channel->arrived.wait(lock, [&]() { return !channel->queue.empty(); });
      next = std::move(channel->queue.front());
      channel->queue.pop_front();
    }
    if (next.kind == Incoming::Kind::end) break;
    server->handle(next);
  }
  return server->exit_status();
}

}  // namespace lsp
