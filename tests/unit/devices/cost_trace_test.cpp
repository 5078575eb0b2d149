// The Chrome trace of a profile, parsed back as JSON.
#include <gtest/gtest.h>

#include <cctype>
#include <charconv>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <tuple>
#include <variant>
#include <vector>

#include "devices/chrome_trace.hpp"

namespace devices {
namespace {

// A JSON value, enough to read a trace back.
struct Json {
  std::variant<std::nullptr_t, bool, double, std::string, std::vector<Json>, std::map<std::string, Json>> value;
  const Json& operator[](const std::string& key) const {
    static const Json missing;
    const auto* object = std::get_if<std::map<std::string, Json>>(&value);
    if (!object) return missing;
    auto found = object->find(key);
    return found != object->end() ? found->second : missing;
  }
  const std::vector<Json>* array() const { return std::get_if<std::vector<Json>>(&value); }
  std::optional<std::string> string() const {
    const auto* text = std::get_if<std::string>(&value);
    return text ? std::optional<std::string>(*text) : std::nullopt;
  }
  std::optional<double> number() const {
    const auto* number = std::get_if<double>(&value);
    return number ? std::optional<double>(*number) : std::nullopt;
  }
};

// A strict recursive-descent reader of RFC 8259 JSON (ASCII \u escapes only).
class JsonReader {
 public:
  explicit JsonReader(std::string_view text) : text_(text) {}

  std::optional<Json> document() {
    std::optional<Json> value = read_value(0);
    skip_space();
    if (!value || at_ != text_.size()) return std::nullopt;
    return value;
  }

 private:
  void skip_space() {
    while (at_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[at_]))) ++at_;
  }
  bool take(char c) {
    skip_space();
    if (at_ < text_.size() && text_[at_] == c) {
      ++at_;
      return true;
    }
    return false;
  }
  bool take_word(std::string_view word) {
    if (text_.substr(at_, word.size()) != word) return false;
    at_ += word.size();
    return true;
  }

  std::optional<std::string> read_string() {
    if (!take('"')) return std::nullopt;
    std::string result;
    while (at_ < text_.size() && text_[at_] != '"') {
      char c = text_[at_++];
      if (static_cast<unsigned char>(c) < 0x20) return std::nullopt;
      if (c != '\\') {
        result += c;
        continue;
      }
      if (at_ >= text_.size()) return std::nullopt;
      char escaped = text_[at_++];
      switch (escaped) {
        case '"': case '\\': case '/': result += escaped; break;
        case 'n': result += '\n'; break;
        case 't': result += '\t'; break;
        case 'r': result += '\r'; break;
        case 'b': result += '\b'; break;
        case 'f': result += '\f'; break;
        case 'u': {
          if (at_ + 4 > text_.size()) return std::nullopt;
          int code = 0;
          auto [end, error] = std::from_chars(text_.data() + at_, text_.data() + at_ + 4, code, 16);
          if (error != std::errc() || end != text_.data() + at_ + 4 || code >= 0x80) return std::nullopt;
          result += static_cast<char>(code);
          at_ += 4;
          break;
        }
        default: return std::nullopt;
      }
    }
    if (at_ >= text_.size()) return std::nullopt;
    ++at_;
    return result;
  }

