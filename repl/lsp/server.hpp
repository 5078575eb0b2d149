// `shardlang lsp`: a Language Server Protocol 3.17 server over stdio
// (docs/editors.md). Written against include/shardlang/shardlang.hpp only.
//
// One thread reads framed messages into a queue; the main thread handles
// them in order. Text changes only mark a document stale: once no message
// is waiting, each stale document is analysed (check mode, Interpreter::
// analyze) and its diagnostics published, so a burst of keystrokes costs one
// analysis. A request about a stale document analyses it first. A change to
// the document being analysed interrupts that analysis; a program that
// loops forever is stopped by the check's time limit.
#pragma once

#include <filesystem>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>

#include "repl/lsp/config.hpp"
#include "repl/lsp/json_rpc.hpp"
#include "repl/lsp/text.hpp"
#include "shardlang/shardlang.hpp"

namespace lsp {

class Server {
 public:
  // `flags`: the command line's settings, which win over configuration files.
  Server(Settings flags, MessageWriter& writer);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  // Handles one message read from the client.
  void handle(const Incoming& incoming);
  // Whether some open document changed since its last analysis.
  bool has_stale_documents() const;
  // Analyses the stale documents and publishes their diagnostics; stops
  // early when a change interrupts one.
  void analyse_stale_documents();

  bool exited() const { return exited_; }
  // 0 after shutdown then exit; 1 for an exit without shutdown or the end of input.
  int exit_status() const { return shutdown_ ? 0 : 1; }

  // Called by the reading thread as each message arrives, before it is
  // queued: a change to the document under analysis interrupts it (a
  // request waiting on that analysis gets ContentModified), and
  // $/cancelRequest marks the request cancelled.
  void on_arrival(const Incoming& incoming);

 private:
  struct Document {
    std::string uri;
    std::string path;
    int version = 0;
    TextDocument text;
    bool stale = true;
    Settings settings;         // the flags over the configuration file's
    std::string config_error;  // the configuration's problem, shown as a diagnostic
    std::shared_ptr<shardlang::Analysis> analysis;  // of `text` when not stale
    bool line_costs = false;                        // whether `analysis` has them
    std::shared_ptr<shardlang::Analysis> names;     // the last analysis whose source parsed
  };

  void handle_message(const Json& message);
  void handle_request(const Json& id, const std::string& method, const Json& params);
  void handle_notification(const std::string& method, const Json& params);
  Json initialize(const Json& params);
  Json document_request(const std::string& method, const Json& params);

  void open(const Json& params);
  void change(const Json& params);
  void close(const Json& params);
  void reload_configuration();
  void change_handled(const std::string& uri);
  void configure(Document& document);
  Document* find(const Json& params);
  // Analyses `document` if stale (publishing its diagnostics), or if
  // `line_costs` are wanted and its analysis lacks them; false when a change
  // to it has arrived and is not handled yet (the analysis would be of text
  // that is gone: it is skipped or interrupted). Diagnostics come from an
  // analysis without line costs, which only hover needs: charging the cost
  // model makes the check half as long again.
  bool refresh(Document& document, bool line_costs = false);
  void publish(const Document& document);
  shardlang::Interpreter& interpreter_for(const Settings& settings);

  Settings flags_;
  MessageWriter& writer_;
  std::filesystem::path root_;
  PositionEncoding encoding_ = PositionEncoding::utf16;
  bool initialized_ = false;
  bool shutdown_ = false;
  bool exited_ = false;
  std::map<std::string, Document> documents_;
  std::map<std::string, std::unique_ptr<shardlang::Interpreter>> interpreters_;  // by Settings::options_key

  // Shared with the reading thread.
  std::mutex arrival_mutex_;
  std::string analysing_uri_;
  shardlang::Interpreter* analysing_ = nullptr;
  bool interrupt_sent_ = false;  // the analysis under way was interrupted
  std::map<std::string, int> unhandled_changes_;  // by uri: didChange/didClose arrived, not yet handled
  std::set<std::string> cancelled_;  // request ids (their JSON text)
};

// Runs the server on stdin and stdout until `exit` or the end of input;
// returns the exit status.
int run_server(const Settings& flags);

}  // namespace lsp
