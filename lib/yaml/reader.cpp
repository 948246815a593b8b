#include "yaml/reader.h"

#include <fmt/format.h>
#include <yaml-cpp/depthguard.h>
#include <yaml-cpp/eventhandler.h>
#include <yaml-cpp/exceptions.h>
#include <yaml-cpp/parser.h>

#include <algorithm>
#include <array>
#include <cstdint>
#include <cstring>
#include <functional>
#include <istream>
#include <optional>
#include <streambuf>
#include <unordered_map>
#include <unordered_set>

#include "util/error.h"
#include "util/quote.h"
#include "yaml/resolve.h"

namespace trainer {

namespace {

constexpr std::string_view kStrTag = "tag:yaml.org,2002:str";

// What ScanText found: the offset of the first character it stops at, and that character (or
// kNotUtf8 for a byte that is not valid UTF-8); npos when it found none.
constexpr char32_t kNotUtf8 = 0xFFFFFFFF;
struct Stop {
  std::size_t offset = std::string_view::npos;
  char32_t character = 0;
};

// The characters beyond ASCII a YAML stream may hold raw as kubectl reads one. go-yaml v2 refuses
// the control characters but TAB, LF, CR and NEL, and U+FFFE and U+FFFF; it also takes NEL,
// U+2028, U+2029 and a CR without an LF after it for line breaks, where yaml-cpp reads them as
// text: a file holding one of those would read as other objects in kubectl than in trainer.
bool AllowedInStream(char32_t c) { return (c >= 0xA0 && c <= 0xFFFD && c != 0x2028 && c != 0x2029) || c >= 0x10000; }

// Bytes that need no second look in a stream: TAB, LF and printable ASCII.
constexpr std::array<bool, 256> kPlainStreamBytes = [] {
  std::array<bool, 256> plain{};
  plain['\t'] = plain['\n'] = true;
  for (int c = 0x20; c < 0x7F; ++c) plain[static_cast<std::size_t>(c)] = true;
  return plain;
}();

// Scans `s` for the first byte that is not valid UTF-8 and, with kStream, for the first character
// that AllowedInStream (or kPlainStreamBytes, or a CR before an LF) does not allow; in a JSON stream
// (`json`), DEL and every character beyond ASCII are allowed (ReadAsJson).
template <bool kStream>
Stop ScanText(std::string_view s, bool json = false) {
  constexpr std::uint64_t kOnes = 0x0101010101010101u;
  constexpr std::uint64_t kHighBits = 0x8080808080808080u;
  std::size_t i = 0;
  while (i < s.size()) {
    // ASCII, the common case, eight bytes at a time; in a stream, only words without a byte below
    // 0x20 or DEL (TAB and LF take the byte-wise path). With every byte below 0x80, a byte below
    // 0x20 borrows into its high bit when 0x20 is subtracted, and DEL does when its XOR with 0x7F,
    // zero, has 1 subtracted.
    std::uint64_t word = 0;
    while (i + sizeof word <= s.size()) {
      std::memcpy(&word, s.data() + i, sizeof word);
      if ((word & kHighBits) != 0) break;
      if (kStream && (((word - 0x20 * kOnes) | ((word ^ 0x7F * kOnes) - kOnes)) & kHighBits) != 0) break;
      i += sizeof word;
    }
    if (i == s.size()) break;
    auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x80) {
      const bool allowed =
          kPlainStreamBytes[c] || (c == '\r' && i + 1 < s.size() && s[i + 1] == '\n') || (json && c == 0x7F);
      if (kStream && !allowed) return {i, c};
      ++i;
      continue;
    }
    std::size_t len = (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xE ? 3 : (c >> 3) == 0x1E ? 4 : 0;
    if (len == 0 || i + len > s.size()) return {i, kNotUtf8};
    char32_t cp = len == 2 ? (c & 0x1F) : len == 3 ? (c & 0x0F) : (c & 0x07);
    for (std::size_t k = 1; k < len; ++k) {
      auto cont = static_cast<unsigned char>(s[i + k]);
      if ((cont & 0xC0) != 0x80) return {i, kNotUtf8};
      cp = (cp << 6) | (cont & 0x3F);
    }
    static constexpr char32_t kMinForLength[] = {0, 0, 0x80, 0x800, 0x10000};
    bool overlong = cp < kMinForLength[len];
    bool surrogate = cp >= 0xD800 && cp <= 0xDFFF;
    if (overlong || surrogate || cp > 0x10FFFF) return {i, kNotUtf8};
    if (kStream && !json && !AllowedInStream(cp)) return {i, cp};
    i += len;
  }
  return {};
}

// Returns the offset of the first byte that is not valid UTF-8, or npos.
std::size_t FindInvalidUtf8(std::string_view s) { return ScanText<false>(s).offset; }

// Whether kubectl reads `text` as a stream of JSON values: apimachinery's YAMLOrJSONDecoder does
// when its first character but blanks is "{", and refuses it when it is no JSON. Its JSON reader
// takes NEL, U+2028 and U+2029 in a string for characters as yaml-cpp does, allows DEL and the C1
// controls there, and refuses them and every other control character elsewhere.
bool ReadAsJson(std::string_view text) {
  const std::size_t first = text.find_first_not_of(" \t\r\n");
  return first != std::string_view::npos && text[first] == '{';
}

// A quoted scalar as yaml-cpp decodes it, with the escapes \N and \_ in UTF-8: yaml-cpp writes them
// as the single bytes 0x85 and 0xA0. The stream itself is valid UTF-8, so no other byte of the
// value can be invalid.
std::string Utf8Escapes(const std::string& value) {
  std::size_t bad = FindInvalidUtf8(value);
  if (bad == std::string::npos) return value;
  std::string out = value.substr(0, bad);
  for (std::size_t i = bad; i < value.size();) {
    const std::size_t next = FindInvalidUtf8(std::string_view(value).substr(i));
    if (next != 0) {
      const std::size_t len = next == std::string::npos ? value.size() - i : next;
      out.append(value, i, len);
      i += len;
      continue;
    }
    out.push_back('\xC2');
    out.push_back(value[i++]);
  }
  return out;
}

constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";

// Whether `line` separates documents as kubectl's YAML reader sees it: "---", then nothing but
// blanks or a comment.
bool IsDocumentSeparator(std::string_view line) {
  if (line.substr(0, 3) != "---") return false;
  std::size_t i = 3;
  while (i < line.size() && (line[i] == ' ' || line[i] == '\t' || line[i] == '\r')) ++i;
  return i == line.size() || line[i] == '#';
}

// kubectl splits a stream at "---" lines and decodes each document on its own, and go-yaml skips
// a byte order mark at the start of its input: so a mark may open the stream and each document.
// Returns the content without those marks, or nullopt when it has none.
std::optional<std::string> WithoutByteOrderMarks(std::string_view content) {
  std::optional<std::string> out;
  if (content.find(kByteOrderMark) == std::string_view::npos) return out;
  bool at_document_start = true;
  std::size_t copied = 0;  // content before this offset is in `out`
  for (std::size_t line_start = 0; line_start < content.size();) {
    std::size_t end = content.find('\n', line_start);
    if (end == std::string_view::npos) end = content.size();
    std::string_view line = content.substr(line_start, end - line_start);
    if (at_document_start && line.substr(0, kByteOrderMark.size()) == kByteOrderMark) {
      if (!out) out.emplace();
      out->append(content.substr(copied, line_start - copied));
      copied = line_start + kByteOrderMark.size();
    }
    at_document_start = IsDocumentSeparator(line);
    line_start = end + 1;
  }
  if (out) out->append(content.substr(copied));
  return out;
}

// A read-only stream buffer over a string that yaml-cpp reads, so that the input is not copied.
class ViewBuffer : public std::streambuf {
 public:
  explicit ViewBuffer(std::string_view s) {
    char* begin = const_cast<char*>(s.data());  // the get area is never written through
    setg(begin, begin, begin + s.size());
  }
};

// yaml-cpp 0.7 accepts a quoted scalar left open at the end of the stream when a line break
// follows its opening line (`a: "x` + newline reads as "x "); go-yaml, and so kubectl, rejects it.
// Whether the scalar at `pos` is closed, or is no quoted scalar that opens there.
bool QuotedScalarClosed(std::string_view content, std::size_t pos) {
  if (pos >= content.size() || (content[pos] != '"' && content[pos] != '\'')) return true;
  char quote = content[pos];
  for (std::size_t i = pos + 1; i < content.size(); ++i) {
    if (quote == '"' && content[i] == '\\') {
      ++i;
    } else if (content[i] == quote) {
      if (quote == '\'' && i + 1 < content.size() && content[i + 1] == '\'') {
        ++i;  // '' is an escaped quote
      } else {
        return true;
      }
    }
  }
  return false;
}

// yaml-cpp's message for a tab in indentation ("end of map not found", "illegal map value") does
// not say what is wrong. The column of a tab in the indentation of line `line` (0-based), or 0.
std::size_t TabInIndentation(std::string_view content, int line) {
  std::size_t start = 0;
  for (int i = 0; i < line && start != std::string_view::npos; ++i) {
    start = content.find('\n', start);
    if (start != std::string_view::npos) ++start;
  }
  if (start == std::string_view::npos) return 0;
  for (std::size_t i = start; i < content.size() && (content[i] == ' ' || content[i] == '\t'); ++i) {
    if (content[i] == '\t') return i - start + 1;
  }
  return 0;
}

// What yaml-cpp's message `message`, thrown at offset `pos` of `content`, means in a user's words:
// what to look for at that line. Matched against yaml-cpp's own constants (YAML::ErrorMsg), so
// that a yaml-cpp that words or throws them otherwise fails reader_test.cpp instead of passing
// with its raw text. Unmapped messages are kept as they are.
std::string ExplainYamlError(const std::string& message, std::string_view content, std::size_t pos) {
  namespace M = YAML::ErrorMsg;
  const char at = pos < content.size() ? content[pos] : '\0';
  const std::string shown = at > ' ' && at < 0x7f ? std::string(1, at) : std::string();
  if (message == M::END_OF_MAP) {
    return "this line does not fit the map it is in: indent a key as the keys beside it (in the same column), put "
           "a list item (\"- \") under its key, and write nothing after a quoted value";
  }
  if (message == M::MAP_VALUE) {
    return "a \":\" where no value can start: the line above may miss the \":\" after its key, this key may be "
           "indented deeper than the keys beside it, or a value holding \": \" needs quotes";
  }
  if (message == M::END_OF_SEQ) {
    return "this line does not fit the list it is in: start the \"- \" of its items in the same column";
  }
  if (message == M::END_OF_SEQ_FLOW) return "a \"[\" is not closed: a \"]\" is missing, or a \",\" between items";
  if (message == M::END_OF_MAP_FLOW) return "a \"{\" is not closed: a \"}\" is missing, or a \",\" between entries";
  if (message == M::FLOW_END) {
    return fmt::format("\"{}\" closes no \"[\" or \"{{\": remove it, or quote the value that holds it",
                       shown.empty() ? "]" : shown);
  }
  if (message == M::BLOCK_ENTRY) {
    return "a list item (\"- \") cannot start here: put it on a line of its own, under its key, or quote a value "
           "that starts with \"- \"";
  }
  if (message == M::UNKNOWN_TOKEN) {
    return shown.empty() ? "a value cannot start with this character: quote it"
                         : fmt::format("a value cannot start with \"{}\": quote it", shown);
  }
  if (message.rfind(M::INVALID_ESCAPE, 0) == 0) {
    const std::string escape = message.substr(std::strlen(M::INVALID_ESCAPE));
    return fmt::format("unknown escape \"\\{}\" in a double-quoted value: write \"\\\\{}\", or use single quotes",
                       escape, escape);
  }
  if (message == M::UNKNOWN_ANCHOR) {
    std::size_t end = pos + 1;
    while (end < content.size() && std::string_view(" \t\r\n,]}").find(content[end]) == std::string_view::npos) ++end;
    const std::string_view name = at == '*' ? content.substr(pos + 1, end - pos - 1) : std::string_view();
    if (name.empty()) return "an alias refers to no anchor defined before it";
    return fmt::format("the alias \"*{}\" refers to no anchor \"&{}\" defined before it", name, name);
  }
  if (message == M::DOC_IN_SCALAR) {
    return "a \"---\" or \"...\" line inside a quoted value: its closing quote is missing";
  }
  if (message == M::EOF_IN_SCALAR) return "a quoted value is not closed: its closing quote is missing";
  if (message == M::CHAR_IN_BLOCK) {
    return "text after \"|\" or \">\": only an indentation digit, \"+\" or \"-\", and a comment may follow them";
  }
  return message;
}

std::string NestingMessage(const ReadLimits& limits) {
  return fmt::format("nesting deeper than {} levels (nesting limit)", limits.max_depth);
}

// yaml-cpp's scanner reads a flow collection ahead before it hands out any event, so `[` repeated
// millions of times costs gigabytes before the nesting limit sees a level. The offset of the first
// `[` or `{` that opens a flow collection deeper than `max_depth`, or npos. A scan of the text as
// YAML's syntax has it: brackets in quoted and block scalars, in comments and inside plain text
// open nothing. Where it is unsure it counts less, never more, so that valid input never fails here;
// the parse keeps the exact limits.
std::size_t FlowNestingPastLimit(std::string_view text, std::size_t max_depth) {
  const std::size_t n = text.size();
  auto blank = [&](std::size_t i) { return i >= n || text[i] == ' ' || text[i] == '\t' || text[i] == '\n' || text[i] == '\r'; };
  std::size_t depth = 0;            // open flow collections
  bool node_start = true;           // a node may start here
  bool after_space = true;          // at a line start or after a blank: `#` starts a comment
  std::size_t line_indent = 0;      // the indentation of the current line
  bool line_is_document_start = false;
  std::ptrdiff_t block_parent = -2;  // in a block scalar: its parent's indentation (-1 at document level)
  std::size_t i = 0;
  std::size_t next_line = 0;  // the offset of the next line start to look at
  while (i < n) {
    // A line start: its indentation; a block scalar's content lines are skipped whole.
    if (i == next_line) {
      std::size_t indent = 0;
      while (i + indent < n && text[i + indent] == ' ') ++indent;
      std::size_t end = text.find('\n', i);
      if (end == std::string_view::npos) end = n;
      next_line = end + 1;
      const bool empty = i + indent >= end || text[i + indent] == '\r';
      const std::string_view line = text.substr(i, end - i);
      const bool marker = line.substr(0, 3) == "---" || line.substr(0, 3) == "...";
      const bool document_marker = marker && (line.size() == 3 || blank(i + 3));
      if (block_parent != -2) {
        const bool content = block_parent == -1 ? !document_marker : (empty || static_cast<std::ptrdiff_t>(indent) > block_parent);
        if (content) {
          i = end < n ? end + 1 : n;
          continue;
        }
        block_parent = -2;
      }
      line_indent = indent;
      line_is_document_start = document_marker && line.substr(0, 3) == "---";
      if (document_marker) {
        depth = 0;  // a flow collection does not cross documents; the parse reports it
        node_start = true;
        after_space = true;
        i += 3;
        continue;
      }
      i += indent;
      after_space = true;
      if (depth == 0) node_start = true;
      continue;
    }
    const char c = text[i];
    if (c == ' ' || c == '\t' || c == '\r' || c == '\n') {
      after_space = true;
      ++i;
      continue;
    }
    if (c == '#' && after_space) {  // a comment, to the end of the line
      i = text.find('\n', i);
      if (i == std::string_view::npos) i = n;
      continue;
    }
    after_space = false;
    if (node_start && (c == '"' || c == '\'')) {  // a quoted scalar, over as many lines as it takes
      for (++i; i < n; ++i) {
        if (c == '"' && text[i] == '\\') {
          ++i;
        } else if (text[i] == c) {
          if (c == '\'' && i + 1 < n && text[i + 1] == '\'') {
            ++i;
          } else {
            break;
          }
        }
      }
      ++i;
      const std::size_t eol = text.find('\n', i);
      next_line = eol == std::string_view::npos ? n : eol + 1;
      node_start = false;
      continue;
    }
    if (node_start && (c == '&' || c == '!')) {  // an anchor or a tag before the node
      while (i < n && !blank(i)) ++i;
      continue;
    }
    if (depth > 0) {
      if (c == '[' || c == '{') {
        if (++depth > max_depth) return i;
        node_start = true;
      } else if (c == ']' || c == '}') {
        --depth;
        node_start = false;
      } else {
        node_start = c == ',' || c == ':' || c == '?';
      }
      ++i;
      continue;
    }
    if (node_start && (c == '[' || c == '{')) {
      if (++depth > max_depth) return i;
      node_start = true;
      ++i;
      continue;
    }
    if (node_start && (c == '|' || c == '>')) {  // a block scalar: its header ends the line
      block_parent = line_is_document_start ? -1 : static_cast<std::ptrdiff_t>(line_indent);
      i = text.find('\n', i);
      if (i == std::string_view::npos) i = n;
      continue;
    }
    if ((c == '-' || c == '?' || c == ':') && blank(i + 1) && (node_start || c == ':')) {
      node_start = true;  // a sequence entry, a complex key or a value follows
      ++i;
      continue;
    }
    node_start = false;  // plain text (a key or a scalar) to the next indicator
    ++i;
  }
  return std::string_view::npos;
}

// Builds Trees from yaml-cpp parser events.
class TreeBuilder : public YAML::EventHandler {
 public:
  // `content` is the stream yaml-cpp reads; its marks' offsets point into it.
  TreeBuilder(std::string_view content, const std::string* file, const ReadLimits& limits,
              const std::function<void(Tree&)>& each)
      : content_(content), file_(file), limits_(limits), each_(each) {}

