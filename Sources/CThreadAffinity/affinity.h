// Linux's CPU affinity (sched_getaffinity/sched_setaffinity) as inline functions over the system calls
// themselves: glibc's cpu_set_t macros need _GNU_SOURCE, which a module header cannot count on. A
// mask of 1,024 bits, glibc's CPU_SETSIZE. Elsewhere the functions say "unknown" (-1).
#if defined(__linux__)
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>
#define NEARBY_CPU_MASK_WORDS (1024 / (8 * sizeof(unsigned long)))
// The CPUs `tid` may run on (0: the calling thread; getpid(): the process's main thread), in order, at
// most `max` of them into `cpus`; their number, or -1 when the system refused.
static inline int nearby_cpus_of(int tid, int *cpus, int max) {
    unsigned long mask[NEARBY_CPU_MASK_WORDS];
    memset(mask, 0, sizeof mask);
    if (syscall(SYS_sched_getaffinity, tid, sizeof mask, mask) < 0) return -1;
    int count = 0, bits = 8 * sizeof(unsigned long);
    for (int cpu = 0; cpu < (int)(NEARBY_CPU_MASK_WORDS * bits) && count < max; cpu++)
        if ((mask[cpu / bits] >> (cpu % bits)) & 1UL) cpus[count++] = cpu;
    return count;
}
// Lets the calling thread run on `cpu` only; 0, or -1 when the system refused (a CPU not allowed).
static inline int nearby_pin_calling_thread(int cpu) {
    unsigned long mask[NEARBY_CPU_MASK_WORDS];
    int bits = 8 * sizeof(unsigned long);
    if (cpu < 0 || cpu >= (int)(NEARBY_CPU_MASK_WORDS * bits)) return -1;
    memset(mask, 0, sizeof mask);
    mask[cpu / bits] = 1UL << (cpu % bits);
    return syscall(SYS_sched_setaffinity, 0, sizeof mask, mask) == 0 ? 0 : -1;
}
static inline int nearby_process_id(void) { return (int)getpid(); }
#else
static inline int nearby_cpus_of(int tid, int *cpus, int max) { (void)tid; (void)cpus; (void)max; return -1; }
static inline int nearby_pin_calling_thread(int cpu) { (void)cpu; return -1; }
static inline int nearby_process_id(void) { return 0; }
#endif
