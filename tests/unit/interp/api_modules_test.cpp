// Imports through the public embedding API: modules served from memory by
// the host's loader (Options::module_loader), and the switch that turns file
// access off (Options::file_access).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <string>

#include "shardlang/shardlang.hpp"

namespace {

namespace fs = std::filesystem;

// An interpreter whose print output is collected.
struct Session {
  std::string output;
  shardlang::Interpreter interpreter;

  explicit Session(shardlang::Options options) : interpreter(with_output(std::move(options), output)) {}

  static shardlang::Options with_output(shardlang::Options o, std::string& sink) {
    o.output = [&sink](std::string_view text) { sink += text; };
    return o;
  }

  std::string run(std::string_view source) {
    output.clear();
    last = interpreter.run(source, "<host>");
    return output;
  }
  shardlang::Result last;
};

// A folder with one module in it, removed at the end of the test.
struct TemporaryModule {
  fs::path folder;
  TemporaryModule(const std::string& name, const std::string& source) {
    folder = fs::temp_directory_path() / ("shardlang_api_modules_" + std::to_string(::testing::UnitTest::GetInstance()->random_seed()) +
                                          "_" + ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::create_directories(folder);
    std::ofstream(folder / (name + ".py")) << source;
    std::ofstream(folder / "notes.txt") << "secret\n";
  }
  ~TemporaryModule() {
    std::error_code error;
    fs::remove_all(folder, error);
  }
};

// A loader serving a package and two modules from a table, as a host would.
shardlang::Options memory_modules(std::vector<std::string>* asked = nullptr) {
  static const std::map<std::string, shardlang::ModuleSource> table = {
      {"config", {"WIDTH = 8\nprint('config loaded')\n", "<memory>/config.py", false}},
      {"app", {"from .core import run\n", "<memory>/app/__init__.py", true}},
      {"app.core", {"from config import WIDTH\ndef run():\n    return WIDTH * 2\n", "<memory>/app/core.py", false}},
      {"broken", {"x = 1\ny = x // 0\n", "<memory>/broken.py", false}},
  };
  shardlang::Options options;
  options.module_loader = [asked](std::string_view name) -> std::optional<shardlang::ModuleSource> {
    if (asked) asked->emplace_back(name);
    auto found = table.find(std::string(name));
    if (found == table.end()) return std::nullopt;
    return found->second;
  };
  return options;
}

TEST(ModuleLoader, ServesModulesAndPackagesFromMemory) {
  std::vector<std::string> asked;
  Session s(memory_modules(&asked));
  EXPECT_EQ(s.run("import app\nimport config\nprint(app.run(), config.WIDTH, app.__name__, config.__file__)\n"),
            "config loaded\n16 8 app <memory>/config.py\n");
  EXPECT_TRUE(s.last.ok());
  // Each module asked for once, by its full name; built-in modules never.
  EXPECT_EQ(asked, (std::vector<std::string>{"app", "app.core", "config"}));
  EXPECT_EQ(s.run("import jax\nimport config\nprint('again')\n"), "again\n");
  EXPECT_EQ(asked.size(), 3u);
}

TEST(ModuleLoader, ErrorsNameTheServedFile) {
  Session s(memory_modules());
  s.run("import broken\n");
  ASSERT_FALSE(s.last.ok());
  EXPECT_EQ(s.last.exception_type(), "ZeroDivisionError");
  const shardlang::Diagnostic& d = s.last.diagnostics().at(0);
  EXPECT_EQ(d.where.file, "<memory>/broken.py");
  EXPECT_EQ(d.where.line, 2);
  ASSERT_EQ(d.traceback.size(), 2u);
  EXPECT_EQ(d.traceback[0], "<host>:1, in <module>");
  EXPECT_EQ(d.traceback[1], "<memory>/broken.py:2, in <module>");
}

TEST(ModuleLoader, UnservedModuleIsNotFoundWithWhereItLooked) {
  shardlang::Options options = memory_modules();
  options.file_access = false;
  Session s(options);
  s.run("import nowhere\n");
  ASSERT_FALSE(s.last.ok());
  EXPECT_EQ(s.last.exception_type(), "ModuleNotFoundError");
  const shardlang::Diagnostic& d = s.last.diagnostics().at(0);
  EXPECT_EQ(d.message, "ModuleNotFoundError: No module named 'nowhere'");
  ASSERT_EQ(d.notes.size(), 2u);
  EXPECT_EQ(d.notes[0].message, "looked for nowhere.py, nowhere.shl and a package nowhere/ in: the host's module loader");
  EXPECT_NE(d.notes[1].message.find("file access is off"), std::string::npos);
}

TEST(FileAccess, OnImportsFromTheModulePath) {
  TemporaryModule module("on_disk", "VALUE = 'from disk'\n");
  shardlang::Options options;
  options.module_path = {module.folder.string()};
  options.file_access = true;
  Session s(options);
  EXPECT_EQ(s.run("import on_disk\nprint(on_disk.VALUE)\n"), "from disk\n");
  EXPECT_TRUE(s.last.ok());
}

TEST(FileAccess, OffRefusesFilesystemImportsAndFiles) {
  TemporaryModule module("on_disk", "VALUE = 'from disk'\n");
  shardlang::Options options;
  options.module_path = {module.folder.string()};
  options.file_access = false;
  Session s(options);
  s.run("import on_disk\n");
  ASSERT_FALSE(s.last.ok());
  EXPECT_EQ(s.last.exception_type(), "ModuleNotFoundError");
  const shardlang::Diagnostic& d = s.last.diagnostics().at(0);
  EXPECT_EQ(d.message, "ModuleNotFoundError: No module named 'on_disk'");
  ASSERT_EQ(d.notes.size(), 1u);
  EXPECT_EQ(d.notes[0].message,
            "file access is off in this interpreter: only the built-in modules are searched");

  std::string path = (module.folder / "notes.txt").string();
  for (const std::string& call : {"open('" + path + "')", "pathlib.Path('" + path + "').read_text()",
                                  "os.path.exists('" + path + "')", "json.load(open('" + path + "'))",
                                  std::string("os.getenv('PATH')")}) {
    s.run("import json, os, pathlib\n" + call + "\n");
    ASSERT_FALSE(s.last.ok()) << call;
    EXPECT_EQ(s.last.exception_type(), "PermissionError") << call;
    EXPECT_NE(s.last.diagnostics().at(0).message.find("file access is off in this interpreter"), std::string::npos)
        << s.last.diagnostics().at(0).message;
  }
  EXPECT_EQ(s.run("import json\nprint(json.dumps({'ok': [1, 2]}))\n"), "{\"ok\": [1, 2]}\n");
  // Built-in modules still import.
  EXPECT_EQ(s.run("import jax.numpy as jnp\nprint(int(jnp.arange(4).sum()))\n"), "6\n");
}

// An embedder that says nothing gets file access off: the script's own
// directory and the module path are not searched, open() refuses, and the
// loader's modules still import.
TEST(FileAccess, OffByDefaultForEmbedders) {
  TemporaryModule module("on_disk", "VALUE = 'from disk'\n");
  shardlang::Options options = memory_modules();
  EXPECT_FALSE(options.file_access);
  options.module_path = {module.folder.string()};
  Session s(options);
  std::string script = (module.folder / "script.py").string();
  std::ofstream(script) << "import on_disk\n";
  shardlang::Result result = s.interpreter.run("import on_disk\n", script);
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.exception_type(), "ModuleNotFoundError");
  s.run("open('" + (module.folder / "notes.txt").string() + "').read()\n");
  EXPECT_EQ(s.last.exception_type(), "PermissionError");
  EXPECT_EQ(s.last.diagnostics().at(0).message,
            "PermissionError: open(): file access is off in this interpreter "
            "(the embedding program did not turn it on)");
  EXPECT_EQ(s.run("import config\nprint(config.WIDTH)\n"), "config loaded\n8\n");
}

}  // namespace
