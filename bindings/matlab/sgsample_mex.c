/* sgsample_mex: the MEX gateway behind sgs_amagold, sgs_sghmc, sgs_sgld, sgs_svgd, sgs_minibatch
 * and the step-wise objects sgs.Amagold, sgs.Sghmc, sgs.Sgld.
 *
 * Portable between MATLAB's `mex` and GNU Octave's `mkoctfile --mex`; it uses only the documented
 * MEX C API (separate-complex mxGetPr, so it builds with either API version). Its C++ part,
 * sgsample_trap.cpp, holds mexFunction and makes every call into the interpreter, so that what
 * the interpreter throws (Octave's Ctrl-C) never unwinds through the library (see there). Users
 * call the .m wrappers, not this file:
 *
 *   [samples, info] = sgsample_mex('amagold', energy, gradient, theta0, opts, trampoline)
 *   [samples, info] = sgsample_mex('sghmc'|'sgld', gradient, theta0, opts, trampoline)
 *   [X, info]       = sgsample_mex('svgd', gradients, X0, opts, trampoline)
 *   idx             = sgsample_mex('minibatch', seed, n, B)        (1-based, B×1 double)
 *   text            = sgsample_mex('status', code)                 (sgs_status_str)
 *   v               = sgsample_mex('version')
 *   id              = sgsample_mex('new', kind, energy, gradient, theta0, opts, trampoline)
 *   [samples, info] = sgsample_mex('run', id, n, energy, gradient, trampoline)
 *   s               = sgsample_mex('query', id)                    (position, iterations, ...)
 *   found           = sgsample_mex('free', id)
 *   S               = sgsample_mex('stats', X)                     (ESS, split-R-hat, MCSE)
 *
 * `opts` holds only the options the user gave (canonical snake_case names of the C config
 * fields plus samples/burnin/warmup/iterations/log_accept); every other field keeps the C
 * library's default (sgs_*_config_default), so the defaults live in one place.
 *
 * Callbacks. Each call creates fresh argument arrays (a callback may keep its arguments, so they
 * are never reused or changed in place) and destroys every array it gets back. An error inside a
 * user callback must not unwind through the library's frames: it is trapped here, the callback
 * returns SGS_CB_ABORT, the sampler returns SGS_ERR_CALLBACK_ABORTED with its state intact, all
 * buffers are freed, and only then is the original error re-raised with `rethrow`. MATLAB's
 * mexCallMATLABWithTrap returns the original MException. Octave's (7.x) returns a generic struct
 * that has lost the message, so under Octave the gateway calls the user function through the
 * trampoline private/sgs_call.m (try/catch, returns the MException as a second output); the
 * trap stays as a second line of defence.
 *
 * Memory: all buffers of a one-shot run come from mxMalloc/mxCalloc and are freed with mxFree on
 * every path before an error is raised (MEX would also free them when the function exits with an
 * error). The persistent chains are plain malloc memory, freed by 'free' and by mexAtExit. */
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mex.h"
#include "sgsample.h"

/* ---- sgsample_trap.cpp: Ctrl-C and exceptions from the interpreter ---------------------------- */
mxArray *sgs_trap_call(int nout, mxArray *outs[], int nin, mxArray *ins[], int *thrown);
int sgs_trap_interrupt(void);
int sgs_trap_pending(void);
void sgs_gateway(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[]);

#if defined(HAVE_OCTAVE)
#define SGS_USE_TRAMPOLINE 1
#else
#define SGS_USE_TRAMPOLINE 0
#endif

/* ---- status → identifier ------------------------------------------------------------------- */
static const char *status_id(int32_t st) {
    switch (st) {
    case SGS_ERR_NULL_POINTER: return "sgsample:nullPointer";
    case SGS_ERR_ZERO_DIMENSION: return "sgsample:zeroDimension";
    case SGS_ERR_WORKSPACE_TOO_SMALL: return "sgsample:workspaceTooSmall";
    case SGS_ERR_LENGTH_MISMATCH: return "sgsample:lengthMismatch";
    case SGS_ERR_INVALID_STEP_SIZE: return "sgsample:invalidStepSize";
    case SGS_ERR_INVALID_FRICTION: return "sgsample:invalidFriction";
    case SGS_ERR_INVALID_MOMENTUM_SCALE: return "sgsample:invalidMomentumScale";
    case SGS_ERR_INVALID_STEPS: return "sgsample:invalidSteps";
    case SGS_ERR_INVALID_POSITION: return "sgsample:invalidPosition";
    case SGS_ERR_INITIAL_ENERGY_REJECTED: return "sgsample:initialEnergyRejected";
    case SGS_ERR_CALLBACK_ABORTED: return "sgsample:callbackAborted";
    case SGS_ERR_INVALID_TARGET_ACCEPTANCE: return "sgsample:invalidTargetAcceptance";
    case SGS_ERR_INVALID_BATCH_SIZE: return "sgsample:invalidBatchSize";
    case SGS_ERR_INVALID_BANDWIDTH: return "sgsample:invalidBandwidth";
    case SGS_ERR_ZERO_PARTICLES: return "sgsample:zeroParticles";
    case SGS_ERR_INVALID_STEP_RULE: return "sgsample:invalidStepRule";
    case SGS_ERR_OUTPUT_TOO_SMALL: return "sgsample:outputTooSmall";
    case SGS_ERR_INVALID_KERNEL: return "sgsample:invalidKernel";
    case SGS_ERR_INVALID_OPTION: return "sgsample:invalidOption";
    case SGS_ERR_INVALID_MINIBATCH: return "sgsample:invalidMinibatch";
    case SGS_ERR_NOT_INITIALISED: return "sgsample:notInitialised";
    case SGS_ERR_NON_FINITE: return "sgsample:nonFinite";
    case SGS_ERR_INVALID_ARGUMENT: return "sgsample:invalidArgument";
    case SGS_ERR_GRADIENT_REJECTED: return "sgsample:gradientRejected";
    case SGS_ERR_STATE_CORRUPTED: return "sgsample:stateCorrupted";
    case SGS_ERR_STATE_MOVED: return "sgsample:stateMoved";
    case SGS_ERR_BUSY: return "sgsample:busy";
    case SGS_ERR_INVALID_WARMUP: return "sgsample:invalidWarmup";
    default: return "sgsample:unknownStatus";
    }
}

/* ---- buffers freed on every exit ----------------------------------------------------------- */
#define MAX_BUFS 8
typedef struct {
    void *p[MAX_BUFS];
    int n;
} buffers;

static void free_all(buffers *b) {
    for (int i = 0; i < b->n; i++) mxFree(b->p[i]);
    b->n = 0;
}

/* Raises sgsample:outOfMemory (after freeing b) when `bytes` cannot be allocated. mxCalloc and
 * mxCreateDoubleMatrix raise an error of their own without an identifier when they fail, so a
 * request that malloc refuses (far beyond memory, e.g. 'Samples', 2^50) is caught here first.
 * The probe block is freed at once; with Linux's lazy allocation it touches no memory. */
static void check_alloc(buffers *b, size_t bytes, const char *what) {
    void *p = malloc(bytes ? bytes : 1);
    if (!p) {
        char msg[200];
        free_all(b);
        snprintf(msg, sizeof msg, "out of memory: %s needs %.3g GB", what, (double)bytes / 1e9);
        mexErrMsgIdAndTxt("sgsample:outOfMemory", "%s", msg);
    }
    free(p);
}

