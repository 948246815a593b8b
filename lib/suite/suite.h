// `trainer test`: runs folders of golden cases in the project's layout and compares semantically.
//
// A case is a folder holding `input.yaml` and/or `args` (extra render arguments, whitespace-separated,
// paths relative to the current directory), and the expected result: `current.yaml` and, where the
// rendering with --legacy differs from it, `legacy.yaml`; or `error` (text the error message must
// contain). Renderings are compared as object trees: map order, quoting, comments and the JSON/YAML
// spelling do not matter, list order does. Differences are named by lib/diff field paths.
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "input/loader.h"
#include "render/render.h"
#include "util/staged_files.h"
#include "yaml/tree.h"

namespace trainer {

// One change to an expected file: new content, or the removal of an obsolete file.
struct ExpectedFileChange {
  std::string path;
  std::optional<std::string> content;  // nullopt: remove
};

// Applies `changes` so that every file is always either whole and old or whole and new: all new
// contents are first written to temporaries (StagedFiles); if one of them fails, the temporaries
// are removed and no expected file has changed. Then each temporary is renamed over its file, then
// obsolete files are removed. Throws Error saying what was and was not changed.
void ApplyChanges(const std::vector<ExpectedFileChange>& changes, FileWriter& writer);

enum class SuiteMode {
  kRecord,  // the default: compare, and write the expected files of cases that have none
  kCheck,   // compare only; a case without expected files fails (for CI)
  kUpdate,  // rewrite the expected files that differ, remove the obsolete ones
};

// The objects of a rendering or an expected file: its documents, with v1 List documents (the
// shape of `-o json`) replaced by their items.
std::vector<Tree> ExpectedObjects(std::vector<Tree> documents);

// Report lines saying how `rendered` differs from `expected`, one object at a time, expected on
// the left of each arrow: "<file>: JobSet default/job:" then "  <field path>: old → new", values
// one-line as `trainer diff` prints them (FlowValue). Also objects missing on either side and
// objects in another order. Empty when they agree.
std::vector<std::string> CompareObjects(const std::string& file, const std::vector<Tree>& expected,
                                        const std::vector<Tree>& rendered);

// How a suite runs. Besides parse_args, what trainer's own golden cases (tests/cases/, run by
// tests/golden.cpp) promise beyond users' cases; `trainer test` runs with the defaults.
struct SuiteOptions {
  // Reads a case's `args` into what they ask to render, with `trainer render`'s own option table
  // (app::ParseCaseArgs); throws Error. Needed by every suite whose cases have args.
  std::function<RenderRequest(const std::vector<std::string>& args)> parse_args;
  // Expected files hold the rendering byte for byte; a mismatch is reported as a unified diff.
  bool exact = false;
  // "" or a TRAINER_PLUGIN_ORDER value (reversed, rotated:N): the order the plugins run in. With an
  // order, a rendering case holding a file `order-dependent` (saying why) must render differently
  // from its expected files, so that the note stays true, and those differences are not failures.
  std::string plugin_order;
};

struct CaseResult {
  enum class Status { kPassed, kFailed, kSkipped };
  std::string dir;
  Status status = Status::kPassed;
  // What differs or went wrong, for failures; for updated cases, what was different; for skipped
  // ones, why. Lines relative to the case, continuation lines indented by two spaces.
  std::vector<std::string> report;
  // For cases whose expected files are (re)written: "wrote current.yaml, legacy.yaml; removed error".
  std::string action;
  bool recorded = false;  // a new case whose expected files are written for the first time
  std::vector<ExpectedFileChange> changes;
  // Holds a legacy.yaml that repeats current.yaml, as the rendering with --legacy is the same as
  // without: the case passes, and --update removes the file (set by runs without --update).
  bool redundant_legacy = false;
};

struct SuiteResult {
  std::vector<CaseResult> cases;
  std::size_t passed = 0;
  std::size_t failed = 0;
  std::size_t skipped = 0;
};

// Whether `dir` holds any file of a case (input.yaml, args, current.yaml, legacy.yaml, error).
bool IsCaseDir(const std::string& dir);

// The case folders of each DIR, in order: DIR itself when it is a case, otherwise every case
// below it (sorted by name, not looking inside cases, hidden folders left out). Throws Error for
// a DIR that is missing, is not a folder or holds no case.
std::vector<std::string> FindCases(const std::vector<std::string>& dirs);

// Renders one case in-process and compares it with its expected files. Never throws for a
// problem of the case itself (it fails); the changes it would make are returned, not applied.
CaseResult RunCase(const std::string& dir, SuiteMode mode, FileSystem& fs, const SuiteOptions& options = {});

SuiteResult RunSuite(const std::vector<std::string>& case_dirs, SuiteMode mode, FileSystem& fs,
                     const SuiteOptions& options = {});

// What the report leaves out but the user may act on, one line each, for standard error: the
// count of cases with a redundant legacy.yaml.
std::vector<std::string> Notices(const SuiteResult& result);

// The text report: failing, skipped, new and updated cases, then "N passed, N failed[, N skipped]".
std::string FormatText(const SuiteResult& result);

// JUnit XML: one testsuite, one testcase per case (classname: its parent folder).
std::string FormatJUnit(const SuiteResult& result);

}  // namespace trainer
