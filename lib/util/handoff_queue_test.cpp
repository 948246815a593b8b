#include "util/handoff_queue.h"

#include <doctest/doctest.h>

#include <chrono>
#include <future>
#include <thread>
#include <vector>

namespace trainer {
namespace {

// Pushes one item, as `push` does, and reports whether a consumer waiting in Take received it
// before the queue closed (within ten seconds).
template <typename Push>
bool WaitingConsumerGetsOneItem(HandoffQueue<int>& queue, Push push) {
  std::promise<std::size_t> received;
  std::thread consumer([&] {
    std::vector<int> batch;
    queue.Take(batch);
    received.set_value(batch.size());
    while (queue.Take(batch)) {
    }
  });
  std::future<std::size_t> got = received.get_future();
  // Time for the consumer to start waiting (were it not, it would take the item without a wake).
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  push();
  bool in_time = got.wait_for(std::chrono::seconds(10)) == std::future_status::ready;
  queue.Close();
  consumer.join();
  return in_time && got.get() == 1;
}

TEST_CASE("a consumer waiting for items is woken by the first one when woken at one") {
  HandoffQueue<int> queue(64, 1);
  CHECK(WaitingConsumerGetsOneItem(queue, [&] { queue.Push(7); }));
}

TEST_CASE("a consumer woken at eight items gets a lone item only at the close") {
  HandoffQueue<int> queue(64, 8);
  std::vector<int> batch;
  queue.Push(1);
  queue.Push(2);
  queue.Close();
  CHECK(queue.Take(batch));
  CHECK(batch == std::vector<int>{1, 2});
  CHECK_FALSE(queue.Take(batch));
}

TEST_CASE("once the consumer gives up, the producer's next push throws") {
  HandoffQueue<int> queue(2, 1);
  queue.Push(1);
  queue.Abandon();
  CHECK_THROWS_AS(queue.Push(2), HandoffQueue<int>::Abandoned);
}

}  // namespace
}  // namespace trainer
