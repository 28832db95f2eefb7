import CMalloc

/// How many heaps (arenas) glibc's malloc keeps. By default a thread that finds the arenas busy gets
/// a new one, up to 8 per core; each keeps the pages its threads freed for reuse. The server's
/// threads (event loops, the query queue, the writers of streamed answers) come and go, so under a
/// long load the arenas' kept pages grow the resident heap for minutes while the memory in use does
/// not (BENCHMARKS.md, "Soak"). No-op where the C library is not glibc.
public enum MallocArenas {
    /// At most `count` arenas from now on; call before the threads that allocate start. True when
    /// the C library took the limit (glibc), false elsewhere.
    @discardableResult
    public static func limit(to count: Int) -> Bool {
        precondition(count >= 1)
        return nearby_malloc_arena_max(Int32(clamping: count)) == 1
    }
}