  void OnDocumentStart(const YAML::Mark& mark) override {
    // yaml-cpp 0.7 loops on a stray flow indicator (a "," or "]" outside a flow collection),
    // starting empty documents at the same place forever.
    if (last_document_start_ && *last_document_start_ == mark.pos) {
      char c = static_cast<std::size_t>(mark.pos) < content_.size() ? content_[static_cast<std::size_t>(mark.pos)] : ' ';
      Fail(mark, c > ' ' && c < 0x7f ? fmt::format("malformed YAML: unexpected \"{}\"", c) : std::string("malformed YAML: unexpected character"));
    }
    last_document_start_ = mark.pos;
    anchors_.clear();
    stack_.clear();
    pending_keys_.clear();
    pending_items_.clear();
    has_root_ = false;
  }
  void OnDocumentEnd() override {
    if (has_root_ && !root_.IsNull()) each_(root_);
    root_ = Tree();
    has_root_ = false;
  }

  void OnNull(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    Complete(Tree::Null(At(mark)), anchor);
  }

  void OnAlias(const YAML::Mark& mark, YAML::anchor_t anchor) override {
    auto it = anchors_.find(anchor);
    if (it == anchors_.end()) Fail(mark, "unknown alias");
    ChargeCopy(it->second, mark);
    Complete(Tree(it->second), 0);
  }