/* An m-by-n double matrix, or sgsample:tooLarge / sgsample:outOfMemory (after freeing b). */
static mxArray *double_matrix(buffers *b, size_t m, size_t n, const char *what) {
    if (n != 0 && m > SIZE_MAX / n / sizeof(double)) {
        char msg[200];
        free_all(b);
        snprintf(msg, sizeof msg, "%s does not fit in memory", what);
        mexErrMsgIdAndTxt("sgsample:tooLarge", "%s", msg);
    }
    check_alloc(b, m * n * sizeof(double), what);
    return mxCreateDoubleMatrix(m, n, mxREAL);
}

/* Zeroed, `align`-aligned memory (mxCalloc gives at least 8; the states need 8, checked). */
static void *take(buffers *b, size_t count, size_t size, size_t align) {
    if (b->n == MAX_BUFS) {
        free_all(b);
        mexErrMsgIdAndTxt("sgsample:internal", "too many buffers");
    }
    size_t bytes = count * size + align;
    if (count != 0 && bytes / count < size) {
        free_all(b);
        mexErrMsgIdAndTxt("sgsample:tooLarge", "the requested output does not fit in memory");
    }
    check_alloc(b, bytes, "a work buffer");
    char *raw = (char *)mxCalloc(bytes ? bytes : 1, 1);
    b->p[b->n++] = raw;
    uintptr_t a = (uintptr_t)raw, mask = (uintptr_t)(align ? align : 1) - 1;
    return (void *)((a + mask) & ~mask);
}

static void fail(buffers *b, const char *id, const char *msg) {
    free_all(b);
    mexErrMsgIdAndTxt(id, "%s", msg);
}

static void fail_status(buffers *b, const char *what, int32_t st) {
    char msg[256];
    snprintf(msg, sizeof msg, "%s: %s", what, sgs_status_str(st));
    fail(b, status_id(st), msg);
}

/* ---- option access ------------------------------------------------------------------------- */
static const mxArray *opt(const mxArray *opts, const char *name) {
    return mxGetField(opts, 0, name);
}

static int is_real_scalar(const mxArray *v) {
    return v && !mxIsComplex(v) && mxGetNumberOfElements(v) == 1 && (mxIsNumeric(v) || mxIsLogical(v));
}

static double opt_double(buffers *b, const mxArray *opts, const char *name, double def) {
    const mxArray *v = opt(opts, name);
    if (!v) return def;
    if (!is_real_scalar(v) || mxIsLogical(v)) {
        char msg[160];
        snprintf(msg, sizeof msg, "option %s must be a real scalar", name);
        fail(b, "sgsample:badOption", msg);
    }
    return mxGetScalar(v);
}

/* A count or seed: a non-negative integer given as a double (exact up to 2^53) or as uint64. */
static uint64_t opt_u64(buffers *b, const mxArray *opts, const char *name, uint64_t def) {
    const mxArray *v = opt(opts, name);
    if (!v) return def;
    char msg[200];
    snprintf(msg, sizeof msg, "option %s must be a non-negative integer (a double up to 2^53 or a uint64)", name);
    if (!is_real_scalar(v)) fail(b, "sgsample:badOption", msg);
    if (mxGetClassID(v) == mxUINT64_CLASS) return *(const uint64_t *)mxGetData(v);
    double x = mxGetScalar(v);
    if (!(x >= 0.0 && x <= 9007199254740992.0 && x == floor(x))) fail(b, "sgsample:badOption", msg);
    return (uint64_t)x;
}

static uint32_t opt_u32(buffers *b, const mxArray *opts, const char *name, uint32_t def) {
    uint64_t x = opt_u64(b, opts, name, def);
    if (x > 0xffffffffu) {
        char msg[160];
        snprintf(msg, sizeof msg, "option %s is larger than 2^32 - 1", name);
        fail(b, "sgsample:badOption", msg);
    }
    return (uint32_t)x;
}

/* A real double column/row vector or matrix without NaN checks (the library checks finiteness). */
static void check_real_double(buffers *b, const mxArray *a, const char *what) {
    if (!mxIsDouble(a) || mxIsComplex(a) || mxIsSparse(a) || mxGetNumberOfDimensions(a) > 2) {
        char msg[160];
        snprintf(msg, sizeof msg, "%s must be a real, full double array", what);
        fail(b, "sgsample:badArgument", msg);
    }
}

static void check_handle(buffers *b, const mxArray *a, const char *what) {
    if (mxGetClassID(a) != mxFUNCTION_CLASS) {
        char msg[160];
        snprintf(msg, sizeof msg, "%s must be a function handle", what);
        fail(b, "sgsample:notFunctionHandle", msg);
    }
}

/* ---- callbacks ----------------------------------------------------------------------------- */
typedef struct {
    const mxArray *energy, *gradient; /* user function handles */
    const mxArray *trampoline;        /* private/sgs_call (Octave) */
    mxArray *exception;               /* the user's error, re-raised after the sampler returned */
    char bad_id[64], bad_msg[256];    /* an error found here (a wrong callback output) */
    size_t d, n;
    uint64_t calls;
} cb_ctx;

/* Calls fn(args...) with one output. Returns SGS_CB_OK with *out set, or SGS_CB_ABORT with the
 * error kept in c->exception. Nothing thrown here crosses the library's frames. */
static int32_t call_user(cb_ctx *c, const mxArray *fn, int nin, mxArray **in, mxArray **out) {
    mxArray *args[4];
    mxArray *outs[2] = {NULL, NULL};
    int nargs = 0, nout = 1;
    c->calls++;
    if (SGS_USE_TRAMPOLINE && c->trampoline) {
        args[nargs++] = (mxArray *)c->trampoline;
        nout = 2;
    }
    args[nargs++] = (mxArray *)fn;
    for (int i = 0; i < nin; i++) args[nargs++] = in[i];
    int thrown = 0;
    mxArray *ex = sgs_trap_call(nout, outs, nargs, args, &thrown);
    if (thrown) return SGS_CB_ABORT; /* an interrupt: kept in sgsample_trap.cpp, rethrown at the end */
    if (ex) {
        c->exception = ex;
        return SGS_CB_ABORT;
    }
    if (nout == 2 && outs[1] && !mxIsEmpty(outs[1])) {
        c->exception = outs[1];
        if (outs[0]) mxDestroyArray(outs[0]);
        return SGS_CB_ABORT;
    }
    if (nout == 2 && outs[1]) mxDestroyArray(outs[1]);
    *out = outs[0];
    return SGS_CB_OK;
}

static int32_t bad_output(cb_ctx *c, mxArray *out, const char *msg) {
    if (out) mxDestroyArray(out);
    snprintf(c->bad_id, sizeof c->bad_id, "sgsample:badCallbackOutput");
    snprintf(c->bad_msg, sizeof c->bad_msg, "%s", msg);
    return SGS_CB_ABORT;
}

static mxArray *column(const double *x, size_t d) {
    mxArray *a = mxCreateDoubleMatrix(d, 1, mxREAL);
    memcpy(mxGetPr(a), x, d * sizeof(double));
    return a;
}

