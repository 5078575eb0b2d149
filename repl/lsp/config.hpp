// Where `shardlang lsp` takes the interpreter's settings from: its flags,
// else the nearest `shardlang.toml`, or `pyproject.toml` with a
// `[tool.shardlang]` table, in the document's folder or above it up to the
// workspace root (docs/editors.md):
//
//   platform = "tpu"          # or "cpu"
//   chip = "v5p"              # v2 v3 v4 v5e v5p v6e
//   devices = 256
//   mesh = "fsdp=16,tp=16"    # a context mesh set before the file runs (Explicit axes)
//   time-limit = 5.0          # seconds one check may take
#pragma once

#include <filesystem>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "shardlang/shardlang.hpp"

namespace lsp {

struct Settings {
  std::optional<std::string> platform;
  std::optional<std::string> chip;
  std::optional<int> devices;
  std::optional<std::vector<shardlang::MeshAxis>> mesh;
  std::optional<double> time_limit_seconds;

  // These settings, with what they leave unset taken from `fallback`.
  Settings over(const Settings& fallback) const;
  // The interpreter options they give (unset ones keep Options' defaults).
  shardlang::Options options() const;
  // The same text for the same interpreter options (the mesh aside).
  std::string options_key() const;
};

// The time limit of one check when nothing sets it.
inline constexpr double default_time_limit_seconds = 5.0;

// "fsdp=16,tp=16": the mesh axes in order; else the problem.
std::variant<std::vector<shardlang::MeshAxis>, std::string> parse_mesh(std::string_view text);

struct ConfigFile {
  std::string path;
  Settings settings;
  std::string error;  // empty when the file was read and understood
};

// Parses a configuration's text: a shardlang.toml (its top level), or a
// pyproject.toml (its [tool.shardlang] table; nullopt when it has none).
std::optional<ConfigFile> parse_config(const std::string& path, std::string_view text);

// The nearest configuration at or above `directory`, not above `root`
// (empty: up to the filesystem root); a shardlang.toml before a
// pyproject.toml in the same folder.
std::optional<ConfigFile> find_config(const std::filesystem::path& directory, const std::filesystem::path& root);

}  // namespace lsp
