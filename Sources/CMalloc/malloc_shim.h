// glibc's heap controls (malloc.h, which Swift's Glibc module does not export), as inline functions so
// no Swift code declares a C symbol by hand. No-ops where the C library is not glibc.
#include <stdlib.h>  // defines __GLIBC__ under glibc
#if defined(__GLIBC__)
#include <malloc.h>
// Hands the heap's free pages back to the system (malloc_trim(0)).
static inline int nearby_malloc_trim(void) { return malloc_trim(0); }
// At most `count` arenas from now on (mallopt(M_ARENA_MAX)).
static inline int nearby_malloc_arena_max(int count) { return mallopt(M_ARENA_MAX, count); }
#else
static inline int nearby_malloc_trim(void) { return 0; }
static inline int nearby_malloc_arena_max(int count) { (void)count; return 0; }
#endif