static mxArray *seed_array(uint64_t seed) {
    mxArray *a = mxCreateNumericMatrix(1, 1, mxUINT64_CLASS, mxREAL);
    *(uint64_t *)mxGetData(a) = seed;
    return a;
}

static int is_real_double(const mxArray *a) {
    return a && mxIsDouble(a) && !mxIsComplex(a) && !mxIsSparse(a);
}

static int32_t energy_cb(void *user, const double *theta, size_t d, double *u) {
    cb_ctx *c = (cb_ctx *)user;
    mxArray *in[1] = {column(theta, d)};
    mxArray *out = NULL;
    int32_t st = call_user(c, c->energy, 1, in, &out);
    mxDestroyArray(in[0]);
    if (st != SGS_CB_OK) return st;
    if (!out || mxIsEmpty(out)) { /* [] = outside the domain */
        if (out) mxDestroyArray(out);
        return SGS_CB_REJECT;
    }
    if (!is_real_double(out) || mxGetNumberOfElements(out) != 1)
        return bad_output(c, out, "the energy function must return a real double scalar (or [] outside the domain)");
    *u = mxGetPr(out)[0];
    mxDestroyArray(out);
    return SGS_CB_OK;
}

static int32_t gradient_cb(void *user, const double *x, size_t d, uint64_t seed, double *g) {
    cb_ctx *c = (cb_ctx *)user;
    mxArray *in[2] = {column(x, d), seed_array(seed)};
    mxArray *out = NULL;
    int32_t st = call_user(c, c->gradient, 2, in, &out);
    mxDestroyArray(in[0]);
    mxDestroyArray(in[1]);
    if (st != SGS_CB_OK) return st;
    if (!out || mxIsEmpty(out)) {
        if (out) mxDestroyArray(out);
        return SGS_CB_REJECT;
    }
    if (!is_real_double(out) || mxGetNumberOfElements(out) != d ||
        (mxGetM(out) != 1 && mxGetN(out) != 1)) {
        char msg[200];
        snprintf(msg, sizeof msg, "the gradient function must return a real double vector of %zu elements (or [] outside the domain)", d);
        return bad_output(c, out, msg);
    }
    memcpy(g, mxGetPr(out), d * sizeof(double));
    mxDestroyArray(out);
    return SGS_CB_OK;
}

/* SVGD: the C library's points are row-major n×d; MATLAB's X is column-major N×d, so
 * X(i, j) = xs[i·d + j] is stored at X[j·N + i]; the returned N×d gradients go back likewise. */
static int32_t gradients_cb(void *user, const double *xs, size_t n, size_t d, uint64_t seed, double *grads) {
    cb_ctx *c = (cb_ctx *)user;
    mxArray *X = mxCreateDoubleMatrix(n, d, mxREAL);
    double *px = mxGetPr(X);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < d; j++) px[j * n + i] = xs[i * d + j];
    mxArray *in[2] = {X, seed_array(seed)};
    mxArray *out = NULL;
    int32_t st = call_user(c, c->gradient, 2, in, &out);
    mxDestroyArray(in[0]);
    mxDestroyArray(in[1]);
    if (st != SGS_CB_OK) return st;
    if (!out || mxIsEmpty(out)) {
        if (out) mxDestroyArray(out);
        return SGS_CB_REJECT;
    }
    if (!is_real_double(out) || mxGetM(out) != n || mxGetN(out) != d || mxGetNumberOfDimensions(out) != 2) {
        char msg[200];
        snprintf(msg, sizeof msg, "the gradients function must return a real double %zu-by-%zu matrix (one row per particle)", n, d);
        return bad_output(c, out, msg);
    }
    const double *pg = mxGetPr(out);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < d; j++) grads[i * d + j] = pg[j * n + i];
    mxDestroyArray(out);
    return SGS_CB_OK;
}

/* After a sampler call: stop at once if sgsample_trap.cpp holds an exception from the interpreter
 * (an interrupt; mexFunction rethrows it once the gateway has returned), else re-raise a
 * callback's error (first the user's own, then a bad output), then an interrupt seen between
 * iterations (MATLAB), then a library status. Frees the buffers first. Returns 1 when the caller
 * must return at once (only the first case returns at all). */
static int finish(buffers *b, cb_ctx *c, int32_t st, const char *what, int interrupted) {
    if (sgs_trap_pending()) {
        if (c->exception) mxDestroyArray(c->exception);
        c->exception = NULL;
        free_all(b);
        return 1;
    }
    if (c->exception) {
        mxArray *ex = c->exception;
        c->exception = NULL;
        free_all(b);
        mexCallMATLAB(0, NULL, 1, &ex, "rethrow");
        mexErrMsgIdAndTxt("sgsample:internal", "rethrow returned"); /* not reached */
    }
    if (c->bad_id[0]) fail(b, c->bad_id, c->bad_msg);
    if (interrupted) fail(b, "sgsample:interrupted", "interrupted (Ctrl-C) between iterations");
    if (st != SGS_OK) fail_status(b, what, st);
    return 0;
}

static mxArray *make_info(const char **names, int n) {
    return mxCreateStructMatrix(1, 1, n, names);
}

static void set_num(mxArray *s, const char *name, double v) {
    mxSetField(s, 0, name, mxCreateDoubleScalar(v));
}

/* ---- chain samplers (AMAGOLD, SGHMC, SGLD) ------------------------------------------------- */
/* The one-shot runs (sgs_amagold, ...) and the persistent objects (+sgs) share these. */
enum { AMAGOLD, SGHMC, SGLD };

typedef union {
    sgs_amagold_config a;
    sgs_sghmc_config h;
    sgs_sgld_config l;
} chain_config;

/* Fields that several configurations have under the same names (read in the order of the
 * library's struct, though the order does not matter). */
#define READ_MOMENTUM_FIELDS(b, opts, c)                                          \
    do {                                                                          \
        (c)->friction = opt_double(b, opts, "friction", (c)->friction);          \
        (c)->momentum_sd = opt_double(b, opts, "momentum_sd", (c)->momentum_sd); \
    } while (0)
#define READ_CHAIN_FIELDS(b, opts, c)                          \
    do {                                                       \
        (c)->steps = opt_u32(b, opts, "steps", (c)->steps);    \
        (c)->seed = opt_u64(b, opts, "seed", (c)->seed);       \
        (c)->stream = opt_u64(b, opts, "stream", (c)->stream); \
    } while (0)

/* The configuration from the options (on a bad option: error, after freeing b); returns the
 * step size asked for. */
