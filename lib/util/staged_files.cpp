#include "util/staged_files.h"

#include <fcntl.h>
#include <fmt/format.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>

#include "util/error.h"

namespace trainer {

namespace {

constexpr std::string_view kTemporaryMark = ".trainer-";
constexpr std::size_t kRandomChars = 6;  // mkstemp's XXXXXX

// The signals whose default action ends trainer and that come from outside it: a closed terminal
// or ssh session (SIGHUP), Ctrl-C and Ctrl-\ (SIGINT, SIGQUIT), kill and timeouts (SIGTERM,
// SIGUSR1, SIGUSR2, the real-time signals), a reader gone (SIGPIPE), timers (SIGALRM, SIGVTALRM,
// SIGPROF), resource limits (SIGXCPU, SIGXFSZ), SIGPOLL, SIGPWR and SIGSTKFLT. SIGKILL cannot be
// caught. The signals of a fault in trainer itself (SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP,
// SIGSYS, SIGABRT) keep their default action: its memory is then not to be trusted, and the core
// dump shows the fault as it happened.
const sigset_t& EndingSignals() {
  static const sigset_t set = [] {
    sigset_t s;
    sigemptyset(&s);
    for (int sig :
         {SIGHUP, SIGINT, SIGQUIT, SIGPIPE, SIGALRM, SIGTERM, SIGUSR1, SIGUSR2, SIGPROF, SIGVTALRM, SIGXCPU, SIGXFSZ}) {
      sigaddset(&s, sig);
    }
#ifdef SIGPOLL
    sigaddset(&s, SIGPOLL);
#endif
#ifdef SIGPWR
    sigaddset(&s, SIGPWR);
#endif
#ifdef SIGSTKFLT
    sigaddset(&s, SIGSTKFLT);
#endif
#ifdef SIGRTMIN
    for (int sig = SIGRTMIN; sig <= SIGRTMAX; ++sig) sigaddset(&s, sig);
#endif
    return s;
  }();
  return set;
}

// The temporary files that exist now ("" for one renamed or removed), which the signal handler
// removes. Changed only with the ending signals blocked, so that the handler never sees it half
// changed. Never freed: a signal may come while static objects are destroyed.
std::vector<std::string>& Temporaries() {
  static auto* temporaries = new std::vector<std::string>();
  return *temporaries;
}
// The folders that MakeDirectories calls made (the path asked for; not the parents made with it),
// which the signal handler removes after the temporaries when they are empty (rmdir(2) removes no
// other), in the order opposite to their making. Changed as Temporaries() is.
std::vector<std::string>& MadeFolders() {
  static auto* folders = new std::vector<std::string>();
  return *folders;
}
std::size_t live_temporaries = 0;
// Every entry before this one is cleared: files are renamed or removed in the order they were
// made, so that forgetting one does not scan all those forgotten before it.
std::size_t first_live = 0;

// Blocks the ending signals while it lives: one that comes meanwhile waits, and is handled (the
// temporaries left are removed, trainer dies of it) once they are unblocked.
class SignalsBlocked {
 public:
  SignalsBlocked() { sigprocmask(SIG_BLOCK, &EndingSignals(), &old_); }
  SignalsBlocked(const SignalsBlocked&) = delete;
  SignalsBlocked& operator=(const SignalsBlocked&) = delete;
  ~SignalsBlocked() { sigprocmask(SIG_SETMASK, &old_, nullptr); }

