// `trainer render`: options and output.
#include <fmt/format.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <sys/sendfile.h>
#include <sys/stat.h>
#include <unistd.h>

#include "app/commands.h"
#include "app/trainer_files.h"
#include "app/validate_option.h"
#include "render/render.h"
#include "util/error.h"

namespace trainer::app {

namespace {

struct RenderFlags {
  std::vector<std::string> paths;
  std::vector<std::string> runtimes;
  std::string namespace_ = "default";
  std::string output = "yaml";
  std::vector<std::string> show_only;
  std::string output_dir;
  bool legacy = false;
  bool generate_ssh_keys = false;
  bool explain = false;
  std::string flux_templates;
  bool quiet = false;             // --quiet: the exit status says it all
  bool skip_non_trainer = false;  // --skip-non-trainer: see app/trainer_files.h
  std::string validate = "strict";
};

// Standard output, held until all TrainJobs rendered and copied out only then, so that memory
// stays flat however many there are: in a buffer of kBufferBytes, written to an unlinked temporary
// file whenever it fills, and the file copied to standard output by the kernel at the end. An
// output that fits the buffer never reaches the file. (Not held in memory as a whole: memory that
// is new to the process costs a page fault per 4 KiB, and where faults are slow, as in small
// virtual machines, that cost more than the file.) The file is made when the buffer first fills;
// its directory is checked at the start, so that a missing or unwritable TMPDIR fails every render
// alike. (Making the file at the start cost a small render ~40 us: a new inode, freed at exit.)
class SpoolSink : public RenderSink {
 public:
  static constexpr std::size_t kBufferBytes = 64 << 10;

  // In $TMPDIR, else /tmp.
  SpoolSink() {
    const char* tmpdir = std::getenv("TMPDIR");
    dir_ = tmpdir != nullptr && *tmpdir != '\0' ? tmpdir : "/tmp";
    struct stat st {};
    if (stat(dir_.c_str(), &st) != 0) FailToCreate(errno);
    if (!S_ISDIR(st.st_mode)) FailToCreate(ENOTDIR);
    if (access(dir_.c_str(), W_OK | X_OK) != 0) FailToCreate(errno);
  }
  SpoolSink(const SpoolSink&) = delete;
  SpoolSink& operator=(const SpoolSink&) = delete;
  ~SpoolSink() override {
    if (fd_ >= 0) close(fd_);
  }

  void Output(std::string_view text) override {
    if (buffer_.size() + text.size() > kBufferBytes) {
      Spool(buffer_);
      buffer_.clear();
      if (text.size() > kBufferBytes) {
        Spool(text);
        return;
      }
    }
    if (buffer_.capacity() < kBufferBytes) buffer_.reserve(kBufferBytes);
    buffer_.append(text);
  }

  // Everything output, to the file descriptor `out`.
  void CopyTo(int out) {
    if (spooled_ == 0) {
      WriteOut(out, buffer_);
      return;
    }
    Spool(buffer_);
    buffer_.clear();
    off_t offset = 0;
    while (offset < spooled_) {
      ssize_t n = sendfile(out, fd_, &offset, static_cast<std::size_t>(spooled_ - offset));
      if (n > 0 || (n < 0 && errno == EINTR)) continue;
      if (n < 0 && (errno == EINVAL || errno == ENOSYS)) break;  // e.g. standard output opened to append
      Fail(n < 0 ? errno : EIO);
    }
    // What sendfile would not copy, through the buffer.
    buffer_.resize(kBufferBytes);
    while (offset < spooled_) {
      ssize_t n = pread(fd_, buffer_.data(), buffer_.size(), offset);
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) {
        const int error = n < 0 ? errno : EIO;
        throw Error(fmt::format("cannot read back the output's temporary file: {}", std::strerror(error)));
      }
      WriteOut(out, std::string_view(buffer_.data(), static_cast<std::size_t>(n)));
      offset += n;
    }
  }

 private:
  void Spool(std::string_view text) {
    if (fd_ < 0) {
      // Unlinked at once: nothing is left behind, whatever happens.
      std::string path = dir_ + "/trainer-XXXXXX";
      fd_ = mkstemp(path.data());
      if (fd_ < 0) FailToCreate(errno);
      unlink(path.c_str());
    }
    if (int error = WriteAll(fd_, text)) {
      throw Error(fmt::format("cannot write the output's temporary file: {}", std::strerror(error)));
    }
    spooled_ += static_cast<off_t>(text.size());
  }

  static void WriteOut(int out, std::string_view text) {
    if (int error = WriteAll(out, text)) Fail(error);
  }