static double chain_read_config(int kind, buffers *b, const mxArray *opts, uint64_t warmup, chain_config *cfg) {
    double step = opt_double(b, opts, "step_size", 0.1);
    if (kind == AMAGOLD) {
        sgs_amagold_config *a = &cfg->a;
        *a = sgs_amagold_config_default(step);
        READ_MOMENTUM_FIELDS(b, opts, a);
        READ_CHAIN_FIELDS(b, opts, a);
        a->target_accept = opt_double(b, opts, "target_accept", a->target_accept);
        a->variant = opt_u32(b, opts, "variant", a->variant);
        /* 0.4 replaced the flag adapt_mass by the field mass: the flag the .m files pass still
         * means a diagonal mass matrix (0 unit, 1 diagonal, anything else an unknown option,
         * as before); a "mass" option (SGS_MASS_…) overrides it. The new fields approach and
         * jitter_steps keep their defaults unless given. */
        uint32_t adapt = opt_u32(b, opts, "adapt_mass", 0);
        a->mass = adapt == 0 ? SGS_MASS_UNIT : adapt == 1 ? SGS_MASS_DIAGONAL : 0xffffffffu;
        a->mass = opt_u32(b, opts, "mass", a->mass);
        a->approach = opt_u32(b, opts, "approach", a->approach);
        a->jitter_steps = opt_u32(b, opts, "jitter_steps", a->jitter_steps);
        a->warmup = warmup;
    } else if (kind == SGHMC) {
        sgs_sghmc_config *h = &cfg->h;
        *h = sgs_sghmc_config_default(step);
        READ_MOMENTUM_FIELDS(b, opts, h);
        READ_CHAIN_FIELDS(b, opts, h);
        h->resample_momentum = opt_u32(b, opts, "resample_momentum", h->resample_momentum);
    } else {
        sgs_sgld_config *l = &cfg->l;
        *l = sgs_sgld_config_default(step);
        READ_CHAIN_FIELDS(b, opts, l);
    }
    return step;
}

/* Size and alignment of a state. */
static void chain_state_layout(int kind, size_t *size, size_t *align) {
    *size = kind == AMAGOLD ? sgs_amagold_state_size() : kind == SGHMC ? sgs_sghmc_state_size() : sgs_sgld_state_size();
    *align = kind == AMAGOLD ? sgs_amagold_state_align() : kind == SGHMC ? sgs_sghmc_state_align() : sgs_sgld_state_align();
}

/* AMAGOLD's workspace depends on its configuration (a mass matrix, the warm-up's approach). */
static size_t chain_workspace_len(int kind, const chain_config *cfg, size_t d) {
    if (kind == AMAGOLD) return sgs_amagold_workspace_len_for(&cfg->a, d);
    return kind == SGHMC ? sgs_sghmc_workspace_len(d) : sgs_sgld_workspace_len(d);
}

static int32_t chain_init(int kind, void *state, const chain_config *cfg, const double *th, size_t d,
                          double *ws, size_t wlen, cb_ctx *c) {
    if (kind == AMAGOLD) return sgs_amagold_init((sgs_amagold *)state, &cfg->a, th, d, ws, wlen, energy_cb, gradient_cb, c);
    if (kind == SGHMC) return sgs_sghmc_init((sgs_sghmc *)state, &cfg->h, th, d, ws, wlen, gradient_cb, c);
    return sgs_sgld_init((sgs_sgld *)state, &cfg->l, th, d, ws, wlen, gradient_cb, c);
}

static int32_t chain_position(int kind, void *state, double *pos, size_t len) {
    return kind == AMAGOLD ? sgs_amagold_position((sgs_amagold *)state, pos, len)
           : kind == SGHMC ? sgs_sghmc_position((sgs_sghmc *)state, pos, len)
                           : sgs_sgld_position((sgs_sgld *)state, pos, len);
}

/* Totals kept by the library: divergences, iterations, and the step size (AMAGOLD adapts it). */
static void chain_totals(int kind, void *state, uint64_t *divs, uint64_t *iters, double *eps) {
    if (kind == AMAGOLD) {
        sgs_amagold_divergences((sgs_amagold *)state, divs);
        sgs_amagold_iterations((sgs_amagold *)state, iters);
        sgs_amagold_step_size((sgs_amagold *)state, eps);
    } else if (kind == SGHMC) {
        sgs_sghmc_divergences((sgs_sghmc *)state, divs);
        sgs_sghmc_iterations((sgs_sghmc *)state, iters);
    } else {
        sgs_sgld_divergences((sgs_sgld *)state, divs);
        sgs_sgld_iterations((sgs_sgld *)state, iters);
    }
}

/* What a loop of iterations counted. */
typedef struct {
    uint64_t recorded, accepted, accepted_skipped, out_of_domain;
    int interrupted;
} tally;

/* Runs `total` iterations; after the first `skip` each position is written as a row of the
 * column-major `rows`-by-d matrix `out` (and AMAGOLD's log acceptance into `la` when not NULL).
 * Stops at the first error or interrupt; returns the library's status. */
static int32_t chain_loop(int kind, void *state, uint64_t skip, uint64_t total, double *out, size_t rows,
                          double *la, double *pos, size_t d, tally *t) {
    memset(t, 0, sizeof *t);
    int32_t st = SGS_OK;
    for (uint64_t k = 0; k < total; k++) {
        if (sgs_trap_interrupt()) {
            t->interrupted = 1;
            break;
        }
        uint32_t outcome;
        int accepted;
        if (kind == AMAGOLD) {
            sgs_amagold_info info;
            st = sgs_amagold_step((sgs_amagold *)state, &info);
            if (st != SGS_OK) break;
            outcome = info.outcome;
            accepted = info.accepted != 0;
            if (k >= skip && la) la[k - skip] = info.log_accept;
        } else {
            sgs_chain_info info;
            st = kind == SGHMC ? sgs_sghmc_step((sgs_sghmc *)state, &info) : sgs_sgld_step((sgs_sgld *)state, &info);
            if (st != SGS_OK) break;
            outcome = info.outcome;
            accepted = outcome == SGS_OUTCOME_ACCEPTED;
        }
        if (k < skip) {
            t->accepted_skipped += (uint64_t)accepted;
            continue;
        }
        t->accepted += (uint64_t)accepted;
        if (outcome == SGS_OUTCOME_OUT_OF_DOMAIN) t->out_of_domain++;
        st = chain_position(kind, state, pos, d ? d : 1);
        if (st != SGS_OK) break;
        for (size_t j = 0; j < d; j++) out[j * rows + t->recorded] = pos[j];
        t->recorded++;
    }
    return st;
}

/* AMAGOLD's diagonal inverse mass (d×1; ones without the mass-matrix warm-up), or [] for the
 * other samplers. */
static mxArray *inverse_mass(int kind, void *state, size_t d) {
    if (kind != AMAGOLD) return mxCreateDoubleMatrix(0, 0, mxREAL);
    mxArray *k = mxCreateDoubleMatrix(d, 1, mxREAL);
    double dummy;
    int32_t st = sgs_amagold_inverse_mass((sgs_amagold *)state, d ? mxGetPr(k) : &dummy, d ? d : 1);
    if (st != SGS_OK) {
        mxDestroyArray(k);
        buffers b = {{0}, 0};
        fail_status(&b, "inverse mass", st);
    }
    return k;
}

/* The info struct of a run of `samples` recorded iterations after `skipped` unrecorded ones. */
static mxArray *chain_info(int kind, void *state, size_t d, uint64_t samples, uint64_t skipped,
                           const tally *t, uint64_t calls, double step, mxArray *la) {
    uint64_t divs = 0, iters = 0;
    double eps = step;
    chain_totals(kind, state, &divs, &iters, &eps);
    static const char *names[] = {"iterations", "samples", "accepted", "acceptance", "divergences",
                                  "out_of_domain", "step_size", "callback_calls", "warmup_acceptance",
                                  "inverse_mass", "log_accept"};
    int nf = kind == AMAGOLD ? (la ? 11 : 10) : 8;
    mxArray *s = make_info(names, nf);
    set_num(s, "iterations", (double)iters);
    set_num(s, "samples", (double)samples);
    set_num(s, "accepted", (double)t->accepted);
    set_num(s, "acceptance", samples ? (double)t->accepted / (double)samples : NAN);
    set_num(s, "divergences", (double)divs);
    set_num(s, "out_of_domain", (double)t->out_of_domain);
    set_num(s, "step_size", eps);
    set_num(s, "callback_calls", (double)calls);
    if (kind == AMAGOLD) {
        set_num(s, "warmup_acceptance", skipped ? (double)t->accepted_skipped / (double)skipped : NAN);
        mxSetField(s, 0, "inverse_mass", inverse_mass(kind, state, d));
    }
    if (la) mxSetField(s, 0, "log_accept", la);
    return s;
}

