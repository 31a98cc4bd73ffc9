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
#include <signal.h>
#include <stdint.h>
#include <sys/mman.h>

#include <fcntl.h>

void listdiff_start_writeback(int fd, int64_t offset, int64_t count) {
#ifdef __linux__
    (void)sync_file_range(fd, offset, count, SYNC_FILE_RANGE_WRITE);
#else
    (void)fd;
    (void)offset;
    (void)count;
#endif
}

int listdiff_move_pages(void *from, size_t count, void *to) {
#ifdef __linux__
    return mremap(from, count, count, MREMAP_MAYMOVE | MREMAP_FIXED, to) == MAP_FAILED ? -1 : 0;
#else
    (void)from;
    (void)count;
    (void)to;
    return -1;
#endif
}

void listdiff_fix_mmap_threshold(int bytes) {
#ifdef __GLIBC__
    mallopt(M_MMAP_THRESHOLD, bytes);
#else
    (void)bytes;
#endif
}

/* The last address a read of a mapped file faulted on (0: none), and how many faults. */
static volatile uintptr_t last_fault = 0;
static volatile long fault_count = 0;
static struct sigaction previous;

/* A page of a mapped file that is gone (the file shrank) reads as zeros instead: a fresh
   page is mapped over it and the fault is noted; the reader then finds NUL bytes where
   the text ended, and the caller reports the file as changed. A fault that no mapping
   can cure goes on to the previous handler. */
static void on_bus_error(int signal, siginfo_t *info, void *context) {
    long page = sysconf(_SC_PAGESIZE);
    uintptr_t address = (uintptr_t)info->si_addr;
    void *base = (void *)(address & ~(uintptr_t)(page - 1));
    if (info->si_code == BUS_ADRERR &&
        mmap(base, (size_t)page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) != MAP_FAILED) {
        last_fault = address;
        fault_count += 1;
        return;
    }
    sigaction(SIGBUS, &previous, NULL);
    (void)signal; (void)context;
}

void listdiff_guard_mapped_reads(void) {
    struct sigaction action;
    action.sa_sigaction = on_bus_error;
    sigemptyset(&action.sa_mask);
    action.sa_flags = SA_SIGINFO;
    sigaction(SIGBUS, &action, &previous);
}

long listdiff_mapped_faults(void) { return fault_count; }

uintptr_t listdiff_last_mapped_fault(void) { return last_fault; }