  void OnScalar(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                const std::string& value) override {
    Origin origin = At(mark);
    // "?" marks a plain scalar without an explicit tag; "!" a quoted one.
    if (tag == "?") {
      // A plain "<<" key merges maps into this one, as go-yaml v2 does.
      if (value == "<<" && !stack_.empty() && stack_.back().value.IsMap() && !stack_.back().has_key) {
        CountValues(1, origin);
        Frame& top = stack_.back();
        top.has_key = top.merge = true;
        top.key_origin = origin;
        return;
      }
      Complete(ResolvePlainScalar(value, origin), anchor);
    } else {
      if (tag != "!" && tag != kStrTag) {
        Fail(mark, fmt::format("unsupported tag \"{}\"", tag));
      }
      if (!QuotedScalarClosed(content_, static_cast<std::size_t>(mark.pos))) {
        Fail(mark, "malformed YAML: quoted scalar not closed before the end of the stream");
      }
      Complete(Tree::String(Utf8Escapes(value), origin), anchor);
    }
  }

  void OnSequenceStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                       YAML::EmitterStyle::value) override {
    CheckCollectionTag(mark, tag, "tag:yaml.org,2002:seq");
    Push(Tree::List(At(mark)), anchor, mark);
  }
  void OnSequenceEnd() override {
    Pop();
  }

