// Reads YAML streams into Trees, with the position of every value. The only reader of yaml-cpp.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "yaml/tree.h"

namespace trainer {

// Bounds that keep hostile input from exhausting time or memory; documented in trainer(1).
struct ReadLimits {
  std::size_t max_depth = 256;                 // nesting of maps and lists (yaml-cpp stops at 500)
  std::size_t max_alias_nodes = 1'000'000;     // values copied for anchors and aliases, per stream
  std::size_t max_values = 1'000'000;          // values in one stream, alias copies included
  std::size_t max_bytes = 256u * 1024 * 1024;  // size of one stream; the loader reads no more
};

// Parses every document of `content`. `file` names the stream in positions and errors and must
// outlive the returned trees. Throws Error (file:line:col: message) on malformed YAML, duplicate
// keys, invalid UTF-8 or exceeded limits. Empty documents are skipped. As kubectl does, a UTF-8
// byte order mark is accepted at the start of the stream and of each document after "---", and
// plain scalars resolve as in YAML 1.1 (go-yaml v2): yes/no/on/off/y/n are booleans, 010 is
// octal, 0b101 binary and 1_000 an integer.
std::vector<Tree> ReadYamlStream(std::string_view content, const std::string* file,
                                 const ReadLimits& limits = {});

// How ForEachYamlDocument may share out the parse of a long stream. yaml-cpp parses a document
// the same way whether it starts the stream or follows others (short of directives, which carry
// over), so the stream is cut at "---" lines into pieces of about `piece_bytes`, parsed side by side
// (on `helpers` threads besides the caller's) and handed over in order. A piece counts only once
// the parse of the piece before it has reached its first line as the start of a document; past any
// piece that did not (or that failed, or went over a limit) the stream is parsed again in turn.
// Documents, positions, errors and limits are those of the parse in turn.
struct ParseSplit {
  std::size_t piece_bytes = 0;  // 0: never cut (and no helpers)
  std::size_t helpers = 0;
  std::size_t window = 8;       // pieces parsed at most ahead of the one being handed over
  std::size_t* pieces_used = nullptr;  // if set: how many pieces were handed over from their own parse
};

// ReadYamlStream, handing each document to `each` as soon as it is read (which may take it), so
// that a long stream is never held as Trees all at once. When the stream turns out malformed,
// throws Error after the documents before the problem went to `each`. `each` runs on the calling
// thread, in order.
void ForEachYamlDocument(std::string_view content, const std::string* file,
                         const std::function<void(Tree&)>& each, const ReadLimits& limits = {},
                         const ParseSplit& split = {});

class SplitParse;

// A stream parsed as ForEachYamlDocument parses it, where other threads than the one handing the
// documents over may lend a hand with its pieces: a thread that has a stream to parse can pass it
// on, help with its parse, and move on to its next stream while the pieces are handed over.
class PieceParse {
 public:
  // Keeps `content`, checked as ForEachYamlDocument checks it (throws the same Error).
  PieceParse(std::string content, const std::string* file, const ReadLimits& limits, const ParseSplit& split);
  PieceParse(const PieceParse&) = delete;
  PieceParse& operator=(const PieceParse&) = delete;
  ~PieceParse();

  // On one thread, once: ForEachYamlDocument(content, file, each, limits, split). Once it returned
  // or threw, Help returns at once.
  void Run(const std::function<void(Tree&)>& each);
  // On any other thread: parses pieces ahead of the ones handed over, as the window lets it, until
  // none is left to cut or the parse stopped. Waits while the window is full: where Run may never
  // be called, Stop first.
  void Help();
  // On any thread but Run's, or on Run's before Run: parses one piece ahead, if the window has room
  // for one and one is left to cut; whether it did. Never waits for the parse of another thread.
  bool HelpOnce();
  // Makes Help return, now and later.
  void Stop();

 private:
  std::string content_;
  const std::string* file_;
  ReadLimits limits_;
  ParseSplit split_;
  std::unique_ptr<SplitParse> parse_;  // none when the stream is not cut
};

// The type a plain (unquoted) scalar resolves to, as go-yaml v2 (and so kubectl) resolves it;
// for the writers' quoting decisions too.
Tree ResolvePlainScalar(const std::string& text, const Origin& origin);

}  // namespace trainer
