// The compiler's prefetch hint, which Swift has no spelling for: the CPU starts loading the cache line
// at `address` and goes on; a prefetch never faults, whatever the address.
static inline void nearby_prefetch(const void *address) { __builtin_prefetch(address); }

// Atomic byte loads and stores for `BlockVerifier`'s per-block states, which threads read without a
// lock: an acquire load sees the verification a release store published.
static inline unsigned char nearby_load_acquire(const unsigned char *p) { return __atomic_load_n(p, __ATOMIC_ACQUIRE); }
static inline void nearby_store_release(unsigned char *p, unsigned char v) { __atomic_store_n(p, v, __ATOMIC_RELEASE); }
