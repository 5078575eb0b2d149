// The language server's parts below the protocol session: message framing,
// positions in UTF-16 and UTF-8, reading calls and names out of source
// text, and the configuration files.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "repl/lsp/config.hpp"
#include "repl/lsp/features.hpp"
#include "repl/lsp/json_rpc.hpp"
#include "repl/lsp/text.hpp"

namespace {

// A reader over fixed bytes, handed out `chunk` bytes at a time.
lsp::MessageReader reader_of(std::string bytes, std::size_t chunk) {
  auto state = std::make_shared<std::pair<std::string, std::size_t>>(std::move(bytes), 0);
  return lsp::MessageReader([state, chunk](char* buffer, std::size_t size) -> std::ptrdiff_t {
    auto& [text, at] = *state;
    std::size_t count = std::min({chunk, size, text.size() - at});
    std::copy_n(text.data() + at, count, buffer);
    at += count;
    return static_cast<std::ptrdiff_t>(count);
  });
}

TEST(MessageReader, ReadsFramesWhateverTheChunks) {
  std::string bytes = lsp::frame(R"({"a":1})") + "Content-Type: application/vscode-jsonrpc; charset=utf-8\r\n" +
                      lsp::frame(R"({"b":"é"})").substr(0) + lsp::frame("[1,2]");
  for (std::size_t chunk : {1u, 3u, 7u, 4096u}) {
    lsp::MessageReader reader = reader_of(bytes, chunk);
    lsp::Incoming first = reader.next();
    ASSERT_EQ(first.kind, lsp::Incoming::Kind::message) << chunk;
    EXPECT_EQ(first.body["a"], 1);
    lsp::Incoming second = reader.next();
    ASSERT_EQ(second.kind, lsp::Incoming::Kind::message) << chunk;
    EXPECT_EQ(second.body["b"], "é");
    EXPECT_EQ(reader.next().body, lsp::Json::parse("[1,2]"));
    EXPECT_EQ(reader.next().kind, lsp::Incoming::Kind::end);
  }
}

TEST(MessageReader, ABodyThatIsNotJsonIsAParseErrorAndReadingGoesOn) {
  lsp::MessageReader reader = reader_of(lsp::frame("{not json") + lsp::frame("{}"), 5);
  EXPECT_EQ(reader.next().kind, lsp::Incoming::Kind::parse_error);
  EXPECT_EQ(reader.next().kind, lsp::Incoming::Kind::message);
}

TEST(MessageReader, ABadHeaderIsSkippedToTheNextOne) {
  for (std::string bad : {"Content-Length: many\r\n\r\n{}", "X-Nothing: 1\r\n\r\n{\"x\": 1}",
                          "Content-Length: 99999999999\r\n\r\n{}", "garbage without colon\r\n\r\n"}) {
    lsp::MessageReader reader = reader_of(bad + lsp::frame(R"({"ok":true})"), 2);
    lsp::Incoming first = reader.next();
    EXPECT_EQ(first.kind, lsp::Incoming::Kind::bad_header) << bad;
    lsp::Incoming second = reader.next();
    ASSERT_EQ(second.kind, lsp::Incoming::Kind::message) << bad;
    EXPECT_EQ(second.body["ok"], true);
  }
}

TEST(MessageReader, ATruncatedBodyEndsTheStream) {
  lsp::MessageReader reader = reader_of("Content-Length: 10\r\n\r\n{}", 4);
  EXPECT_EQ(reader.next().kind, lsp::Incoming::Kind::end);
}

TEST(TextDocument, PositionsInUtf16AndUtf8) {
  // "é" is one UTF-16 unit and two bytes; "𝑥" (U+1D465) two units and four bytes.
  lsp::TextDocument text("ab\né𝑥 = 1\r\nlast");
  EXPECT_EQ(text.line_count(), 3);
  EXPECT_EQ(text.line(1), "é𝑥 = 1");
  EXPECT_EQ(text.line(2), "last");
  // Code-point column 2 (the space) of line 1.
  EXPECT_EQ(text.character(1, 2, lsp::PositionEncoding::utf16), 3);
  EXPECT_EQ(text.character(1, 2, lsp::PositionEncoding::utf8), 6);
  EXPECT_EQ(text.column(1, 3, lsp::PositionEncoding::utf16), 2);
  EXPECT_EQ(text.column(1, 6, lsp::PositionEncoding::utf8), 2);
  EXPECT_EQ(text.offset(1, 3, lsp::PositionEncoding::utf16), 3u + 6u);
  EXPECT_EQ(text.offset(9, 0, lsp::PositionEncoding::utf16), text.text().size());
  EXPECT_EQ(text.offset(0, 99, lsp::PositionEncoding::utf16), 2u);
}

TEST(SourceReading, TheEnclosingCall) {
  auto call = lsp::enclosing_call("x = jnp.einsum('ij,jk->ik', a, ");
  ASSERT_TRUE(call);
  EXPECT_EQ(call->callee, "jnp.einsum");
  EXPECT_EQ(call->argument, 2);
  EXPECT_FALSE(call->in_partition_spec);
  call = lsp::enclosing_call("f(a, g(b), out_sharding=");
  ASSERT_TRUE(call);
  EXPECT_EQ(call->callee, "f");
  EXPECT_EQ(call->keyword, "out_sharding");
  call = lsp::enclosing_call("y = jnp.zeros(4, out_sharding=P('data', (");
  ASSERT_TRUE(call);
  EXPECT_TRUE(call->in_partition_spec);
  EXPECT_FALSE(call->in_string);
  call = lsp::enclosing_call("spec = jax.sharding.PartitionSpec('d");
  ASSERT_TRUE(call);
  EXPECT_TRUE(call->in_partition_spec);
  EXPECT_TRUE(call->in_string);
  EXPECT_FALSE(lsp::enclosing_call("f(a)\nx = 1"));
  EXPECT_FALSE(lsp::enclosing_call("s = '(' # f("));
}

TEST(SourceReading, TheNameBeingTyped) {
  auto typed = lsp::name_being_typed("y = jax.sharding.Na");
  ASSERT_TRUE(typed);
  EXPECT_EQ(typed->object, "jax.sharding");
  EXPECT_EQ(typed->partial, "Na");
  typed = lsp::name_being_typed("    jnp.");
  ASSERT_TRUE(typed);
  EXPECT_EQ(typed->object, "jnp");
  EXPECT_EQ(typed->partial, "");
  typed = lsp::name_being_typed("print(le");
  ASSERT_TRUE(typed);
  EXPECT_EQ(typed->object, "");
  EXPECT_EQ(typed->partial, "le");
  EXPECT_FALSE(lsp::name_being_typed("s = 'jnp."));
  EXPECT_FALSE(lsp::name_being_typed("x = 1  # jnp."));
  EXPECT_FALSE(lsp::name_being_typed("x = 3."));
}

TEST(SourceReading, SignatureParameters) {
  std::string signature = "f(a, /, b=(1, 2), *, c=',', **kw)";
  std::vector<std::string> parts;
  for (auto [begin, end] : lsp::signature_parameters(signature)) parts.push_back(signature.substr(begin, end - begin));
  EXPECT_EQ(parts, (std::vector<std::string>{"a", "/", "b=(1, 2)", "*", "c=','", "**kw"}));
}

TEST(Uris, PathsRoundTrip) {
  EXPECT_EQ(lsp::path_of_uri("file:///home/me/my%20model.shl"), "/home/me/my model.shl");
  EXPECT_EQ(lsp::uri_of_path("/home/me/my model.shl"), "file:///home/me/my%20model.shl");
  EXPECT_EQ(lsp::path_of_uri(lsp::uri_of_path("/tmp/ä#b.shl")), "/tmp/ä#b.shl");
  EXPECT_EQ(lsp::path_of_uri("untitled:Untitled-1"), "untitled:Untitled-1");
}

TEST(Config, MeshText) {
  auto mesh = lsp::parse_mesh("fsdp=16,tp=16");
  ASSERT_TRUE(std::holds_alternative<std::vector<shardlang::MeshAxis>>(mesh));
  auto& axes = std::get<std::vector<shardlang::MeshAxis>>(mesh);
  ASSERT_EQ(axes.size(), 2u);
  EXPECT_EQ(axes[1].name, "tp");
  EXPECT_EQ(axes[1].size, 16);
  for (const char* bad : {"", "x", "x=0", "x=2,x=2", "=2", "x=two"})
    EXPECT_TRUE(std::holds_alternative<std::string>(lsp::parse_mesh(bad))) << bad;
}

TEST(Config, ShardlangTomlAndPyproject) {
  auto config = lsp::parse_config("/w/shardlang.toml", "chip = \"v5p\"\ndevices = 256\nmesh = \"a=16,b=16\"\ntime-limit = 2\n");
  ASSERT_TRUE(config);
  EXPECT_EQ(config->error, "");
  EXPECT_EQ(config->settings.chip, "v5p");
  EXPECT_EQ(config->settings.devices, 256);
  EXPECT_EQ(config->settings.time_limit_seconds, 2.0);
  ASSERT_TRUE(config->settings.mesh);
  EXPECT_EQ(config->settings.mesh->size(), 2u);

  EXPECT_FALSE(lsp::parse_config("/w/pyproject.toml", "[project]\nname = \"x\"\n"));
  config = lsp::parse_config("/w/pyproject.toml", "[tool.shardlang]\nplatform = \"cpu\"\ndevices = 4\n");
  ASSERT_TRUE(config);
  EXPECT_EQ(config->settings.platform, "cpu");

  config = lsp::parse_config("/w/shardlang.toml", "chip = \"v9\"\n");
  ASSERT_TRUE(config);
  EXPECT_EQ(config->error, "/w/shardlang.toml:1: chip must be one of v2 v3 v4 v5e v5p v6e, not 'v9'");
  config = lsp::parse_config("/w/shardlang.toml", "devices = 4\ncolour = 1\n");
  EXPECT_EQ(config->error,
            "/w/shardlang.toml:2: unknown key 'colour' (known: platform, chip, devices, mesh, time-limit)");
  config = lsp::parse_config("/w/shardlang.toml", "devices = \n");
  EXPECT_TRUE(config->error.starts_with("/w/shardlang.toml:1: ")) << config->error;
}

TEST(Config, TheNearestFileWinsAndFlagsWinOverIt) {
  auto root = std::filesystem::temp_directory_path() / ("shardlang_lsp_config_" + std::to_string(::getpid()));
  std::filesystem::create_directories(root / "sub" / "deeper");
  std::ofstream(root / "pyproject.toml") << "[tool.shardlang]\ndevices = 4\n";
  std::ofstream(root / "sub" / "shardlang.toml") << "devices = 16\nchip = \"v4\"\n";
  auto near = lsp::find_config(root / "sub" / "deeper", root);
  ASSERT_TRUE(near);
  EXPECT_EQ(near->settings.devices, 16);
  auto top = lsp::find_config(root, root);
  ASSERT_TRUE(top);
  EXPECT_EQ(top->settings.devices, 4);
  lsp::Settings flags;
  flags.devices = 2;
  lsp::Settings merged = flags.over(near->settings);
  EXPECT_EQ(merged.devices, 2);
  EXPECT_EQ(merged.chip, "v4");
  EXPECT_EQ(merged.options().time_limit_seconds, lsp::default_time_limit_seconds);
  std::filesystem::remove_all(root);
}

}  // namespace
