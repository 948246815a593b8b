// `trainer test`: options and output.
#include <cstdio>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include "app/commands.h"
#include "input/loader.h"
#include "suite/suite.h"
#include "util/error.h"

namespace trainer::app {

namespace {

struct TestFlags {
  std::vector<std::string> dirs;
  bool update = false;
  bool check = false;
  std::string output = "text";
  bool quiet = false;  // --quiet: the exit status says it all
};

int RunTest(const TestFlags& flags) {
  SuiteMode mode = flags.update ? SuiteMode::kUpdate : flags.check ? SuiteMode::kCheck : SuiteMode::kRecord;
  std::vector<std::string> cases = FindCases(flags.dirs);
  auto fs = NewRealFileSystem();
  SuiteOptions options;
  options.parse_args = ParseCaseArgs;
  SuiteResult result = RunSuite(cases, mode, *fs, options);
  std::vector<ExpectedFileChange> changes;
  for (const CaseResult& c : result.cases) changes.insert(changes.end(), c.changes.begin(), c.changes.end());
  if (mode != SuiteMode::kCheck && !changes.empty()) ApplyChanges(changes, *NewRealFileWriter());
  const int status = result.failed == 0 ? 0 : 1;
  if (flags.quiet) return status;
  WriteStdout(flags.output == "junit" ? FormatJUnit(result) : FormatText(result));
  for (const std::string& notice : Notices(result)) std::cerr << "trainer: " << notice << '\n';
  return status;
}

}  // namespace

Run SetupTest(CLI::App& command) {
  auto flags = std::make_shared<TestFlags>();
  command.add_option("DIR", flags->dirs, "A golden case folder, or a folder of them (searched recursively)")
      ->required()
      ->type_name("DIR");
  CLI::Option* update = command.add_flag(
      "--update", flags->update,
      "Rewrite the expected files that differ from the rendering and remove obsolete ones (atomically)");
  CLI::Option* check =
      command.add_flag("--check", flags->check, "Never write: a case without expected files fails (for CI)");
  update->excludes(check);
  command.add_option("-o,--output", flags->output, "Report format: text, or JUnit XML for CI systems")
      ->check(CLI::IsMember({"text", "junit"}))
      ->capture_default_str()
      ->type_name("FORMAT");
  command.add_flag("-q,--quiet", flags->quiet,
                   "Print nothing but errors: the exit status tells whether every case passes");
  return [flags] { return RunTest(*flags); };
}

}  // namespace trainer::app