  // Writes all of `text` to `fd`: 0, or the error that stopped it.
  static int WriteAll(int fd, std::string_view text) {
    while (!text.empty()) {
      ssize_t n = write(fd, text.data(), text.size());
      if (n < 0 && errno == EINTR) continue;
      if (n <= 0) return n < 0 ? errno : EIO;
      text.remove_prefix(static_cast<std::size_t>(n));
    }
    return 0;
  }

  [[noreturn]] static void Fail(int error) {
    throw Error(fmt::format("cannot write to standard output: {}", std::strerror(error)));
  }

  [[noreturn]] void FailToCreate(int error) const {
    throw Error(fmt::format("cannot create a temporary file for the output in {}: {}", dir_, std::strerror(error)));
  }

  std::string dir_;
  int fd_ = -1;  // the temporary file, once made
  std::string buffer_;
  off_t spooled_ = 0;  // bytes in the file
};

// --output-dir: each object's file is written under a temporary name as it renders, and all are
// renamed into place once every TrainJob rendered. Dropped unfinished, it removes what it wrote
// (and the directory, when it made it).
class DirSink : public RenderSink {
 public:
  explicit DirSink(std::string dir) : dir_(std::move(dir)) {}
  DirSink(const DirSink&) = delete;
  DirSink& operator=(const DirSink&) = delete;
  ~DirSink() override {
    if (!done_) Discard();
  }

  bool WantsOutput() const override { return false; }
  bool WantsFiles() const override { return true; }
  void Output(std::string_view) override {}

  void File(const std::string& name, std::string_view yaml) override {
    namespace fs = std::filesystem;
    std::error_code ec;
    if (!started_) {
      started_ = true;
      made_dir_ = !fs::exists(dir_, ec);
      fs::create_directories(dir_, ec);
      if (ec) throw Error(fmt::format("--output-dir {}: {}", dir_, ec.message()));
    }
    fs::path final_path = fs::path(dir_) / name;
    fs::path temp = final_path;
    temp += ".tmp";
    std::ofstream out(temp, std::ios::binary | std::ios::trunc);
    out.write(yaml.data(), static_cast<std::streamsize>(yaml.size()));
    out.close();
    staged_.emplace_back(temp, final_path);
    if (!out) throw Error(fmt::format("--output-dir {}: cannot write {}", dir_, temp.string()));
  }

  void Commit() {
    std::error_code ec;
    for (auto& [temp, final_path] : staged_) {
      std::filesystem::rename(temp, final_path, ec);
      if (ec) throw Error(fmt::format("--output-dir {}: cannot write {}: {}", dir_, final_path.string(), ec.message()));
    }
    done_ = true;
  }

 private:
  void Discard() {
    std::error_code ec;
    for (auto& [temp, _] : staged_) std::filesystem::remove(temp, ec);
    if (made_dir_) std::filesystem::remove(dir_, ec);  // only when empty
  }

  std::string dir_;
  bool started_ = false;
  bool made_dir_ = false;
  bool done_ = false;
  std::vector<std::pair<std::filesystem::path, std::filesystem::path>> staged_;
};

// --quiet: nothing is formatted at all.
class NullSink : public RenderSink {
 public:
  bool WantsOutput() const override { return false; }
  void Output(std::string_view) override {}
};

void PrintSummary(const RenderSummary& summary, bool quiet) {
  if (!quiet) {
    for (const auto& notice : summary.notices) std::cerr << "trainer: " << notice << '\n';
  }
  for (const Diagnostic& warning : summary.warnings) std::cerr << FormatWarning(warning) << '\n';
}

int RunRender(const RenderFlags& flags) {
  RenderRequest request;
  request.load.paths = flags.paths;
  request.load.runtime_paths = flags.runtimes;
  request.load.default_namespace = flags.namespace_;
  request.render.legacy_image = flags.legacy;
  request.render.generate_ssh_keys = flags.generate_ssh_keys;
  request.render.flux_templates_dir = flags.flux_templates;
  request.load.validate = request.render.validate = *ParseValidationMode(flags.validate);
  if (const char* order = std::getenv("TRAINER_PLUGIN_ORDER")) request.render.plugin_order = order;
  request.format = flags.output == "json" ? RenderRequest::Format::kJson : RenderRequest::Format::kYaml;
  request.show_only = flags.show_only;
  request.explain = flags.explain;
  if (flags.explain && request.format == RenderRequest::Format::kJson) throw Error("--explain works with -o yaml only");
  auto fs = NewRealFileSystem();
  if (flags.skip_non_trainer) {
    request.load.paths = KeepTrainerFiles(flags.paths, *fs);
    request.load.runtime_paths = KeepTrainerFiles(flags.runtimes, *fs);
  }
  if (!flags.output_dir.empty()) {
    DirSink sink(flags.output_dir);
    RenderSummary summary = RenderTo(request, *fs, sink);
    sink.Commit();
    PrintSummary(summary, flags.quiet);
    return 0;
  }
  if (flags.quiet) {
    NullSink sink;
    PrintSummary(RenderTo(request, *fs, sink), flags.quiet);
    return 0;
  }
  SpoolSink sink;
  RenderSummary summary = RenderTo(request, *fs, sink);
  PrintSummary(summary, flags.quiet);
  std::fflush(stdout);
  sink.CopyTo(STDOUT_FILENO);
  return 0;
}

}  // namespace

