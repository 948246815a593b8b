// measure REPEAT OUTPUT [STATUS] -- COMMAND [ARGS...]: runs COMMAND REPEAT times with stdout sent
// to OUTPUT (a file, or /dev/null) and prints "<fastest wall ms> <largest peak RSS KiB> <least CPU
// ms>" (CPU: user and system time of all the command's threads). Fails when a run exits other than
// with STATUS (0 unless given; with another, the command's stderr is dropped: it is expected to
// fail). Used by bench/run.sh, so that every figure comes from the same clock.
#include <fcntl.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>

int main(int argc, char** argv) {
  int command = 4;
  int expected_status = 0;
  if (argc >= 6 && std::strcmp(argv[4], "--") == 0) {
    expected_status = std::atoi(argv[3]);
    command = 5;
  }
  if (argc <= command || std::strcmp(argv[command - 1], "--") != 0) {
    std::fprintf(stderr, "usage: measure REPEAT OUTPUT [STATUS] -- COMMAND [ARGS...]\n");
    return 2;
  }
  const int repeat = std::max(1, std::atoi(argv[1]));
  double best_ms = 1e300;
  double best_cpu_ms = 1e300;
  long peak_kib = 0;
  for (int run = 0; run < repeat; ++run) {
    auto start = std::chrono::steady_clock::now();
    pid_t pid = fork();
    if (pid == 0) {
      int out = open(argv[2], O_WRONLY | O_CREAT | O_TRUNC, 0644);
      if (out < 0 || dup2(out, STDOUT_FILENO) < 0) _exit(127);
      if (expected_status != 0) {
        int null = open("/dev/null", O_WRONLY);
        if (null < 0 || dup2(null, STDERR_FILENO) < 0) _exit(127);
      }
      execvp(argv[command], argv + command);
      _exit(127);
    }
    int status = 0;
    rusage usage{};
    if (pid < 0 || wait4(pid, &status, 0, &usage) < 0) return 2;
    double ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    if (!WIFEXITED(status) || WEXITSTATUS(status) != expected_status) {
      std::fprintf(stderr, "measure: %s failed (status %d)\n", argv[command], status);
      return 1;
    }
    auto to_ms = [](const timeval& t) { return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_usec) / 1e3; };
    best_ms = std::min(best_ms, ms);
    best_cpu_ms = std::min(best_cpu_ms, to_ms(usage.ru_utime) + to_ms(usage.ru_stime));
    peak_kib = std::max(peak_kib, usage.ru_maxrss);
  }
  std::printf("%.3f %ld %.3f\n", best_ms, peak_kib, best_cpu_ms);
  return 0;
}
