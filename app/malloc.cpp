// trainer's memory allocator: malloc and its family for the statically linked programs (trainer,
// bench/parse_floor and the unit tests; cmake/Dependencies.cmake), in place of glibc's.
//
// Why one of our own: a render is a short process, and its start is a good part of its cost.
// jemalloc, which the static build linked before, touched ~50 pages of its own bookkeeping before
// its first allocation returned: ~1 ms where a page fault costs ~10 us (bench/RESULTS.md). This one
// starts with two system calls and its per-thread state, and keeps the render's allocation pattern
// fast: many small trees, built on one thread and freed on the same or on another one.
//
// Layout. A request of up to kMaxSmall bytes is rounded up to one of kClasses size classes: 16
// bytes apart up to 128, then four classes per power of two. Each class is carved from runs of whole
// 4 KiB pages, taken in order from one address range reserved at the first allocation and made
// writable as it is used; a byte per page records the class of the run the page belongs to, so
// free() finds an object's class from its address alone. A thread hands out a run by bumping a
// pointer, so its pages are touched only as they are used, and a thread's runs of a class grow from
// one page: what a short process uses lies together at the start of the range. The range is in
// transparent huge pages where the system leaves them to programs (transparent_hugepage/enabled:
// madvise): touching a new 4 KiB page costs 4-10 us in a small virtual machine, a 2 MiB page ~70.
// When the range is used up, small requests are served as large ones.
//
// A freed object goes on the freeing thread's list for its class. A list that reaches a batch's
// length is put by, and the batch put by before it goes to a shared stack of batches (so a thread
// takes the lock only after a batch's worth of frees, or of allocations, more than the other).
// Threads take batches from the stack before they take new memory: what one thread frees and
// another allocates (the loader's reading thread and the renderer) circulates rather than grows.
// Pages are never given back to the system; the peak is the peak of live objects, and trainer's
// does not grow with its input (bench/run.sh). A request over kMaxSmall gets a mapping of its own,
// unmapped on free.
//
// Fork: trainer does not fork. A child forked while another thread held the shared lock would
// wait on it forever.
#include <malloc.h>
#include <pthread.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>

