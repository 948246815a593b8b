// --explain, checked against the inputs: every value of every render case rendered with
// --explain, whose comment credits a line of an input, must find there the field the comment
// names, or else the key or the value it comments. Values credited to a plugin, a CRD default or
// the command line are not checked here.
#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <map>
#include <regex>
#include <string>
#include <vector>

#include "input/loader.h"
#include "render/render.h"
#include "tests/golden.h"
#include "util/error.h"

namespace trainer {

namespace {

namespace fs = std::filesystem;

// The lines of `file`, read once.
const std::vector<std::string>& LinesOf(const std::string& file) {
  static std::map<std::string, std::vector<std::string>> cache;
  auto [it, added] = cache.try_emplace(file);
  if (added) {
    std::ifstream in(file);
    for (std::string line; std::getline(in, line);) it->second.push_back(line);
  }
  return it->second;
}

// What a comment's field path names last: the key of "spec.trainer.image", the key inside
// brackets of `metadata.labels["a/b"]` or `env[name=X]`'s X.
std::string LastName(std::string path) {
  if (!path.empty() && path.back() == ']') {
    std::string inside = path.substr(path.rfind('[') + 1);
    inside.pop_back();
    if (auto eq = inside.find('='); eq != std::string::npos) inside = inside.substr(eq + 1);
    if (inside.size() >= 2 && inside.front() == '"') inside = inside.substr(1, inside.size() - 2);
    return inside;
  }
  return path.substr(path.rfind('.') + 1);
}

}  // namespace

TEST_CASE("every --explain comment that credits an input line names what that line holds") {
  const std::regex credit(R"(^(TrainJob|TrainingRuntime|ClusterTrainingRuntime) (\S+):(\d+)(?: ([^,\s]+))?)");
  const std::regex yaml_line(R"(^\s*(?:- )?([^:#]+?):(?: (.*?))?  # (.*)$)");
  std::size_t checked = 0;
  std::vector<fs::path> inputs;
  for (const fs::path& dir : testing::RenderCases(fs::path(TRAINER_SOURCE_DIR) / "tests" / "cases")) {
    if (fs::exists(dir / "input.yaml") && !fs::exists(dir / "error")) inputs.push_back(dir);
  }
  const fs::path cwd = fs::current_path();
  fs::current_path(TRAINER_SOURCE_DIR);
  for (const fs::path& dir : inputs) {
    const std::string input = (fs::relative(dir, TRAINER_SOURCE_DIR) / "input.yaml").string();
    RenderRequest request;
    request.load.paths = {input};
    request.explain = true;
    StringSink sink;
    auto files = NewRealFileSystem();
    try {
      RenderTo(request, *files, sink);
    } catch (const Error&) {
      continue;  // a case that needs its args (runtimes from ../shared, templates): not walked
    }
    std::size_t number = 0;
    for (const std::string& line : [&] {
           std::vector<std::string> lines;
           std::string text = sink.text();
           for (std::size_t at = 0, next; at < text.size(); at = next + 1) {
             next = text.find('\n', at);
             if (next == std::string::npos) next = text.size();
             lines.push_back(text.substr(at, next - at));
           }
           return lines;
         }()) {
      ++number;
      std::smatch parts;
      if (!std::regex_match(line, parts, yaml_line)) continue;
      const std::string key = parts[1];
      const std::string value = parts[2];
      const std::string comment = parts[3];
      std::smatch c;
      if (!std::regex_search(comment, c, credit)) continue;
      const std::vector<std::string>& source = LinesOf(c[2]);
      const std::size_t at = std::stoul(c[3]);
      INFO(input, " line ", number, ": ", line);
      REQUIRE(at >= 1);
      REQUIRE(at <= source.size());
      const std::string& credited = source[at - 1];
      INFO("credited line: ", credited);
      if (c[4].matched) {
        const std::string name = LastName(c[4]);
        if (!name.empty() && std::all_of(name.begin(), name.end(), [](char ch) { return ch >= '0' && ch <= '9'; })) {
          CHECK(credited.find("- ") != std::string::npos);  // a list item, credited at its first line
        } else {
          CHECK(credited.find(name) != std::string::npos);
        }
      } else {
        std::string bare = value;
        if (bare.size() >= 2 && (bare.front() == '"' || bare.front() == '\'')) bare = bare.substr(1, bare.size() - 2);
        CHECK((credited.find(key) != std::string::npos || (!bare.empty() && credited.find(bare) != std::string::npos)));
      }
      ++checked;
    }
  }
  fs::current_path(cwd);
  MESSAGE(checked, " credited values checked");
  CHECK(checked > 1000);
}

}  // namespace trainer
