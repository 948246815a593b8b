#include "tests/golden.h"

#include <dtl/dtl.hpp>
#include <fmt/format.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>
#include <sys/wait.h>
#include <vector>

namespace trainer::testing {

namespace {

namespace fs = std::filesystem;

std::string ReadAll(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return std::move(s).str();
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) lines.push_back(line);
  return lines;
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

Run RunTrainer(const std::vector<std::string>& args, const std::string& plugin_order) {
  fs::path tmp = fs::temp_directory_path() / fmt::format("trainer-golden-{}", ::getpid());
  fs::create_directories(tmp);
  std::string command = plugin_order.empty() ? "" : "TRAINER_PLUGIN_ORDER=" + Quote(plugin_order) + " ";
  command += Quote(TRAINER_BINARY);
  for (const auto& a : args) command += " " + Quote(a);
  command += fmt::format(" >{} 2>{} </dev/null", Quote((tmp / "out").string()), Quote((tmp / "err").string()));
  int status = std::system(command.c_str());
  Run run{WIFEXITED(status) ? WEXITSTATUS(status) : -1, ReadAll(tmp / "out"), ReadAll(tmp / "err")};
  fs::remove_all(tmp);
  return run;
}

void PrintDiff(const std::string& expected_name, const std::string& expected, const std::string& actual) {
  dtl::Diff<std::string, std::vector<std::string>> diff(Lines(expected), Lines(actual));
  diff.compose();
  diff.composeUnifiedHunks();
  std::cout << "--- " << expected_name << " (expected)\n+++ trainer output (actual)\n";
  diff.printUnifiedFormat(std::cout);
}

std::string Trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == ' ')) s.pop_back();
  return s;
}

}  // namespace

int RunGoldenCase(const std::string& case_dir, const std::string& plugin_order) {
  fs::path dir(case_dir);
  std::vector<std::string> args = {"render"};
  if (fs::exists(dir / "input.yaml")) args.push_back((dir / "input.yaml").string());
  if (fs::exists(dir / "args")) {
    std::istringstream in(ReadAll(dir / "args"));
    for (std::string a; in >> a;) {
      if (a.rfind("../shared/", 0) == 0 && !fs::exists(a)) {
        std::cout << "skipped: " << a << " is absent (../shared is not beside this checkout)\n";
        return kSkipped;
      }
      args.push_back(a);
    }
  }
  bool update = plugin_order.empty() && std::getenv("TRAINER_UPDATE_GOLDEN") != nullptr &&
                std::string(std::getenv("TRAINER_UPDATE_GOLDEN")) == "1";
  int failures = 0;

  if (fs::exists(dir / "error")) {
    Run run = RunTrainer(args, plugin_order);
    std::string want = Trim(ReadAll(dir / "error"));
    if (run.exit_code != 2) std::cout << "expected exit code 2, got " << run.exit_code << "\n", ++failures;
    if (!run.out.empty()) std::cout << "expected empty stdout, got:\n" << run.out, ++failures;
    if (run.err.find(want) == std::string::npos) {
      std::cout << "stderr does not contain the expected error\n  expected: " << want << "\n  stderr:   " << run.err;
      ++failures;
    }
    return failures == 0 ? 0 : 1;
  }

  if (!update && !fs::exists(dir / "current.yaml") && !fs::exists(dir / "legacy.yaml")) {
    std::cout << case_dir << ": no current.yaml, legacy.yaml or error to compare with\n";
    return 1;
  }
  bool order_dependent = !plugin_order.empty() && fs::exists(dir / "order-dependent");
  bool any_difference = false;
  for (const char* mode : {"current", "legacy"}) {
    std::vector<std::string> mode_args = args;
    if (std::string(mode) == "legacy") mode_args.emplace_back("--legacy");
    Run run = RunTrainer(mode_args, plugin_order);
    fs::path expected_path = dir / fmt::format("{}.yaml", mode);
    if (run.exit_code != 0) {
      std::cout << fmt::format("{}: trainer exited {}:\n{}", mode, run.exit_code, run.err);
      ++failures;
      continue;
    }
    if (update) {
      std::ofstream(expected_path, std::ios::binary) << run.out;
      continue;
    }
    if (!fs::exists(expected_path)) continue;
    std::string expected = ReadAll(expected_path);
    if (expected == run.out) continue;
    any_difference = true;
    if (order_dependent) continue;
    if (!plugin_order.empty()) std::cout << "with TRAINER_PLUGIN_ORDER=" << plugin_order << ":\n";
    PrintDiff(expected_path.string(), expected, run.out);
    ++failures;
  }
  if (order_dependent && !any_difference) {
    std::cout << "the case says it depends on the plugin order, but TRAINER_PLUGIN_ORDER=" << plugin_order
              << " changes nothing: update or remove " << (dir / "order-dependent").string() << "\n";
    ++failures;
  }
  return failures == 0 ? 0 : 1;
}

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
  Run run = RunTrainer(args, "");
  bool update = std::getenv("TRAINER_UPDATE_GOLDEN") != nullptr && std::string(std::getenv("TRAINER_UPDATE_GOLDEN")) == "1";
  if (update) {
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
    PrintDiff((dir / "stdout").string(), expected, run.out);
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

}  // namespace trainer::testing