namespace {

constexpr std::size_t kPage = 4096;
constexpr std::size_t kHugePage = std::size_t{2} << 20;
constexpr std::size_t kMinAlign = 16;
constexpr std::size_t kMaxSmall = std::size_t{4} << 20;
constexpr int kClasses = 68;  // 8 classes to 128 bytes, then 4 per power of two to kMaxSmall
constexpr std::size_t kMaxRun = std::size_t{1} << 20;
constexpr std::size_t kCommitStep = std::size_t{4} << 20;  // the range is made writable this much at a time
// The address range for small objects. Reserving it costs nothing (no memory, no commit charge).
// Under a limit on the address space (`ulimit -v`) it takes at most half the limit, leaving the
// rest to large blocks; where even that fails, smaller ranges are tried. (Pages of the range stay
// with the class that first took them: under a tight limit, a run that frees much of one class and
// then needs another runs out sooner than with glibc's malloc.)
constexpr std::size_t kReserve = std::size_t{32} << 30;
constexpr std::size_t kMinReserve = std::size_t{64} << 20;
constexpr std::size_t kMaxPages = kReserve / kPage;
static_assert(kReserve / kMinAlign < UINT32_MAX, "a batch's link (FreeObject) must fit 32 bits");

constexpr std::size_t ComputeClassSize(int index) {
  if (index < 8) return kMinAlign * static_cast<std::size_t>(index + 1);
  int group = (index - 8) / 4;  // sizes above 2^(group + 7)
  int step = (index - 8) % 4 + 1;
  std::size_t base = std::size_t{128} << group;
  return base + static_cast<std::size_t>(step) * (base / 4);
}

// How many free objects of a class make a batch: about 64 KiB worth, between 4 and 256 objects.
constexpr std::uint32_t ComputeBatch(int index) {
  std::size_t count = 64 * 1024 / ComputeClassSize(index);
  if (count < 4) count = 4;
  if (count > 256) count = 256;
  return static_cast<std::uint32_t>(count);
}

struct ClassTable {
  std::size_t size[kClasses];
  std::uint32_t batch[kClasses];
};
constexpr ClassTable kTable = [] {
  ClassTable table{};
  for (int index = 0; index < kClasses; ++index) {
    table.size[index] = ComputeClassSize(index);
    table.batch[index] = ComputeBatch(index);
  }
  return table;
}();
static_assert(kTable.size[kClasses - 1] == kMaxSmall);

inline std::size_t ClassSize(int index) { return kTable.size[index]; }

inline int ClassOf(std::size_t size) {
  if (size <= 128) return size == 0 ? 0 : static_cast<int>((size - 1) / kMinAlign);
  auto top = static_cast<unsigned>(63 - __builtin_clzl(size - 1));  // size - 1 in [2^top, 2^(top+1))
  auto quarter = static_cast<int>(((size - 1) >> (top - 2)) & 3);
  return 8 + static_cast<int>(top - 7) * 4 + quarter;
}

// A thread's runs of a class double from one page (or one object) to 32 objects (at most kMaxRun,
// or one object), in whole pages.
std::size_t RunSize(int index, unsigned taken) {
  std::size_t size = ClassSize(index);
  std::size_t want = size << (taken < 5 ? taken : 5);
  if (want > kMaxRun) want = kMaxRun > size ? kMaxRun : size;
  return (want + kPage - 1) / kPage * kPage;
}

// A free object. The first object of a batch on the shared stack also holds the batch's length and
// the next batch (as its distance from the range's start, in units of kMinAlign, plus one: the
// range is under 2^36 bytes), all within the 16 bytes of the smallest class.
struct FreeObject {
  FreeObject* next;
  std::uint32_t batch_count;
  std::uint32_t next_batch;
};
static_assert(sizeof(FreeObject) == kMinAlign);

// One thread's state for one class: the list it allocates from and frees to, a full batch put by,
// and the rest of its current run. Zero-initialised: thread-local storage needs no constructor.
struct ClassCache {
  FreeObject* free = nullptr;
  std::uint32_t count = 0;
  unsigned runs = 0;  // runs taken
  FreeObject* spare = nullptr;
  char* bump = nullptr;
  char* bump_end = nullptr;
};

struct ThreadCache {
  ClassCache classes[kClasses];
  bool registered = false;
};

thread_local ThreadCache tcache;

// The unused rest of a run of a thread that ended, recorded in its first bytes.
struct Leftover {
  char* begin;
  char* end;
  Leftover* next;
};

// What the threads share. The lock guards all but `base` and `next`, which only the lock's holder
// changes, and `batches`' emptiness, which a thread may glance at without it.
struct Shared {
  pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
  // The reserved range; [base, next) was handed out as runs. free() reads them without the lock:
  // a pointer freed came from a run handed out before, which the thread freeing it has seen.
  std::atomic<char*> base{nullptr};
  std::atomic<char*> next{nullptr};
  char* end = nullptr;
  char* committed = nullptr;  // [base, committed) is writable
  bool failed = false;        // no range could be reserved
  std::atomic<FreeObject*> batches[kClasses] = {};
  Leftover* leftovers[kClasses] = {};
};
Shared shared;
pthread_once_t exit_key_once = PTHREAD_ONCE_INIT;
pthread_key_t exit_key;
bool exit_key_made = false;

// The class of each page of the reserved range, plus one: 0 for a page not in a run.
unsigned char page_class[kMaxPages];

inline char* Base() { return shared.base.load(std::memory_order_relaxed); }

inline bool IsSmall(const void* pointer) {
  auto* p = static_cast<const char*>(pointer);
  return p >= Base() && p < shared.next.load(std::memory_order_relaxed);
}

inline int ClassOfPointer(const void* pointer) {
  auto offset = static_cast<std::size_t>(static_cast<const char*>(pointer) - Base());
  return page_class[offset / kPage] - 1;
}

inline std::uint32_t BatchLink(const FreeObject* batch) {
  if (batch == nullptr) return 0;
  return static_cast<std::uint32_t>((reinterpret_cast<const char*>(batch) - Base()) / kMinAlign + 1);
}

inline FreeObject* BatchAt(std::uint32_t link) {
  if (link == 0) return nullptr;
  return reinterpret_cast<FreeObject*>(Base() + std::size_t{link - 1} * kMinAlign);
}

class Lock {
 public:
  Lock() { pthread_mutex_lock(&shared.lock); }
  ~Lock() { pthread_mutex_unlock(&shared.lock); }
  Lock(const Lock&) = delete;
  Lock& operator=(const Lock&) = delete;
};

// Under the lock. Reserves the range at the first call.
bool Reserve() {
  if (shared.end != nullptr) return true;
  if (shared.failed) return false;
  int saved = errno;  // a successful allocation leaves errno alone
  std::size_t size = kReserve;
  if (rlimit limit{}; getrlimit(RLIMIT_AS, &limit) == 0 && limit.rlim_cur != RLIM_INFINITY) {
    while (size > kMinReserve && size > limit.rlim_cur / 2) size /= 2;
  }
  for (; size >= kMinReserve; size /= 2) {
    void* range = mmap(nullptr, size + kHugePage, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (range == MAP_FAILED) continue;
    auto* begin =
        reinterpret_cast<char*>((reinterpret_cast<std::uintptr_t>(range) + kHugePage - 1) / kHugePage * kHugePage);
    madvise(begin, size, MADV_HUGEPAGE);
    shared.committed = begin;
    shared.end = begin + size;
    shared.next.store(begin, std::memory_order_relaxed);
    shared.base.store(begin, std::memory_order_relaxed);
    errno = saved;
    return true;
  }
  shared.failed = true;
  errno = saved;
  return false;
}

// Under the lock: `size` bytes of new run for class `index`, or null when the range is used up.
char* NewRun(int index, std::size_t size) {
  if (!Reserve()) return nullptr;
  char* run = shared.next.load(std::memory_order_relaxed);
  if (static_cast<std::size_t>(shared.end - run) < size) return nullptr;
  if (run + size > shared.committed) {
    auto room = static_cast<std::size_t>(shared.end - shared.committed);
    std::size_t grow =
        (static_cast<std::size_t>(run + size - shared.committed) + kCommitStep - 1) / kCommitStep * kCommitStep;
    if (grow > room) grow = room;
    int saved = errno;
    if (mprotect(shared.committed, grow, PROT_READ | PROT_WRITE) != 0) {
      errno = saved;  // the request may still be served as a large one
      return nullptr;
    }
    shared.committed += grow;
  }
  std::memset(page_class + static_cast<std::size_t>(run - Base()) / kPage, index + 1, size / kPage);
  shared.next.store(run + size, std::memory_order_relaxed);
  return run;
}

void FlushThread(void* cache_pointer);

// At the thread's end its cached objects go back to the shared stacks: done by the first allocation
// or free of a thread, and again by one after the flush (from another key's destructor: glibc then
// runs the destructors another round). Set first: recording the key's value may allocate.
__attribute__((noinline)) void Register() {
  tcache.registered = true;
  pthread_once(&exit_key_once, [] { exit_key_made = pthread_key_create(&exit_key, FlushThread) == 0; });
  if (exit_key_made) pthread_setspecific(exit_key, &tcache);
}

// The slow path of a small allocation: the batch put by, else one from the shared stack, else the
// rest of the thread's run, else a leftover run, else a new run.
__attribute__((noinline)) void* RefillAndTake(int index) {
  ClassCache& cache = tcache.classes[index];
  std::size_t size = ClassSize(index);
  if (!tcache.registered) Register();
  if (FreeObject* batch = cache.spare; batch != nullptr) {
    cache.spare = nullptr;
    cache.free = batch->next;
    cache.count = batch->batch_count - 1;
    return batch;
  }
  bool bump_left = static_cast<std::size_t>(cache.bump_end - cache.bump) >= size;
  if (!bump_left || shared.batches[index].load(std::memory_order_relaxed) != nullptr) {
    Lock lock;
    if (FreeObject* batch = shared.batches[index].load(std::memory_order_relaxed); batch != nullptr) {
      shared.batches[index].store(BatchAt(batch->next_batch), std::memory_order_relaxed);
      cache.free = batch->next;
      cache.count = batch->batch_count - 1;
      return batch;
    }
    if (!bump_left) {
      if (Leftover* leftover = shared.leftovers[index]; leftover != nullptr) {
        shared.leftovers[index] = leftover->next;
        cache.bump = leftover->begin;
        cache.bump_end = leftover->end;
      } else {
        std::size_t run_size = RunSize(index, cache.runs);
        char* run = NewRun(index, run_size);
        if (run == nullptr) return nullptr;
        cache.bump = run;
        cache.bump_end = run + run_size / size * size;
        ++cache.runs;
      }
    }
  }
  char* object = cache.bump;
  cache.bump += size;
  return object;
}

inline __attribute__((always_inline)) void* AllocateSmall(int index) {
  ClassCache& cache = tcache.classes[index];
  if (FreeObject* object = cache.free; object != nullptr) {
    cache.free = object->next;
    --cache.count;
    return object;
  }
  return RefillAndTake(index);
}

void Push(int index, FreeObject* batch) {
  Lock lock;
  batch->next_batch = BatchLink(shared.batches[index].load(std::memory_order_relaxed));
  shared.batches[index].store(batch, std::memory_order_relaxed);
}

// The thread's list for the class, full, is put by as a batch; the one put by before goes to the
// shared stack.
__attribute__((noinline)) void PutBy(int index) {
  ClassCache& cache = tcache.classes[index];
  FreeObject* batch = cache.free;
  batch->batch_count = cache.count;
  cache.free = nullptr;
  cache.count = 0;
  if (cache.spare != nullptr) Push(index, cache.spare);
  cache.spare = batch;
}

inline __attribute__((always_inline)) void FreeSmall(void* pointer, int index) {
  if (__builtin_expect(!tcache.registered, 0)) Register();  // a thread that only frees
  ClassCache& cache = tcache.classes[index];
  auto* object = static_cast<FreeObject*>(pointer);
  object->next = cache.free;
  cache.free = object;
  if (++cache.count >= kTable.batch[index]) PutBy(index);
}

void FlushThread(void* cache_pointer) {
  auto* cache = static_cast<ThreadCache*>(cache_pointer);
  for (int index = 0; index < kClasses; ++index) {
    ClassCache& one = cache->classes[index];
    if (one.count > 0) {
      one.free->batch_count = one.count;
      Push(index, one.free);
    }
    if (one.spare != nullptr) Push(index, one.spare);
    one.free = one.spare = nullptr;
    one.count = 0;
    // The rest of the run, for the next thread that needs the class (the smallest class cannot
    // hold the record: the rest of its run, under 4 KiB, stays unused).
    if (ClassSize(index) >= sizeof(Leftover) && static_cast<std::size_t>(one.bump_end - one.bump) >= ClassSize(index)) {
      auto* leftover = reinterpret_cast<Leftover*>(one.bump);
      leftover->begin = one.bump;
      leftover->end = one.bump_end;
      Lock lock;
      leftover->next = shared.leftovers[index];
      shared.leftovers[index] = leftover;
    }
    one.bump = one.bump_end = nullptr;
  }
  cache->registered = false;
}

// A request over kMaxSmall: a mapping of its own (in huge pages too). The 16 bytes before the
// returned pointer hold the mapping's start and length.
struct LargeHeader {
  char* map;
  std::size_t length;
};
static_assert(sizeof(LargeHeader) == kMinAlign);

inline LargeHeader* HeaderOf(void* pointer) { return static_cast<LargeHeader*>(pointer) - 1; }

__attribute__((noinline)) void* AllocateLarge(std::size_t size, std::size_t alignment) {
  std::size_t extra = alignment > kMinAlign ? alignment : kMinAlign;
  if (size > SIZE_MAX - extra - kPage) {
    errno = ENOMEM;
    return nullptr;
  }
  std::size_t length = (size + extra + kPage - 1) / kPage * kPage;
  void* made = mmap(nullptr, length, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (made == MAP_FAILED) {
    errno = ENOMEM;
    return nullptr;
  }
  auto* map = static_cast<char*>(made);
  int saved = errno;
  madvise(map, length, MADV_HUGEPAGE);  // refused where the kernel has no huge pages
  errno = saved;
  auto start = (reinterpret_cast<std::uintptr_t>(map) + sizeof(LargeHeader) + alignment - 1) / alignment * alignment;
  LargeHeader* header = HeaderOf(reinterpret_cast<void*>(start));
  header->map = map;
  header->length = length;
  return reinterpret_cast<void*>(start);
}

__attribute__((noinline)) void FreeLarge(void* pointer) {
  LargeHeader* header = HeaderOf(pointer);
  munmap(header->map, header->length);
}

// realloc of a large block to a large size: the system resizes the mapping (moving it if need be),
// which keeps the block's offset in its pages and so its alignment to 16.
__attribute__((noinline)) void* ResizeLarge(void* pointer, std::size_t size) {
  LargeHeader* header = HeaderOf(pointer);
  auto offset = static_cast<std::size_t>(static_cast<char*>(pointer) - header->map);
  if (size > SIZE_MAX - offset - kPage) {
    errno = ENOMEM;
    return nullptr;
  }
  std::size_t length = (offset + size + kPage - 1) / kPage * kPage;
  if (length == header->length) return pointer;
  void* map = mremap(header->map, header->length, length, MREMAP_MAYMOVE);
  if (map == MAP_FAILED) {
    errno = ENOMEM;
    return nullptr;
  }
  char* moved = static_cast<char*>(map) + offset;
  header = HeaderOf(moved);
  header->map = static_cast<char*>(map);
  header->length = length;
  return moved;
}

std::size_t UsableSize(void* pointer) {
  if (IsSmall(pointer)) return ClassSize(ClassOfPointer(pointer));
  LargeHeader* header = HeaderOf(pointer);
  return static_cast<std::size_t>(header->map + header->length - static_cast<char*>(pointer));
}

// A small request when the range is used up (or could not be reserved) is served as a large one.
inline __attribute__((always_inline)) void* Allocate(std::size_t size) {
  if (size <= kMaxSmall) {
    if (void* object = AllocateSmall(ClassOf(size)); object != nullptr) return object;
  }
  return AllocateLarge(size, kMinAlign);
}

void* AllocateAligned(std::size_t alignment, std::size_t size) {
  if (alignment <= kMinAlign) return Allocate(size);
  // A class whose size is a multiple of the alignment: its objects lie at multiples of their size
  // from the start of their run, which is page-aligned. Powers of two are classes.
  if (alignment <= kPage) {
    std::size_t want = size < alignment ? alignment : size;
    if (want <= kMaxSmall) {
      int index = ClassOf(want);
      while (index < kClasses && ClassSize(index) % alignment != 0) ++index;
      if (index < kClasses) {
        if (void* object = AllocateSmall(index); object != nullptr) return object;
      }
    }
  }
  return AllocateLarge(size, alignment);
}

inline __attribute__((always_inline)) void Free(void* pointer) {
  if (pointer == nullptr) return;
  if (IsSmall(pointer)) {
    FreeSmall(pointer, ClassOfPointer(pointer));
  } else {
    FreeLarge(pointer);
  }
}

bool IsPowerOfTwo(std::size_t value) { return value != 0 && (value & (value - 1)) == 0; }

}  // namespace

extern "C" {

void* malloc(std::size_t size) noexcept { return Allocate(size); }

void free(void* pointer) noexcept { Free(pointer); }

void* calloc(std::size_t count, std::size_t size) noexcept {
  std::size_t total = 0;
  if (__builtin_mul_overflow(count, size, &total)) {
    errno = ENOMEM;
    return nullptr;
  }
  void* pointer = Allocate(total);
  // A large block is a new mapping, zero already.
  if (pointer != nullptr && IsSmall(pointer)) std::memset(pointer, 0, total);
  return pointer;
}

void* realloc(void* pointer, std::size_t size) noexcept {
  if (pointer == nullptr) return Allocate(size);
  if (size == 0) {
    Free(pointer);
    return nullptr;
  }
  std::size_t usable = UsableSize(pointer);
  if (IsSmall(pointer)) {
    if (size <= kMaxSmall && ClassOf(size) == ClassOfPointer(pointer)) return pointer;
  } else if (size > kMaxSmall) {
    return ResizeLarge(pointer, size);
  } else if (size <= usable && usable - size < kPage) {
    return pointer;  // a small request served by a mapping (the range used up) that still fits it
  }
  void* moved = Allocate(size);
  if (moved == nullptr) return nullptr;
  std::memcpy(moved, pointer, size < usable ? size : usable);
  Free(pointer);
  return moved;
}

int posix_memalign(void** result, std::size_t alignment, std::size_t size) noexcept {
  if (!IsPowerOfTwo(alignment) || alignment % sizeof(void*) != 0) return EINVAL;
  int saved = errno;
  void* pointer = AllocateAligned(alignment, size);
  if (pointer == nullptr) return ENOMEM;
  errno = saved;
  *result = pointer;
  return 0;
}

// As glibc 2.36 does for both: an alignment that is not a power of two is rounded up to one.
void* memalign(std::size_t alignment, std::size_t size) noexcept {
  if (alignment > (SIZE_MAX >> 1) + 1) {
    errno = EINVAL;
    return nullptr;
  }
  std::size_t power = kMinAlign;
  while (power < alignment) power *= 2;
  return AllocateAligned(power, size);
}

void* aligned_alloc(std::size_t alignment, std::size_t size) noexcept { return memalign(alignment, size); }

void* valloc(std::size_t size) noexcept { return AllocateAligned(kPage, size); }

void* pvalloc(std::size_t size) noexcept {
  if (size > SIZE_MAX - kPage) {
    errno = ENOMEM;
    return nullptr;
  }
  return AllocateAligned(kPage, (size + kPage - 1) / kPage * kPage);
}

std::size_t malloc_usable_size(void* pointer) noexcept { return pointer == nullptr ? 0 : UsableSize(pointer); }

}  // extern "C"
