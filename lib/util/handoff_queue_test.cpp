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

TEST_CASE("a consumer with something else to do does it while nothing is queued, then waits") {
  HandoffQueue<int> queue(64, 1);
  std::vector<int> batch;
  int idle_runs = 0;
  SUBCASE("items queued: taken at once, the other work not done") {
    queue.Push(1);
    CHECK(queue.Take(batch, [&] { return ++idle_runs, true; }));
    CHECK(batch == std::vector<int>{1});
    CHECK(idle_runs == 0);
  }
  SUBCASE("an item pushed during the other work is taken after it") {
    CHECK(queue.Take(batch, [&] {
      if (++idle_runs == 3) queue.Push(5);
      return true;
    }));
    CHECK(batch == std::vector<int>{5});
    CHECK(idle_runs == 3);
  }
  SUBCASE("once the other work runs out, it waits for an item") {
    std::thread producer([&] {
      std::this_thread::sleep_for(std::chrono::milliseconds(50));
      queue.Push(9);
    });
    CHECK(queue.Take(batch, [&] { return ++idle_runs < 2; }));
    producer.join();
    CHECK(batch == std::vector<int>{9});
    CHECK(idle_runs == 2);
  }
  SUBCASE("closed and empty: false, after the other work runs out") {
    queue.Close();
    CHECK_FALSE(queue.Take(batch, [&] { return ++idle_runs, false; }));
    CHECK(idle_runs == 0);
  }
}

TEST_CASE("once the consumer gives up, the producer's next push throws") {
  HandoffQueue<int> queue(2, 1);
  queue.Push(1);
  queue.Abandon();
  CHECK_THROWS_AS(queue.Push(2), HandoffQueue<int>::Abandoned);
}

}  // namespace
}  // namespace trainer
