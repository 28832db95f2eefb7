// The compiler's prefetch hint, which Swift has no spelling for: the CPU starts loading the cache line
// at `address` and goes on; a prefetch never faults, whatever the address.
static inline void nearby_prefetch(const void *address) { __builtin_prefetch(address); }
