// The few system calls Swift's Glibc module does not expose (they need _GNU_SOURCE).
#define _GNU_SOURCE
#include "csupport.h"
#include <unistd.h>
#ifdef __linux__
#include <sched.h>
#endif

int listdiff_cpu_count(void) {
#ifdef __linux__
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof set, &set) == 0) {
        int count = CPU_COUNT(&set);
        if (count > 0) return count;
    }
#endif
    long online = sysconf(_SC_NPROCESSORS_ONLN);
    return online > 0 ? (int)online : 1;
}

#ifdef __GLIBC__
#include <malloc.h>
#endif

void listdiff_fix_mmap_threshold(int bytes) {
#ifdef __GLIBC__
    mallopt(M_MMAP_THRESHOLD, bytes);
#else
    (void)bytes;
#endif
}