 private:
  sigset_t old_;
};

// With signals blocked.
void Forget(const std::string& path) {
  std::vector<std::string>& all = Temporaries();
  for (std::size_t i = first_live; i < all.size(); ++i) {
    if (all[i] != path) continue;
    all[i].clear();
    if (--live_temporaries == 0) {
      all.clear();
      first_live = 0;
    }
    while (first_live < all.size() && all[first_live].empty()) ++first_live;
    return;
  }
}

extern "C" void RemoveTemporariesAndDie(int sig) {
  // Only unlink(2), rmdir(2), signal(2) and raise(3), async-signal-safe; the lists are read, never
  // changed.
  for (const std::string& path : Temporaries()) {
    if (!path.empty()) unlink(path.c_str());
  }
  const std::vector<std::string>& folders = MadeFolders();
  for (auto it = folders.rbegin(); it != folders.rend(); ++it) {
    if (!it->empty()) rmdir(it->c_str());
  }
  signal(sig, SIG_DFL);
  raise(sig);  // delivered with the default action once the handler returns
}

// Read each time (umask(2) can only be read by setting it), as the caller may change it.
mode_t Umask() {
  const mode_t mask = umask(0);
  umask(mask);
  return mask;
}

class RealFileWriter : public FileWriter {
 public:
  std::string WriteTemporary(const std::string& path, std::string_view content, FileAccess access) override {
    std::string name = TemporaryTemplate(path);
    int fd = -1;
    {
      SignalsBlocked blocked;
      // O_CREAT|O_EXCL (mkstemp's own) and O_NOFOLLOW: never through a planted symbolic link.
      fd = mkostemp(name.data(), O_CLOEXEC | O_NOFOLLOW);
      if (fd >= 0) {
        Temporaries().push_back(name);
        ++live_temporaries;
      }
    }
    if (fd < 0) throw Error(fmt::format("{}: cannot create: {}", path, std::strerror(errno)));
    // mkstemp makes the file 0600: give it what `access` says, and no more than the file it
    // replaces gives.
    mode_t mode = (access == FileAccess::kPrivate ? 0600 : 0666) & ~Umask();
    struct stat old {};
    if (lstat(path.c_str(), &old) == 0 && S_ISREG(old.st_mode)) mode &= old.st_mode;
    int error = fchmod(fd, mode & 0777) == 0 ? 0 : errno;
    while (error == 0 && !content.empty()) {
      const ssize_t n = write(fd, content.data(), content.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) error = n < 0 ? errno : EIO;
      if (n > 0) content.remove_prefix(static_cast<std::size_t>(n));
    }
    if (close(fd) != 0 && error == 0) error = errno;
    if (error != 0) {
      RemoveQuietly(name);
      throw Error(fmt::format("{}: cannot write: {}", path, std::strerror(error)));
    }
    return name;
  }

  Kind KindOf(const std::string& path) override {
    struct stat st;
    if (lstat(path.c_str(), &st) != 0) {
      if (errno == ENOENT) return Kind::kMissing;
      throw Error(fmt::format("{}: {}", path, std::strerror(errno)));
    }
    if (S_ISLNK(st.st_mode)) return Kind::kSymlink;
    if (S_ISDIR(st.st_mode)) return Kind::kDirectory;
    return S_ISREG(st.st_mode) ? Kind::kFile : Kind::kOther;
  }

  bool MakeDirectories(const std::string& path) override {
    std::error_code ec;
    SignalsBlocked blocked;
    const bool made = std::filesystem::create_directories(path, ec);
    if (ec) throw Error(fmt::format("{}: {}", path, ec.message()));
    if (made) MadeFolders().push_back(path);
    return made;
  }

  void Rename(const std::string& from, const std::string& to) override {
    SignalsBlocked blocked;
    if (rename(from.c_str(), to.c_str()) != 0) {
      throw Error(fmt::format("{}: cannot rename {} to it: {}", to, from, std::strerror(errno)));
    }
    Forget(from);
  }

  void Remove(const std::string& path) override {
    SignalsBlocked blocked;
    if (std::remove(path.c_str()) != 0 && errno != ENOENT) {
      throw Error(fmt::format("{}: cannot remove: {}", path, std::strerror(errno)));
    }
    Forget(path);
    for (std::string& folder : MadeFolders()) {
      if (folder == path) folder.clear();
    }
  }