  std::optional<Json> read_value(int depth) {
    if (depth > 64) return std::nullopt;
    skip_space();
    if (at_ >= text_.size()) return std::nullopt;
    char c = text_[at_];
    if (c == '{') {
      ++at_;
      std::map<std::string, Json> object;
      if (take('}')) return Json{object};
      do {
        skip_space();
        std::optional<std::string> key = read_string();
        if (!key || !take(':')) return std::nullopt;
        std::optional<Json> member = read_value(depth + 1);
        if (!member || !object.emplace(*key, *member).second) return std::nullopt;
      } while (take(','));
      return take('}') ? std::optional<Json>(Json{object}) : std::nullopt;
    }
    if (c == '[') {
      ++at_;
      std::vector<Json> array;
      if (take(']')) return Json{array};
      do {
        std::optional<Json> element = read_value(depth + 1);
        if (!element) return std::nullopt;
        array.push_back(*element);
      } while (take(','));
      return take(']') ? std::optional<Json>(Json{array}) : std::nullopt;
    }
    if (c == '"') {
      std::optional<std::string> text = read_string();
      return text ? std::optional<Json>(Json{*text}) : std::nullopt;
    }
    if (take_word("true")) return Json{true};
    if (take_word("false")) return Json{false};
    if (take_word("null")) return Json{nullptr};
    std::size_t start = at_;
    if (at_ < text_.size() && text_[at_] == '-') ++at_;
    while (at_ < text_.size() && (std::isdigit(static_cast<unsigned char>(text_[at_])) || text_[at_] == '.' ||
                                  text_[at_] == 'e' || text_[at_] == 'E' || text_[at_] == '+' || text_[at_] == '-'))
      ++at_;
    if (start == at_ || !std::isdigit(static_cast<unsigned char>(text_[at_ - 1]))) return std::nullopt;
    double number = 0;
    auto [end, error] = std::from_chars(text_.data() + start, text_.data() + at_, number);
    if (error != std::errc() || end != text_.data() + at_) return std::nullopt;
    return Json{number};
  }

  std::string_view text_;
  std::size_t at_ = 0;
};

TEST(JsonReader, RejectsMalformedText) {
  EXPECT_TRUE(JsonReader(R"({"a":[1,2.5,"x\n",true,null]})").document());
  EXPECT_FALSE(JsonReader(R"({"a":1,})").document());
  EXPECT_FALSE(JsonReader(R"({"a":"unterminated})").document());
  EXPECT_FALSE(JsonReader("{\"a\":\"raw\nnewline\"}").document());
  EXPECT_FALSE(JsonReader(R"([1] [2])").document());
  EXPECT_FALSE(JsonReader(R"(["\uzzzz"])").document());
  EXPECT_FALSE(JsonReader(R"([1.2.3])").document());
}

std::vector<const Json*> complete_events(const Json& trace) {
  std::vector<const Json*> events;
  if (const std::vector<Json>* all = trace["traceEvents"].array())
    for (const Json& event : *all)
      if (event["ph"].string() == "X") events.push_back(&event);
  return events;
}

TEST(ChromeTrace, OneTrackPerDeviceWithComputeAndCommunication) {
  Profile profile("v5e", 2);
  profile.label_source(4, "model.shl:4");
  const std::vector<int> both = {0, 1};
  ASSERT_TRUE(profile.add({"dot_general", "f32[8@X,8]", CollectiveKind::none, 0, 2.5e-5, 4}, both).ok());
  ASSERT_TRUE(profile.add({"all-gather", "f32[8@X,8]", CollectiveKind::all_gather, 256, 1e-5, 4}, both).ok());
  ASSERT_TRUE(profile.add({"sin", "f32[4]", CollectiveKind::none, 0, 1e-6, 5}, std::vector<int>{1}).ok());

  std::vector<std::string> labels = {"TPU 0", "TPU 1"};
  std::string text = chrome_trace_json(profile, labels);
  std::optional<Json> trace = JsonReader(text).document();
  ASSERT_TRUE(trace) << text;

  std::vector<const Json*> events = complete_events(*trace);
  ASSERT_EQ(events.size(), 5u);  // two per SPMD charge, one for sin
  const Json& gather_on_1 = *events[3];
  EXPECT_EQ(gather_on_1["name"].string(), "all-gather");
  EXPECT_EQ(gather_on_1["cat"].string(), "communication");
  EXPECT_EQ(gather_on_1["pid"].number(), 1);
  EXPECT_EQ(gather_on_1["tid"].number(), 1);
  EXPECT_NEAR(*gather_on_1["ts"].number(), 25.0, 1e-9);
  EXPECT_NEAR(*gather_on_1["dur"].number(), 10.0, 1e-9);
  EXPECT_EQ(gather_on_1["args"]["source"].string(), "model.shl:4");
  EXPECT_EQ(gather_on_1["args"]["bytes_moved"].number(), 256);
  const Json& sin = *events[4];
  EXPECT_EQ(sin["tid"].number(), 0);
  EXPECT_NEAR(*sin["ts"].number(), 35.0, 1e-9);
  EXPECT_EQ(sin["args"]["source"].string(), "#5");

  // Each device's track is named.
  std::vector<std::string> process_names;
  for (const Json& event : *(*trace)["traceEvents"].array())
    if (event["name"].string() == "process_name") process_names.push_back(*event["args"]["name"].string());
  EXPECT_EQ(process_names, labels);
}