  void OnMapStart(const YAML::Mark& mark, const std::string& tag, YAML::anchor_t anchor,
                  YAML::EmitterStyle::value) override {
    CheckCollectionTag(mark, tag, "tag:yaml.org,2002:map");
    Push(Tree::Map(At(mark)), anchor, mark);
  }
  void OnMapEnd() override {
    Pop();
  }

 private:
  // A collection being read. Its entries wait on the builder's shared stacks (pending) until it
  // ends, and are then moved into it with one allocation each; a map of kIndexedMapSize keys, or
  // one with a merge key, takes them over at once and grows through Set.
  struct Frame {
    Tree value;
    std::size_t first_key = 0;   // pending: where its entries start on the builder's stacks
    std::size_t first_item = 0;
    bool pending = true;
    YAML::anchor_t anchor = 0;
    bool has_key = false;
    bool merge = false;  // the pending key is a merge key
    std::string key;
    Origin key_origin;
    std::unordered_set<std::string> merged_keys;  // keys set by a merge and not written since
  };

  Origin At(const YAML::Mark& mark) const {
    return Origin::Input(file_, static_cast<std::uint32_t>(mark.line + 1), static_cast<std::uint32_t>(mark.column + 1));
  }

  [[noreturn]] void Fail(const YAML::Mark& mark, std::string message) const {
    throw Error(Diagnostic{.where = At(mark), .message = std::move(message)});
  }
  [[noreturn]] void Fail(const Origin& origin, std::string message) const {
    throw Error(Diagnostic{.where = origin, .message = std::move(message)});
  }

