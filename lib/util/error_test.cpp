#include "util/error.h"

#include <doctest/doctest.h>

#include <string>

namespace trainer {

TEST_CASE("a diagnostic is one line, each part Printable, whatever its parts hold") {
  const std::string file = "in\n::error ::x\xff.yaml";
  Diagnostic d{Origin::Input(&file, 3, 5), "TrainJob ml/job\x1b[31m", "spec[\"a\u2028b\"]", "unknown field \"a\nb\"\a"};
  CHECK(d.Format() ==
        R"(in\n::error ::x\xff.yaml:3:5: TrainJob ml/job\x1b[31m: spec[\"a\u2028b\"]: unknown field \"a\nb\"\a)");
  CHECK(std::string(Error(d).what()) == d.Format());
  // Printable parts are printed as they are, quotes and all.
  Diagnostic plain{{}, "TrainJob ml/job", "metadata.name", "Invalid value: \"a\\\\b\": bad"};
  CHECK(plain.Format() == "TrainJob ml/job: metadata.name: Invalid value: \"a\\\\b\": bad");
}

TEST_CASE("the line a diagnostic points at shows every byte a terminal would obey as ?") {
  const std::string file = "in.yaml";
  const std::string text = "a: 1\nb: \x1b[31mred\a\x7f\tx\xc2\x9b\xe2\x80\xa8\xff caf\xc3\xa9\r\n";
  SourceText source(&file, text);
  Diagnostic d{Origin::Input(&file, 2, 4), "", "", "bad"};
  source.Attach(d);
  CHECK(d.source_line == "b: ?[31mred??\tx?????? caf\xc3\xa9");
}

}  // namespace trainer
