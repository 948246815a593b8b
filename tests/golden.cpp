#include "tests/golden.h"

#include <fmt/format.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <sys/wait.h>
#include <vector>

#include "app/commands.h"
#include "diff/unified.h"
#include "input/loader.h"
#include "suite/suite.h"
#include "util/error.h"

namespace trainer::testing {

namespace {

namespace fs = std::filesystem;

std::string ReadAll(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return std::move(s).str();
}

std::string Quote(const std::string& arg) {
  std::string out = "'";
  for (char c : arg) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

struct Run {
  int exit_code;
  std::string out;
  std::string err;
};

Run RunTrainer(const std::vector<std::string>& args) {
  fs::path tmp = fs::temp_directory_path() / fmt::format("trainer-golden-{}", ::getpid());
  fs::create_directories(tmp);
  std::string command = Quote(TRAINER_BINARY);
  for (const auto& a : args) command += " " + Quote(a);
  command += fmt::format(" >{} 2>{} </dev/null", Quote((tmp / "out").string()), Quote((tmp / "err").string()));
  int status = std::system(command.c_str());
  Run run{WIFEXITED(status) ? WEXITSTATUS(status) : -1, ReadAll(tmp / "out"), ReadAll(tmp / "err")};
  fs::remove_all(tmp);
  return run;
}

std::string Trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

// The update switch: TRAINER_UPDATE_GOLDEN=1 rewrites the expected files instead of comparing.
// Golden files are assertions: read a changed golden against the upstream Go code before
// committing it; never regenerate to make a failing test pass (tests/cases/README.md).
bool UpdateGolden() {
  const char* value = std::getenv("TRAINER_UPDATE_GOLDEN");
  return value != nullptr && std::string(value) == "1";
}

// Whether the substring check `path` (a case's `stderr` or `error`) is there but empty, which would
// match any output: says so.
bool EmptyExpectation(const fs::path& path) {
  if (!fs::exists(path) || !Trim(ReadAll(path)).empty()) return false;
  std::cout << path.string() << ": empty, so it would match any message: write the text it must contain, "
            << "or remove the file\n";
  return true;
}

// A render case, through lib/suite as `trainer test` runs a user's suite but compared byte for byte
// (SuiteOptions::exact); the update switch writes as `trainer test --update` does.
int RunRenderCase(const std::string& case_dir, const std::string& plugin_order) {
  if (EmptyExpectation(fs::path(case_dir) / "error")) return 1;
  // The reruns in another plugin order only compare: the expected files are the registry order's.
  bool update = plugin_order.empty() && UpdateGolden();
  SuiteOptions options;
  options.parse_args = app::ParseCaseArgs;
  options.exact = true;
  options.plugin_order = plugin_order;
  auto files = NewRealFileSystem();
  CaseResult result = RunCase(case_dir, update ? SuiteMode::kUpdate : SuiteMode::kCheck, *files, options);
  if (result.status == CaseResult::Status::kSkipped) {
    for (const std::string& line : result.report) std::cout << "skipped: " << line << "\n";
    return kSkipped;
  }
  for (const std::string& line : result.report) std::cout << line << "\n";
  if (update && !result.changes.empty()) {
    try {
      ApplyChanges(result.changes, *NewRealFileWriter());
    } catch (const Error& e) {
      std::cout << e.what() << "\n";
      return 1;
    }
    std::cout << "updated " << case_dir << ": " << result.action << "\n";
  }
  return result.status == CaseResult::Status::kPassed ? 0 : 1;
}

// A command case: trainer run as a separate process with the case's arguments.
int RunCommandCase(const std::string& case_dir) {
  fs::path dir(case_dir);
  std::vector<std::string> args;
  std::istringstream in(ReadAll(dir / "cmd"));
  for (std::string a; in >> a;) {
    if (a.rfind("../shared/", 0) == 0 && !fs::exists(a)) {
      std::cout << "skipped: " << a << " is absent (../shared is not beside this checkout)\n";
      return kSkipped;
    }
    args.push_back(a);
  }
  if (EmptyExpectation(dir / "stderr")) return 1;
  Run run = RunTrainer(args);
  if (UpdateGolden()) {
    std::ofstream(dir / "stdout", std::ios::binary) << run.out;
    std::ofstream(dir / "exit", std::ios::binary) << run.exit_code << "\n";
    return 0;
  }
  int failures = 0;
  int want_exit = fs::exists(dir / "exit") ? std::stoi(ReadAll(dir / "exit")) : 0;
  if (run.exit_code != want_exit) {
    std::cout << "expected exit code " << want_exit << ", got " << run.exit_code << "\nstderr:\n" << run.err;
    ++failures;
  }
  std::string expected = ReadAll(dir / "stdout");
  if (expected != run.out) {
    std::cout << "--- " << (dir / "stdout").string() << " (expected)\n+++ trainer output (actual)\n"
              << UnifiedHunks(SplitLines(expected), SplitLines(run.out), 3);
    ++failures;
  }
  if (fs::exists(dir / "stderr")) {
    std::string want = Trim(ReadAll(dir / "stderr"));
    if (run.err.find(want) == std::string::npos) {
      std::cout << "stderr does not contain the expected text\n  expected: " << want << "\n  stderr:   " << run.err;
      ++failures;
    }
  }
  return failures == 0 ? 0 : 1;
}

}  // namespace

bool IsRenderCase(const fs::path& dir) {
  return !fs::exists(dir / "cmd") && (fs::exists(dir / "input.yaml") || fs::exists(dir / "args"));
}

std::vector<fs::path> RenderCases(const fs::path& root) {
  std::vector<fs::path> cases;
  for (const auto& entry : fs::directory_iterator(root)) {
    if (IsRenderCase(entry.path())) cases.push_back(entry.path());
  }
  std::sort(cases.begin(), cases.end());
  return cases;
}

int RunGoldenCase(const std::string& case_dir, const std::string& plugin_order) {
  if (fs::exists(fs::path(case_dir) / "cmd")) {
    if (!plugin_order.empty()) {
      std::cout << case_dir << ": a command case has no plugin order to rerun in\n";
      return 1;
    }
    return RunCommandCase(case_dir);
  }
  if (IsRenderCase(case_dir)) return RunRenderCase(case_dir, plugin_order);
  std::cout << case_dir << ": not a golden case: a case folder holds cmd, input.yaml or args (tests/cases/README.md)\n";
  return 1;
}

int RunCheckSuite(const std::string& root) {
  std::vector<std::string> dirs;
  for (const fs::path& dir : RenderCases(root)) dirs.push_back(dir.string());
  if (dirs.empty()) {
    std::cout << root << ": no render case in it\n";
    return 1;
  }
  SuiteOptions options;
  options.parse_args = app::ParseCaseArgs;
  auto files = NewRealFileSystem();
  try {
    SuiteResult result = RunSuite(FindCases(dirs), SuiteMode::kCheck, *files, options);
    std::cout << FormatText(result);
    return result.failed == 0 ? 0 : 1;
  } catch (const Error& e) {
    std::cout << e.what() << "\n";
    return 1;
  }
}

}  // namespace trainer::testing