  // Collections carry "?" without an explicit tag; the only explicit tag accepted is their own.
  void CheckCollectionTag(const YAML::Mark& mark, const std::string& tag, std::string_view own) const {
    if (tag != "?" && tag != "!" && !tag.empty() && tag != own) Fail(mark, fmt::format("unsupported tag \"{}\"", tag));
  }

  // The number of values in `t`, counting no further than `cap`.
  static std::size_t CountNodes(const Tree& t, std::size_t cap) {
    std::size_t n = 1;
    for (const auto& item : t.items()) {
      if (n > cap) break;
      n += CountNodes(item, cap - n);
    }
    return n;
  }

  // Copies for anchors and aliases share one budget: without it, nested anchors or aliases of
  // aliases ("billion laughs") make a small input take unbounded memory.
  void ChargeCopy(const Tree& value, const Origin& at) {
    std::size_t left = limits_.max_alias_nodes - alias_nodes_;
    alias_nodes_ += CountNodes(value, left);
    if (alias_nodes_ > limits_.max_alias_nodes) {
      Fail(at, fmt::format("anchors and aliases copy more than {} values (alias expansion limit)",
                           limits_.max_alias_nodes));
    }
    CountValues(CountNodes(value, limits_.max_values), at);
  }
  void ChargeCopy(const Tree& value, const YAML::Mark& mark) { ChargeCopy(value, At(mark)); }

  void CountValues(std::size_t n, const Origin& at) {
    values_ += n;
    if (values_ > limits_.max_values) {
      Fail(at, fmt::format("more than {} values in one stream (value count limit)", limits_.max_values));
    }
  }

