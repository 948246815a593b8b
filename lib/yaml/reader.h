// Reads YAML streams into Trees, with the position of every value. The only reader of yaml-cpp.
#pragma once

#include <cstddef>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "yaml/resolve.h"  // ResolvePlainScalar, for the readers of plain scalars
#include "yaml/tree.h"

namespace trainer {

// What one rendering may hold: `trainer render` fails past it (the output size limit, counted over
// the whole run) and `trainer diff FROM TO` reads a stream of that much (RenderingLimits), so that
// diff reads back whatever render writes. The value limit (a map key counts as one), one per 8
// bytes, is met before the byte limit only by an unusually dense rendering, and it bounds the memory
// diff takes for a stream of short values.
constexpr std::size_t kMaxRenderedBytes = std::size_t{256} * 1024 * 1024;
constexpr std::size_t kMaxRenderedValues = kMaxRenderedBytes / 8;

// Bounds that keep hostile input from exhausting time or memory; documented in trainer(1).
struct ReadLimits {
  std::size_t max_depth = 256;                 // nesting of maps and lists (yaml-cpp stops at 500)
  std::size_t max_alias_nodes = 1'000'000;     // values copied for anchors and aliases, per stream
  std::size_t max_values = 1'000'000;          // values in one stream, alias copies included
  std::size_t max_bytes = kMaxRenderedBytes;   // size of one stream; the loader reads no more
};

// The limits of reading a rendering back: an input's, with as many values as a rendering may hold.
inline ReadLimits RenderingLimits() {
  ReadLimits limits;
  limits.max_values = kMaxRenderedValues;
  return limits;
}

// The values of `tree` as the reader counts them against max_values: each map, list and scalar,
// and each map key.
inline std::size_t CountValues(const Tree& tree) {
  std::size_t n = 1 + (tree.IsMap() ? tree.size() : 0);
  for (const Tree& item : tree.items()) n += CountValues(item);
  return n;
}

// Parses every document of `content`. `file` names the stream in positions and errors and must
// outlive the returned trees. Throws Error (file:line:col: message) on malformed YAML, duplicate
// keys, invalid UTF-8, exceeded limits, and raw characters that kubectl's YAML 1.1 reader refuses
// or reads otherwise, wherever they stand (comments too): the control characters but TAB, LF and
// CR LF; NEL, U+2028, U+2029 and a lone CR, line breaks there; DEL, the C1 controls, U+FFFE and
// U+FFFF. In a stream kubectl reads as JSON (its first character but blanks is "{"), DEL and
// every character beyond ASCII may stand raw, as kubectl's JSON reader allows them in strings.
// UTF-16 with a byte order mark reads as its UTF-8 form (DecodeUtf16). Empty documents are
// skipped. As kubectl does, a UTF-8 byte order mark is accepted at the start of the stream and of
// each document after "---", and plain scalars resolve as in YAML 1.1 (go-yaml v2):
// yes/no/on/off/y/n are booleans, 010 is octal, 0b101 binary and 1_000 an integer.
std::vector<Tree> ReadYamlStream(std::string_view content, const std::string* file,
                                 const ReadLimits& limits = {});

// kubectl's reading of a file's encoding (cli-runtime decodes input files through a byte order
// mark override): UTF-16, little- or big-endian, that starts with its byte order mark is returned
// as UTF-8, without the mark; other content as nullopt, to be read as UTF-8. Throws Error
// (file:line:col, the column counted in bytes of the UTF-8 form) where the UTF-16 does not decode,
// at file:1:1 for UTF-32 with a byte order mark, which kubectl reads as text full of NUL bytes and
// refuses, and where `content` is larger than the size limit. ReadYamlStream does this itself; a
// caller that keeps the text to show its lines calls it first.
std::optional<std::string> DecodeUtf16(std::string_view content, const std::string* file,
                                       const ReadLimits& limits = {});

// ReadYamlStream, handing each document to `each` as soon as it is read (which may take it), so
// that a long stream is never held as Trees all at once. When the stream turns out malformed,
// throws Error after the documents before the problem went to `each`. The stream is parsed once,
// from its start, through yaml-cpp's event API alone.
void ForEachYamlDocument(std::string_view content, const std::string* file,
                         const std::function<void(Tree&)>& each, const ReadLimits& limits = {});

}  // namespace trainer
