/* Reading a count from the command line, shared by the parallel examples (openmp_svgd and the
 * MPI programs in mpi/): header-only, C99. */
#ifndef SGS_PARSE_SIZE_H
#define SGS_PARSE_SIZE_H

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>

/* A whole non-negative decimal number (no sign, no trailing characters) that fits a size_t:
 * 1 and *out set, or 0. */
static inline int parse_size(const char *s, size_t *out) {
    if (*s < '0' || *s > '9') return 0;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno || *end || v > SIZE_MAX) return 0;
    *out = (size_t)v;
    return 1;
}

#endif