  void Push(Tree value, YAML::anchor_t anchor, const YAML::Mark& mark) {
    if (stack_.size() >= limits_.max_depth) {
      Fail(mark, NestingMessage(limits_));
    }
    Frame frame;
    frame.value = std::move(value);
    frame.first_key = pending_keys_.size();
    frame.first_item = pending_items_.size();
    frame.anchor = anchor;
    stack_.push_back(std::move(frame));
  }

  void Pop() {
    Frame& top = stack_.back();
    if (top.has_key) Fail(top.key_origin, "mapping key without a value");
    TakeOverEntries(top);
    Tree value = std::move(top.value);
    YAML::anchor_t anchor = top.anchor;
    stack_.pop_back();
    Complete(std::move(value), anchor);
  }

  // Moves the frame's pending entries into its collection.
  void TakeOverEntries(Frame& frame) {
    if (!frame.pending) return;
    frame.pending = false;
    auto keys_from = pending_keys_.begin() + static_cast<std::ptrdiff_t>(frame.first_key);
    auto items_from = pending_items_.begin() + static_cast<std::ptrdiff_t>(frame.first_item);
    frame.value.AdoptEntries(std::vector<Tree::MapKey>(std::make_move_iterator(keys_from), std::make_move_iterator(pending_keys_.end())),
                             std::vector<Tree>(std::make_move_iterator(items_from), std::make_move_iterator(pending_items_.end())));
    pending_keys_.erase(keys_from, pending_keys_.end());
    pending_items_.erase(items_from, pending_items_.end());
  }

  // Whether the map of `frame` has `key` among its entries so far.
  bool HasKey(const Frame& frame, const std::string& key) const {
    if (!frame.pending) return frame.value.Find(key) != nullptr;
    for (std::size_t i = frame.first_key; i < pending_keys_.size(); ++i) {
      if (pending_keys_[i].text == key) return true;
    }
    return false;
  }
  // The line of `key` in the map of `frame`, which has it.
  std::uint32_t KeyLine(const Frame& frame, const std::string& key) const {
    if (frame.pending) {
      for (std::size_t i = frame.first_key; i < pending_keys_.size(); ++i) {
        if (pending_keys_[i].text == key) return pending_keys_[i].origin.line;
      }
    }
    std::size_t i = 0;
    while (frame.value.KeyAt(i) != key) ++i;
    return frame.value.KeyOriginAt(i).line;
  }

  void Complete(Tree value, YAML::anchor_t anchor) {
    CountValues(1, value.origin());
    if (anchor != 0) {
      ChargeCopy(value, value.origin());
      anchors_[anchor] = value;
    }
    if (stack_.empty()) {
      root_ = std::move(value);
      has_root_ = true;
      return;
    }
    Frame& top = stack_.back();
    if (top.value.IsList()) {
      if (top.pending) {
        pending_items_.push_back(std::move(value));
      } else {
        top.value.Append(std::move(value));
      }
      return;
    }
    if (!top.has_key) {
      if (!value.IsScalar()) Fail(value.origin(), "mapping keys must be scalars");
      std::string key = value.IsNull() ? std::string("null") : value.text();
      if (HasKey(top, key) && top.merged_keys.erase(key) == 0) {
        Fail(value.origin(), fmt::format("duplicate key \"{}\" (first at line {})", key, KeyLine(top, key)));
      }
      top.key = std::move(key);
      top.key_origin = value.origin();
      top.has_key = true;
      return;
    }
    top.has_key = false;
    if (top.merge) {
      top.merge = false;
      TakeOverEntries(top);
      Merge(top, std::move(value));
      return;
    }
    if (top.pending) {
      pending_keys_.push_back(Tree::MapKey{std::move(top.key), top.key_origin});
      pending_items_.push_back(std::move(value));
      if (pending_keys_.size() - top.first_key >= Tree::kIndexedMapSize) TakeOverEntries(top);
      return;
    }
    top.value.Set(top.key, std::move(value), top.key_origin);
  }

  // go-yaml v2's merge: each key of the merged map is set in turn, replacing the value of a key
  // before it; of a list of maps, the earlier maps win. A key after the merge may replace a
  // merged one.
  void Merge(Frame& top, Tree value) {
    auto merge_map = [&](Tree& map) {
      for (std::size_t i = 0; i < map.size(); ++i) {
        top.value.Set(map.KeyAt(i), std::move(map.items()[i]), map.KeyOriginAt(i));
        top.merged_keys.insert(map.KeyAt(i));
      }
    };
    if (value.IsMap()) return merge_map(value);
    if (value.IsList()) {
      for (const Tree& item : value.items()) {
        if (!item.IsMap()) Fail(top.key_origin, "map merge requires map or sequence of maps as the value");
      }
      for (auto it = value.items().rbegin(); it != value.items().rend(); ++it) merge_map(*it);
      return;
    }
    Fail(top.key_origin, "map merge requires map or sequence of maps as the value");
  }

