#include "util/staged_files.h"

#include <doctest/doctest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "tests/fake_file_writer.h"

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
  const std::string temporary = writer->WriteTemporary((dir / "x.yaml").string(), "text\n", FileAccess::kShared);
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

TEST_CASE("a Secret's file is its owner's only, and a replaced file keeps the permissions it withholds") {
  namespace stdfs = std::filesystem;
  const stdfs::path dir = stdfs::temp_directory_path() / ("trainer-access-test-" + std::to_string(::getpid()));
  stdfs::create_directories(dir);
  auto mode_of = [](const std::string& path) {
    struct stat st {};
    CHECK(stat(path.c_str(), &st) == 0);
    return st.st_mode & 0777;
  };
  const mode_t old = umask(022);
  auto writer = NewRealFileWriter();
  const std::string secret = (dir / "v1_Secret_default_x.yaml").string();
  const std::string jobset = (dir / "jobset.yaml").string();
  CHECK(mode_of(writer->WriteTemporary(secret, "key\n", FileAccess::kPrivate)) == 0600);
  CHECK(mode_of(writer->WriteTemporary(jobset, "new\n", FileAccess::kShared)) == 0644);
  std::ofstream(jobset) << "old\n";
  chmod(jobset.c_str(), 0600);
  CHECK(mode_of(writer->WriteTemporary(jobset, "new\n", FileAccess::kShared)) == 0600);
  chmod(jobset.c_str(), 0640);
  CHECK(mode_of(writer->WriteTemporary(jobset, "new\n", FileAccess::kShared)) == 0640);
  CHECK(mode_of(writer->WriteTemporary(jobset, "new\n", FileAccess::kPrivate)) == 0600);
  umask(old);
  stdfs::remove_all(dir);
}

namespace {

bool Blocked(int sig) {
  sigset_t now;
  sigprocmask(SIG_BLOCK, nullptr, &now);
  return sigismember(&now, sig) == 1;
}

// Notes, at each rename, whether SIGHUP, SIGTERM and SIGUSR1 are blocked.
class MaskRecorder : public testing::FakeFileWriter {
 public:
  std::vector<bool> blocked;
  void Rename(const std::string& from, const std::string& to) override {
    blocked.push_back(Blocked(SIGHUP) && Blocked(SIGTERM) && Blocked(SIGUSR1));
    FakeFileWriter::Rename(from, to);
  }
};

}  // namespace

TEST_CASE("StagedFiles renames with the ending signals blocked, so that a signal waits for the last rename") {
  MaskRecorder writer;
  StagedFiles staged(writer, "");
  staged.Stage("a", "1");
  staged.Stage("b", "2");
  REQUIRE_FALSE(Blocked(SIGHUP));
  staged.Commit();
  CHECK(writer.blocked == std::vector<bool>{true, true});
  CHECK_FALSE(Blocked(SIGHUP));
  CHECK(writer.files == std::map<std::string, std::string>{{"a", "1"}, {"b", "2"}});
}

}  // namespace trainer