/* theta0 as a vector (d = 0 allowed: the library reports it); errors after freeing b. */
static size_t vector_arg(buffers *b, const mxArray *theta0) {
    check_real_double(b, theta0, "theta0");
    if (!mxIsEmpty(theta0) && mxGetM(theta0) != 1 && mxGetN(theta0) != 1)
        fail(b, "sgsample:badArgument", "theta0 must be a vector");
    return mxGetNumberOfElements(theta0);
}

static int chain_kind(const char *cmd) {
    return strcmp(cmd, "amagold") == 0 ? AMAGOLD : strcmp(cmd, "sghmc") == 0 ? SGHMC : strcmp(cmd, "sgld") == 0 ? SGLD : -1;
}

static void run_chain(int kind, int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[]) {
    buffers b = {{0}, 0};
    cb_ctx c;
    memset(&c, 0, sizeof c);
    int a = 1; /* next argument */
    int want = kind == AMAGOLD ? 6 : 5;
    if (nrhs != want) mexErrMsgIdAndTxt("sgsample:badArguments", "wrong number of arguments to the gateway");
    if (kind == AMAGOLD) {
        check_handle(&b, prhs[a], "energy");
        c.energy = prhs[a++];
    }
    check_handle(&b, prhs[a], "gradient");
    c.gradient = prhs[a++];
    const mxArray *theta0 = prhs[a++];
    const mxArray *opts = prhs[a++];
    c.trampoline = mxIsEmpty(prhs[a]) ? NULL : prhs[a];
    if (!mxIsStruct(opts)) fail(&b, "sgsample:badArguments", "options must be a struct");
    size_t d = vector_arg(&b, theta0);
    c.d = d;
    uint64_t samples = opt_u64(&b, opts, "samples", 1000);
    uint64_t burnin = opt_u64(&b, opts, kind == AMAGOLD ? "warmup" : "burnin", 0);
    int want_la = kind == AMAGOLD && opt(opts, "log_accept") && mxGetScalar(opt(opts, "log_accept")) != 0;
    chain_config cfg;
    double step = chain_read_config(kind, &b, opts, burnin, &cfg);
    double dummy = 0.0;
    const double *th = d ? mxGetPr(theta0) : &dummy;
    size_t dd = d ? d : 1;

    size_t ssize, align;
    chain_state_layout(kind, &ssize, &align);
    void *state = take(&b, 1, ssize, align);
    size_t wlen = chain_workspace_len(kind, &cfg, dd);
    double *ws = (double *)take(&b, wlen, sizeof(double), 8);
    int32_t st = chain_init(kind, state, &cfg, th, d, ws, wlen, &c);
    if (finish(&b, &c, st, "init", 0)) return;

    if (samples > (uint64_t)SIZE_MAX / dd / sizeof(double))
        fail(&b, "sgsample:tooLarge", "Samples × d does not fit in memory");
    plhs[0] = double_matrix(&b, (size_t)samples, d, "Samples x d");
    double *pos = (double *)take(&b, dd, sizeof(double), 8);
    mxArray *la = want_la ? double_matrix(&b, (size_t)samples, 1, "LogAccept") : NULL;
    tally t;
    st = chain_loop(kind, state, burnin, burnin + samples, mxGetPr(plhs[0]), (size_t)samples,
                    la ? mxGetPr(la) : NULL, pos, d, &t);
    if (c.exception || c.bad_id[0] || t.interrupted || st != SGS_OK || sgs_trap_pending()) {
        mxDestroyArray(plhs[0]);
        plhs[0] = NULL;
        if (la) mxDestroyArray(la);
        if (finish(&b, &c, st, "step", t.interrupted)) return;
    }
    if (nlhs > 1) plhs[1] = chain_info(kind, state, d, samples, burnin, &t, c.calls, step, la);
    else if (la) mxDestroyArray(la);
    free_all(&b);
}

/* ---- SVGD ---------------------------------------------------------------------------------- */
static void run_svgd(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[]) {
    buffers b = {{0}, 0};
    cb_ctx c;
    memset(&c, 0, sizeof c);
    if (nrhs != 5) mexErrMsgIdAndTxt("sgsample:badArguments", "wrong number of arguments to the gateway");
    check_handle(&b, prhs[1], "gradients");
    c.gradient = prhs[1];
    const mxArray *X0 = prhs[2], *opts = prhs[3];
    c.trampoline = mxIsEmpty(prhs[4]) ? NULL : prhs[4];
    check_real_double(&b, X0, "X0");
    if (!mxIsStruct(opts)) fail(&b, "sgsample:badArguments", "options must be a struct");
    size_t n = mxGetM(X0), d = mxGetN(X0);
    c.n = n;
    c.d = d;
    uint64_t iters = opt_u64(&b, opts, "iterations", 100);
    uint64_t p = opt_u64(&b, opts, "batch_size", n < 8 ? n : 8);
    double eta = opt_double(&b, opts, "step_size", 0.2);
    sgs_svgd_config cfg = sgs_svgd_config_default(p, eta);
    cfg.adagrad_alpha = opt_double(&b, opts, "adagrad_alpha", cfg.adagrad_alpha);
    cfg.bandwidth = opt_double(&b, opts, "bandwidth", cfg.bandwidth);
    cfg.imq_c = opt_double(&b, opts, "imq_c", cfg.imq_c);
    cfg.imq_beta = opt_double(&b, opts, "imq_beta", cfg.imq_beta);
    cfg.seed = opt_u64(&b, opts, "seed", cfg.seed);
    cfg.stream = opt_u64(&b, opts, "stream", cfg.stream);
    cfg.batching = opt_u32(&b, opts, "batching", cfg.batching);
    cfg.kernel = opt_u32(&b, opts, "kernel", cfg.kernel);
    cfg.step_rule = opt_u32(&b, opts, "step_rule", cfg.step_rule);
    cfg.ksd = opt_u32(&b, opts, "ksd", cfg.ksd);

    size_t nn = n ? n : 1, d1 = d ? d : 1;
    if (nn > SIZE_MAX / d1 / sizeof(double)) fail(&b, "sgsample:tooLarge", "N × d does not fit in memory");
    double *particles = (double *)take(&b, nn * d1, sizeof(double), 8);
    const double *px = mxGetPr(X0);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < d; j++) particles[i * d + j] = px[j * n + i];
    size_t wlen = sgs_svgd_workspace_len(n, d, &cfg);
    if (wlen == SIZE_MAX) fail(&b, "sgsample:tooLarge", "the SVGD workspace does not fit in memory");
    double *ws = (double *)take(&b, wlen ? wlen : 1, sizeof(double), 8);
    size_t ilen = sgs_svgd_index_len(n);
    uint32_t *idx = (uint32_t *)take(&b, ilen ? ilen : 1, sizeof(uint32_t), 8);
    void *state = take(&b, 1, sgs_svgd_state_size(), sgs_svgd_state_align());
    int32_t st = sgs_svgd_init((sgs_svgd *)state, &cfg, particles, n, d, ws, wlen ? wlen : 1, idx,
                               ilen ? ilen : 1, NULL, gradients_cb, &c);
    if (finish(&b, &c, st, "init", 0)) return;

    sgs_svgd_info info;
    memset(&info, 0, sizeof info);
    int interrupted = 0;
    for (uint64_t k = 0; k < iters; k++) {
        if (sgs_trap_interrupt()) {
            interrupted = 1;
            break;
        }
        st = sgs_svgd_step((sgs_svgd *)state, &info);
        if (st != SGS_OK) break;
    }
    if (finish(&b, &c, st, "step", interrupted)) return;

    plhs[0] = mxCreateDoubleMatrix(n, d, mxREAL);
    double *po = mxGetPr(plhs[0]);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < d; j++) po[j * n + i] = particles[i * d + j];
    if (nlhs > 1) {
        static const char *names[] = {"iterations", "interactions", "bandwidth", "step_size",
                                      "mean_force", "max_force", "ksd_squared", "callback_calls"};
        mxArray *s = make_info(names, 8);
        set_num(s, "iterations", (double)iters);
        set_num(s, "interactions", (double)info.interactions);
        set_num(s, "bandwidth", iters ? info.bandwidth : NAN);
        set_num(s, "step_size", iters ? info.step_size : NAN);
        set_num(s, "mean_force", iters ? info.mean_force : NAN);
        set_num(s, "max_force", iters ? info.max_force : NAN);
        set_num(s, "ksd_squared", iters ? info.ksd_squared : NAN);
        set_num(s, "callback_calls", (double)c.calls);
        plhs[1] = s;
    }
    free_all(&b);
}

