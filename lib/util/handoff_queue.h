// A bounded queue that hands items from one producing thread to one consuming thread, in order.
// The loader parses its inputs on a second thread with it (input/loader.cpp).
#pragma once

#include <condition_variable>
#include <cstddef>
#include <exception>
#include <mutex>
#include <utility>
#include <vector>

namespace trainer {

template <typename Item>
class HandoffQueue {
 public:
  // Thrown by Push once the consumer has given up: the producer unwinds and ends.
  struct Abandoned {};

  // At most `capacity` items wait; the consumer is woken once `wake_at` of them do (or at Close),
  // rather than for each.
  explicit HandoffQueue(std::size_t capacity = 64, std::size_t wake_at = 8)
      : capacity_(capacity), wake_at_(wake_at < capacity ? wake_at : capacity) {}

  // Producer: adds an item, waiting while the queue is full.
  void Push(Item item) {
    std::unique_lock lock(mutex_);
    room_.wait(lock, [&] { return queued_.size() < capacity_ || abandoned_; });
    if (abandoned_) throw Abandoned{};
    queued_.push_back(std::move(item));
    if (queued_.size() == wake_at_) ready_.notify_one();
  }
  // Producer: no more items; `failure` is what ended the production early, if anything did.
  void Close(std::exception_ptr failure = nullptr) {
    std::lock_guard lock(mutex_);
    closed_ = true;
    failure_ = std::move(failure);
    ready_.notify_one();
  }

  // Consumer: replaces `batch` with every item queued, waiting for some if none is; false once
  // the queue is closed and empty.
  bool Take(std::vector<Item>& batch) {
    batch.clear();
    std::unique_lock lock(mutex_);
    ready_.wait(lock, [&] { return !queued_.empty() || closed_; });
    batch.swap(queued_);
    room_.notify_one();
    return !batch.empty();
  }
  // Consumer: Take, but while nothing is queued, runs `idle` (without the lock) for as long as it
  // finds something to do (returns true), and only then waits.
  template <typename Idle>
  bool Take(std::vector<Item>& batch, Idle&& idle) {
    std::unique_lock lock(mutex_);
    while (queued_.empty() && !closed_) {
      lock.unlock();
      const bool worked = idle();
      lock.lock();
      if (!worked) break;
    }
    lock.unlock();
    return Take(batch);
  }

  // Consumer: makes the producer's next Push throw Abandoned.
  void Abandon() {
    std::lock_guard lock(mutex_);
    abandoned_ = true;
    room_.notify_one();
  }
  // Consumer, once the producer has ended: rethrows what ended the production early.
  void RethrowFailure() const {
    if (failure_) std::rethrow_exception(failure_);
  }

 private:
  const std::size_t capacity_;
  const std::size_t wake_at_;
  std::mutex mutex_;
  std::condition_variable ready_;  // wake_at_ items are queued, or the queue closed
  std::condition_variable room_;   // the queue was emptied, or abandoned
  std::vector<Item> queued_;
  bool closed_ = false;
  bool abandoned_ = false;
  std::exception_ptr failure_;
};

}  // namespace trainer