 private:
  void RemoveQuietly(const std::string& path) {
    try {
      Remove(path);
    } catch (const Error&) {
    }
  }
};

}  // namespace

std::string TemporaryTemplate(const std::string& path) {
  const std::size_t slash = path.rfind('/');
  const std::size_t name = slash == std::string::npos ? 0 : slash + 1;
  return fmt::format("{}.{}{}{}", path.substr(0, name), path.substr(name), kTemporaryMark,
                     std::string(kRandomChars, 'X'));
}

bool IsTemporaryName(std::string_view file_name) {
  const std::size_t tail = kTemporaryMark.size() + kRandomChars;
  return file_name.size() > tail + 1 && file_name[0] == '.' &&
         file_name.substr(file_name.size() - tail, kTemporaryMark.size()) == kTemporaryMark;
}

std::unique_ptr<FileWriter> NewRealFileWriter() { return std::make_unique<RealFileWriter>(); }

void RemoveTemporariesOnSignals() {
  struct sigaction action {};
  action.sa_handler = RemoveTemporariesAndDie;
  action.sa_mask = EndingSignals();  // a second signal waits for the handler to finish
  for (int sig = 1; sig < NSIG; ++sig) {
    if (sigismember(&EndingSignals(), sig) != 1) continue;
    // Kept ignored where the caller ignores it: a shell starts background jobs with SIGINT and
    // SIGQUIT ignored, nohup ignores SIGHUP.
    struct sigaction old {};
    if (sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    sigaction(sig, &action, nullptr);
  }
}

void StagedFiles::Stage(const std::string& path, std::string_view content, FileAccess access) {
  try {
    staged_.emplace_back(path, writer_.WriteTemporary(path, content, access));
  } catch (const Error& e) {
    Discard();
    throw Error(fmt::format("{}{}; no file was replaced", context_, e.what()));
  }
}

void StagedFiles::Commit() {
  std::vector<Diagnostic> refused;
  for (const auto& [path, temporary] : staged_) {
    const char* why = nullptr;
    try {
      switch (writer_.KindOf(path)) {
        case FileWriter::Kind::kMissing:
        case FileWriter::Kind::kFile: break;
        case FileWriter::Kind::kDirectory: why = "is a folder"; break;
        case FileWriter::Kind::kSymlink: why = "is a symbolic link, which trainer does not replace"; break;
        case FileWriter::Kind::kOther: why = "is not a regular file"; break;
      }
    } catch (const Error& e) {
      refused.push_back(Diagnostic{.message = fmt::format("{}{}; no file was replaced", context_, e.what())});
      continue;
    }
    if (why != nullptr) {
      refused.push_back(Diagnostic{.message = fmt::format("{}{}: {}; no file was replaced", context_, path, why)});
    }
  }
  if (!refused.empty()) {
    Discard();
    throw Error(std::move(refused));
  }
  // A signal during the renames waits until they are done (or one failed and the temporaries left
  // are removed): a signal never leaves the files half old, half new.
  SignalsBlocked blocked;
  std::vector<std::string> replaced;
  for (const auto& [path, temporary] : staged_) {
    try {
      writer_.Rename(temporary, path);
    } catch (const Error& e) {
      const std::size_t total = staged_.size();
      staged_.erase(staged_.begin(), staged_.begin() + static_cast<std::ptrdiff_t>(replaced.size()));
      Discard();
      std::string which;
      for (const std::string& r : replaced) which += (which.empty() ? " (" : ", ") + r;
      if (!which.empty()) which += ")";
      throw Error(fmt::format("{}{}; {} of {} files were replaced{}, each file is whole (old or new)", context_,
                              e.what(), replaced.size(), total, which));
    }
    replaced.push_back(path);
  }
  staged_.clear();
}

void StagedFiles::Discard() {
  for (const auto& [path, temporary] : staged_) {
    try {
      writer_.Remove(temporary);
    } catch (const Error&) {
      // It stays behind, and `trainer test` reports it in a case folder.
    }
  }
  staged_.clear();
}

}  // namespace trainer
