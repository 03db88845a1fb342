/* Prints samples of fixed-seed runs through the C API (double and float) in the format of
 * ffi-tests/reference.rs, which prints the same runs from the Rust std reference build (double
 * chains without a warm-up, SVGD, SGHMC, SGLD) or the Rust core (float, and every AMAGOLD chain
 * with a warm-up, a mass matrix, a setter or a jittered T; TunaMH in both types).
 * scripts/test-ffi.sh compares the two outputs byte for byte:
 * coordinates and energies are printed as the hexadecimal bits of their IEEE representation. */
#include <inttypes.h>
#include <math.h>
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

/* Diagnostics of stored draws (sgs_draws_…) on draws made by integer arithmetic, additions and
 * multiplications only (the same bits in C and Rust): an LCG's 53-bit uniforms, their centred
 * sums, AR(1) recursions, a discrete coordinate (ties) and a chain stuck apart. ffi-tests/reference.rs
 * prints the Rust `sgsample::draws` results on the same draws in the same format. */
static uint64_t lcg_state;

static double lcg_uniform(void) {
    lcg_state = lcg_state * 6364136223846793005ULL + 1442695040888963407ULL;
    return (double)(lcg_state >> 11) * (1.0 / 9007199254740992.0);
}

static void make_draws(double *x, size_t chains, size_t n, size_t dim, uint64_t seed) {
    lcg_state = seed;
    for (size_t c = 0; c < chains; c++) {
        double y = 0.0;
        for (size_t t = 0; t < n; t++) {
            /* One draw per statement: C leaves the order of a sum's operands unspecified. */
            double e = lcg_uniform();
            e += lcg_uniform();
            e += lcg_uniform();
            e += lcg_uniform();
            e -= 2.0;
            y = 0.7 * y + e;
            for (size_t j = 0; j < dim; j++) {
                double v = j % 3 == 0 ? y : j % 3 == 1 ? floor(4.0 * lcg_uniform()) : y + 0.5 * (double)c;
                x[(c * n + t) * dim + j] = v;
            }
        }
    }
}

static void print_stats(const char *tag, const sgs_draws_stats *s, size_t dim) {
    for (size_t j = 0; j < dim; j++) {
        const double v[17] = {s[j].mean, s[j].sd, s[j].mcse_mean, s[j].mcse_sd, s[j].q5, s[j].q50,
                              s[j].q95, s[j].mcse_q5, s[j].mcse_q50, s[j].mcse_q95, s[j].ess_bulk,
                              s[j].ess_tail, s[j].ess_mean, s[j].rhat, s[j].rhat_bulk,
                              s[j].rhat_folded, s[j].rhat_split};
        printf("%s %zu:", tag, j);
        for (int k = 0; k < 17; k++) printf(" %s", hex64_or_nan(v[k]));
        printf(" flags=%u\n", (unsigned)s[j].flags);
    }
}

static void print_values(const char *tag, const double *v, size_t dim) {
    printf("%s:", tag);
    for (size_t j = 0; j < dim; j++) printf(" %s", hex64_or_nan(v[j]));
    printf("\n");
}

static void draws_runs(void) {
    enum { MAXN = 4 * 101 * 3 };
    static double x[MAXN], scratch[8192];
    static float xf[MAXN];
    const size_t shapes[3][3] = {{4, 101, 3}, {1, 8, 2}, {3, 4, 3}};
    for (int k = 0; k < 3; k++) {
        size_t chains = shapes[k][0], n = shapes[k][1], dim = shapes[k][2];
        size_t len = sgs_draws_scratch_len(chains, n);
        sgs_draws_stats s[3];
        double v[3];
        char tag[64];
        CHECK(len <= sizeof scratch / sizeof scratch[0]);
        make_draws(x, chains, n, dim, 1000 + (uint64_t)k);
        for (size_t i = 0; i < chains * n * dim; i++) xf[i] = (float)x[i];
        snprintf(tag, sizeof tag, "draws %d summary", k);
        CHECK(sgs_draws_summary(x, chains, n, dim, scratch, len, s, 3) == SGS_OK);
        print_stats(tag, s, dim);
        sgs_draws_verdict vd;
        CHECK(sgs_draws_diagnose(s, dim, chains, (uint64_t)k, &vd) == SGS_OK);
        printf("draws %d verdict: ok=%u flags=%u %s %s %s coords=%llu,%llu,%llu nc=%llu,%llu div=%llu\n", k,
               (unsigned)vd.ok, (unsigned)vd.flags, hex64_or_nan(vd.worst_rhat), hex64_or_nan(vd.min_ess_bulk),
               hex64_or_nan(vd.min_ess_tail), (unsigned long long)vd.worst_rhat_coord,
               (unsigned long long)vd.min_ess_bulk_coord, (unsigned long long)vd.min_ess_tail_coord,
               (unsigned long long)vd.not_computable, (unsigned long long)vd.first_not_computable,
               (unsigned long long)vd.divergences);
        snprintf(tag, sizeof tag, "draws %d summary_f32", k);
        CHECK(sgs_draws_summary_f32(xf, chains, n, dim, scratch, len, s, 3) == SGS_OK);
        print_stats(tag, s, dim);
        snprintf(tag, sizeof tag, "draws %d rhat_rank", k);
        CHECK(sgs_draws_rhat_rank(x, chains, n, dim, scratch, len, v, 3) == SGS_OK);
        print_values(tag, v, dim);
        snprintf(tag, sizeof tag, "draws %d ess_bulk", k);
        CHECK(sgs_draws_ess_bulk(x, chains, n, dim, scratch, len, v, 3) == SGS_OK);
        print_values(tag, v, dim);
        snprintf(tag, sizeof tag, "draws %d ess_tail_f32", k);
        CHECK(sgs_draws_ess_tail_f32(xf, chains, n, dim, scratch, len, v, 3) == SGS_OK);
        print_values(tag, v, dim);
        snprintf(tag, sizeof tag, "draws %d mcse_quantile 0.3", k);
        CHECK(sgs_draws_mcse_quantile(x, chains, n, dim, 0.3, scratch, len, v, 3) == SGS_OK);
        print_values(tag, v, dim);
    }
}

int main(void) {
    all_runs();
    all_runs_f32();
    scale_runs();
    scale_runs_f32();
    tunamh_runs();
    tunamh_runs_f32();
    /* The minibatch helper against sgsample::minibatch. */
    for (uint64_t seed = 1; seed <= 5; seed++) {
        uint64_t idx[8];
        CHECK(sgs_minibatch(seed, 50, idx, 8) == SGS_OK);
        printf("minibatch %" PRIu64 ":", seed);
        for (int i = 0; i < 8; i++) printf(" %" PRIu64, idx[i]);
        printf("\n");
    }
    draws_runs();
    return 0;
}
