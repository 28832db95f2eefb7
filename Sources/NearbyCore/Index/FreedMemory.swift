import CMalloc

/// Hands freed heap pages back to the system. glibc keeps freed blocks below its (self-raising, up
/// to 32 MiB) mmap threshold for reuse, so after freeing a large column the resident size does not
/// drop until this is called. No-op where the C library is not glibc.
public enum FreedMemory {
    public static func giveBack() {
        _ = nearby_malloc_trim()
    }
}
