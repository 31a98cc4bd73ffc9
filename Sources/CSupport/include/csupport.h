#ifndef LISTDIFF_CSUPPORT_H
#define LISTDIFF_CSUPPORT_H

/// The number of CPUs this process may run on (its affinity mask on Linux), at least 1.
int listdiff_cpu_count(void);

#endif
