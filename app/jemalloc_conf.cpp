// jemalloc's options, read by jemalloc at its start (linked into the static program only, with
// jemalloc: cmake/Dependencies.cmake). MALLOC_CONF in the environment still overrides them.
//
// narenas:1: every thread allocates from one arena. By default a second thread gets an arena of
// its own, and making one touches some 30 new pages of jemalloc's bookkeeping: where page faults
// are slow (~9 us each in a small virtual machine) the reading thread started its first read
// 0.5-1 ms late, while every render of a few TrainJobs or more starts one. The threads' caches
// keep the shared arena's lock off the common path.
extern "C" {
extern const char* malloc_conf;
const char* malloc_conf = "narenas:1";
}
