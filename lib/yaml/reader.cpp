#include "yaml/reader.h"

#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/parser.h>

#include <charconv>
#include <fmt/format.h>
#include <sstream>
#include <unordered_map>

#include "util/error.h"

namespace trainer {

namespace {

constexpr std::string_view kStrTag = "tag:yaml.org,2002:str";

bool IsDigits(std::string_view s) {
  if (s.empty()) return false;
  for (char c : s) {
    if (c < '0' || c > '9') return false;
  }
  return true;
}

bool LooksLikeFloat(std::string_view s) {
  if (!s.empty() && (s[0] == '+' || s[0] == '-')) s.remove_prefix(1);
  if (s == ".inf" || s == ".Inf" || s == ".INF") return true;
  std::size_t i = 0;
  std::size_t int_digits = 0;
  while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i, ++int_digits;
  std::size_t frac_digits = 0;
  if (i < s.size() && s[i] == '.') {
    ++i;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') ++i, ++frac_digits;
  }
  if (int_digits + frac_digits == 0) return false;
  if (i < s.size() && (s[i] == 'e' || s[i] == 'E')) {
    ++i;
    if (i < s.size() && (s[i] == '+' || s[i] == '-')) ++i;
    if (!IsDigits(s.substr(i))) return false;
    return true;
  }
  return i == s.size();
}

// Returns the offset of the first byte that is not valid UTF-8, or npos.
std::size_t FindInvalidUtf8(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    auto c = static_cast<unsigned char>(s[i]);
    std::size_t len = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    if (len == 0 || i + len > s.size()) return i;
    char32_t cp = len == 1 ? c : len == 2 ? (c & 0x1F) : len == 3 ? (c & 0x0F) : (c & 0x07);
    for (std::size_t k = 1; k < len; ++k) {
      auto cont = static_cast<unsigned char>(s[i + k]);
      if ((cont & 0xC0) != 0x80) return i;
      cp = (cp << 6) | (cont & 0x3F);
    }
    static constexpr char32_t kMinForLength[] = {0, 0, 0x80, 0x800, 0x10000};
    bool overlong = cp < kMinForLength[len];
    bool surrogate = cp >= 0xD800 && cp <= 0xDFFF;
    if (overlong || surrogate || cp > 0x10FFFF) return i;
    i += len;
  }
  return std::string_view::npos;
}

// Builds Trees from yaml-cpp parser events.
class TreeBuilder : public YAML::EventHandler {
 public:
  TreeBuilder(const std::string* file, const ReadLimits& limits) : file_(file), limits_(limits) {}

  std::vector<Tree> TakeDocuments() { return std::move(documents_); }

  void OnDocumentStart(const YAML::Mark&) override {
    anchors_.clear();
    stack_.clear();
    has_root_ = false;
  }
  void OnDocumentEnd() override {
    if (has_root_ && !root_.IsNull()) documents_.push_back(std::move(root_));
    root_ = Tree();
    has_root_ = false;
  }

  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    Complete(Tree::Null(At(mark)), anchor);
  }

  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    auto it = anchors_.find(anchor);
    if (it == anchors_.end()) Fail(mark, "unknown alias");
    alias_nodes_ += CountNodes(it->second);
    if (alias_nodes_ > limits_.max_alias_nodes) {
      Fail(mark, fmt::format("aliases expand to more than {} values (alias expansion limit)",
                             limits_.max_alias_nodes));
    }
    Complete(Tree(it->second), 0);
  }

  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                const std::string& value) override {
    Origin origin = At(mark);
    // "?" marks a plain scalar without an explicit tag; "!" a quoted one.
    if (tag == "?") {
      Complete(ResolvePlainScalar(value, origin), anchor);
    } else {
      if (tag != "!" && tag != kStrTag) {
        Fail(mark, fmt::format("unsupported tag \"{}\"", tag));
      }
      Complete(Tree::String(value, origin), anchor);
    }
  }

  void OnSequenceStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    CheckCollectionTag(mark, tag, "tag:yaml.org,2002:seq");
    Push(Tree::List(At(mark)), anchor, mark);
  }
  void OnSequenceEnd() override { Pop(); }

  void OnMapStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    CheckCollectionTag(mark, tag, "tag:yaml.org,2002:map");
    Push(Tree::Map(At(mark)), anchor, mark);
  }
  void OnMapEnd() override { Pop(); }

 private:
  struct Frame {
    Tree value;
    YAML::anchor_t anchor = 0;
    bool has_key = false;
    std::string key;
    Origin key_origin;
  };

  Origin At(const YAML::Mark& mark) const {
    return Origin::Input(file_, static_cast<std::uint32_t>(mark.line + 1),
                         static_cast<std::uint32_t>(mark.column + 1));
  }

  [[noreturn]] void Fail(const YAML::Mark& mark, std::string message) const {
    throw Error(Diagnostic{At(mark), "", "", std::move(message)});
  }
  [[noreturn]] void Fail(const Origin& origin, std::string message) const {
    throw Error(Diagnostic{origin, "", "", std::move(message)});
  }

  // Collections carry "?" without an explicit tag; the only explicit tag accepted is their own.
  void CheckCollectionTag(const YAML::Mark& mark, const std::string& tag, std::string_view own) const {
    if (tag != "?" && tag != "!" && !tag.empty() && tag != own) Fail(mark, fmt::format("unsupported tag \"{}\"", tag));
  }

  static std::size_t CountNodes(const Tree& t) {
    std::size_t n = 1;
    for (const auto& item : t.items()) n += CountNodes(item);
    return n;
  }

  void Push(Tree value, YAML::anchor_t anchor, const YAML::Mark& mark) {
    if (stack_.size() >= limits_.max_depth) {
      Fail(mark, fmt::format("nesting deeper than {} levels (nesting limit)", limits_.max_depth));
    }
    stack_.push_back(Frame{std::move(value), anchor, false, {}, {}});
  }

  void Pop() {
    Frame frame = std::move(stack_.back());
    stack_.pop_back();
    if (frame.has_key) Fail(frame.key_origin, "mapping key without a value");
    Complete(std::move(frame.value), frame.anchor);
  }

  void Complete(Tree value, YAML::anchor_t anchor) {
    if (anchor != 0) anchors_[anchor] = value;
    if (stack_.empty()) {
      root_ = std::move(value);
      has_root_ = true;
      return;
    }
    Frame& top = stack_.back();
    if (top.value.IsList()) {
      top.value.Append(std::move(value));
      return;
    }
    if (!top.has_key) {
      if (!value.IsScalar()) Fail(value.origin(), "mapping keys must be scalars");
      std::string key = value.IsNull() ? std::string("null") : value.text();
      for (std::size_t i = 0; i < top.value.size(); ++i) {
        if (top.value.KeyAt(i) == key) {
          Fail(value.origin(), fmt::format("duplicate key \"{}\" (first at line {})", key, top.value.KeyOriginAt(i).line));
        }
      }
      top.key = std::move(key);
      top.key_origin = value.origin();
      top.has_key = true;
      return;
    }
    top.value.Set(top.key, std::move(value), top.key_origin);
    top.has_key = false;
  }

  const std::string* file_;
  const ReadLimits& limits_;
  std::vector<Frame> stack_;
  std::unordered_map<YAML::anchor_t, Tree> anchors_;
  std::size_t alias_nodes_ = 0;
  Tree root_;
  bool has_root_ = false;
  std::vector<Tree> documents_;
};

}  // namespace

