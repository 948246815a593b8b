// Files that trainer writes (render --output-dir, test --update): each new content goes to a
// temporary file beside its destination, and all are renamed into place once every one is whole.
//
// A temporary file is named `.<final name>.trainer-XXXXXX` (six random characters) in the folder
// of its final file, created new (never through a symbolic link) with the permissions any new file
// gets (0666 less the umask), or its owner's only for a Secret (0600 less the umask), and never one
// that the file it replaces withholds: a file its user made 0600 stays 0600. On a signal that ends
// trainer (SIGINT, SIGTERM, SIGHUP and the others of RemoveTemporariesOnSignals) the temporaries are
// removed before trainer dies of it, and then each folder a MakeDirectories call made (not the
// parents it made), when empty.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace trainer {

// The mkstemp template of the temporary files of `path`: `dir/.name.trainer-XXXXXX`.
std::string TemporaryTemplate(const std::string& path);

// Whether a file name (not a path) has the form of a temporary file's.
bool IsTemporaryName(std::string_view file_name);

// Who may read a file that trainer writes.
enum class FileAccess {
  kShared,   // what any new file gets: 0666 less the umask
  kPrivate,  // its owner only, 0600 less the umask: a Secret, whose keys no one else may read
};

// Where files are written, behind an interface so that tests can make a write fail.
class FileWriter {
 public:
  enum class Kind { kMissing, kFile, kDirectory, kSymlink, kOther };
  virtual ~FileWriter() = default;
  // Writes `content` to a new temporary file for `path` (TemporaryTemplate) and returns its
  // name. Its permissions are those of `access`, less any that `path` (a regular file there now)
  // withholds. Throws Error naming `path` and the reason, leaving no file behind.
  virtual std::string WriteTemporary(const std::string& path, std::string_view content, FileAccess access) = 0;
  // What `path` itself is: a symbolic link is not followed. Throws Error naming the path.
  virtual Kind KindOf(const std::string& path) = 0;
  // Creates the folder `path` and its missing parents; returns whether `path` was missing.
  // Throws Error naming the path.
  virtual bool MakeDirectories(const std::string& path) = 0;
  // Replaces `to` by `from` in one step (rename(2)). Throws Error naming the paths.
  virtual void Rename(const std::string& from, const std::string& to) = 0;
  // Removes the file or empty folder `path`; a missing one is not an error. Throws Error naming it.
  virtual void Remove(const std::string& path) = 0;
};

// The real file system. Its temporary files are the ones removed on a signal.
std::unique_ptr<FileWriter> NewRealFileWriter();

// On each signal whose default action ends the process, except those of a fault in trainer itself
// (SIGSEGV, SIGABRT...): removes the temporary files of every real FileWriter that are not yet
// renamed or removed, and each folder its MakeDirectories calls made (not their parents) that is
// empty, then dies of the signal (exit status 128+n). A signal the caller ignores (nohup's SIGHUP)
// stays ignored. SIGKILL cannot be caught: it leaves the temporaries. Called once, at the start.
void RemoveTemporariesOnSignals();

// New contents for a set of files, staged under temporary names and then renamed into place
// together. Dropped before Commit, it removes its temporaries.
class StagedFiles {
 public:
  // `context` starts every message ("--output-dir out: ").
  StagedFiles(FileWriter& writer, std::string context) : writer_(writer), context_(std::move(context)) {}
  StagedFiles(const StagedFiles&) = delete;
  StagedFiles& operator=(const StagedFiles&) = delete;
  ~StagedFiles() { Discard(); }

  // Writes the new content of `path` to a temporary file. Throws Error ("...; no file was
  // replaced").
  void Stage(const std::string& path, std::string_view content, FileAccess access = FileAccess::kShared);
  // Checks every destination first (a folder, a symbolic link or anything but a file is refused,
  // naming each, before any rename), then renames each temporary over its destination, with the
  // signals blocked. When a rename fails, removes the other temporaries and throws Error naming
  // the files replaced.
  void Commit();
  // Removes the temporaries not renamed yet.
  void Discard();

 private:
  FileWriter& writer_;
  std::string context_;
  std::vector<std::pair<std::string, std::string>> staged_;  // destination, temporary
};

}  // namespace trainer