  std::string_view content_;
  std::optional<int> last_document_start_;
  const std::string* file_;
  const ReadLimits& limits_;
  std::vector<Frame> stack_;
  // The entries of the pending collections on the stack, each collection's after its parent's.
  std::vector<Tree::MapKey> pending_keys_;
  std::vector<Tree> pending_items_;
  std::unordered_map<YAML::anchor_t, Tree> anchors_;
  std::size_t alias_nodes_ = 0;
  std::size_t values_ = 0;
  Tree root_;
  bool has_root_ = false;
  const std::function<void(Tree&)>& each_;
};

}  // namespace

namespace {

// Parses `content` (checked, without byte order marks), handing each document to `each`. Throws
// Error where the stream is malformed or goes over a limit.
void Parse(std::string_view content, const std::string* file, const ReadLimits& limits,
           const std::function<void(Tree&)>& each) {
  ViewBuffer buffer(content);
  std::istream in(&buffer);
  TreeBuilder builder(content, file, limits, each);
  auto at = [&](const YAML::Mark& mark) {
    return Origin::Input(file, static_cast<std::uint32_t>(mark.line + 1), static_cast<std::uint32_t>(mark.column + 1));
  };
  try {
    YAML::Parser parser(in);
    while (parser.HandleNextDocument(builder)) {
    }
  } catch (const YAML::Exception& e) {
    if (const auto* deep = dynamic_cast<const YAML::DeepRecursion*>(&e)) {
      throw Error(Diagnostic{.where = at(deep->mark), .message = "nesting too deep (nesting limit)"});
    }
    Origin where = e.mark.is_null() ? Origin::Input(file, 1, 1) : at(e.mark);
    if (std::size_t tab = e.mark.is_null() ? 0 : TabInIndentation(content, e.mark.line); tab != 0) {
      throw Error(Diagnostic{.where = Origin::Input(file, where.line, static_cast<std::uint32_t>(tab)),
                             .message = "malformed YAML: a tab in indentation (YAML indents with spaces only)"});
    }
    const std::size_t pos = e.mark.is_null() ? content.size() : static_cast<std::size_t>(e.mark.pos);
    throw Error(Diagnostic{.where = where, .message = "malformed YAML: " + ExplainYamlError(e.msg, content, pos)});
  }
}

void CheckSize(std::size_t size, const std::string* file, const ReadLimits& limits) {
  if (size > limits.max_bytes) {
    throw Error(
        Diagnostic{.where = Origin::Input(file, 1, 1),
                   .message = fmt::format("input larger than {} bytes (document size limit)", limits.max_bytes)});
  }
}

// Why the character `c` that ScanText stopped at, at `offset` of a YAML or `json` stream, is
// refused, and how to write it.
std::string RefusedCharacter(char32_t c, std::size_t offset, bool json) {
  if (c == kNotUtf8) return "invalid UTF-8";
  const auto code = static_cast<std::uint32_t>(c);
  std::string name;
  std::string escape;  // in a YAML double-quoted string
  switch (c) {
    case 0: name = "NUL byte (0x00)", escape = "\\0"; break;
    case '\r': name = "a lone carriage return (0x0D)", escape = "\\r"; break;
    case 0x85: name = "U+0085 NEXT LINE (NEL)", escape = "\\N"; break;
    case 0x2028: name = "U+2028 LINE SEPARATOR", escape = "\\L"; break;
    case 0x2029: name = "U+2029 PARAGRAPH SEPARATOR", escape = "\\P"; break;
    default:
      if (c < 0x80) {
        name = fmt::format("control character 0x{:02X}", code);
      } else if (c < 0xA0) {
        name = fmt::format("control character U+{:04X}", code);
      } else {
        name = fmt::format("noncharacter U+{:04X}", code);
      }
      escape = c < 0x100 ? fmt::format("\\x{:02X}", code) : fmt::format("\\u{:04X}", code);
  }
  if (json && c == '\r') {
    return name +
           ", which kubectl's JSON reader takes for a blank: end lines with LF or CRLF, or write it as \"\\r\" "
           "inside a string";
  }
  if (json) return fmt::format("{}, which JSON does not allow: write it as \"\\u{:04X}\" inside a string", name, code);
  if (c == '\r' || c == 0x85 || c == 0x2028 || c == 0x2029) {
    return fmt::format(
        "{}, which kubectl's YAML reader takes for a line break: {}write it as \"{}\" inside a double-quoted string",
        name, c == '\r' ? "end lines with LF or CRLF, or " : "", escape);
  }
  std::string message = fmt::format(
      "{}, which YAML does not allow in a file: write it as \"{}\" inside a double-quoted string", name, escape);
  if (c == 0 && offset < 4) {
    message +=
        "; a file that starts with NUL bytes may be UTF-16 or UTF-32 text without a byte order mark: save it as UTF-8";
  }
  return message;
}

// Checks a stream before its parse: its size, its encoding, and its characters. Returns it as the
// UTF-8 text without byte order marks that yaml-cpp is to read, when that is not `content` itself.
std::optional<std::string> CheckStream(std::string_view content, const std::string* file, const ReadLimits& limits) {
  auto at_offset = [&](std::string_view text, std::size_t offset) {
    std::uint32_t line = 1, column = 1;
    for (std::size_t i = 0; i < offset; ++i) {
      if (text[i] == '\n') {
        ++line;
        column = 1;
      } else {
        ++column;
      }
    }
    return Origin::Input(file, line, column);
  };
  std::optional<std::string> decoded = DecodeUtf16(content, file, limits);
  if (decoded) {
    CheckSize(decoded->size(), file, limits);
    content = *decoded;
  }
  std::optional<std::string> without_marks = WithoutByteOrderMarks(content);
  std::string_view checked = without_marks ? std::string_view(*without_marks) : content;
  const bool json = ReadAsJson(checked);
  if (Stop stop = ScanText<true>(checked, json); stop.offset != std::string_view::npos) {
    throw Error(Diagnostic{.where = at_offset(checked, stop.offset),
                           .message = RefusedCharacter(stop.character, stop.offset, json)});
  }
  if (std::size_t deep = FlowNestingPastLimit(checked, limits.max_depth); deep != std::string_view::npos) {
    throw Error(Diagnostic{.where = at_offset(checked, deep), .message = NestingMessage(limits)});
  }
  return without_marks ? std::move(without_marks) : std::move(decoded);
}

}  // namespace

