// A thread that starts on another CPU than the one that starts it.
//
// Linux queues a new thread on its creator's CPU; with the creator busy there (parsing, say), it
// waits for the creator's time slice to end, ~3 ms on the machines trainer is measured on, though
// another CPU is idle. A thread woken from a wait, by contrast, goes to an idle CPU within tens of
// microseconds. So the thread is created bound to the other CPUs the process may use, and lifts
// that bond as its first step; where there is no other CPU, it starts as std::thread would.
#pragma once

#include <functional>

#include <pthread.h>

namespace trainer {

class SpreadThread {
 public:
  SpreadThread() = default;
  // Starts `body` (which must not throw); throws std::system_error when no thread can be made.
  explicit SpreadThread(std::function<void()> body);
  SpreadThread(SpreadThread&& other) noexcept;
  SpreadThread& operator=(SpreadThread&& other) noexcept;
  SpreadThread(const SpreadThread&) = delete;
  SpreadThread& operator=(const SpreadThread&) = delete;
  ~SpreadThread();  // the thread must have been joined

  bool joinable() const { return started_; }
  void join();

 private:
  pthread_t handle_{};
  bool started_ = false;
};

}  // namespace trainer
