/* Prints samples of fixed-seed runs through the C API (double and float) in the format of
 * ffi-tests/reference.rs, which prints the same runs from the Rust std reference build (double
 * chains without a warm-up, SVGD, SGHMC, SGLD) or the Rust core (float, and every AMAGOLD chain
 * with a warm-up, a mass matrix, a setter or a jittered T). scripts/test-ffi.sh compares the two outputs byte for byte:
 * coordinates and energies are printed as the hexadecimal bits of their IEEE representation. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sgsample.h"
#include "models.h"

#define CHECK(c)                                                               \
    do {                                                                       \
        if (!(c)) {                                                            \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #c); \
            exit(1);                                                           \
        }                                                                      \
    } while (0)

static char hexbuf[16][24]; /* enough for the most hex strings one printf takes (12) */
static int hexi;

static const char *hex64(double v) {
    uint64_t b;
    memcpy(&b, &v, 8);
    hexi = (hexi + 1) % 16;
    snprintf(hexbuf[hexi], sizeof hexbuf[hexi], "%016" PRIx64, b);
    return hexbuf[hexi];
}

static const char *hex64_or_nan(double v) { return v != v ? "nan" : hex64(v); }

static const char *hex32(float v) {
    uint32_t b;
    memcpy(&b, &v, 4);
    hexi = (hexi + 1) % 16;
    snprintf(hexbuf[hexi], sizeof hexbuf[hexi], "%08" PRIx32, b);
    return hexbuf[hexi];
}

/* A setter call of an AMAGOLD run (run_amagold_core): before step `at` (0: right after init), the
 * step size when positive, then a diagonal (d values) or dense (d x d) inverse mass. */
enum { SET_NONE = 0, SET_DIAGONAL = 1, SET_DENSE = 2 };
typedef struct {
    size_t at;
    double step_size;
    int kind;
    double k[9];
} setter;

#define REAL double
#define SFX(n) n
#define SUFFIX ""
#define hex_of hex64
#include "repro_impl.h"
#undef REAL
#undef SFX
#undef SUFFIX
#undef hex_of

#define REAL float
#define SFX(n) n##_f32
#define SUFFIX "_f32"
#define hex_of hex32
#include "repro_impl.h"

int main(void) {
    all_runs();
    all_runs_f32();
    /* The minibatch helper against sgsample::minibatch. */
    for (uint64_t seed = 1; seed <= 5; seed++) {
        uint64_t idx[8];
        CHECK(sgs_minibatch(seed, 50, idx, 8) == SGS_OK);
        printf("minibatch %" PRIu64 ":", seed);
        for (int i = 0; i < 8; i++) printf(" %" PRIu64, idx[i]);
        printf("\n");
    }
    return 0;
}
