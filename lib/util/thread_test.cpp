#include "util/thread.h"

#include <doctest/doctest.h>

#include <atomic>
#include <utility>
#include <vector>

#include <sched.h>

namespace trainer {
namespace {

TEST_CASE("a spread thread runs its body and may then run on every CPU its process may") {
  cpu_set_t process;
  REQUIRE(sched_getaffinity(0, sizeof process, &process) == 0);
  std::atomic<int> ran{0};
  cpu_set_t inside;
  CPU_ZERO(&inside);
  SpreadThread thread([&] {
    sched_getaffinity(0, sizeof inside, &inside);
    ++ran;
  });
  CHECK(thread.joinable());
  thread.join();
  CHECK_FALSE(thread.joinable());
  CHECK(ran == 1);
  // Started away from its creator's CPU where there was another, it no longer keeps away from it.
  CHECK(CPU_EQUAL(&inside, &process));
}

TEST_CASE("spread threads move like std::thread") {
  std::atomic<int> ran{0};
  std::vector<SpreadThread> threads;
  for (int i = 0; i < 4; ++i) threads.emplace_back([&] { ++ran; });
  SpreadThread moved = std::move(threads[0]);
  CHECK_FALSE(threads[0].joinable());
  CHECK(moved.joinable());
  moved.join();
  for (SpreadThread& thread : threads) thread.join();
  CHECK(ran == 4);
}

}  // namespace
}  // namespace trainer
