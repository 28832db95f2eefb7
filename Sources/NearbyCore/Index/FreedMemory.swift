#if os(Linux)
/// glibc's `malloc_trim` (malloc.h, which the Glibc module does not export).
@_silgen_name("malloc_trim")
private func glibcMallocTrim(_ pad: Int) -> Int32
#endif

/// Hands freed heap pages back to the system. glibc keeps freed blocks below its (self-raising, up
/// to 32 MiB) mmap threshold for reuse, so after freeing a large column the resident size does not
/// drop until this is called. No-op elsewhere.
public enum FreedMemory {
    public static func giveBack() {
        #if os(Linux)
        _ = glibcMallocTrim(0)
        #endif
    }
}