/* ---- minibatch ----------------------------------------------------------------------------- */
static uint64_t arg_u64(buffers *b, const mxArray *v, const char *name) {
    char msg[200];
    snprintf(msg, sizeof msg, "%s must be a non-negative integer (a double up to 2^53 or a uint64)", name);
    /* A logical is not a seed or a count (true would silently be seed 1). */
    if (!is_real_scalar(v) || mxIsLogical(v)) fail(b, "sgsample:badArgument", msg);
    if (mxGetClassID(v) == mxUINT64_CLASS) return *(const uint64_t *)mxGetData(v);
    double x = mxGetScalar(v);
    if (!(x >= 0.0 && x <= 9007199254740992.0 && x == floor(x))) fail(b, "sgsample:badArgument", msg);
    return (uint64_t)x;
}

static void minibatch(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[]) {
    buffers b = {{0}, 0};
    (void)nlhs;
    if (nrhs != 4) mexErrMsgIdAndTxt("sgsample:badArguments", "usage: idx = sgs_minibatch(seed, n, B)");
    uint64_t seed = arg_u64(&b, prhs[1], "seed");
    uint64_t n = arg_u64(&b, prhs[2], "n");
    uint64_t len = arg_u64(&b, prhs[3], "B");
    if (len > n || n == 0) fail_status(&b, "minibatch", SGS_ERR_INVALID_MINIBATCH);
    uint64_t *tmp = (uint64_t *)take(&b, len ? len : 1, sizeof(uint64_t), 8);
    int32_t st = sgs_minibatch(seed, n, tmp, (size_t)len);
    if (st != SGS_OK) fail_status(&b, "minibatch", st);
    plhs[0] = mxCreateDoubleMatrix((size_t)len, 1, mxREAL);
    double *o = mxGetPr(plhs[0]);
    for (size_t i = 0; i < len; i++) o[i] = (double)tmp[i] + 1.0;
    free_all(&b);
}

/* ---- diagnostics: sgs_stats_… over a matrix of draws --------------------------------------- */
/* S = sgsample_mex('stats', X): X is n-by-d (one chain) or n-by-d-by-m (m chains of n draws),
 * double or single. Each chain's rows are pushed in order into its own accumulators; S has the
 * across-chain ess and rhat (1-by-d) and the per-chain mean, variance, ess and mcse (m-by-d). */
static void stats(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[]) {
    buffers b = {{0}, 0};
    (void)nlhs;
    if (nrhs != 2) mexErrMsgIdAndTxt("sgsample:badArguments", "usage: S = sgs_stats(X)");
    const mxArray *X = prhs[1];
    int single = mxIsSingle(X);
    size_t nd = mxGetNumberOfDimensions(X);
    if (!(mxIsDouble(X) || single) || mxIsComplex(X) || mxIsSparse(X) || nd > 3)
        fail(&b, "sgsample:badArgument", "X must be a real, full double or single array of at most 3 dimensions (draws x coordinates x chains)");
    const mwSize *dims = mxGetDimensions(X);
    size_t n = dims[0], d = dims[1], m = nd == 3 ? dims[2] : 1;
    if (m == 0) fail_status(&b, "stats: no chains", SGS_ERR_ZERO_DIMENSION);
    size_t bytes = 0, align = sgs_stats_state_align();
    int32_t st = sgs_stats_state_size(d, &bytes);
    if (st != SGS_OK) fail_status(&b, "stats", st);
    size_t stride = (bytes + align - 1) / align * align;
    if (stride > SIZE_MAX / m) fail(&b, "sgsample:tooLarge", "the accumulators do not fit in memory");
    char *mem = (char *)take(&b, m, stride, align);
    const sgs_stats **chains = (const sgs_stats **)take(&b, m, sizeof(void *), sizeof(void *));
    double *row = (double *)take(&b, d, sizeof(double), 8);
    float *row32 = (float *)take(&b, d, sizeof(float), 8);
    const double *x = single ? NULL : mxGetPr(X);
    const float *x32 = single ? (const float *)mxGetData(X) : NULL;
    for (size_t c = 0; c < m; c++) {
        sgs_stats *s = (sgs_stats *)(mem + c * stride);
        chains[c] = s;
        st = sgs_stats_init(s, bytes, d);
        if (st != SGS_OK) fail_status(&b, "stats init", st);
        for (size_t t = 0; t < n; t++) {
            /* Column-major: X(t, j, c) is element t + n·j + n·d·c. */
            for (size_t j = 0; j < d; j++) {
                size_t at = t + n * j + n * d * c;
                if (single) row32[j] = x32[at];
                else row[j] = x[at];
            }
            st = single ? sgs_stats_push_f32(s, row32, d) : sgs_stats_push(s, row, d);
            if (st == SGS_ERR_NON_FINITE) {
                /* The library's text for this status speaks of particles and gradients. */
                char msg[200];
                snprintf(msg, sizeof msg, "sgs_stats: X(%lu, :, %lu) (draw %lu of chain %lu) has a NaN or an Inf",
                         (unsigned long)t + 1, (unsigned long)c + 1, (unsigned long)t + 1, (unsigned long)c + 1);
                fail(&b, "sgsample:nonFinite", msg);
            }
            if (st != SGS_OK) fail_status(&b, "stats push", st);
        }
    }
    static const char *names[] = {"ess", "rhat", "mcse", "mean", "variance", "chain_ess", "draws", "chains"};
    mxArray *S = make_info(names, 8);
    mxArray *ess = mxCreateDoubleMatrix(1, d, mxREAL), *rhat = mxCreateDoubleMatrix(1, d, mxREAL);
    st = sgs_stats_ess_chains(chains, m, mxGetPr(ess), d);
    if (st == SGS_OK) st = sgs_stats_rhat(chains, m, mxGetPr(rhat), d);
    mxSetField(S, 0, "ess", ess);
    mxSetField(S, 0, "rhat", rhat);
    typedef sgs_status (*per_chain)(const sgs_stats *, double *, size_t);
    static const per_chain fns[] = {sgs_stats_mcse, sgs_stats_mean, sgs_stats_variance, sgs_stats_ess};
    static const char *fields[] = {"mcse", "mean", "variance", "chain_ess"};
    for (int f = 0; f < 4; f++) {
        mxArray *a = mxCreateDoubleMatrix(m, d, mxREAL);
        double *o = mxGetPr(a);
        for (size_t c = 0; c < m && st == SGS_OK; c++) {
            st = fns[f](chains[c], row, d);
            for (size_t j = 0; j < d; j++) o[c + m * j] = row[j];
        }
        mxSetField(S, 0, fields[f], a);
    }
    set_num(S, "draws", (double)n);
    set_num(S, "chains", (double)m);
    if (st != SGS_OK) {
        mxDestroyArray(S);
        fail_status(&b, "stats", st);
    }
    plhs[0] = S;
    free_all(&b);
}