TEST(ChromeTrace, EscapesTextAndNamesUnlabelledDevices) {
  Profile profile("v2", 2);
  profile.label_source(1, "dir \"a\\b\"\n\tline\x01");
  ASSERT_TRUE(profile.add({"op\"x\"", "", CollectiveKind::none, 0, 1e-6, 1}, std::vector<int>{1}).ok());
  std::optional<Json> trace = JsonReader(chrome_trace_json(profile, {})).document();
  ASSERT_TRUE(trace);
  std::vector<const Json*> events = complete_events(*trace);
  ASSERT_EQ(events.size(), 1u);
  EXPECT_EQ((*events[0])["name"].string(), "op\"x\"");
  EXPECT_EQ((*events[0])["args"]["source"].string(), "dir \"a\\b\"\n\tline\x01");
  EXPECT_EQ((*(*trace)["traceEvents"].array())[0]["args"]["name"].string(), "device 0");
}

TEST(ChromeTrace, MemoryCountersStepAtEachChangeOnTheDevicesClocks) {
  Profile profile("v5e", 2);
  const std::vector<int> both = {0, 1};
  profile.record_memory(both, 4096);  // both clocks at 0
  ASSERT_TRUE(profile.add({"sin", "f32[4]", CollectiveKind::none, 0, 1e-6, 1}, std::vector<int>{1}).ok());
  profile.record_memory(std::vector<int>{1}, 5120);  // device 1 at 1 µs
  // A program's plan staged before it runs: its changes wait for their equations.
  profile.stage_memory_step(0);
  profile.record_memory(both, 6000);
  profile.stage_memory_step(1);
  profile.record_memory(both, 7000);
  profile.end_memory_staging();
  EXPECT_EQ(profile.memory_samples().size(), 3u);
  profile.memory_step_starts(0);
  ASSERT_TRUE(profile.add({"cos", "f32[4]", CollectiveKind::none, 0, 2e-6, 1}, both).ok());  // 1 µs to 3 µs
  profile.memory_step_starts(1);
  profile.record_memory(both, 0);

  const std::vector<std::string> labels = {"TPU 0", "TPU 1"};
  std::optional<Json> trace = JsonReader(chrome_trace_json(profile, labels)).document();
  ASSERT_TRUE(trace);
  std::vector<std::tuple<std::string, double, double, double>> counters;  // name, pid, ts, bytes
  for (const Json& event : *(*trace)["traceEvents"].array())
    if (event["ph"].string() == "C")
      counters.emplace_back(*event["name"].string(), *event["pid"].number(), *event["ts"].number(),
                            *event["args"]["bytes"].number());
  using C = std::tuple<std::string, double, double, double>;
  std::vector<C> expected = {{"memory TPU 0", 0, 0, 4096}, {"memory TPU 1", 1, 0, 4096},
                             {"memory TPU 1", 1, 1, 5120}, {"memory TPU 0", 0, 0, 6000},
                             {"memory TPU 1", 1, 1, 6000}, {"memory TPU 0", 0, 3, 7000},
                             {"memory TPU 1", 1, 3, 7000}, {"memory TPU 0", 0, 3, 0},
                             {"memory TPU 1", 1, 3, 0}};
  EXPECT_EQ(counters, expected);
}

}  // namespace
}  // namespace devices
