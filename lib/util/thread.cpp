#include "util/thread.h"

#include <cerrno>
#include <cstdlib>
#include <exception>
#include <memory>
#include <system_error>
#include <utility>

#include <sched.h>

namespace trainer {
namespace {

struct Start {
  std::function<void()> body;
  bool bound = false;
  cpu_set_t allowed{};  // the process's CPUs, given back once running
};

void* Run(void* arg) noexcept {
  std::unique_ptr<Start> start(static_cast<Start*>(arg));
  if (start->bound) pthread_setaffinity_np(pthread_self(), sizeof start->allowed, &start->allowed);
  start->body();  // noexcept: an exception escaping ends the program, as with std::thread
  return nullptr;
}

}  // namespace

SpreadThread::SpreadThread(std::function<void()> body) {
  auto start = std::make_unique<Start>();
  start->body = std::move(body);
  pthread_attr_t attr;
  if (int error = pthread_attr_init(&attr); error != 0) throw std::system_error(error, std::generic_category());
  if (sched_getaffinity(0, sizeof start->allowed, &start->allowed) == 0) {
    cpu_set_t others = start->allowed;
    if (int here = sched_getcpu(); here >= 0 && here < CPU_SETSIZE) CPU_CLR(here, &others);
    if (CPU_COUNT(&others) > 0 && pthread_attr_setaffinity_np(&attr, sizeof others, &others) == 0) {
      start->bound = true;
    }
  }
  int error = pthread_create(&handle_, &attr, Run, start.get());
  pthread_attr_destroy(&attr);
  if (error != 0) throw std::system_error(error, std::generic_category(), "cannot start a thread");
  start.release();  // Run owns it now
  started_ = true;
}

SpreadThread::SpreadThread(SpreadThread&& other) noexcept
    : handle_(other.handle_), started_(std::exchange(other.started_, false)) {}

SpreadThread& SpreadThread::operator=(SpreadThread&& other) noexcept {
  if (started_) std::terminate();
  handle_ = other.handle_;
  started_ = std::exchange(other.started_, false);
  return *this;
}

SpreadThread::~SpreadThread() {
  if (started_) std::terminate();
}

void SpreadThread::join() {
  if (!started_) return;
  pthread_join(handle_, nullptr);
  started_ = false;
}

}  // namespace trainer
