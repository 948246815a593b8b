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

// The hunks ("@@ -a,b +c,d @@" and their lines) turning `from` into `to` with `context` lines of
// context around each change; "" when the two are equal.
std::string UnifiedHunks(const std::vector<std::string>& from, const std::vector<std::string>& to, std::size_t context,
                         const DiffColors& colors = {});

// The lines of `text`, without their newlines.
std::vector<std::string> SplitLines(const std::string& text);

// `to` with `changes` (differences from DiffTrees(from, to)) taken back, so that a unified diff no
// longer shows them: changed values get their old value, added ones are removed, removed ones are
// put back where they were, reordered keyed lists get their old order.
Tree UndoChanges(const Tree& to, const std::vector<FieldChange>& changes);

}  // namespace trainer