std::optional<std::string> DecodeUtf16(std::string_view content, const std::string* file, const ReadLimits& limits) {
  CheckSize(content.size(), file, limits);
  using namespace std::string_view_literals;
  for (std::string_view mark : {"\xFF\xFE\0\0"sv, "\0\0\xFE\xFF"sv}) {
    if (content.starts_with(mark)) {
      throw Error(Diagnostic{
          .where = Origin::Input(file, 1, 1),
          .message = fmt::format("UTF-32 text (byte order mark {}): kubectl reads UTF-8 and UTF-16 only; save "
                                 "the file as UTF-8",
                                 mark[0] == 0 ? "00 00 FE FF" : "FF FE 00 00")});
    }
  }
  const bool little = content.starts_with("\xFF\xFE"sv);
  if (!little && !content.starts_with("\xFE\xFF"sv)) return std::nullopt;
  std::string out;
  out.reserve(content.size() / 2 * 3);
  std::uint32_t line = 1;
  std::size_t line_start = 0;  // in `out`
  auto fail = [&](std::string message) {
    const auto column = static_cast<std::uint32_t>(out.size() - line_start + 1);
    throw Error(Diagnostic{.where = Origin::Input(file, line, column), .message = "invalid UTF-16: " + message});
  };
  auto unit = [&](std::size_t i) {
    const auto first = static_cast<unsigned char>(content[i]), second = static_cast<unsigned char>(content[i + 1]);
    return static_cast<char32_t>(little ? second << 8 | first : first << 8 | second);
  };
  for (std::size_t i = 2; i < content.size(); i += 2) {
    if (i + 1 == content.size()) fail("the file ends in half a character (an odd number of bytes)");
    char32_t c = unit(i);
    if (c >= 0xD800 && c <= 0xDFFF) {
      const char32_t low = i + 3 < content.size() ? unit(i + 2) : 0;
      if (c >= 0xDC00 || low < 0xDC00 || low > 0xDFFF) {
        fail(fmt::format("surrogate 0x{:04X} without its pair", static_cast<std::uint32_t>(c)));
      }
      c = 0x10000 + ((c - 0xD800) << 10) + (low - 0xDC00);
      i += 2;
    }
    AppendRune(out, c);
    if (c == '\n') {
      ++line;
      line_start = out.size();
    }
  }
  return out;
}

void ForEachYamlDocument(std::string_view content, const std::string* file,
                         const std::function<void(Tree&)>& each, const ReadLimits& limits) {
  std::optional<std::string> without_marks = CheckStream(content, file, limits);
  Parse(without_marks ? std::string_view(*without_marks) : content, file, limits, each);
}

std::vector<Tree> ReadYamlStream(std::string_view content, const std::string* file,
                                 const ReadLimits& limits) {
  std::vector<Tree> documents;
  ForEachYamlDocument(content, file, [&](Tree& doc) { documents.push_back(std::move(doc)); }, limits);
  return documents;
}

}  // namespace trainer