/* ---- persistent chains: the +sgs handle objects -------------------------------------------- */
/* A chain that lives between MEX calls: its state and workspace are plain malloc memory (the MEX
 * memory manager would free mxMalloc memory at the end of the call), allocated once and never
 * moved, because the library's states are address-bound. The object holds only an id; ids are
 * never reused, so a stale id cannot reach a newer chain: a counter on top of a per-load value
 * from the clocks, because `clear mex` unloads this file (mexAtExit frees every chain) and the
 * counter starts again. The function handles stay with the
 * object and come with every call (an mxArray kept between calls would need to be made
 * persistent; passing them is simpler and always current). */
#define MAX_CHAINS 256

typedef struct {
    uint64_t id;
    int kind, running;
    size_t d;
    double step; /* the step size asked for (AMAGOLD reports its adapted one) */
    void *raw;   /* malloc block: state (aligned) then workspace */
    void *state;
    double *ws;
    size_t wlen;
    cb_ctx c;    /* the library keeps &c as its user data */
} chain_obj;

static chain_obj *chains[MAX_CHAINS];
static uint64_t next_chain_id; /* 0 until the first chain of this load */
static int exit_hook;

static void free_chains(void) {
    for (int i = 0; i < MAX_CHAINS; i++) {
        if (chains[i]) {
            free(chains[i]->raw);
            free(chains[i]);
            chains[i] = NULL;
        }
    }
}

/* The chain with the id in `v`, or an sgsample:invalidHandle error (bad, deleted, or from before
 * `clear mex`). */
static chain_obj *find_chain(const mxArray *v, int *slot) {
    if (is_real_scalar(v) && !mxIsLogical(v)) {
        double x = mxGetScalar(v);
        for (int i = 0; i < MAX_CHAINS; i++)
            if (chains[i] && (double)chains[i]->id == x) {
                if (slot) *slot = i;
                return chains[i];
            }
    }
    mexErrMsgIdAndTxt("sgsample:invalidHandle", "not a live sampler object (deleted, or made before clear mex)");
    return NULL; /* not reached */
}

/* Points the chain's callbacks at this call's function handles (valid only during this call). */
static void bind_callbacks(chain_obj *o, buffers *b, const mxArray *energy, const mxArray *gradient,
                           const mxArray *tramp) {
    if (o->kind == AMAGOLD) check_handle(b, energy, "energy");
    check_handle(b, gradient, "gradient");
    o->c.energy = o->kind == AMAGOLD ? energy : NULL;
    o->c.gradient = gradient;
    o->c.trampoline = mxIsEmpty(tramp) ? NULL : tramp;
    o->c.exception = NULL;
    o->c.bad_id[0] = '\0';
    o->c.calls = 0;
}

/* id = sgsample_mex('new', kind, energy, gradient, theta0, opts, trampoline) */
static void chain_new(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[]) {
    buffers b = {{0}, 0};
    char kname[16];
    (void)nlhs;
    if (nrhs != 7 || !mxIsChar(prhs[1]) || mxGetString(prhs[1], kname, sizeof kname) != 0 || chain_kind(kname) < 0)
        mexErrMsgIdAndTxt("sgsample:badArguments", "usage: sgsample_mex('new', 'amagold'|'sghmc'|'sgld', energy, gradient, theta0, opts, trampoline)");
    int kind = chain_kind(kname);
    /* Every check that can raise comes before the malloc below, whose block nothing else would
     * free (bind_callbacks checks the handles again, then they are known to pass). */
    if (kind == AMAGOLD) check_handle(&b, prhs[2], "energy");
    check_handle(&b, prhs[3], "gradient");
    const mxArray *opts = prhs[5];
    if (!mxIsStruct(opts)) fail(&b, "sgsample:badArguments", "options must be a struct");
    size_t d = vector_arg(&b, prhs[4]);
    chain_config cfg;
    double step = chain_read_config(kind, &b, opts, opt_u64(&b, opts, "warmup", 0), &cfg);
    int slot = -1;
    for (int i = 0; i < MAX_CHAINS && slot < 0; i++)
        if (!chains[i]) slot = i;
    if (slot < 0) mexErrMsgIdAndTxt("sgsample:tooManyObjects", "more than %d live sampler objects; delete some", MAX_CHAINS);

    size_t dd = d ? d : 1, ssize, align;
    chain_state_layout(kind, &ssize, &align);
    ssize = (ssize + 7) / 8 * 8; /* the workspace follows, 8-aligned */
    size_t wlen = chain_workspace_len(kind, &cfg, dd);
    chain_obj *o = (chain_obj *)calloc(1, sizeof *o);
    void *raw = wlen < SIZE_MAX / 8 - ssize - align ? calloc(1, align + ssize + wlen * 8) : NULL;
    if (!o || !raw) {
        free(o);
        free(raw);
        mexErrMsgIdAndTxt("sgsample:outOfMemory", "no memory for the sampler state");
    }
    uintptr_t p = ((uintptr_t)raw + align - 1) & ~(uintptr_t)(align - 1);
    o->raw = raw;
    o->state = (void *)p;
    o->ws = (double *)(p + ssize);
    o->wlen = wlen;
    o->kind = kind;
    o->d = d;
    o->step = step;
    o->c.d = d;
    bind_callbacks(o, &b, prhs[2], prhs[3], prhs[6]);
    double dummy = 0.0;
    int32_t st = chain_init(kind, o->state, &cfg, d ? mxGetPr(prhs[4]) : &dummy, d, o->ws, wlen, &o->c);
    if (st != SGS_OK || sgs_trap_pending()) {
        cb_ctx c = o->c; /* the error outlives the chain */
        free(raw);
        free(o);
        finish(&b, &c, st, "init", 0);
        return;
    }
    if (!exit_hook) {
        mexAtExit(free_chains);
        exit_hook = 1;
    }
    if (next_chain_id == 0) {
        /* 33 bits from the clocks above a 20-bit counter (exact in a double): the wall clock in
         * seconds and the process's CPU time (clock(), which has advanced between two loads in
         * the same second). C89 functions, for compilers that mex runs in C99 mode. */
        uint64_t t = (uint64_t)time(NULL) * 1000003u + (uint64_t)clock();
        next_chain_id = ((t & ((UINT64_C(1) << 33) - 1)) << 20) + 1;
    }
    o->id = next_chain_id++;
    o->c.energy = o->c.gradient = o->c.trampoline = NULL; /* this call's handles die with it */
    chains[slot] = o;
    plhs[0] = mxCreateDoubleScalar((double)o->id);
}

