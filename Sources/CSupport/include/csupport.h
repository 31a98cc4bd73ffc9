#ifndef LISTDIFF_CSUPPORT_H
#define LISTDIFF_CSUPPORT_H

/// The number of CPUs this process may run on (its affinity mask on Linux), at least 1.
int listdiff_cpu_count(void);

/// Fixes glibc's threshold above which a block is mapped on its own (and handed back to
/// the system when freed); glibc otherwise raises it as such blocks are freed. Does
/// nothing elsewhere.
void listdiff_fix_mmap_threshold(int bytes);

#include <stddef.h>
#include <stdint.h>

/// Starts writing a file's range to its disk without waiting for it (Linux's
/// sync_file_range), so that a later fsync has less left to wait for. Does nothing
/// elsewhere.
void listdiff_start_writeback(int fd, int64_t offset, int64_t count);

/// Lets a read of a mapped file past its end (the file shrank while it was read) give
/// zeros instead of killing the process with SIGBUS; the faults are counted.
void listdiff_guard_mapped_reads(void);

/// How many such faults there were, and the address of the last.
long listdiff_mapped_faults(void);
uintptr_t listdiff_last_mapped_fault(void);

/// Moves the pages of the `count` bytes at `from` (a page-aligned anonymous mapping) to
/// `to` (page-aligned, inside a mapping of this process), replacing what was there, without
/// copying them (Linux's mremap). Returns 0 when done; -1 when not (elsewhere, always),
/// and then nothing moved.
int listdiff_move_pages(void *from, size_t count, void *to);

/// Asks for the cache line at `address` to be fetched, without waiting for it.
static inline void listdiff_prefetch(const void *address) {
    __builtin_prefetch(address);
}

#endif