Run SetupRender(CLI::App& command) {
  auto flags = std::make_shared<RenderFlags>();
  command.add_option("PATH", flags->paths, "TrainJob and runtime files or directories (*.yaml, *.yml, recursively); - for stdin")
      ->required()
      ->type_name("PATH");
  command.add_option("-r,--runtime", flags->runtimes, "Add runtimes from this file or directory (repeatable)")
      ->allow_extra_args(false)
      ->type_name("PATH");
  command.add_option("-n,--namespace", flags->namespace_, "Namespace of objects that set none")
      ->capture_default_str()
      ->type_name("NAME");
  command.add_option("-o,--output", flags->output, "Output format")
      ->check(CLI::IsMember({"yaml", "json"}))
      ->capture_default_str()
      ->type_name("FORMAT");
  command.add_option("-s,--show-only", flags->show_only, "Print only objects of this KIND or KIND/NAME (repeatable)")
      ->allow_extra_args(false)
      ->type_name("KIND[/NAME]");
  command.add_option("--output-dir", flags->output_dir, "Write one file per object into DIR instead of stdout")
      ->type_name("DIR");
  command.add_flag("--legacy", flags->legacy,
                   "Use the controller's old image behaviour: the TrainJob image on every trainer-ancestor node "
                   "container, set by the JobSet builder");
  command.add_flag("--explain", flags->explain,
                   "End each value's line with a comment saying where it came from: a line of the TrainJob or runtime, "
                   "a CRD default, or the plugin that set it");
  command.add_flag("--generate-ssh-keys", flags->generate_ssh_keys,
                   "MPI: put a fresh ECDSA P-521 key pair in the SSH auth Secret instead of fixed placeholder data");
  command.add_option("--flux-templates", flags->flux_templates,
                     "Flux: render the entrypoint scripts from upstream's templates (broker.toml, entrypoint.sh, "
                     "init.sh) in DIR")
      ->type_name("DIR")
      ->check(CLI::ExistingDirectory);
  AddValidateOption(command, flags->validate);
  command.add_flag("-q,--quiet", flags->quiet,
                   "Print nothing but errors and warnings: the exit status tells whether every TrainJob renders");
  command.add_flag("--skip-non-trainer", flags->skip_non_trainer,
                   "Skip files that hold no Trainer object (other kinds, YAML that is no Kubernetes object) silently");
  return [flags] { return RunRender(*flags); };
}

namespace {

// On a terminal, the source line a diagnostic points at and a caret under its column.
void PrintSourceLine(const std::string& location) {
  auto col_sep = location.rfind(':');
  auto line_sep = col_sep == std::string::npos || col_sep == 0 ? std::string::npos : location.rfind(':', col_sep - 1);
  if (line_sep == std::string::npos) return;
  std::string file = location.substr(0, line_sep);
  std::size_t line = std::strtoul(location.c_str() + line_sep + 1, nullptr, 10);
  std::size_t column = std::strtoul(location.c_str() + col_sep + 1, nullptr, 10);
  std::ifstream in(file);
  std::string text;
  for (std::size_t i = 0; i < line && std::getline(in, text); ++i) {
  }
  if (!in || line == 0 || column == 0 || column > text.size() + 1) return;
  std::cerr << "  " << text << "\n  " << std::string(column - 1, ' ') << "^\n";
}

}  // namespace

void PrintError(const std::exception& e) {
  if (const auto* error = dynamic_cast<const Error*>(&e)) {
    bool terminal = isatty(STDERR_FILENO) != 0;
    for (const Diagnostic& d : error->diagnostics()) {
      std::cerr << (d.HasLocation() ? "" : "trainer: error: ") << d.Format() << '\n';
      if (terminal && !d.location.empty()) PrintSourceLine(d.location);
    }
    return;
  }
  std::cerr << "trainer: error: " << e.what() << '\n';
}

}  // namespace trainer::app
