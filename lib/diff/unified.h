// Unified diffs of rendered YAML for `trainer diff -o unified`, with any number of context lines.
//
// dtl computes the edit script; its own unified printer has a fixed context of 3 lines, so the
// hunks are built here, the way GNU diff -U N builds them.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "diff/diff.h"
#include "yaml/tree.h"

namespace trainer {

// ANSI colours for unified output; empty strings when colour is off.
struct DiffColors {
  const char* header = "";  // ---, +++ and other header lines
  const char* hunk = "";    // @@ lines
  const char* removed = "";
  const char* added = "";
  const char* reset = "";

  static DiffColors On();
};

// The hunks ("@@ -a,b +c,d @@" and their lines, each Printable: util/quote.h) turning `from` into
// `to` with `context` lines of context around each change; "" when the two are equal.
std::string UnifiedHunks(const std::vector<std::string>& from, const std::vector<std::string>& to, std::size_t context,
                         const DiffColors& colors = {});

// Strings of more lines than this are diffed as one line: a long value that differs is shown
// removed and added whole, as the edit script of many changed lines costs their square.
inline constexpr std::size_t kWholeValueLines = 10'000;

// The lines of a value as WriteYaml writes it, with the runs of lines that hold a string of more
// than kWholeValueLines lines (its "key: |" line and its content).
struct YamlLines {
  struct Run {
    std::size_t begin = 0;
    std::size_t count = 0;
  };
  std::vector<std::string> lines;
  std::vector<Run> long_values;  // in line order
};
YamlLines WriteYamlLines(const Tree& value);

// UnifiedHunks, each long value diffed as one line.
std::string UnifiedHunks(const YamlLines& from, const YamlLines& to, std::size_t context,
                         const DiffColors& colors = {});

// Whether `value` is a string of more than kWholeValueLines lines.
bool IsLongValue(const Tree* value);

// The lines of `text`, without their newlines.
std::vector<std::string> SplitLines(const std::string& text);

// A changed multi-line string (an MPI hostfile, a Flux script) as a small line diff: the lines of
// the unified hunks turning the old string into the new one, with `context` lines of context.
// Empty when `change` is no such change, when either string has more than kWholeValueLines lines
// (then shown whole), or when the two differ only in a final newline.
std::vector<std::string> StringLineDiff(const FieldChange& change, std::size_t context, const DiffColors& colors = {});

// `to` with `changes` (differences from DiffTrees(from, to)) taken back, so that a unified diff no
// longer shows them: changed values get their old value, added ones are removed, removed ones are
// put back where they were, reordered keyed lists get their old order.
Tree UndoChanges(const Tree& to, const std::vector<FieldChange>& changes);

}  // namespace trainer
