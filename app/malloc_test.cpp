// malloc and its family as the test binary links them: trainer's own allocator (app/malloc.cpp) in
// the statically linked build (TRAINER_OWN_MALLOC), the sanitizers' or glibc's otherwise. What any
// malloc must do is checked in every build; what is particular to trainer's (its size classes, its
// reuse of memory across threads, its null for an impossible request) only with it.
#include <doctest/doctest.h>
#include <malloc.h>
#include <pthread.h>
#include <sys/resource.h>

#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <mutex>
#include <thread>
#include <vector>

// AddressSanitizer reports a calloc overflow or an invalid alignment as an error and stops the
// program, where malloc's contract is an error return: those two cases are left out under it.
#if defined(__SANITIZE_ADDRESS__)
#define TRAINER_TEST_ERROR_RETURNS 0
#else
#define TRAINER_TEST_ERROR_RETURNS 1
#endif

namespace {

constexpr std::size_t kMiB = std::size_t{1} << 20;

bool Aligned(const void* pointer, std::size_t alignment) {
  return reinterpret_cast<std::uintptr_t>(pointer) % alignment == 0;
}

void Fill(void* pointer, std::size_t size, unsigned char seed) {
  auto* bytes = static_cast<unsigned char*>(pointer);
  for (std::size_t i = 0; i < size; ++i) bytes[i] = static_cast<unsigned char>(seed + i * 7);
}

bool Holds(const void* pointer, std::size_t size, unsigned char seed) {
  auto* bytes = static_cast<const unsigned char*>(pointer);
  for (std::size_t i = 0; i < size; ++i) {
    if (bytes[i] != static_cast<unsigned char>(seed + i * 7)) return false;
  }
  return true;
}

// Sizes around every boundary of trainer's classes (16 bytes apart to 128, then four per power of
// two to 4 MiB) and past them, into mappings of their own.
std::vector<std::size_t> BoundarySizes() {
  std::vector<std::size_t> sizes = {0, 1, 8, 15, 16, 17, 31, 32, 33, 100, 127, 128, 129};
  for (std::size_t base = 128; base <= 4 * kMiB; base *= 2) {
    for (std::size_t step = 1; step <= 4; ++step) {
      std::size_t size = base + step * base / 4;
      for (std::size_t near : {size - 1, size, size + 1}) sizes.push_back(near);
    }
  }
  sizes.push_back(9 * kMiB + 3);
  return sizes;
}

TEST_CASE("malloc gives writable, 16-byte aligned blocks of every size, and at least what was asked") {
  for (std::size_t size : BoundarySizes()) {
    CAPTURE(size);
    void* block = std::malloc(size);
    REQUIRE(block != nullptr);
    CHECK(Aligned(block, 16));
    CHECK(malloc_usable_size(block) >= size);
    Fill(block, size, 3);
    CHECK(Holds(block, size, 3));
    std::free(block);
  }
  std::free(nullptr);  // allowed, does nothing
}

TEST_CASE("live blocks do not overlap") {
  std::vector<std::pair<void*, std::size_t>> live;
  unsigned char seed = 0;
  for (int round = 0; round < 3; ++round) {
    for (std::size_t size : BoundarySizes()) {
      if (size > kMiB) continue;
      void* block = std::malloc(size);
      REQUIRE(block != nullptr);
      Fill(block, size, seed++);
      live.emplace_back(block, size);
    }
  }
  seed = 0;
  for (auto& [block, size] : live) {
    CHECK(Holds(block, size, seed++));
    std::free(block);
  }
}

TEST_CASE("calloc zeroes memory that was used before") {
  for (std::size_t size : {std::size_t{24}, std::size_t{1000}, std::size_t{70000}, 5 * kMiB}) {
    CAPTURE(size);
    void* used = std::malloc(size);
    REQUIRE(used != nullptr);
    std::memset(used, 0xab, size);
    std::free(used);
    auto* zeroed = static_cast<unsigned char*>(std::calloc(1, size));
    REQUIRE(zeroed != nullptr);
#ifdef TRAINER_OWN_MALLOC
    // The thread's list hands back the block just freed: the zeroing is what is tested.
    if (size < 4 * kMiB) CHECK(static_cast<void*>(zeroed) == used);
#endif
    bool all_zero = true;
    for (std::size_t i = 0; i < size; ++i) all_zero = all_zero && zeroed[i] == 0;
    CHECK(all_zero);
    std::free(zeroed);
  }
}

#if TRAINER_TEST_ERROR_RETURNS
TEST_CASE("calloc refuses a count and size whose product overflows") {
  volatile std::size_t count = SIZE_MAX / 2;  // not a constant: the compiler would refuse the call
  errno = 0;
  CHECK(std::calloc(count, 3) == nullptr);
  CHECK(errno == ENOMEM);
}
#endif

TEST_CASE("realloc keeps the contents through every kind of move") {
  std::size_t sizes[] = {10, 200, 5000, 300000, 6 * kMiB, 12 * kMiB, 5 * kMiB, 100, 3 * kMiB, 7};
  void* block = std::realloc(nullptr, 1);
  REQUIRE(block != nullptr);
  std::size_t kept = 1;
  Fill(block, kept, 9);
  for (std::size_t size : sizes) {
    CAPTURE(size);
    block = std::realloc(block, size);
    REQUIRE(block != nullptr);
    CHECK(Aligned(block, 16));
    std::size_t common = kept < size ? kept : size;
    CHECK(Holds(block, common, 9));
    Fill(block, size, 9);
    kept = size;
  }
  std::free(block);
}

TEST_CASE("the aligned allocators honour every power-of-two alignment") {
  for (std::size_t alignment = 8; alignment <= 2 * kMiB; alignment *= 2) {
    for (std::size_t size : {std::size_t{1}, alignment, 3 * alignment + 5, 5 * kMiB}) {
      CAPTURE(alignment);
      CAPTURE(size);
      void* block = nullptr;
      REQUIRE(posix_memalign(&block, alignment, size) == 0);
      CHECK(Aligned(block, alignment));
      Fill(block, size, 1);
      std::free(block);
      // (C11 asked aligned_alloc for a multiple of the alignment; AddressSanitizer holds to that.)
      std::size_t multiple = (size + alignment - 1) / alignment * alignment;
      block = aligned_alloc(alignment, multiple);
      REQUIRE(block != nullptr);
      CHECK(Aligned(block, alignment));
      Fill(block, multiple, 2);
      std::free(block);
      block = memalign(alignment, size);
      REQUIRE(block != nullptr);
      CHECK(Aligned(block, alignment));
      std::free(block);
    }
  }
  void* page = valloc(100);
  REQUIRE(page != nullptr);
  CHECK(Aligned(page, 4096));
  std::free(page);
}

#if TRAINER_TEST_ERROR_RETURNS
TEST_CASE("posix_memalign refuses an alignment that is not a power of two times sizeof(void*)") {
  void* block = nullptr;
  CHECK(posix_memalign(&block, 24, 100) == EINVAL);
  CHECK(posix_memalign(&block, 4, 100) == EINVAL);
  CHECK(block == nullptr);
}
#endif

TEST_CASE("blocks freed on another thread are written and read intact") {
  // A producer fills blocks of mixed sizes; a consumer checks and frees them, as the loader's
  // reading thread and the renderer do.
  std::mutex mutex;
  std::vector<std::pair<void*, std::size_t>> handed;
  std::atomic<bool> done{false};
  std::atomic<int> bad{0};
  std::thread consumer([&] {
    std::vector<std::pair<void*, std::size_t>> taken;
    for (;;) {
      bool finished = done.load();
      {
        std::lock_guard<std::mutex> hold(mutex);
        taken.swap(handed);
      }
      for (auto& [block, size] : taken) {
        if (!Holds(block, size, static_cast<unsigned char>(size))) ++bad;
        std::free(block);
      }
      taken.clear();
      if (finished) break;
      std::this_thread::yield();
    }
  });
  for (int i = 0; i < 200000; ++i) {
    std::size_t size = 1 + static_cast<std::size_t>(i * 37 % 3000);
    void* block = std::malloc(size);
    REQUIRE(block != nullptr);
    Fill(block, size, static_cast<unsigned char>(size));
    std::lock_guard<std::mutex> hold(mutex);
    handed.emplace_back(block, size);
  }
  done = true;
  consumer.join();
  CHECK(bad.load() == 0);
}

#ifdef TRAINER_OWN_MALLOC

// Resident memory of this process, from /proc/self/statm.
std::size_t ResidentBytes() {
  std::ifstream statm("/proc/self/statm");
  std::size_t pages = 0;
  std::size_t resident = 0;
  statm >> pages >> resident;
  return resident * 4096;
}

TEST_CASE("trainer's allocator rounds small requests up to its size classes") {
  struct Case {
    std::size_t asked;
    std::size_t usable;
  };
  for (Case c : {Case{0, 16}, Case{1, 16}, Case{17, 32}, Case{128, 128}, Case{129, 160}, Case{257, 320},
                 Case{4097, 5120}, Case{4 * kMiB, 4 * kMiB}}) {
    CAPTURE(c.asked);
    void* block = std::malloc(c.asked);
    REQUIRE(block != nullptr);
    CHECK(malloc_usable_size(block) == c.usable);
    // realloc within the class keeps the block where it is.
    void* same = std::realloc(block, c.usable);
    CHECK(same == block);
    std::free(same);
  }
}

TEST_CASE("trainer's allocator returns null and ENOMEM for what cannot be mapped") {
  for (std::size_t size : {SIZE_MAX, SIZE_MAX - 4096, std::size_t{1} << 60}) {
    CAPTURE(size);
    errno = 0;
    CHECK(std::malloc(size) == nullptr);
    CHECK(errno == ENOMEM);
  }
  void* block = std::malloc(100);
  errno = 0;
  CHECK(std::realloc(block, std::size_t{1} << 60) == nullptr);
  CHECK(errno == ENOMEM);
  std::free(block);  // still the caller's after a failed realloc
}

// Memory freed on one thread and allocated again on another must circulate: without the shared
// batches the producer would take new pages every round (~20 MiB each) and resident memory grow
// with the number of rounds.
TEST_CASE("trainer's allocator reuses across threads what one allocates and another frees") {
  auto round = [] {
    std::vector<void*> blocks;
    blocks.reserve(100000);
    for (int i = 0; i < 100000; ++i) {
      void* block = std::malloc(64 + static_cast<std::size_t>(i % 8) * 48);
      REQUIRE(block != nullptr);
      std::memset(block, 1, 64);
      blocks.push_back(block);
    }
    std::thread freer([&] {
      for (void* block : blocks) std::free(block);
    });
    freer.join();
  };
  round();
  round();
  std::size_t settled = ResidentBytes();
  for (int i = 0; i < 20; ++i) round();
  // (Each round's ~23 MB freed by a thread that only frees: its cache must go back at its end.)
  CHECK(ResidentBytes() < settled + 4 * kMiB);
}

TEST_CASE("trainer's allocator takes back what ended threads held") {
  auto thread_round = [] {
    std::thread worker([] {
      std::vector<void*> blocks;
      for (int i = 0; i < 20000; ++i) blocks.push_back(std::malloc(40 + static_cast<std::size_t>(i % 5) * 200));
      for (void* block : blocks) std::free(block);
    });
    worker.join();
  };
  thread_round();
  std::size_t settled = ResidentBytes();
  for (int i = 0; i < 100; ++i) thread_round();
  CHECK(ResidentBytes() < settled + 16 * kMiB);
}

// Another key's destructor runs after the allocator's has flushed the thread's cache: what it frees
// must still go back.
TEST_CASE("trainer's allocator takes back what a thread frees in a key destructor at its end") {
  pthread_key_t key;
  REQUIRE(pthread_key_create(&key, [](void* value) {
            auto* blocks = static_cast<std::vector<void*>*>(value);
            for (void* block : *blocks) std::free(block);
            delete blocks;
          }) == 0);
  auto thread_round = [key] {
    std::thread worker([key] {
      auto* blocks = new std::vector<void*>;
      for (int i = 0; i < 200; ++i) blocks->push_back(std::malloc(1000));
      pthread_setspecific(key, blocks);
    });
    worker.join();
  };
  for (int i = 0; i < 20; ++i) thread_round();
  std::size_t settled = ResidentBytes();
  for (int i = 0; i < 300; ++i) thread_round();
  CHECK(ResidentBytes() < settled + 4 * kMiB);
  pthread_key_delete(key);
}

TEST_CASE("trainer's memalign rounds an alignment that is not a power of two up to one, as glibc's") {
  void* block = memalign(24, 100);
  REQUIRE(block != nullptr);
  CHECK(Aligned(block, 32));
  std::free(block);
  block = aligned_alloc(0, 100);
  REQUIRE(block != nullptr);
  CHECK(Aligned(block, 16));
  std::free(block);
}

// Under `ulimit -v` the range takes at most half the limit (64 MiB at least), and requests it can
// no longer serve are mapped one by one. The ctest test malloc-range runs this under a limit of
// ~195 MiB (a range of 64 MiB); without a limit there is nothing to show.
TEST_CASE("trainer's allocator maps small requests itself once its range is used up") {
  rlimit limit{};
  REQUIRE(getrlimit(RLIMIT_AS, &limit) == 0);
  if (limit.rlim_cur == RLIM_INFINITY) {
    MESSAGE("no limit on the address space: nothing to show (ctest runs this as malloc-range)");
    return;
  }
  REQUIRE(limit.rlim_cur / 2 < 128 * kMiB);  // so the range is 64 MiB
  std::vector<void*> blocks;
  for (int i = 0; i < 512; ++i) {  // 128 MiB in blocks of 256 KiB: twice the range
    void* block = std::malloc(256 * 1024);
    REQUIRE(block != nullptr);
    std::memset(block, i, 64);
    blocks.push_back(block);
  }
  for (std::size_t i = 0; i < blocks.size(); ++i) CHECK(*static_cast<unsigned char*>(blocks[i]) == (i & 0xff));
  for (void* block : blocks) std::free(block);
}

#endif  // TRAINER_OWN_MALLOC

}  // namespace
