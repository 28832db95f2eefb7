#if os(Linux)
/// glibc's `mallopt` (malloc.h, which the Glibc module does not export).
@_silgen_name("mallopt")
private func glibcMallopt(_ parameter: Int32, _ value: Int32) -> Int32
#endif

/// How many heaps (arenas) glibc's malloc keeps. By default a thread that finds the arenas busy gets
/// a new one, up to 8 per core; each keeps the pages its threads freed for reuse. The server's
/// threads (event loops, the query queue, the writers of streamed answers) come and go, so under a
/// long load the arenas' kept pages grew the resident heap for minutes while the memory in use did
/// not (BENCHMARKS.md, "HTTP server", session 9). No-op elsewhere.
public enum MallocArenas {
    /// At most `count` arenas from now on; call before the threads that allocate start.
    public static func limit(to count: Int) {
        #if os(Linux)
        precondition(count >= 1)
        let mArenaMax: Int32 = -8
        _ = glibcMallopt(mArenaMax, Int32(clamping: count))
        #endif
    }
}
