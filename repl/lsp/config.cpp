#include "repl/lsp/config.hpp"

#include <charconv>
#include <fstream>
#include <limits>
#include <sstream>

#include <toml++/toml.h>

#include "repl/cli.hpp"

namespace lsp {

Settings Settings::over(const Settings& fallback) const {
  Settings merged = *this;
  if (!merged.platform) merged.platform = fallback.platform;
  if (!merged.chip) merged.chip = fallback.chip;
  if (!merged.devices) merged.devices = fallback.devices;
  if (!merged.mesh) merged.mesh = fallback.mesh;
  if (!merged.time_limit_seconds) merged.time_limit_seconds = fallback.time_limit_seconds;
  return merged;
}

shardlang::Options Settings::options() const {
  shardlang::Options options;
  if (platform) options.platform = *platform;
  if (chip) options.chip = *chip;
  if (devices) options.devices = *devices;
  options.time_limit_seconds = time_limit_seconds.value_or(default_time_limit_seconds);
  return options;
}

std::string Settings::options_key() const {
  shardlang::Options made = options();
  return made.platform + "/" + made.chip + "/" + std::to_string(made.devices) + "/" +
         std::to_string(made.time_limit_seconds);
}

std::variant<std::vector<shardlang::MeshAxis>, std::string> parse_mesh(std::string_view text) {
  std::vector<shardlang::MeshAxis> axes;
  const std::string example = " (for example \"data=2,model=4\")";
  while (!text.empty()) {
    std::size_t comma = text.find(',');
    std::string_view item = text.substr(0, comma);
    text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    std::size_t equals = item.find('=');
    if (equals == std::string_view::npos || equals == 0)
      return "the mesh needs NAME=SIZE items separated by commas, not '" + std::string(item) + "'" + example;
    std::string_view size_text = item.substr(equals + 1);
    int size = 0;
    auto [rest, error] = std::from_chars(size_text.data(), size_text.data() + size_text.size(), size);
    if (error != std::errc() || rest != size_text.data() + size_text.size() || size <= 0)
      return "the size of mesh axis '" + std::string(item.substr(0, equals)) + "' must be a positive number, not '" +
             std::string(size_text) + "'";
    std::string name(item.substr(0, equals));
    for (const auto& axis : axes)
      if (axis.name == name) return "the mesh names axis '" + name + "' twice";
    axes.push_back({name, size});
  }
  if (axes.empty()) return "the mesh is empty" + example;
  return axes;
}

namespace {

// One key of the table into `settings`; the problem when it is not understood.
std::optional<std::string> read_setting(const std::string& key, const toml::node& node, Settings& settings) {
  auto string_value = node.value<std::string>();
  if (key == "platform" || key == "chip") {
    if (!string_value) return "'" + key + "' must be a string";
    auto problem = key == "platform" ? repl::platform_problem(*string_value) : repl::chip_problem(*string_value);
    if (problem) return problem;
    (key == "platform" ? settings.platform : settings.chip) = *string_value;
  } else if (key == "devices") {
    auto count = node.value<std::int64_t>();
    if (!node.is_integer() || !count || *count <= 0 || *count > std::numeric_limits<int>::max())
      return "'devices' must be a positive integer";
    settings.devices = static_cast<int>(*count);
  } else if (key == "mesh") {
    if (!string_value) return "'mesh' must be a string such as \"data=2,model=4\"";
    auto parsed = parse_mesh(*string_value);
    if (auto* problem = std::get_if<std::string>(&parsed)) return *problem;
    settings.mesh = std::get<std::vector<shardlang::MeshAxis>>(parsed);
  } else if (key == "time-limit") {
    auto seconds = node.value<double>();
    if (!(node.is_integer() || node.is_floating_point()) || !seconds || !(*seconds > 0))
      return "'time-limit' must be a positive number of seconds";
    settings.time_limit_seconds = *seconds;
  } else {
    return "unknown key '" + key + "' (known: platform, chip, devices, mesh, time-limit)";
  }
  return std::nullopt;
}

std::optional<std::string> read_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

}  // namespace

std::optional<ConfigFile> parse_config(const std::string& path, std::string_view text) {
  bool pyproject = std::filesystem::path(path).filename() == "pyproject.toml";
  ConfigFile config;
  config.path = path;
  toml::table document;
  try {
    document = toml::parse(text, path);
  } catch (const toml::parse_error& error) {
    if (pyproject) return std::nullopt;  // not ours to report: no [tool.shardlang] can be read
    config.error = path + ":" + std::to_string(error.source().begin.line) + ": " + std::string(error.description());
    return config;
  }
  const toml::table* table = &document;
  if (pyproject) {
    table = document["tool"]["shardlang"].as_table();
    if (!table) return std::nullopt;
  }
  for (auto&& [key, node] : *table) {
    if (auto problem = read_setting(std::string(key.str()), node, config.settings)) {
      config.error = path + ":" + std::to_string(node.source().begin.line) + ": " + *problem;
      config.settings = Settings{};
      break;
    }
  }
  return config;
}

std::optional<ConfigFile> find_config(const std::filesystem::path& directory, const std::filesystem::path& root) {
  std::error_code error;
  std::filesystem::path folder = std::filesystem::weakly_canonical(directory, error);
  if (error) folder = directory;
  std::filesystem::path top = root.empty() ? std::filesystem::path() : std::filesystem::weakly_canonical(root, error);
  while (true) {
    for (const char* name : {"shardlang.toml", "pyproject.toml"}) {
      std::filesystem::path candidate = folder / name;
      if (!std::filesystem::is_regular_file(candidate, error)) continue;
      auto text = read_file(candidate);
      if (!text) return ConfigFile{candidate.string(), {}, "cannot read " + candidate.string()};
      if (auto config = parse_config(candidate.string(), *text)) return config;
    }
    if ((!top.empty() && folder == top) || folder == folder.parent_path() || folder.empty()) return std::nullopt;
    folder = folder.parent_path();
  }
}

}  // namespace lsp