Tree ResolvePlainScalar(const std::string& text, const Origin& origin) {
  if (text.empty() || text == "~" || text == "null" || text == "Null" || text == "NULL") {
    return Tree::Null(origin);
  }
  if (text == "true" || text == "True" || text == "TRUE") return Tree::Bool(true, origin);
  if (text == "false" || text == "False" || text == "FALSE") return Tree::Bool(false, origin);
  std::string_view digits = text;
  if (digits[0] == '+' || digits[0] == '-') digits.remove_prefix(1);
  if (IsDigits(digits)) {
    std::int64_t value = 0;
    std::string_view s = text;
    if (s[0] == '+') s.remove_prefix(1);
    auto [ptr, ec] = std::from_chars(s.data(), s.data() + s.size(), value);
    if (ec == std::errc() && ptr == s.data() + s.size()) return Tree::Int(value, origin);
    return Tree::Float(text, origin);  // too large for int64
  }
  if (text.size() > 2 && text[0] == '0' && (text[1] == 'x' || text[1] == 'o')) {
    std::int64_t value = 0;
    int base = text[1] == 'x' ? 16 : 8;
    auto [ptr, ec] = std::from_chars(text.data() + 2, text.data() + text.size(), value, base);
    if (ec == std::errc() && ptr == text.data() + text.size()) return Tree::Int(value, origin);
  }
  if (LooksLikeFloat(text) || text == ".nan" || text == ".NaN" || text == ".NAN") {
    return Tree::Float(text, origin);
  }
  return Tree::String(text, origin);
}

std::vector<Tree> ReadYamlStream(std::string_view content, const std::string* file,
                                 const ReadLimits& limits) {
  auto at_offset = [&](std::size_t offset) {
    std::uint32_t line = 1, column = 1;
    for (std::size_t i = 0; i < offset; ++i) {
      if (content[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    return Origin::Input(file, line, column);
  };
  if (content.size() > limits.max_bytes) {
    throw Error(Diagnostic{Origin::Input(file, 1, 1), "", "",
                           fmt::format("input larger than {} bytes (document size limit)", limits.max_bytes)});
  }
  if (std::size_t bad = FindInvalidUtf8(content); bad != std::string_view::npos) {
    throw Error(Diagnostic{at_offset(bad), "", "", "invalid UTF-8"});
  }
  std::istringstream in{std::string(content)};
  TreeBuilder builder(file, limits);
  try {
    YAML::Parser parser(in);
    while (parser.HandleNextDocument(builder)) {
    }
  } catch (const YAML::DeepRecursion& e) {
    throw Error(Diagnostic{Origin::Input(file, static_cast<std::uint32_t>(e.mark.line + 1),
                                         static_cast<std::uint32_t>(e.mark.column + 1)),
                           "", "", "nesting too deep (nesting limit)"});
  } catch (const YAML::Exception& e) {
    Origin where = e.mark.is_null() ? Origin::Input(file, 1, 1)
                                    : Origin::Input(file, static_cast<std::uint32_t>(e.mark.line + 1),
                                                    static_cast<std::uint32_t>(e.mark.column + 1));
    throw Error(Diagnostic{where, "", "", fmt::format("malformed YAML: {}", e.msg)});
  }
  return builder.TakeDocuments();
}

}  // namespace trainer
