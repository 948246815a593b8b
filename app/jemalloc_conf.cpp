// jemalloc's options, read by jemalloc at its start (linked into the static programs only, with
// jemalloc: cmake/Dependencies.cmake; bench/parse_floor links them too). MALLOC_CONF in the
// environment still overrides them.
//
// narenas:1: every thread allocates from one arena. By default a second thread gets an arena of
// its own, and making one touches some 30 new pages of jemalloc's bookkeeping: where page faults
// are slow (~9 us each in a small virtual machine) the reading thread started its first read
// 0.5-1 ms late, while every render of a few TrainJobs or more starts one. The threads' caches
// keep the shared arena's lock off the common path.
//
// thp:always: jemalloc asks for transparent huge pages (madvise) on the memory it maps, where the
// system leaves that to the program (/sys/kernel/mm/transparent_hugepage/enabled: madvise); with
// "always" or "never" there it changes nothing. jemalloc keeps each size class on pages of its
// own, so a render touches ~70 pages of heap and metadata, one page fault each; in 2 MiB pages they
// are three faults. A one-job render 0.3-0.4 ms faster where faults are slow, 100 TrainJobs ~15%,
// for 4-6 MiB more resident memory (bench/RESULTS.md). MALLOC_CONF=thp:default turns it off (man page).
extern "C" {
extern const char* malloc_conf;
const char* malloc_conf = "narenas:1,thp:always";
}
