#include "util/staged_files.h"

#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

namespace trainer {

TEST_CASE("temporary files are named .<final name>.trainer-XXXXXX beside their final file") {
  CHECK(TemporaryTemplate("out/v1_Secret_ml_x.yaml") == "out/.v1_Secret_ml_x.yaml.trainer-XXXXXX");
  CHECK(TemporaryTemplate("current.yaml") == ".current.yaml.trainer-XXXXXX");
  CHECK(IsTemporaryName(".current.yaml.trainer-a1B2c3"));
  CHECK_FALSE(IsTemporaryName("current.yaml.trainer-a1B2c3"));
  CHECK_FALSE(IsTemporaryName(".current.yaml.trainer-tmp"));
  CHECK_FALSE(IsTemporaryName(".trainer-a1B2c3"));
}

TEST_CASE("a real temporary file gets the permissions of a new file, 0666 less the umask") {
  namespace stdfs = std::filesystem;
  const stdfs::path dir = stdfs::temp_directory_path() / ("trainer-staged-test-" + std::to_string(::getpid()));
  stdfs::create_directories(dir);
  const mode_t old = umask(027);
  auto writer = NewRealFileWriter();
  const std::string temporary = writer->WriteTemporary((dir / "x.yaml").string(), "text\n");
  umask(old);
  struct stat st {};
  CHECK(stat(temporary.c_str(), &st) == 0);
  CHECK((st.st_mode & 0777) == 0640);
  CHECK(IsTemporaryName(stdfs::path(temporary).filename().string()));
  std::ostringstream content;
  content << std::ifstream(temporary).rdbuf();
  CHECK(content.str() == "text\n");
  writer->Remove(temporary);
  CHECK_FALSE(stdfs::exists(temporary));
  stdfs::remove_all(dir);
}

}  // namespace trainer