/* [samples, info] = sgsample_mex('run', id, n, energy, gradient, trampoline): n iterations, every
 * position recorded. On an error or interrupt the chain stays at its last completed iteration
 * (the library rolls the failed one back, generator included) and nothing is returned. */
static void chain_run(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[]) {
    buffers b = {{0}, 0};
    if (nrhs != 6) mexErrMsgIdAndTxt("sgsample:badArguments", "usage: sgsample_mex('run', id, n, energy, gradient, trampoline)");
    chain_obj *o = find_chain(prhs[1], NULL);
    if (o->running) mexErrMsgIdAndTxt("sgsample:busy", "%s", sgs_status_str(SGS_ERR_BUSY));
    uint64_t n = arg_u64(&b, prhs[2], "n");
    size_t d = o->d, dd = d ? d : 1;
    if (n > (uint64_t)SIZE_MAX / dd / sizeof(double)) fail(&b, "sgsample:tooLarge", "n × d does not fit in memory");
    bind_callbacks(o, &b, prhs[3], prhs[4], prhs[5]);
    mxArray *out = double_matrix(&b, (size_t)n, d, "n x d");
    mxArray *la = o->kind == AMAGOLD ? double_matrix(&b, (size_t)n, 1, "log_accept") : NULL;
    double *pos = (double *)take(&b, dd, sizeof(double), 8);
    tally t;
    o->running = 1;
    int32_t st = chain_loop(o->kind, o->state, 0, n, mxGetPr(out), (size_t)n, la ? mxGetPr(la) : NULL, pos, d, &t);
    o->running = 0;
    cb_ctx c = o->c;
    o->c.energy = o->c.gradient = o->c.trampoline = NULL; /* this call's handles die with it */
    o->c.exception = NULL;
    if (c.exception || c.bad_id[0] || t.interrupted || st != SGS_OK || sgs_trap_pending()) {
        mxDestroyArray(out);
        if (la) mxDestroyArray(la);
        if (finish(&b, &c, st, "step", t.interrupted)) return;
    }
    plhs[0] = out;
    if (nlhs > 1) plhs[1] = chain_info(o->kind, o->state, d, n, 0, &t, c.calls, o->step, la);
    else if (la) mxDestroyArray(la);
    free_all(&b);
}

/* s = sgsample_mex('query', id): position, iterations, divergences, step size, inverse mass
 * (AMAGOLD; [] for the others). */
static void chain_query(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[]) {
    (void)nlhs;
    if (nrhs != 2) mexErrMsgIdAndTxt("sgsample:badArguments", "usage: sgsample_mex('query', id)");
    chain_obj *o = find_chain(prhs[1], NULL);
    uint64_t divs = 0, iters = 0;
    double eps = o->step;
    chain_totals(o->kind, o->state, &divs, &iters, &eps);
    static const char *names[] = {"position", "iterations", "divergences", "step_size", "inverse_mass"};
    mxArray *s = make_info(names, 5);
    mxArray *pos = mxCreateDoubleMatrix(o->d, 1, mxREAL);
    double dummy;
    int32_t st = chain_position(o->kind, o->state, o->d ? mxGetPr(pos) : &dummy, o->d ? o->d : 1);
    if (st != SGS_OK) {
        mxDestroyArray(s);
        mxDestroyArray(pos);
        buffers b = {{0}, 0};
        fail_status(&b, "position", st);
    }
    mxSetField(s, 0, "position", pos);
    set_num(s, "iterations", (double)iters);
    set_num(s, "divergences", (double)divs);
    set_num(s, "step_size", eps);
    mxSetField(s, 0, "inverse_mass", inverse_mass(o->kind, o->state, o->d));
    plhs[0] = s;
}

/* found = sgsample_mex('free', id): frees the chain; false if there was none with this id. */
static void chain_free(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[]) {
    (void)nlhs;
    if (nrhs != 2) mexErrMsgIdAndTxt("sgsample:badArguments", "usage: sgsample_mex('free', id)");
    int found = 0;
    if (is_real_scalar(prhs[1]) && !mxIsLogical(prhs[1])) {
        double x = mxGetScalar(prhs[1]);
        for (int i = 0; i < MAX_CHAINS; i++)
            if (chains[i] && (double)chains[i]->id == x) {
                if (chains[i]->running) mexErrMsgIdAndTxt("sgsample:busy", "%s", sgs_status_str(SGS_ERR_BUSY));
                free(chains[i]->raw);
                free(chains[i]);
                chains[i] = NULL;
                found = 1;
            }
    }
    plhs[0] = mxCreateLogicalScalar(found);
}

/* ---- entry --------------------------------------------------------------------------------- */
/* Called by mexFunction in sgsample_trap.cpp, which rethrows what the interpreter threw. */
void sgs_gateway(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[]) {
    char cmd[32];
    if (nrhs < 1 || !mxIsChar(prhs[0]) || mxGetString(prhs[0], cmd, sizeof cmd) != 0)
        mexErrMsgIdAndTxt("sgsample:badArguments", "the first argument must be a command name");
    if (strcmp(cmd, "amagold") == 0) run_chain(AMAGOLD, nlhs, plhs, nrhs, prhs);
    else if (strcmp(cmd, "sghmc") == 0) run_chain(SGHMC, nlhs, plhs, nrhs, prhs);
    else if (strcmp(cmd, "sgld") == 0) run_chain(SGLD, nlhs, plhs, nrhs, prhs);
    else if (strcmp(cmd, "svgd") == 0) run_svgd(nlhs, plhs, nrhs, prhs);
    else if (strcmp(cmd, "minibatch") == 0) minibatch(nlhs, plhs, nrhs, prhs);
    else if (strcmp(cmd, "new") == 0) chain_new(nlhs, plhs, nrhs, prhs);
    else if (strcmp(cmd, "run") == 0) chain_run(nlhs, plhs, nrhs, prhs);
    else if (strcmp(cmd, "query") == 0) chain_query(nlhs, plhs, nrhs, prhs);
    else if (strcmp(cmd, "free") == 0) chain_free(nlhs, plhs, nrhs, prhs);
    else if (strcmp(cmd, "stats") == 0) stats(nlhs, plhs, nrhs, prhs);
    else if (strcmp(cmd, "status") == 0 && nrhs == 2) plhs[0] = mxCreateString(sgs_status_str((int32_t)mxGetScalar(prhs[1])));
    else if (strcmp(cmd, "version") == 0) plhs[0] = mxCreateString(sgs_version());
    else mexErrMsgIdAndTxt("sgsample:badArguments", "unknown command '%s'", cmd);
}
