// The compiler's prefetch hint, which Swift has no spelling for: the CPU starts loading the cache line
// at `address` and goes on; a prefetch never faults, whatever the address.
static inline void nearby_prefetch(const void *address) { __builtin_prefetch(address); }

// Atomic byte loads and stores for `BlockVerifier`'s per-block states, which threads read without a
// lock. A reader needs only the state itself: the bytes a state vouches for are the mapped file's,
// which no thread writes, so a relaxed load (a plain load on x86 and ARM) suffices; the release store
// publishes it.
static inline unsigned char nearby_load_relaxed(const unsigned char *p) { return __atomic_load_n(p, __ATOMIC_RELAXED); }
static inline void nearby_store_release(unsigned char *p, unsigned char v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }
