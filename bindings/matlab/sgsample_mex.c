/* sgsample_mex: the MEX gateway behind sgs_amagold, sgs_sghmc, sgs_sgld, sgs_tunamh, sgs_svgd,
 * sgs_minibatch, sgs_normal, sgs_uniform and the step-wise objects sgs.Amagold, sgs.Sghmc,
 * sgs.Sgld, sgs.Tunamh, sgs.Svgd.
 *
 * Portable between MATLAB's `mex` and GNU Octave's `mkoctfile --mex`; it uses only the documented
 * MEX C API (separate-complex mxGetPr, so it builds with either API version). Its C++ part,
 * sgsample_trap.cpp, holds mexFunction and makes every call into the interpreter, so that what
 * the interpreter throws (Octave's Ctrl-C) never unwinds through the library (see there). Users
 * call the .m wrappers, not this file:
 *
 *   [samples, info] = sgsample_mex('amagold', energy, gradient, theta0, opts, trampoline)
 *   [samples, info] = sgsample_mex('sghmc'|'sgld', gradient, theta0, opts, trampoline)
 *   [samples, info] = sgsample_mex('tunamh', exact_or_[], differences, theta0, opts, trampoline)
 *   [X, info]       = sgsample_mex('svgd', gradients, X0, opts, trampoline)
 *   idx             = sgsample_mex('minibatch', seed, n, B)        (1-based, B×1 double)
 *   text            = sgsample_mex('status', code)                 (sgs_status_str)
 *   v               = sgsample_mex('version')
 *   [S, info]       = sgsample_mex('amagold_batch' | 'sghmc_batch' | 'sgld_batch', ...)
 *                                                                  (K chains: sgsample_batch.inc)
 *   Z               = sgsample_mex('normal' | 'uniform', seeds, n) (sgs_normal, sgs_uniform)
 *   id              = sgsample_mex('new', kind, energy, gradient, theta0, opts, trampoline)
 *   [samples, info] = sgsample_mex('run', id, n, energy, gradient, trampoline[, run_opts])
 *   p               = sgsample_mex('partial', id)                  (what a failed run produced)
 *   s               = sgsample_mex('query', id)                    (position, iterations, ...)
 *   found           = sgsample_mex('free', id)
 *   v               = sgsample_mex('amagold_get', id, what)        ('inverse_mass_dense',
 *                                                                   'warmup_report')
 *   sgsample_mex('amagold_set', id, what, value)                   ('step_size', 'inverse_mass',
 *                                                                   'inverse_mass_dense')
 *   R               = sgsample_mex('amagold_compare', ids)         (k-by-1 struct of reports)
 *   S               = sgsample_mex('stats', X)                     (ESS, split-R-hat, MCSE)
 *   S               = sgsample_mex('draws', X, opts)               (rank-normalised R-hat, ESS,
 *                                                                   MCSE, verdict: sgs_draws_…)
 *   svgd_new, svgd_run, svgd_query, svgd_set, svgd_ksd, svgd_free  (sgs.Svgd: sgsample_svgd_obj.inc)
 *
 * The commands and their argument/output counts are one table, `commands` (sgs_gateway); the
 * samplers' functions another, `chain_table`. No argument list reaches a crash: every argument is
 * decoded through a checked helper (tests/fuzz_gateway.m runs thousands of random lists).
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
#if !defined(_WIN32) && !defined(_POSIX_C_SOURCE)
#define _POSIX_C_SOURCE 200809L /* setenv (the load epoch) under a strict -std=c99 */
#endif
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
    /* The warm-up API's statuses (sgs_amagold_set_inverse_mass, …). */
    case SGS_ERR_INVALID_MASS: return "sgsample:invalidMass";
    case SGS_ERR_MASS_MISMATCH: return "sgsample:massMismatch";
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
    case SGS_ERR_NON_FINITE_DRAWS: return "sgsample:nonFiniteDraws";
    case SGS_ERR_TOO_FEW_DRAWS: return "sgsample:tooFewDraws";
    /* A checkpoint given to an object's import (loadobj). */
    case SGS_ERR_INVALID_CHECKPOINT: return "sgsample:invalidCheckpoint";
    case SGS_ERR_CHECKPOINT_MISMATCH: return "sgsample:checkpointMismatch";
    /* TunaMH's. */
    case SGS_ERR_BOUND_EXCEEDED: return "sgsample:boundExceeded";
    case SGS_ERR_INVALID_BOUND: return "sgsample:invalidBound";
    default: return "sgsample:unknownStatus";
    }
}

/* ---- buffers freed on every exit ----------------------------------------------------------- */
#define MAX_BUFS 16
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

/* The options struct: exactly one element (a 0-by-0 struct with fields has no element 0 to read,
 * and mxGetField would read past it). */
static const mxArray *options_arg(buffers *b, const mxArray *opts) {
    if (!mxIsStruct(opts) || mxGetNumberOfElements(opts) != 1)
        fail(b, "sgsample:badArguments", "options must be a 1-by-1 struct");
    return opts;
}

/* The trampoline: [] (MATLAB, or no trampoline) or a function handle; anything else would make
 * every callback fail inside the interpreter's feval. */
static const mxArray *trampoline_arg(buffers *b, const mxArray *t) {
    if (mxIsEmpty(t) && mxIsDouble(t)) return NULL;
    check_handle(b, t, "the trampoline");
    return t;
}

/* ---- callbacks ----------------------------------------------------------------------------- */
typedef struct {
    const mxArray *energy, *gradient; /* user function handles */
    const mxArray *trampoline;        /* private/sgs_call (Octave) */
    mxArray *exception;               /* the user's error, re-raised after the sampler returned */
    char bad_id[64], bad_msg[256];    /* an error found here (a wrong callback output) */
    size_t d, n;
    uint64_t calls;
    int rows; /* the callbacks are vectorised (K chains per call): a point is a 1-by-d row */
} cb_ctx;

/* Calls fn(args...) with one output. Returns SGS_CB_OK with *out set, or SGS_CB_ABORT with the
 * error kept in c->exception. Nothing thrown here crosses the library's frames. */
static int32_t call_user(cb_ctx *c, const mxArray *fn, int nin, mxArray **in, mxArray **out) {
    mxArray *args[5]; /* the trampoline, the function, up to 3 arguments */
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
        if (SGS_USE_TRAMPOLINE) {
            /* Octave's trap keeps no message (see the top): the trampoline itself failed, so
             * the error is the gateway's to name. */
            mxDestroyArray(ex);
            snprintf(c->bad_id, sizeof c->bad_id, "sgsample:callbackFailed");
            snprintf(c->bad_msg, sizeof c->bad_msg, "a callback failed outside the trampoline (is the trampoline private/sgs_call?)");
        } else {
            c->exception = ex;
        }
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

static mxArray *column(const double *x, size_t d, int row) {
    mxArray *a = row ? mxCreateDoubleMatrix(1, d, mxREAL) : mxCreateDoubleMatrix(d, 1, mxREAL);
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
    mxArray *in[1] = {column(theta, d, c->rows)};
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
    mxArray *in[2] = {column(x, d, c->rows), seed_array(seed)};
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

/* TunaMH: differences(theta, proposal, idx), idx the terms' indices 1-based (as sgs_minibatch
 * gives them) in a count-by-1 double column; count differences back, [] rejects the proposal. */
static int32_t differences_cb(void *user, const double *theta, const double *proposal, size_t d,
                              const uint64_t *indices, size_t count, double *diffs) {
    cb_ctx *c = (cb_ctx *)user;
    mxArray *idx = mxCreateDoubleMatrix(count, 1, mxREAL);
    for (size_t j = 0; j < count; j++) mxGetPr(idx)[j] = (double)indices[j] + 1.0;
    mxArray *in[3] = {column(theta, d, 0), column(proposal, d, 0), idx};
    mxArray *out = NULL;
    int32_t st = call_user(c, c->gradient, 3, in, &out);
    for (int i = 0; i < 3; i++) mxDestroyArray(in[i]);
    if (st != SGS_CB_OK) return st;
    if (!out || mxIsEmpty(out)) {
        if (out) mxDestroyArray(out);
        return SGS_CB_REJECT;
    }
    if (!is_real_double(out) || mxGetNumberOfElements(out) != count || (mxGetM(out) != 1 && mxGetN(out) != 1)) {
        char msg[200];
        snprintf(msg, sizeof msg, "the differences function must return a real double vector of %zu elements, one per index (or [] to reject the proposal)", count);
        return bad_output(c, out, msg);
    }
    memcpy(diffs, mxGetPr(out), count * sizeof(double));
    mxDestroyArray(out);
    return SGS_CB_OK;
}

/* TunaMH's exact part: exact(theta, proposal) = U0(proposal) - U0(theta), a scalar; [] rejects. */
static int32_t exact_cb(void *user, const double *theta, const double *proposal, size_t d, double *diff) {
    cb_ctx *c = (cb_ctx *)user;
    if (!c->energy) { /* a chain made with an exact part, run through the gateway without it */
        snprintf(c->bad_id, sizeof c->bad_id, "sgsample:badArguments");
        snprintf(c->bad_msg, sizeof c->bad_msg, "this TunaMH chain was made with an exact part: run needs its handle");
        return SGS_CB_ABORT;
    }
    mxArray *in[2] = {column(theta, d, 0), column(proposal, d, 0)};
    mxArray *out = NULL;
    int32_t st = call_user(c, c->energy, 2, in, &out);
    mxDestroyArray(in[0]);
    mxDestroyArray(in[1]);
    if (st != SGS_CB_OK) return st;
    if (!out || mxIsEmpty(out)) {
        if (out) mxDestroyArray(out);
        return SGS_CB_REJECT;
    }
    if (!is_real_double(out) || mxGetNumberOfElements(out) != 1)
        return bad_output(c, out, "the Exact function must return a real double scalar (or [] to reject the proposal)");
    *diff = mxGetPr(out)[0];
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

/* ---- chain samplers (AMAGOLD, SGHMC, SGLD, TunaMH) ----------------------------------------- */
/* The one-shot runs (sgs_amagold, ...) and the persistent objects (+sgs) share these. Everything
 * that differs between the samplers is in one table, chain_table, indexed by the kind. */
/* The kinds before TUNAMH also run K chains per call (sgsample_batch.inc); TunaMH has no batch
 * API in the library. */
enum { AMAGOLD, SGHMC, SGLD, TUNAMH, CHAIN_KINDS, BATCH_KINDS = TUNAMH };

typedef union {
    sgs_amagold_config a;
    sgs_sghmc_config h;
    sgs_sgld_config l;
    sgs_tunamh_config t;
} chain_config;

/* One iteration, the same fields for every sampler (NaN where a sampler has no such number). */
typedef struct {
    double log_accept, energy, step_size, steps;
    uint32_t outcome, accepted, phase, has_phase;
    double evaluations, kept; /* TunaMH: term differences asked for, kept in the ratio */
    uint32_t full_pass;       /* TunaMH: every term evaluated */
} step_rec;

typedef struct {
    const char *name;
    const char *discard_option; /* the iterations before the draws: AMAGOLD's adapting "warmup" */
    int has_energy;             /* a callback in the energy slot (TunaMH: its exact part) */
    int energy_optional;        /* ... which may be [] (TunaMH: no exact part) */
    const char *energy_name, *gradient_name; /* for the messages */
    size_t (*state_size)(void);
    size_t (*state_align)(void);
    size_t (*workspace_len)(const chain_config *cfg, size_t d);
    int32_t (*init)(void *state, const chain_config *cfg, const double *th, size_t d, double *ws,
                    size_t wlen, cb_ctx *c);
    int32_t (*step)(void *state, step_rec *r);
    int32_t (*position)(void *state, double *pos, size_t len);
    int32_t (*iterations)(void *state, uint64_t *n);
    int32_t (*divergences)(void *state, uint64_t *n);
    int32_t (*export_len)(const void *state, size_t *len);
    int32_t (*export_)(const void *state, void *out, size_t len);
    int32_t (*import_)(void *state, const void *in, size_t len);
} chain_ops;

static size_t amagold_wlen(const chain_config *cfg, size_t d) { return sgs_amagold_workspace_len_for(&cfg->a, d); }
static size_t sghmc_wlen(const chain_config *cfg, size_t d) { return sgs_sghmc_workspace_len_for(&cfg->h, d); }
static size_t sgld_wlen(const chain_config *cfg, size_t d) { (void)cfg; return sgs_sgld_workspace_len(d); }
static size_t tunamh_wlen(const chain_config *cfg, size_t d) { (void)cfg; return sgs_tunamh_workspace_len(d); }

static int32_t amagold_init_(void *s, const chain_config *cfg, const double *th, size_t d, double *ws, size_t wlen, cb_ctx *c) {
    return sgs_amagold_init((sgs_amagold *)s, &cfg->a, th, d, ws, wlen, energy_cb, gradient_cb, c);
}
static int32_t sghmc_init_(void *s, const chain_config *cfg, const double *th, size_t d, double *ws, size_t wlen, cb_ctx *c) {
    return sgs_sghmc_init((sgs_sghmc *)s, &cfg->h, th, d, ws, wlen, gradient_cb, c);
}
static int32_t sgld_init_(void *s, const chain_config *cfg, const double *th, size_t d, double *ws, size_t wlen, cb_ctx *c) {
    return sgs_sgld_init((sgs_sgld *)s, &cfg->l, th, d, ws, wlen, gradient_cb, c);
}
static int32_t tunamh_init_(void *s, const chain_config *cfg, const double *th, size_t d, double *ws, size_t wlen, cb_ctx *c) {
    return sgs_tunamh_init((sgs_tunamh *)s, &cfg->t, th, d, ws, wlen, c->energy ? exact_cb : NULL, differences_cb, c);
}

static int32_t amagold_step_(void *s, step_rec *r) {
    sgs_amagold_info info;
    int32_t st = sgs_amagold_step((sgs_amagold *)s, &info);
    if (st != SGS_OK) return st;
    r->log_accept = info.log_accept;
    r->energy = info.energy;
    r->step_size = info.step_size;
    r->steps = (double)info.steps;
    r->outcome = info.outcome;
    r->accepted = info.accepted != 0;
    r->phase = info.phase;
    r->has_phase = 1;
    return st;
}
static void chain_rec(const sgs_chain_info *info, step_rec *r) {
    r->log_accept = r->energy = r->step_size = r->steps = NAN;
    r->outcome = info->outcome;
    r->accepted = info->outcome == SGS_OUTCOME_ACCEPTED;
    r->phase = r->has_phase = 0;
}
static int32_t sghmc_step_(void *s, step_rec *r) {
    sgs_chain_info info;
    int32_t st = sgs_sghmc_step((sgs_sghmc *)s, &info);
    if (st == SGS_OK) chain_rec(&info, r);
    return st;
}
static int32_t sgld_step_(void *s, step_rec *r) {
    sgs_chain_info info;
    int32_t st = sgs_sgld_step((sgs_sgld *)s, &info);
    if (st == SGS_OK) chain_rec(&info, r);
    return st;
}

static int32_t tunamh_step_(void *s, step_rec *r) {
    sgs_tunamh_info info;
    int32_t st = sgs_tunamh_step((sgs_tunamh *)s, &info);
    if (st != SGS_OK) return st;
    r->log_accept = info.log_ratio;
    r->energy = r->step_size = r->steps = NAN; /* no energy, no inner steps; the step size as asked */
    r->outcome = info.outcome;
    r->accepted = info.accepted != 0;
    r->phase = r->has_phase = 0;
    r->evaluations = (double)info.evaluations;
    r->kept = (double)info.kept;
    r->full_pass = info.full_pass != 0;
    return st;
}

static int32_t amagold_pos(void *s, double *p, size_t n) { return sgs_amagold_position((sgs_amagold *)s, p, n); }
static int32_t sghmc_pos(void *s, double *p, size_t n) { return sgs_sghmc_position((sgs_sghmc *)s, p, n); }
static int32_t sgld_pos(void *s, double *p, size_t n) { return sgs_sgld_position((sgs_sgld *)s, p, n); }
static int32_t amagold_iters(void *s, uint64_t *n) { return sgs_amagold_iterations((sgs_amagold *)s, n); }
static int32_t sghmc_iters(void *s, uint64_t *n) { return sgs_sghmc_iterations((sgs_sghmc *)s, n); }
static int32_t sgld_iters(void *s, uint64_t *n) { return sgs_sgld_iterations((sgs_sgld *)s, n); }
static int32_t amagold_divs(void *s, uint64_t *n) { return sgs_amagold_divergences((sgs_amagold *)s, n); }
static int32_t sghmc_divs(void *s, uint64_t *n) { return sgs_sghmc_divergences((sgs_sghmc *)s, n); }
static int32_t sgld_divs(void *s, uint64_t *n) { return sgs_sgld_divergences((sgs_sgld *)s, n); }
static int32_t amagold_xlen(const void *s, size_t *n) { return sgs_amagold_export_len((const sgs_amagold *)s, n); }
static int32_t sghmc_xlen(const void *s, size_t *n) { return sgs_sghmc_export_len((const sgs_sghmc *)s, n); }
static int32_t sgld_xlen(const void *s, size_t *n) { return sgs_sgld_export_len((const sgs_sgld *)s, n); }
static int32_t amagold_exp(const void *s, void *o, size_t n) { return sgs_amagold_export((const sgs_amagold *)s, o, n); }
static int32_t sghmc_exp(const void *s, void *o, size_t n) { return sgs_sghmc_export((const sgs_sghmc *)s, o, n); }
static int32_t sgld_exp(const void *s, void *o, size_t n) { return sgs_sgld_export((const sgs_sgld *)s, o, n); }
static int32_t amagold_imp(void *s, const void *i, size_t n) { return sgs_amagold_import((sgs_amagold *)s, i, n); }
static int32_t sghmc_imp(void *s, const void *i, size_t n) { return sgs_sghmc_import((sgs_sghmc *)s, i, n); }
static int32_t sgld_imp(void *s, const void *i, size_t n) { return sgs_sgld_import((sgs_sgld *)s, i, n); }
static int32_t tunamh_pos(void *s, double *p, size_t n) { return sgs_tunamh_position((sgs_tunamh *)s, p, n); }
static int32_t tunamh_iters(void *s, uint64_t *n) { return sgs_tunamh_iterations((sgs_tunamh *)s, n); }
static int32_t tunamh_divs(void *s, uint64_t *n) { return sgs_tunamh_divergences((sgs_tunamh *)s, n); }
static int32_t tunamh_xlen(const void *s, size_t *n) { return sgs_tunamh_export_len((const sgs_tunamh *)s, n); }
static int32_t tunamh_exp(const void *s, void *o, size_t n) { return sgs_tunamh_export((const sgs_tunamh *)s, o, n); }
static int32_t tunamh_imp(void *s, const void *i, size_t n) { return sgs_tunamh_import((sgs_tunamh *)s, i, n); }

static const chain_ops chain_table[CHAIN_KINDS] = {
    {"amagold", "warmup", 1, 0, "energy", "gradient", sgs_amagold_state_size, sgs_amagold_state_align, amagold_wlen, amagold_init_,
     amagold_step_, amagold_pos, amagold_iters, amagold_divs, amagold_xlen, amagold_exp, amagold_imp},
    {"sghmc", "burnin", 0, 0, "energy", "gradient", sgs_sghmc_state_size, sgs_sghmc_state_align, sghmc_wlen, sghmc_init_,
     sghmc_step_, sghmc_pos, sghmc_iters, sghmc_divs, sghmc_xlen, sghmc_exp, sghmc_imp},
    {"sgld", "burnin", 0, 0, "energy", "gradient", sgs_sgld_state_size, sgs_sgld_state_align, sgld_wlen, sgld_init_,
     sgld_step_, sgld_pos, sgld_iters, sgld_divs, sgld_xlen, sgld_exp, sgld_imp},
    {"tunamh", "burnin", 1, 1, "Exact", "differences", sgs_tunamh_state_size, sgs_tunamh_state_align, tunamh_wlen,
     tunamh_init_, tunamh_step_, tunamh_pos, tunamh_iters, tunamh_divs, tunamh_xlen, tunamh_exp, tunamh_imp},
};

/* The callback in a kind's energy slot: a function handle (AMAGOLD's energy), or for TunaMH's
 * optional exact part also [] (NULL: none). */
static const mxArray *energy_arg(buffers *b, const chain_ops *ops, const mxArray *v) {
    if (ops->energy_optional && mxIsEmpty(v) && mxIsDouble(v)) return NULL;
    check_handle(b, v, ops->energy_name);
    return v;
}

static int chain_kind(const char *name) {
    for (int k = 0; k < CHAIN_KINDS; k++)
        if (strcmp(name, chain_table[k].name) == 0) return k;
    return -1;
}

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

static void amagold_read_mass(buffers *b, const mxArray *opts, sgs_amagold_config *a);

/* A seed for a run that was given none: 64 bits from the clocks, the address space and a
 * counter, mixed by splitmix64's finaliser (two calls in the same second differ). Reported in
 * info.seed / the objects' Seed, so that the run can be repeated. */
static uint64_t fresh_seed(void) {
    static uint64_t counter;
    uint64_t z = (uint64_t)time(NULL) * UINT64_C(0x9E3779B97F4A7C15) ^ (uint64_t)clock() ^
                 ((uint64_t)(uintptr_t)&counter << 16) ^ (++counter * UINT64_C(0xBF58476D1CE4E5B9));
    z = (z ^ (z >> 30)) * UINT64_C(0xBF58476D1CE4E5B9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94D049BB133111EB);
    return z ^ (z >> 31);
}

/* The configuration from the options (on a bad option: error, after freeing b); returns the
 * step size asked for. Without a 'seed' option the seed is fresh (fresh_seed). */
static double chain_read_config(int kind, buffers *b, const mxArray *opts, uint64_t warmup, chain_config *cfg) {
    double step = opt_double(b, opts, "step_size", 0.1);
    uint64_t seed = opt(opts, "seed") ? opt_u64(b, opts, "seed", 0) : fresh_seed();
    if (kind == AMAGOLD) {
        sgs_amagold_config *a = &cfg->a;
        *a = sgs_amagold_config_default(step);
        READ_MOMENTUM_FIELDS(b, opts, a);
        READ_CHAIN_FIELDS(b, opts, a);
        a->target_accept = opt_double(b, opts, "target_accept", a->target_accept);
        a->variant = opt_u32(b, opts, "variant", a->variant);
        amagold_read_mass(b, opts, a);
        a->warmup = warmup;
        a->seed = seed;
    } else if (kind == SGHMC) {
        sgs_sghmc_config *h = &cfg->h;
        *h = sgs_sghmc_config_default(step);
        READ_MOMENTUM_FIELDS(b, opts, h);
        READ_CHAIN_FIELDS(b, opts, h);
        h->resample_momentum = opt_u32(b, opts, "resample_momentum", h->resample_momentum);
        h->seed = seed;
    } else if (kind == SGLD) {
        sgs_sgld_config *l = &cfg->l;
        *l = sgs_sgld_config_default(step);
        READ_CHAIN_FIELDS(b, opts, l);
        l->seed = seed;
    } else {
        /* N and c have no default: a model without them is a mistake, not a chain. */
        if (!opt(opts, "terms") || !opt(opts, "bound"))
            fail(b, "sgsample:badArguments", "TunaMH needs the options 'Terms' (the number of terms N) and 'Bound' (the per-term bound c)");
        uint64_t n = opt_u64(b, opts, "terms", 0);
        /* The indices reach the callback as doubles, exact up to 2^53. */
        if (n > UINT64_C(9007199254740992))
            fail(b, "sgsample:badOption", "option terms must be at most 2^53 (the indices are passed as doubles)");
        sgs_tunamh_config *t = &cfg->t;
        *t = sgs_tunamh_config_default(step, n, opt_double(b, opts, "bound", 0.0));
        t->chi = opt_double(b, opts, "chi", t->chi);
        t->stream = opt_u64(b, opts, "stream", t->stream);
        t->seed = seed;
    }
    return step;
}

static uint64_t config_seed(int kind, const chain_config *cfg, uint64_t *stream) {
    switch (kind) {
    case AMAGOLD: *stream = cfg->a.stream; return cfg->a.seed;
    case SGHMC: *stream = cfg->h.stream; return cfg->h.seed;
    case SGLD: *stream = cfg->l.stream; return cfg->l.seed;
    default: *stream = cfg->t.stream; return cfg->t.seed;
    }
}

static uint32_t config_steps(int kind, const chain_config *cfg) {
    /* TunaMH has no inner steps: 0 keeps its per-draw inner_steps NaN. */
    return kind == AMAGOLD ? cfg->a.steps : kind == SGHMC ? cfg->h.steps : kind == SGLD ? cfg->l.steps : 0;
}

/* The iterations before the draws: AMAGOLD's adapting 'warmup' plus a 'burnin' at the step size
 * reached (fixed: nothing adapts); SGHMC's and SGLD's 'burnin'. Their sum with the draws asked
 * for must fit in 64 bits (sgsample:tooLarge, before anything runs). */
static uint64_t discard_count(int kind, buffers *b, const mxArray *opts, uint64_t draws, uint64_t *warmup) {
    uint64_t w = kind == AMAGOLD ? opt_u64(b, opts, "warmup", 0) : 0;
    uint64_t burn = opt_u64(b, opts, "burnin", 0);
    if (burn > UINT64_MAX - w || draws > UINT64_MAX - w - burn)
        fail(b, "sgsample:tooLarge", "Warmup + Burnin + Samples exceeds 2^64 - 1 iterations");
    *warmup = w;
    return w + burn;
}

/* A true/false option (0 or 1, double or logical). */
static int opt_flag(buffers *b, const mxArray *opts, const char *name) {
    uint64_t v = opt_u64(b, opts, name, 0);
    if (v > 1) {
        char msg[160];
        snprintf(msg, sizeof msg, "option %s must be true or false", name);
        fail(b, "sgsample:badOption", msg);
    }
    return (int)v;
}

/* ---- per-draw records: the rows and their statistics -------------------------------------- */
/* Every chain records the first ST_FIELDS; TunaMH also its cost (ST_ALL). */
enum { ST_DIVERGING, ST_ACCEPTED, ST_LOG_ACCEPT, ST_STEP_SIZE, ST_ENERGY, ST_STEPS, ST_EVALUATIONS,
       ST_KEPT, ST_FULL_PASS, ST_ALL, ST_FIELDS = ST_EVALUATIONS };
static const char *stat_names[ST_ALL] = {"diverging", "accepted", "log_accept", "step_size", "energy",
                                         "inner_steps", "evaluations", "kept", "full_pass"};

static int stat_logical(int f) {
    return f == ST_DIVERGING || f == ST_ACCEPTED || f == ST_FULL_PASS;
}

static int stat_fields(int kind) {
    return kind == TUNAMH ? ST_ALL : ST_FIELDS;
}

typedef struct {
    mxArray *rows;             /* cap-by-d */
    mxArray *stat[ST_ALL];     /* cap-by-1: logical or double columns, the first nf of them */
    size_t cap, n, d;
    int nf;
} recorder;

static void recorder_open_n(buffers *b, recorder *r, uint64_t cap, size_t d, const char *what, int nf) {
    size_t dd = d ? d : 1;
    memset(r, 0, sizeof *r);
    if (cap > (uint64_t)SIZE_MAX / (dd + (size_t)nf) / sizeof(double)) {
        char msg[160];
        free_all(b);
        snprintf(msg, sizeof msg, "%s x d does not fit in memory", what);
        mexErrMsgIdAndTxt("sgsample:tooLarge", "%s", msg);
    }
    /* The rows and the columns at once, so that a request beyond memory fails before any. */
    check_alloc(b, (size_t)cap * (dd + (size_t)nf) * sizeof(double), what);
    r->rows = double_matrix(b, (size_t)cap, d, what);
    for (int f = 0; f < nf; f++)
        r->stat[f] = stat_logical(f) ? mxCreateLogicalMatrix((size_t)cap, 1) : mxCreateDoubleMatrix((size_t)cap, 1, mxREAL);
    r->cap = (size_t)cap;
    r->d = d;
    r->nf = nf;
}

static void recorder_open(buffers *b, recorder *r, uint64_t cap, size_t d, const char *what) {
    recorder_open_n(b, r, cap, d, what, ST_FIELDS);
}

static void recorder_put(recorder *r, const double *pos, const step_rec *s) {
    size_t i = r->n++;
    double *rows = mxGetPr(r->rows);
    for (size_t j = 0; j < r->d; j++) rows[j * r->cap + i] = pos[j];
    mxGetLogicals(r->stat[ST_DIVERGING])[i] = s->outcome == SGS_OUTCOME_DIVERGENT;
    mxGetLogicals(r->stat[ST_ACCEPTED])[i] = s->accepted != 0;
    mxGetPr(r->stat[ST_LOG_ACCEPT])[i] = s->log_accept;
    mxGetPr(r->stat[ST_STEP_SIZE])[i] = s->step_size;
    mxGetPr(r->stat[ST_ENERGY])[i] = s->energy;
    mxGetPr(r->stat[ST_STEPS])[i] = s->steps;
    if (r->nf > ST_FIELDS) {
        mxGetPr(r->stat[ST_EVALUATIONS])[i] = s->evaluations;
        mxGetPr(r->stat[ST_KEPT])[i] = s->kept;
        mxGetLogicals(r->stat[ST_FULL_PASS])[i] = s->full_pass != 0;
    }
}

/* The first n rows of a cap-row matrix (the whole array when n = cap). */
static mxArray *first_rows(mxArray *a, size_t n) {
    size_t cap = mxGetM(a), d = mxGetN(a);
    if (n == cap) return a;
    mxArray *t;
    if (mxIsLogical(a)) {
        t = mxCreateLogicalMatrix(n, d);
        for (size_t j = 0; j < d; j++) memcpy(mxGetLogicals(t) + j * n, mxGetLogicals(a) + j * cap, n * sizeof(mxLogical));
    } else {
        t = mxCreateDoubleMatrix(n, d, mxREAL);
        for (size_t j = 0; j < d; j++) memcpy(mxGetPr(t) + j * n, mxGetPr(a) + j * cap, n * sizeof(double));
    }
    mxDestroyArray(a);
    return t;
}

/* Hands the recorded rows over (*rows) and returns the statistics struct; r is empty after. */
static mxArray *recorder_close(recorder *r, mxArray **rows) {
    mxArray *s = mxCreateStructMatrix(1, 1, r->nf, stat_names);
    *rows = first_rows(r->rows, r->n);
    for (int f = 0; f < r->nf; f++) mxSetField(s, 0, stat_names[f], first_rows(r->stat[f], r->n));
    memset(r, 0, sizeof *r);
    return s;
}

static void recorder_drop(recorder *r) {
    if (r->rows) mxDestroyArray(r->rows);
    for (int f = 0; f < ST_ALL; f++)
        if (r->stat[f]) mxDestroyArray(r->stat[f]);
    memset(r, 0, sizeof *r);
}

/* What a loop of iterations counted. */
typedef struct {
    uint64_t done, accepted, accepted_skipped, skipped, out_of_domain;
    int interrupted;
    int has_phase; /* AMAGOLD: the last iteration's SGS_PHASE_… */
    uint32_t phase;
} tally;

/* Text progress (the 'progress' option): at most one line a second on the interpreter's output. */
typedef struct {
    const char *what;
    uint64_t total;
    time_t last, start;
    int on;
} progress;

static void progress_tick(progress *p, uint64_t done) {
    if (!p->on) return;
    time_t now = time(NULL);
    if (now == p->last && done != p->total) return;
    p->last = now;
    mexPrintf("%s: %llu of %llu iterations (%.0f %%), %ld s\n", p->what, (unsigned long long)done,
              (unsigned long long)p->total, p->total ? 100.0 * (double)done / (double)p->total : 100.0,
              (long)(now - p->start));
#if defined(HAVE_OCTAVE)
    mexEvalString("fflush(stdout);");
#else
    mexEvalString("drawnow;");
#endif
}

/* Runs `total` iterations; the first `skip` go to `warm` (when not NULL), the others to `main`.
 * Stops at the first error or interrupt; returns the library's status. Rows of the completed
 * iterations are recorded whatever happens. */
static int32_t chain_loop(const chain_ops *ops, void *state, uint64_t skip, uint64_t total, recorder *warm,
                          recorder *main_, double *pos, size_t d, double step, uint32_t steps, progress *pr,
                          tally *t) {
    memset(t, 0, sizeof *t);
    int32_t st = SGS_OK;
    for (uint64_t k = 0; k < total; k++) {
        if (sgs_trap_interrupt()) {
            t->interrupted = 1;
            break;
        }
        step_rec r;
        st = ops->step(state, &r);
        if (st != SGS_OK) break;
        if (isnan(r.step_size)) r.step_size = step;
        if (isnan(r.steps) && steps) r.steps = (double)steps;
        t->done++;
        t->has_phase = (int)r.has_phase;
        t->phase = r.phase;
        recorder *rec = k < skip ? warm : main_;
        if (k < skip) {
            t->skipped++;
            t->accepted_skipped += r.accepted;
        } else {
            t->accepted += r.accepted;
            if (r.outcome == SGS_OUTCOME_OUT_OF_DOMAIN) t->out_of_domain++;
        }
        if (rec) {
            st = ops->position(state, pos, d ? d : 1);
            if (st != SGS_OK) break;
            recorder_put(rec, pos, &r);
        }
        progress_tick(pr, k + 1);
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

static void amagold_info_fields(mxArray *s, sgs_amagold *state, size_t d, uint32_t mass, const tally *t);

static mxArray *u64_scalar(uint64_t v) {
    mxArray *a = mxCreateNumericMatrix(1, 1, mxUINT64_CLASS, mxREAL);
    *(uint64_t *)mxGetData(a) = v;
    return a;
}

/* What a run reports besides its rows. */
typedef struct {
    uint64_t calls, seed, stream;
    double step;
    uint32_t mass;
    mxArray *stats, *warm_rows, *warm_stats, *la; /* handed over to the info struct */
} run_extra;

/* The info struct of a run (t: its tally; `mass`: AMAGOLD's SGS_MASS_…). */
static mxArray *chain_info(int kind, void *state, size_t d, const tally *t, run_extra *x) {
    uint64_t divs = 0, iters = 0;
    double eps = x->step;
    chain_table[kind].divergences(state, &divs);
    chain_table[kind].iterations(state, &iters);
    if (kind == AMAGOLD) sgs_amagold_step_size((sgs_amagold *)state, &eps);
    static const char *names[] = {"iterations", "samples", "accepted", "acceptance", "divergences",
                                  "out_of_domain", "step_size", "callback_calls", "seed", "stream",
                                  "stats", "warmup_samples", "warmup_stats", "warmup_acceptance",
                                  "inverse_mass", "inverse_mass_dense", "warmup_report", "phase",
                                  "log_accept"};
    int nf = kind == AMAGOLD ? (x->la ? 19 : 18) : 13;
    mxArray *s = make_info(names, nf);
    uint64_t samples = t->done - t->skipped;
    set_num(s, "iterations", (double)iters);
    set_num(s, "samples", (double)samples);
    set_num(s, "accepted", (double)t->accepted);
    set_num(s, "acceptance", samples ? (double)t->accepted / (double)samples : NAN);
    set_num(s, "divergences", (double)divs);
    set_num(s, "out_of_domain", (double)t->out_of_domain);
    set_num(s, "step_size", eps);
    set_num(s, "callback_calls", (double)x->calls);
    mxSetField(s, 0, "seed", u64_scalar(x->seed));
    mxSetField(s, 0, "stream", u64_scalar(x->stream));
    mxSetField(s, 0, "stats", x->stats);
    mxSetField(s, 0, "warmup_samples", x->warm_rows ? x->warm_rows : mxCreateDoubleMatrix(0, d, mxREAL));
    mxSetField(s, 0, "warmup_stats", x->warm_stats ? x->warm_stats : mxCreateDoubleMatrix(0, 0, mxREAL));
    if (kind == AMAGOLD) {
        set_num(s, "warmup_acceptance", t->skipped ? (double)t->accepted_skipped / (double)t->skipped : NAN);
        mxSetField(s, 0, "inverse_mass", inverse_mass(kind, state, d));
        amagold_info_fields(s, (sgs_amagold *)state, d, x->mass, t);
    }
    if (x->la) mxSetField(s, 0, "log_accept", x->la);
    if (kind == TUNAMH) {
        uint64_t evals = 0;
        sgs_tunamh_evaluations((sgs_tunamh *)state, &evals);
        mxAddField(s, "evaluations");
        set_num(s, "evaluations", (double)evals);
    }
    x->stats = x->warm_rows = x->warm_stats = x->la = NULL;
    return s;
}

/* The samples and info of a loop: rows from `main_`, statistics, the warm-up rows when kept. */
static void chain_outputs(int kind, void *state, size_t d, const tally *t, recorder *warm, recorder *main_,
                          int want_la, run_extra *x, mxArray **rows, mxArray **info) {
    x->stats = recorder_close(main_, rows);
    if (warm && warm->rows) x->warm_stats = recorder_close(warm, &x->warm_rows);
    if (want_la) x->la = mxDuplicateArray(mxGetField(x->stats, 0, "log_accept"));
    *info = chain_info(kind, state, d, t, x);
}

/* theta0 as a vector (d = 0 allowed: the library reports it); errors after freeing b. */
static size_t vector_arg(buffers *b, const mxArray *theta0) {
    check_real_double(b, theta0, "theta0");
    if (!mxIsEmpty(theta0) && mxGetM(theta0) != 1 && mxGetN(theta0) != 1)
        fail(b, "sgsample:badArgument", "theta0 must be a vector");
    return mxGetNumberOfElements(theta0);
}

/* What the last one-shot run that stopped (callback error, Ctrl-C, a status) had produced: a
 * persistent struct {samples, info} for sgsample_mex('partial'), sgs_partial(); NULL after a run
 * that completed. Freed by mexAtExit (free_chains). */
static mxArray *last_partial;

static void drop_partial(mxArray **p) {
    if (*p) mxDestroyArray(*p);
    *p = NULL;
}

static void keep_partial(mxArray *rows, mxArray *info) {
    static const char *pf[] = {"samples", "info"};
    mxArray *keep = mxCreateStructMatrix(1, 1, 2, pf);
    mxSetField(keep, 0, "samples", rows);
    mxSetField(keep, 0, "info", info);
    mexMakeArrayPersistent(keep);
    drop_partial(&last_partial);
    last_partial = keep;
}

static void run_chain(int kind, int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[]) {
    buffers b = {{0}, 0};
    cb_ctx c;
    const chain_ops *ops = &chain_table[kind];
    memset(&c, 0, sizeof c);
    int a = 1; /* next argument */
    if (nrhs != 5 + ops->has_energy) mexErrMsgIdAndTxt("sgsample:badArguments", "wrong number of arguments to the gateway");
    if (ops->has_energy) c.energy = energy_arg(&b, ops, prhs[a++]);
    check_handle(&b, prhs[a], ops->gradient_name);
    c.gradient = prhs[a++];
    const mxArray *theta0 = prhs[a++];
    const mxArray *opts = prhs[a++];
    c.trampoline = trampoline_arg(&b, prhs[a]);
    options_arg(&b, opts);
    size_t d = vector_arg(&b, theta0);
    c.d = d;
    uint64_t samples = opt_u64(&b, opts, "samples", 1000), warmup;
    uint64_t skip = discard_count(kind, &b, opts, samples, &warmup);
    int want_la = kind == AMAGOLD && opt_flag(&b, opts, "log_accept");
    int keep_warm = opt_flag(&b, opts, "keep_warmup");
    progress pr = {ops->name, skip + samples, 0, time(NULL), opt_flag(&b, opts, "progress")};
    chain_config cfg;
    run_extra x;
    memset(&x, 0, sizeof x);
    x.step = chain_read_config(kind, &b, opts, warmup, &cfg);
    x.seed = config_seed(kind, &cfg, &x.stream);
    x.mass = kind == AMAGOLD ? cfg.a.mass : 0;
    double dummy = 0.0;
    const double *th = d ? mxGetPr(theta0) : &dummy;
    size_t dd = d ? d : 1;

    void *state = take(&b, 1, ops->state_size(), ops->state_align());
    size_t wlen = ops->workspace_len(&cfg, dd);
    double *ws = (double *)take(&b, wlen, sizeof(double), 8);
    drop_partial(&last_partial); /* this run's, not an earlier one's */
    int32_t st = ops->init(state, &cfg, th, d, ws, wlen, &c);
    if (finish(&b, &c, st, "init", 0)) return;

    recorder main_, warm;
    memset(&warm, 0, sizeof warm);
    recorder_open_n(&b, &main_, samples, d, "Samples", stat_fields(kind));
    if (keep_warm) recorder_open_n(&b, &warm, skip, d, "the kept warm-up", stat_fields(kind));
    double *pos = (double *)take(&b, dd, sizeof(double), 8);
    tally t;
    st = chain_loop(ops, state, skip, skip + samples, keep_warm ? &warm : NULL, &main_, pos, d, x.step,
                    config_steps(kind, &cfg), &pr, &t);
    x.calls = c.calls;
    mxArray *rows, *info;
    chain_outputs(kind, state, d, &t, &warm, &main_, want_la, &x, &rows, &info);
    if (c.exception || c.bad_id[0] || t.interrupted || st != SGS_OK || sgs_trap_pending()) {
        keep_partial(rows, info); /* nothing lost: sgs_partial() returns them */
        if (finish(&b, &c, st, "step", t.interrupted)) return;
    }
    plhs[0] = rows;
    if (nlhs > 1) plhs[1] = info;
    else mxDestroyArray(info);
    free_all(&b);
}

/* ---- SVGD ---------------------------------------------------------------------------------- */
static sgs_svgd_config svgd_read_config(buffers *b, const mxArray *opts, size_t n);

static void run_svgd(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[]) {
    buffers b = {{0}, 0};
    cb_ctx c;
    memset(&c, 0, sizeof c);
    if (nrhs != 5) mexErrMsgIdAndTxt("sgsample:badArguments", "wrong number of arguments to the gateway");
    check_handle(&b, prhs[1], "gradients");
    c.gradient = prhs[1];
    const mxArray *X0 = prhs[2], *opts = prhs[3];
    c.trampoline = trampoline_arg(&b, prhs[4]);
    check_real_double(&b, X0, "X0");
    options_arg(&b, opts);
    size_t n = mxGetM(X0), d = mxGetN(X0);
    c.n = n;
    c.d = d;
    uint64_t iters = opt_u64(&b, opts, "iterations", 100);
    sgs_svgd_config cfg = svgd_read_config(&b, opts, n);
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
    progress pr = {"sgs_svgd", iters, 0, time(NULL), opt_flag(&b, opts, "progress")};
    for (uint64_t k = 0; k < iters; k++) {
        if (sgs_trap_interrupt()) {
            interrupted = 1;
            break;
        }
        st = sgs_svgd_step((sgs_svgd *)state, &info);
        if (st != SGS_OK) break;
        progress_tick(&pr, k + 1);
    }
    if (finish(&b, &c, st, "step", interrupted)) return;

    plhs[0] = mxCreateDoubleMatrix(n, d, mxREAL);
    double *po = mxGetPr(plhs[0]);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < d; j++) po[j * n + i] = particles[i * d + j];
    if (nlhs > 1) {
        static const char *names[] = {"iterations", "interactions", "bandwidth", "step_size",
                                      "mean_force", "max_force", "ksd_squared", "callback_calls",
                                      "seed", "stream"};
        mxArray *s = make_info(names, 10);
        mxSetField(s, 0, "seed", u64_scalar(cfg.seed));
        mxSetField(s, 0, "stream", u64_scalar(cfg.stream));
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

/* ---- seed-derived noise ------------------------------------------------------------------- */
/* Z = sgsample_mex('normal' | 'uniform', seeds, n): numel(seeds)-by-n; row i is sgs_normal
 * (sgs_uniform) of seeds(i), n values: a callback's minibatch seed (or, vectorised, the K
 * seeds of a round) turned into reproducible noise by the library's generator. The seeds are
 * uint64, or doubles that are integers in [0, 2^53]. */
static void noise(int uniform, int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[]) {
    buffers b = {{0}, 0};
    (void)nlhs;
    (void)nrhs;
    const mxArray *S = prhs[1];
    const char *msg = "the seeds must be uint64, or doubles that are integers in [0, 2^53]";
    if (mxIsComplex(S) || mxIsSparse(S) || !(mxIsDouble(S) || mxGetClassID(S) == mxUINT64_CLASS))
        fail(&b, "sgsample:badArgument", msg);
    uint64_t n = arg_u64(&b, prhs[2], "n");
    size_t m = mxGetNumberOfElements(S);
    if (m != 0 && n > (uint64_t)SIZE_MAX / m / sizeof(double)) fail(&b, "sgsample:tooLarge", "seeds x n does not fit in memory");
    double *row = (double *)take(&b, n ? (size_t)n : 1, sizeof(double), 8);
    const double *sd = mxIsDouble(S) ? mxGetPr(S) : NULL;
    const uint64_t *su = sd ? NULL : (const uint64_t *)mxGetData(S);
    for (size_t i = 0; i < m; i++)
        if (sd && !(sd[i] >= 0.0 && sd[i] <= 9007199254740992.0 && sd[i] == floor(sd[i]))) fail(&b, "sgsample:badArgument", msg);
    mxArray *Z = double_matrix(&b, m, (size_t)n, "seeds x n");
    double *z = mxGetPr(Z);
    for (size_t i = 0; i < m; i++) {
        uint64_t seed = sd ? (uint64_t)sd[i] : su[i];
        int32_t st = uniform ? sgs_uniform(seed, row, (size_t)n) : sgs_normal(seed, row, (size_t)n);
        if (st != SGS_OK) {
            mxDestroyArray(Z);
            fail_status(&b, uniform ? "sgs_uniform" : "sgs_normal", st);
        }
        for (size_t j = 0; j < (size_t)n; j++) z[i + m * j] = row[j];
    }
    plhs[0] = Z;
    free_all(&b);
}

static void normal_cmd(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[]) { noise(0, nlhs, plhs, nrhs, prhs); }
static void uniform_cmd(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[]) { noise(1, nlhs, plhs, nrhs, prhs); }

/* ---- diagnostics: sgs_stats_… over a matrix of draws --------------------------------------- */
/* S = sgsample_mex('stats', X): X is n-by-d (one chain) or n-by-d-by-m (m chains of n draws),
 * double or single. Each chain's rows are pushed in order into its own accumulators; S has the
 * across-chain ess, its flags and rhat (1-by-d) and the per-chain mean, variance, ess, its flags
 * and mcse (m-by-d). */
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
    static const char *names[] = {"ess", "ess_flags", "rhat", "mcse", "mean", "variance", "chain_ess",
                                  "chain_ess_flags", "draws", "chains"};
    mxArray *S = make_info(names, 10);
    mxArray *ess = mxCreateDoubleMatrix(1, d, mxREAL), *rhat = mxCreateDoubleMatrix(1, d, mxREAL);
    mxArray *flags = mxCreateDoubleMatrix(1, d, mxREAL);
    uint32_t *bits = (uint32_t *)take(&b, d, sizeof(uint32_t), 8);
    st = sgs_stats_ess_chains(chains, m, mxGetPr(ess), d);
    if (st == SGS_OK) st = sgs_stats_ess_chains_flags(chains, m, bits, d);
    for (size_t j = 0; j < d && st == SGS_OK; j++) mxGetPr(flags)[j] = (double)bits[j];
    if (st == SGS_OK) st = sgs_stats_rhat(chains, m, mxGetPr(rhat), d);
    mxSetField(S, 0, "ess", ess);
    mxSetField(S, 0, "ess_flags", flags);
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
    mxArray *chain_flags = mxCreateDoubleMatrix(m, d, mxREAL);
    for (size_t c = 0; c < m && st == SGS_OK; c++) {
        st = sgs_stats_ess_flags(chains[c], bits, d);
        for (size_t j = 0; j < d; j++) mxGetPr(chain_flags)[c + m * j] = (double)bits[j];
    }
    mxSetField(S, 0, "chain_ess_flags", chain_flags);
    set_num(S, "draws", (double)n);
    set_num(S, "chains", (double)m);
    if (st != SGS_OK) {
        mxDestroyArray(S);
        fail_status(&b, "stats", st);
    }
    plhs[0] = S;
    free_all(&b);
}

/* ---- diagnostics of stored draws: sgs_draws_summary and sgs_draws_diagnose ----------------- */
/* S = sgsample_mex('draws', X, opts): X is n-by-d (one chain) or n-by-d-by-m, double or single;
 * opts.divergences (optional) the caller's count. The draws are copied into the C layout
 * (chain, draw, coordinate); S has one 1-by-d field per sgs_draws_stats field (flags included),
 * draws, chains, and the verdict of sgs_draws_diagnose (coordinates 1-based). */
static void draws(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[]) {
    buffers b = {{0}, 0};
    (void)nlhs;
    if (nrhs != 3 || !mxIsStruct(prhs[2]) || mxGetNumberOfElements(prhs[2]) != 1)
        mexErrMsgIdAndTxt("sgsample:badArguments", "usage: S = sgs_diagnose(X, Name, Value, ...)");
    const mxArray *X = prhs[1];
    int single = mxIsSingle(X);
    size_t nd = mxGetNumberOfDimensions(X);
    if (!(mxIsDouble(X) || single) || mxIsComplex(X) || mxIsSparse(X) || nd > 3)
        fail(&b, "sgsample:badArgument", "X must be a real, full double or single array of at most 3 dimensions (draws x coordinates x chains)");
    uint64_t divergences = opt_u64(&b, prhs[2], "divergences", 0);
    const mwSize *dims = mxGetDimensions(X);
    size_t n = dims[0], d = dims[1], m = nd == 3 ? dims[2] : 1;
    if (m == 0 || d == 0) fail_status(&b, "sgs_diagnose: no chain or no coordinate", SGS_ERR_ZERO_DIMENSION);
    size_t len = sgs_draws_scratch_len(m, n); /* 0 for n = 0: the library refuses that itself */
    if ((len == 0 && n != 0) || n > SIZE_MAX / d / m) fail(&b, "sgsample:tooLarge", "the draws do not fit in memory");
    size_t total = m * n * d;
    double *x = single ? NULL : (double *)take(&b, total, sizeof(double), 8);
    float *xf = single ? (float *)take(&b, total, sizeof(float), 8) : NULL;
    double *scratch = (double *)take(&b, len, sizeof(double), 8);
    sgs_draws_stats *out = (sgs_draws_stats *)take(&b, d, sizeof(sgs_draws_stats), 8);
    const double *src = single ? NULL : mxGetPr(X);
    const float *src32 = single ? (const float *)mxGetData(X) : NULL;
    /* Column-major X(t, j, c) at t + n·j + n·d·c; the C layout at (c·n + t)·d + j. */
    for (size_t c = 0; c < m; c++)
        for (size_t j = 0; j < d; j++)
            for (size_t t = 0; t < n; t++) {
                size_t from = t + n * j + n * d * c, to = (c * n + t) * d + j;
                if (single) xf[to] = src32[from];
                else x[to] = src[from];
            }
    int32_t st = single ? sgs_draws_summary_f32(xf, m, n, d, scratch, len, out, d)
                        : sgs_draws_summary(x, m, n, d, scratch, len, out, d);
    if (st == SGS_ERR_NON_FINITE_DRAWS) {
        for (size_t i = 0; i < total; i++) {
            double v = single ? (double)src32[i] : src[i];
            if (!isfinite(v)) {
                size_t t = i % n, j = (i / n) % d, c = i / n / d;
                char msg[200];
                snprintf(msg, sizeof msg, "sgs_diagnose: X(%lu, %lu, %lu) is %s: every draw must be finite",
                         (unsigned long)t + 1, (unsigned long)j + 1, (unsigned long)c + 1,
                         isnan(v) ? "NaN" : (v > 0 ? "Inf" : "-Inf"));
                fail(&b, "sgsample:nonFiniteDraws", msg);
            }
        }
    }
    if (st == SGS_ERR_TOO_FEW_DRAWS) {
        char msg[200];
        snprintf(msg, sizeof msg, "sgs_diagnose: %lu draws per chain: %s", (unsigned long)n, sgs_status_str(st));
        fail(&b, status_id(st), msg);
    }
    if (st != SGS_OK) fail_status(&b, "sgs_diagnose", st);
    sgs_draws_verdict v;
    st = sgs_draws_diagnose(out, d, m, divergences, &v);
    if (st != SGS_OK) fail_status(&b, "sgs_diagnose: verdict", st);

    static const char *names[] = {"mean", "sd", "mcse_mean", "mcse_sd", "q5", "q50", "q95",
                                  "mcse_q5", "mcse_q50", "mcse_q95", "ess_bulk", "ess_tail",
                                  "ess_mean", "rhat", "rhat_bulk", "rhat_folded", "rhat_split",
                                  "flags", "draws", "chains", "verdict"};
    mxArray *S = make_info(names, 21);
    for (int f = 0; f < 18; f++) {
        mxArray *a = mxCreateDoubleMatrix(1, d, mxREAL);
        double *o = mxGetPr(a);
        for (size_t j = 0; j < d; j++) {
            const sgs_draws_stats *r = &out[j];
            const double vals[18] = {r->mean, r->sd, r->mcse_mean, r->mcse_sd, r->q5, r->q50, r->q95,
                                     r->mcse_q5, r->mcse_q50, r->mcse_q95, r->ess_bulk, r->ess_tail,
                                     r->ess_mean, r->rhat, r->rhat_bulk, r->rhat_folded, r->rhat_split,
                                     (double)r->flags};
            o[j] = vals[f];
        }
        mxSetField(S, 0, names[f], a);
    }
    set_num(S, "draws", (double)n);
    set_num(S, "chains", (double)m);
    static const char *vnames[] = {"ok", "flags", "reasons", "worst_rhat", "worst_rhat_coord",
                                   "min_ess_bulk", "min_ess_bulk_coord", "min_ess_tail",
                                   "min_ess_tail_coord", "ess_threshold", "not_computable",
                                   "first_not_computable", "divergences"};
    mxArray *V = make_info(vnames, 13);
    mxSetField(V, 0, "ok", mxCreateLogicalScalar(v.ok != 0));
    set_num(V, "flags", (double)v.flags);
    static const char *reason_names[] = {"rhat", "ess_bulk", "ess_tail", "divergences", "not_computable"};
    static const uint32_t reason_bits[] = {SGS_DRAWS_SUSPECT_RHAT, SGS_DRAWS_SUSPECT_ESS_BULK,
                                           SGS_DRAWS_SUSPECT_ESS_TAIL, SGS_DRAWS_SUSPECT_DIVERGENCES,
                                           SGS_DRAWS_SUSPECT_NOT_COMPUTABLE};
    int nr = 0;
    for (int k = 0; k < 5; k++) nr += (v.flags & reason_bits[k]) != 0;
    mxArray *reasons = mxCreateCellMatrix(1, (size_t)nr);
    for (int k = 0, i = 0; k < 5; k++)
        if (v.flags & reason_bits[k]) mxSetCell(reasons, (size_t)i++, mxCreateString(reason_names[k]));
    mxSetField(V, 0, "reasons", reasons);
    set_num(V, "worst_rhat", v.worst_rhat);
    set_num(V, "worst_rhat_coord", isnan(v.worst_rhat) ? NAN : (double)v.worst_rhat_coord + 1);
    set_num(V, "min_ess_bulk", v.min_ess_bulk);
    set_num(V, "min_ess_bulk_coord", isnan(v.min_ess_bulk) ? NAN : (double)v.min_ess_bulk_coord + 1);
    set_num(V, "min_ess_tail", v.min_ess_tail);
    set_num(V, "min_ess_tail_coord", isnan(v.min_ess_tail) ? NAN : (double)v.min_ess_tail_coord + 1);
    set_num(V, "ess_threshold", v.ess_threshold);
    set_num(V, "not_computable", (double)v.not_computable);
    set_num(V, "first_not_computable", v.not_computable ? (double)v.first_not_computable + 1 : NAN);
    set_num(V, "divergences", (double)v.divergences);
    mxSetField(S, 0, "verdict", V);
    plhs[0] = S;
    free_all(&b);
}

/* ---- persistent objects: ids, epochs ------------------------------------------------------- */
/* The +sgs handle objects hold only an id; the chain or particle system lives in this MEX file
 * between calls, in plain malloc memory (the MEX memory manager would free mxMalloc memory at the
 * end of the call), allocated once and never moved, because the library's states are
 * address-bound. An id is epoch · 2^32 + counter (exact in a double). The epoch numbers the loads
 * of this file in the process: `clear mex` (Octave: clear sgsample_mex) unloads it, mexAtExit
 * frees every object, and the next load takes the next epoch, kept in the process environment
 * (SGSAMPLE_MEX_EPOCH) because nothing in the file survives an unload. Every call checks an id's
 * epoch first: an id of an earlier load is sgsample:staleHandle (the object was made before a
 * clear, possibly inside a callback of a run that the clear could not stop), an unknown id of this
 * load sgsample:invalidHandle (deleted). Ids are never reused, so a stale id cannot reach a newer
 * object. The function handles stay with the M-code object and come with every call (an mxArray
 * kept between calls would have to be made persistent; passing them is always current). */
#define MAX_CHAINS 256
#define ID_COUNTER_BITS 32

static uint64_t epoch;          /* 0 until the first object of this load */
static uint64_t next_counter;

static void set_epoch_env(uint64_t e) {
    char v[32];
    snprintf(v, sizeof v, "%llu", (unsigned long long)e);
#if defined(_WIN32)
    _putenv_s("SGSAMPLE_MEX_EPOCH", v);
#else
    setenv("SGSAMPLE_MEX_EPOCH", v, 1);
#endif
}

/* The epoch of this load: one more than the last load's (1 for the first in the process). */
static uint64_t this_epoch(void) {
    if (epoch == 0) {
        const char *v = getenv("SGSAMPLE_MEX_EPOCH");
        uint64_t last = v ? (uint64_t)strtoull(v, NULL, 10) : 0;
        epoch = last + 1;
        if (epoch >= (UINT64_C(1) << (53 - ID_COUNTER_BITS))) epoch = 1; /* 2^21 loads: wraps */
        set_epoch_env(epoch);
    }
    return epoch;
}

static uint64_t new_id(void) {
    uint64_t e = this_epoch();
    if (next_counter >= (UINT64_C(1) << ID_COUNTER_BITS) - 1)
        mexErrMsgIdAndTxt("sgsample:tooManyObjects", "2^32 objects made since this MEX file was loaded");
    return (e << ID_COUNTER_BITS) + ++next_counter;
}

/* Raises sgsample:staleHandle for an id of an earlier load, sgsample:invalidHandle for one that is
 * not an id at all; returns the id otherwise (its object may still be gone, or never have been
 * made: the caller's search says invalidHandle). */
static uint64_t id_arg(const mxArray *v) {
    if (is_real_scalar(v) && !mxIsLogical(v) && !mxIsSparse(v)) {
        double x = mxGetScalar(v);
        if (x >= 1 && x < 9007199254740992.0 && x == floor(x)) {
            uint64_t id = (uint64_t)x, e = id >> ID_COUNTER_BITS;
            if (e != 0 && e < this_epoch())
                mexErrMsgIdAndTxt("sgsample:staleHandle",
                                  "a sampler object of an earlier load of the MEX file (made before clear mex, "
                                  "or inside a callback of a run during which it was cleared): make a new one");
            return id;
        }
    }
    mexErrMsgIdAndTxt("sgsample:invalidHandle", "not a sampler object id");
    return 0; /* not reached */
}

/* ---- persistent chains: the +sgs.Amagold, Sghmc, Sgld, Tunamh objects ---------------------- */
typedef struct {
    uint64_t id;
    int kind, running;
    size_t d;
    double step;      /* the step size asked for (AMAGOLD reports its adapted one) */
    uint32_t mass;    /* AMAGOLD's SGS_MASS_… */
    uint32_t steps;   /* inner steps asked for (SGHMC/SGLD per-draw statistics) */
    uint64_t discard; /* iterations from creation that are not draws: warm-up + burn-in */
    uint64_t seed, stream;
    void *raw;        /* malloc block: state (aligned) then workspace */
    void *state;
    double *ws;
    size_t wlen;
    mxArray *partial; /* persistent: what the last run that failed had produced, or NULL */
    cb_ctx c;         /* the library keeps &c as its user data */
} chain_obj;

static chain_obj *chains[MAX_CHAINS];
static int exit_hook;
static void free_svgds(void);

static void chain_release(chain_obj *o) {
    if (o->partial) mxDestroyArray(o->partial);
    free(o->raw);
    free(o);
}

static void free_chains(void) {
    /* The objects go; their ids must not come back: the next object takes the next epoch (the
     * file may stay mapped, statics and all, when an unload is deferred or shared). */
    epoch = 0;
    next_counter = 0;
    drop_partial(&last_partial);
    for (int i = 0; i < MAX_CHAINS; i++) {
        if (chains[i]) {
            chain_release(chains[i]);
            chains[i] = NULL;
        }
    }
    free_svgds();
}

static void at_exit_hook(void) {
    if (!exit_hook) {
        mexAtExit(free_chains);
        exit_hook = 1;
    }
}

/* The chain with the id in `v`, or an sgsample:invalidHandle / sgsample:staleHandle error. */
static chain_obj *find_chain(const mxArray *v, int *slot) {
    uint64_t id = id_arg(v);
    for (int i = 0; i < MAX_CHAINS; i++)
        if (chains[i] && chains[i]->id == id) {
            if (slot) *slot = i;
            return chains[i];
        }
    mexErrMsgIdAndTxt("sgsample:invalidHandle", "not a live sampler object (deleted, or not a sampler chain)");
    return NULL; /* not reached */
}

/* Points the chain's callbacks at this call's function handles (valid only during this call). */
static void bind_callbacks(chain_obj *o, buffers *b, const mxArray *energy, const mxArray *gradient,
                           const mxArray *tramp) {
    const chain_ops *ops = &chain_table[o->kind];
    const mxArray *e = ops->has_energy ? energy_arg(b, ops, energy) : NULL;
    check_handle(b, gradient, ops->gradient_name);
    o->c.energy = e;
    o->c.gradient = gradient;
    o->c.trampoline = trampoline_arg(b, tramp);
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
        mexErrMsgIdAndTxt("sgsample:badArguments", "usage: sgsample_mex('new', 'amagold'|'sghmc'|'sgld'|'tunamh', energy, gradient, theta0, opts, trampoline)");
    int kind = chain_kind(kname);
    const chain_ops *ops = &chain_table[kind];
    /* Every check that can raise comes before the malloc below, whose block nothing else would
     * free (bind_callbacks checks the handles again, then they are known to pass). */
    if (ops->has_energy) energy_arg(&b, ops, prhs[2]);
    check_handle(&b, prhs[3], ops->gradient_name);
    const mxArray *opts = options_arg(&b, prhs[5]);
    trampoline_arg(&b, prhs[6]);
    size_t d = vector_arg(&b, prhs[4]);
    chain_config cfg;
    uint64_t warmup, discard = discard_count(kind, &b, opts, 0, &warmup);
    double step = chain_read_config(kind, &b, opts, warmup, &cfg);
    int slot = -1;
    for (int i = 0; i < MAX_CHAINS && slot < 0; i++)
        if (!chains[i]) slot = i;
    if (slot < 0) mexErrMsgIdAndTxt("sgsample:tooManyObjects", "more than %d live sampler objects; delete some", MAX_CHAINS);
    uint64_t id = new_id();

    size_t dd = d ? d : 1, ssize = ops->state_size(), align = ops->state_align();
    ssize = (ssize + 7) / 8 * 8; /* the workspace follows, 8-aligned */
    size_t wlen = ops->workspace_len(&cfg, dd);
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
    o->mass = kind == AMAGOLD ? cfg.a.mass : 0;
    o->steps = config_steps(kind, &cfg);
    o->discard = discard;
    o->seed = config_seed(kind, &cfg, &o->stream);
    o->c.d = d;
    bind_callbacks(o, &b, prhs[2], prhs[3], prhs[6]);
    double dummy = 0.0;
    int32_t st = ops->init(o->state, &cfg, d ? mxGetPr(prhs[4]) : &dummy, d, o->ws, wlen, &o->c);
    if (st != SGS_OK || sgs_trap_pending()) {
        cb_ctx c = o->c; /* the error outlives the chain */
        chain_release(o);
        finish(&b, &c, st, "init", 0);
        return;
    }
    at_exit_hook();
    o->id = id;
    o->c.energy = o->c.gradient = o->c.trampoline = NULL; /* this call's handles die with it */
    chains[slot] = o;
    plhs[0] = mxCreateDoubleScalar((double)o->id);
}

/* The run options of an object (keep_warmup, progress): a 1-by-1 struct, or none. */
static const mxArray *run_opts(buffers *b, int nrhs, const mxArray *prhs[], int at) {
    return nrhs > at ? options_arg(b, prhs[at]) : NULL;
}

static int run_flag(buffers *b, const mxArray *ro, const char *name) {
    return ro ? opt_flag(b, ro, name) : 0;
}

/* [samples, info] = sgsample_mex('run', id, n, energy, gradient, trampoline[, run_opts]): n
 * iterations; the rows returned are those after the warm-up and burn-in (fewer than n while they
 * last; with run_opts.keep_warmup the others are info.warmup_samples). On an error or interrupt
 * the chain stays at its last completed iteration (the library rolls the failed one back,
 * generator included) and what the run had produced is kept for sgsample_mex('partial', id), the
 * objects' Partial property; a run that completes clears it. */
static void chain_run(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[]) {
    buffers b = {{0}, 0};
    if (nrhs != 6 && nrhs != 7)
        mexErrMsgIdAndTxt("sgsample:badArguments", "usage: sgsample_mex('run', id, n, energy, gradient, trampoline[, opts])");
    chain_obj *o = find_chain(prhs[1], NULL);
    if (o->running) mexErrMsgIdAndTxt("sgsample:busy", "%s", sgs_status_str(SGS_ERR_BUSY));
    const chain_ops *ops = &chain_table[o->kind];
    uint64_t n = arg_u64(&b, prhs[2], "n");
    const mxArray *ro = run_opts(&b, nrhs, prhs, 6);
    int keep_warm = run_flag(&b, ro, "keep_warmup");
    progress pr = {ops->name, n, 0, time(NULL), run_flag(&b, ro, "progress")};
    size_t d = o->d, dd = d ? d : 1;
    uint64_t iters0 = 0;
    ops->iterations(o->state, &iters0);
    uint64_t skip = o->discard > iters0 ? o->discard - iters0 : 0;
    if (skip > n) skip = n;
    bind_callbacks(o, &b, prhs[3], prhs[4], prhs[5]);
    recorder main_, warm;
    memset(&warm, 0, sizeof warm);
    recorder_open_n(&b, &main_, n - skip, d, "n", stat_fields(o->kind));
    if (keep_warm) recorder_open_n(&b, &warm, skip, d, "the kept warm-up", stat_fields(o->kind));
    double *pos = (double *)take(&b, dd, sizeof(double), 8);
    if (o->partial) { /* the last failed run's rows go once a new run starts */
        mxDestroyArray(o->partial);
        o->partial = NULL;
    }
    tally t;
    o->running = 1;
    int32_t st = chain_loop(ops, o->state, skip, n, keep_warm ? &warm : NULL, &main_, pos, d, o->step, o->steps, &pr, &t);
    o->running = 0;
    cb_ctx c = o->c;
    o->c.energy = o->c.gradient = o->c.trampoline = NULL; /* this call's handles die with it */
    o->c.exception = NULL;
    run_extra x;
    memset(&x, 0, sizeof x);
    x.calls = c.calls;
    x.seed = o->seed;
    x.stream = o->stream;
    x.step = o->step;
    x.mass = o->mass;
    mxArray *rows, *info;
    chain_outputs(o->kind, o->state, d, &t, &warm, &main_, o->kind == AMAGOLD, &x, &rows, &info);
    if (c.exception || c.bad_id[0] || t.interrupted || st != SGS_OK || sgs_trap_pending()) {
        /* Nothing of it is lost: the rows and info so far wait in o->partial. */
        static const char *pf[] = {"samples", "info"};
        mxArray *keep = mxCreateStructMatrix(1, 1, 2, pf);
        mxSetField(keep, 0, "samples", rows);
        mxSetField(keep, 0, "info", info);
        mexMakeArrayPersistent(keep);
        o->partial = keep;
        if (finish(&b, &c, st, "step", t.interrupted)) return;
    }
    plhs[0] = rows;
    if (nlhs > 1) plhs[1] = info;
    else mxDestroyArray(info);
    free_all(&b);
}

/* p = sgsample_mex('partial', id): what the last run that failed (callback error, Ctrl-C) had
 * produced, a struct with samples and info; [] when the last run completed. */
static void chain_partial(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[]) {
    (void)nlhs;
    if (nrhs == 1) { /* sgs_partial(): the last one-shot run's */
        plhs[0] = last_partial ? mxDuplicateArray(last_partial) : mxCreateDoubleMatrix(0, 0, mxREAL);
        return;
    }
    chain_obj *o = find_chain(prhs[1], NULL);
    plhs[0] = o->partial ? mxDuplicateArray(o->partial) : mxCreateDoubleMatrix(0, 0, mxREAL);
}

/* s = sgsample_mex('query', id): position, iterations, divergences, step size, inverse mass
 * (AMAGOLD; [] for the others), seed and stream; TunaMH's also accepted and evaluations. */
static void chain_query(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[]) {
    (void)nlhs;
    (void)nrhs;
    chain_obj *o = find_chain(prhs[1], NULL);
    uint64_t divs = 0, iters = 0;
    double eps = o->step;
    chain_table[o->kind].divergences(o->state, &divs);
    chain_table[o->kind].iterations(o->state, &iters);
    if (o->kind == AMAGOLD) sgs_amagold_step_size((sgs_amagold *)o->state, &eps);
    static const char *names[] = {"position", "iterations", "divergences", "step_size", "inverse_mass",
                                  "seed", "stream", "discard"};
    mxArray *s = make_info(names, 8);
    mxArray *pos = mxCreateDoubleMatrix(o->d, 1, mxREAL);
    double dummy;
    int32_t st = chain_table[o->kind].position(o->state, o->d ? mxGetPr(pos) : &dummy, o->d ? o->d : 1);
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
    mxSetField(s, 0, "seed", u64_scalar(o->seed));
    mxSetField(s, 0, "stream", u64_scalar(o->stream));
    set_num(s, "discard", (double)o->discard);
    if (o->kind == TUNAMH) {
        uint64_t acc = 0, evals = 0;
        sgs_tunamh_accepted((sgs_tunamh *)o->state, &acc);
        sgs_tunamh_evaluations((sgs_tunamh *)o->state, &evals);
        mxAddField(s, "accepted");
        set_num(s, "accepted", (double)acc);
        mxAddField(s, "evaluations");
        set_num(s, "evaluations", (double)evals);
    }
    plhs[0] = s;
}

/* bytes = sgsample_mex('export', id): the chain's C checkpoint (sgs_*_export: configuration,
 * generator, counters, warm-up, workspace; portable), a uint8 row vector, for saveobj. */
static void chain_export(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[]) {
    buffers b = {{0}, 0};
    (void)nlhs;
    (void)nrhs;
    chain_obj *o = find_chain(prhs[1], NULL);
    if (o->running) mexErrMsgIdAndTxt("sgsample:busy", "%s", sgs_status_str(SGS_ERR_BUSY));
    const chain_ops *ops = &chain_table[o->kind];
    size_t n = 0;
    int32_t st = ops->export_len(o->state, &n);
    if (st != SGS_OK) fail_status(&b, "export", st);
    mxArray *out = mxCreateNumericMatrix(1, n, mxUINT8_CLASS, mxREAL);
    st = ops->export_(o->state, mxGetData(out), n);
    if (st != SGS_OK) {
        mxDestroyArray(out);
        fail_status(&b, "export", st);
    }
    plhs[0] = out;
}

/* sgsample_mex('import', id, bytes): the chain continues from a checkpoint 'export' wrote (of a
 * chain of the same kind and d; sgs_*_import checks it all and leaves the chain as it was on an
 * error), for loadobj. No callback runs. */
static void chain_import(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[]) {
    buffers b = {{0}, 0};
    (void)nlhs;
    (void)nrhs;
    chain_obj *o = find_chain(prhs[1], NULL);
    if (o->running) mexErrMsgIdAndTxt("sgsample:busy", "%s", sgs_status_str(SGS_ERR_BUSY));
    const mxArray *v = prhs[2];
    if (!mxIsUint8(v) || mxIsComplex(v) || mxIsSparse(v) || mxGetNumberOfDimensions(v) != 2 ||
        (mxGetM(v) > 1 && mxGetN(v) > 1))
        mexErrMsgIdAndTxt("sgsample:badArgument", "import: the checkpoint must be a uint8 vector (from export)");
    size_t n = mxGetNumberOfElements(v);
    static const unsigned char none = 0;
    int32_t st = chain_table[o->kind].import_(o->state, n ? mxGetData(v) : (const void *)&none, n);
    if (st != SGS_OK) fail_status(&b, "import", st);
    if (o->partial) { /* the imported chain is another point in time: no failed run behind it */
        mxDestroyArray(o->partial);
        o->partial = NULL;
    }
}

/* found = sgsample_mex('free', id): frees the chain; false if there was none with this id (a
 * destructor must not throw: stale and invalid ids are not errors here). */
static void chain_free(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[]) {
    (void)nlhs;
    (void)nrhs;
    int found = 0;
    if (is_real_scalar(prhs[1]) && !mxIsLogical(prhs[1]) && !mxIsSparse(prhs[1])) {
        double x = mxGetScalar(prhs[1]);
        for (int i = 0; i < MAX_CHAINS; i++)
            if (chains[i] && (double)chains[i]->id == x) {
                if (chains[i]->running) mexErrMsgIdAndTxt("sgsample:busy", "%s", sgs_status_str(SGS_ERR_BUSY));
                chain_release(chains[i]);
                chains[i] = NULL;
                found = 1;
            }
    }
    plhs[0] = mxCreateLogicalScalar(found);
}

/* ---- AMAGOLD's warm-up API: mass matrices, step size, the warm-up report ------------------- */
/* The options 'Mass', 'Approach', 'JitterSteps' and the alias 'AdaptMass' (true = 'diagonal',
 * false = 'unit'); info.inverse_mass_dense, info.warmup_report, info.phase; the objects'
 * setters (StepSize, InverseMass, InverseMassDense), warmupReport() and sgs_warmup_compare. */

static void amagold_read_mass(buffers *b, const mxArray *opts, sgs_amagold_config *a) {
    a->mass = opt_u32(b, opts, "mass", a->mass);
    a->approach = opt_u32(b, opts, "approach", a->approach);
    a->jitter_steps = opt_u32(b, opts, "jitter_steps", a->jitter_steps);
    if (opt(opts, "adapt_mass")) {
        uint32_t m = opt_u32(b, opts, "adapt_mass", 0) ? SGS_MASS_DIAGONAL : SGS_MASS_UNIT;
        if (opt(opts, "mass") && a->mass != m)
            fail(b, "sgsample:badOption", "AdaptMass contradicts Mass (AdaptMass, true is Mass, 'diagonal'; false is 'unit')");
        a->mass = m;
    }
}

static const char *phase_name(uint32_t phase) {
    switch (phase) {
    case SGS_PHASE_SAMPLING: return "sampling";
    case SGS_PHASE_APPROACH: return "approach";
    case SGS_PHASE_FAST: return "fast";
    case SGS_PHASE_SLOW: return "slow";
    case SGS_PHASE_FINAL: return "final";
    default: return "unknown";
    }
}

static const char *verdict_name(uint32_t v) {
    switch (v) {
    case SGS_WARMUP_NONE: return "none";
    case SGS_WARMUP_RUNNING: return "running";
    case SGS_WARMUP_OK: return "ok";
    case SGS_WARMUP_SUSPECT: return "suspect";
    default: return "unknown";
    }
}

static const struct {
    uint32_t bit;
    const char *name;
} warmup_reasons[] = {
    {SGS_WARMUP_REASON_ENERGY_TREND, "energy_trend"},
    {SGS_WARMUP_REASON_ACCEPTANCE, "acceptance"},
    {SGS_WARMUP_REASON_DIVERGENCES, "divergences"},
    {SGS_WARMUP_REASON_LOW_BFMI, "low_bfmi"},
    {SGS_WARMUP_REASON_CHAINS_DISAGREE, "chains_disagree"},
    {SGS_WARMUP_REASON_METRIC, "metric"},
};

/* The fields of an sgs_warmup_report in the C struct's order; verdict a char row, reasons a 1-by-n
 * cell of char rows, reason_flags the bits. */
static const char *report_fields[] = {
    "verdict", "reasons", "step_size", "target_accept", "accept_rate", "energy_trend_z",
    "energy_mean", "energy_sd", "bfmi", "condition_number", "approach_energy_start",
    "approach_energy_end", "iterations", "approach_iterations", "divergences", "window_iterations",
    "window_divergences", "metric_updates", "restarts", "energy_trend_falling",
    "energy_trend_rising", "approach_unfinished", "reason_flags"};
#define REPORT_FIELDS ((int)(sizeof report_fields / sizeof report_fields[0]))

static void set_report(mxArray *s, mwIndex i, const sgs_warmup_report *r) {
    const double v[] = {r->step_size, r->target_accept, r->accept_rate, r->energy_trend_z,
                        r->energy_mean, r->energy_sd, r->bfmi, r->condition_number,
                        r->approach_energy_start, r->approach_energy_end, (double)r->iterations,
                        (double)r->approach_iterations, (double)r->divergences,
                        (double)r->window_iterations, (double)r->window_divergences,
                        (double)r->metric_updates, (double)r->restarts,
                        (double)r->energy_trend_falling, (double)r->energy_trend_rising,
                        (double)r->approach_unfinished, (double)r->reasons};
    mxSetField(s, i, "verdict", mxCreateString(verdict_name(r->verdict)));
    int n = 0, at = 0;
    const int known = (int)(sizeof warmup_reasons / sizeof warmup_reasons[0]);
    for (int k = 0; k < 32; k++) n += (r->reasons >> k) & 1u;
    mxArray *reasons = mxCreateCellMatrix(1, (size_t)n);
    for (int k = 0; k < 32; k++) {
        uint32_t bit = UINT32_C(1) << k;
        if (!(r->reasons & bit)) continue;
        char other[16];
        const char *name = NULL;
        for (int j = 0; j < known && !name; j++)
            if (warmup_reasons[j].bit == bit) name = warmup_reasons[j].name;
        if (!name) { /* a flag of a newer library */
            snprintf(other, sizeof other, "0x%x", (unsigned)bit);
            name = other;
        }
        mxSetCell(reasons, (size_t)at++, mxCreateString(name));
    }
    mxSetField(s, i, "reasons", reasons);
    for (int f = 2; f < REPORT_FIELDS; f++) mxSetField(s, i, report_fields[f], mxCreateDoubleScalar(v[f - 2]));
}

static mxArray *report_struct(const sgs_warmup_report *r, size_t k) {
    mxArray *s = mxCreateStructMatrix(k, 1, REPORT_FIELDS, report_fields);
    for (size_t i = 0; i < k; i++) set_report(s, i, &r[i]);
    return s;
}

/* d-by-d inverse mass matrix (symmetric: the row-major C matrix is its own transpose). */
static mxArray *inverse_mass_dense_array(sgs_amagold *state, size_t d) {
    buffers b = {{0}, 0};
    mxArray *k = double_matrix(&b, d, d, "the d-by-d inverse mass matrix");
    double dummy;
    int32_t st = sgs_amagold_inverse_mass_dense(state, d ? mxGetPr(k) : &dummy, d ? d * d : 1);
    if (st != SGS_OK) {
        mxDestroyArray(k);
        fail_status(&b, "inverse mass matrix", st);
    }
    return k;
}

/* info's AMAGOLD fields: inverse_mass_dense (d-by-d for a dense mass matrix, else []),
 * warmup_report, phase (of the run's last iteration; '' when it ran none). */
static void amagold_info_fields(mxArray *s, sgs_amagold *state, size_t d, uint32_t mass, const tally *t) {
    mxSetField(s, 0, "inverse_mass_dense", mass == SGS_MASS_DENSE ? inverse_mass_dense_array(state, d)
                                                                 : mxCreateDoubleMatrix(0, 0, mxREAL));
    sgs_warmup_report r;
    int32_t st = sgs_amagold_warmup_report(state, &r);
    if (st != SGS_OK) {
        buffers b = {{0}, 0};
        fail_status(&b, "warm-up report", st);
    }
    mxSetField(s, 0, "warmup_report", report_struct(&r, 1));
    mxSetField(s, 0, "phase", mxCreateString(t->has_phase ? phase_name(t->phase) : ""));
}

/* The AMAGOLD object with the id in `v` (sgsample:invalidHandle, sgsample:badArgument for another
 * sampler, sgsample:busy from its own callback). */
static chain_obj *amagold_obj(const mxArray *v, const char *what) {
    chain_obj *o = find_chain(v, NULL);
    const char *pretty = strcmp(what, "step_size") == 0            ? "StepSize"
                         : strcmp(what, "inverse_mass") == 0       ? "InverseMass"
                         : strcmp(what, "inverse_mass_dense") == 0 ? "InverseMassDense"
                                                                   : what;
    if (o->kind != AMAGOLD) mexErrMsgIdAndTxt("sgsample:badArgument", "%s: only sgs.Amagold objects have it", pretty);
    if (o->running) mexErrMsgIdAndTxt("sgsample:busy", "%s", sgs_status_str(SGS_ERR_BUSY));
    return o;
}

/* v = sgsample_mex('amagold_get', id, 'inverse_mass_dense' | 'warmup_report') */
static void amagold_get(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[]) {
    char what[32];
    (void)nlhs;
    if (nrhs != 3 || !mxIsChar(prhs[2]) || mxGetString(prhs[2], what, sizeof what) != 0)
        mexErrMsgIdAndTxt("sgsample:badArguments", "usage: sgsample_mex('amagold_get', id, what)");
    chain_obj *o = amagold_obj(prhs[1], what);
    if (strcmp(what, "inverse_mass_dense") == 0) {
        plhs[0] = inverse_mass_dense_array((sgs_amagold *)o->state, o->d);
    } else if (strcmp(what, "warmup_report") == 0) {
        sgs_warmup_report r;
        int32_t st = sgs_amagold_warmup_report((sgs_amagold *)o->state, &r);
        if (st != SGS_OK) {
            buffers b = {{0}, 0};
            fail_status(&b, "warm-up report", st);
        }
        plhs[0] = report_struct(&r, 1);
    } else {
        mexErrMsgIdAndTxt("sgsample:badArguments", "amagold_get: unknown field '%s'", what);
    }
}

/* sgsample_mex('amagold_set', id, 'step_size' | 'inverse_mass' | 'inverse_mass_dense', value):
 * the value a real double (a scalar, a d-vector, a d-by-d matrix, passed row-major). */
static void amagold_set(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[]) {
    buffers b = {{0}, 0};
    char what[32], msg[200];
    (void)nlhs;
    (void)plhs;
    if (nrhs != 4 || !mxIsChar(prhs[2]) || mxGetString(prhs[2], what, sizeof what) != 0)
        mexErrMsgIdAndTxt("sgsample:badArguments", "usage: sgsample_mex('amagold_set', id, what, value)");
    chain_obj *o = amagold_obj(prhs[1], what);
    sgs_amagold *state = (sgs_amagold *)o->state;
    const mxArray *v = prhs[3];
    size_t d = o->d;
    int32_t st;
    if (strcmp(what, "step_size") == 0) {
        if (!is_real_scalar(v) || mxIsLogical(v))
            fail(&b, "sgsample:badArgument", "StepSize must be a real scalar");
        st = sgs_amagold_set_step_size(state, mxGetScalar(v));
        snprintf(msg, sizeof msg, "StepSize");
    } else if (strcmp(what, "inverse_mass") == 0) {
        check_real_double(&b, v, "InverseMass");
        if (mxGetNumberOfElements(v) != d || (mxGetM(v) != 1 && mxGetN(v) != 1)) {
            snprintf(msg, sizeof msg, "InverseMass must be a vector of %zu elements (got %zu-by-%zu)", d,
                     (size_t)mxGetM(v), (size_t)mxGetN(v));
            fail(&b, "sgsample:lengthMismatch", msg);
        }
        double dummy = 1.0;
        st = sgs_amagold_set_inverse_mass(state, d ? mxGetPr(v) : &dummy, d);
        snprintf(msg, sizeof msg, "InverseMass");
    } else if (strcmp(what, "inverse_mass_dense") == 0) {
        check_real_double(&b, v, "InverseMassDense");
        if (mxGetM(v) != d || mxGetN(v) != d) {
            snprintf(msg, sizeof msg, "InverseMassDense must be %zu-by-%zu (got %zu-by-%zu)", d, d,
                     (size_t)mxGetM(v), (size_t)mxGetN(v));
            fail(&b, "sgsample:lengthMismatch", msg);
        }
        double *k = (double *)take(&b, d * d ? d * d : 1, sizeof(double), 8);
        const double *src = mxGetPr(v);
        for (size_t i = 0; i < d; i++) /* column-major to row-major */
            for (size_t j = 0; j < d; j++) k[i * d + j] = src[j * d + i];
        st = sgs_amagold_set_inverse_mass_dense(state, k, d * d);
        snprintf(msg, sizeof msg, "InverseMassDense%s",
                 st == SGS_ERR_INVALID_MASS ? " (or a slow or final warm-up window is collecting draws)" : "");
    } else {
        mexErrMsgIdAndTxt("sgsample:badArguments", "amagold_set: unknown field '%s'", what);
        return;
    }
    if (st != SGS_OK) fail_status(&b, msg, st);
    free_all(&b);
}

/* R = sgsample_mex('amagold_compare', ids): the reports of the objects' chains compared
 * (sgs_amagold_warmup_compare), a k-by-1 struct array. */
static void amagold_compare(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[]) {
    buffers b = {{0}, 0};
    (void)nlhs;
    if (nrhs != 2 || !mxIsDouble(prhs[1]) || mxIsComplex(prhs[1]))
        mexErrMsgIdAndTxt("sgsample:badArguments", "usage: sgsample_mex('amagold_compare', ids)");
    size_t k = mxGetNumberOfElements(prhs[1]);
    if (k == 0) fail_status(&b, "sgs_warmup_compare: no chain", SGS_ERR_ZERO_DIMENSION);
    const sgs_amagold **states = (const sgs_amagold **)take(&b, k, sizeof(void *), sizeof(void *));
    sgs_warmup_report *out = (sgs_warmup_report *)take(&b, k, sizeof(sgs_warmup_report), 8);
    const double *ids = mxGetPr(prhs[1]);
    for (size_t i = 0; i < k; i++) {
        mxArray *id = mxCreateDoubleScalar(ids[i]);
        chain_obj *o = find_chain(id, NULL);
        mxDestroyArray(id);
        if (o->kind != AMAGOLD) fail(&b, "sgsample:badArgument", "sgs_warmup_compare: every chain must be an sgs.Amagold object");
        if (o->running) fail(&b, "sgsample:busy", sgs_status_str(SGS_ERR_BUSY));
        states[i] = (const sgs_amagold *)o->state;
    }
    int32_t st = sgs_amagold_warmup_compare(states, k, out, k);
    if (st != SGS_OK) fail_status(&b, "sgs_warmup_compare", st);
    plhs[0] = report_struct(out, k);
    free_all(&b);
}

/* ---- the SVGD object ----------------------------------------------------------------------- */
#include "sgsample_svgd_obj.inc"

/* ---- K chains per call --------------------------------------------------------------------- */
#include "sgsample_batch.inc"

/* ---- small commands ------------------------------------------------------------------------ */
/* text = sgsample_mex('status', code) */
static void status_text(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[]) {
    (void)nlhs;
    (void)nrhs;
    const mxArray *v = prhs[1];
    if (!is_real_scalar(v) || mxIsLogical(v) || mxIsSparse(v) || !(fabs(mxGetScalar(v)) < 2147483648.0))
        mexErrMsgIdAndTxt("sgsample:badArgument", "status: the code must be a real scalar integer");
    plhs[0] = mxCreateString(sgs_status_str((int32_t)mxGetScalar(v)));
}

static void version_text(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[]) {
    (void)nlhs;
    (void)nrhs;
    (void)prhs;
    plhs[0] = mxCreateString(sgs_version());
}

static void run_amagold(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[]) { run_chain(AMAGOLD, nlhs, plhs, nrhs, prhs); }
static void run_sghmc(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[]) { run_chain(SGHMC, nlhs, plhs, nrhs, prhs); }
static void run_sgld(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[]) { run_chain(SGLD, nlhs, plhs, nrhs, prhs); }
static void run_tunamh(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[]) { run_chain(TUNAMH, nlhs, plhs, nrhs, prhs); }

/* ---- Stein thinning ------------------------------------------------------------------------ */

/* A real, full double matrix argument, copied row by row (the C layout) into `out` (n·d);
 * `who` names the function in the error message. */
static double *rows_of(buffers *b, const mxArray *v, const char *who, const char *what, size_t *n, size_t *d) {
    if (!mxIsDouble(v) || mxIsComplex(v) || mxIsSparse(v) || mxGetNumberOfDimensions(v) != 2) {
        char msg[160];
        snprintf(msg, sizeof msg, "%s: %s must be a real, full double matrix (n-by-d)", who, what);
        fail(b, "sgsample:badArgument", msg);
    }
    *n = mxGetM(v);
    *d = mxGetN(v);
    const double *src = mxGetPr(v);
    double *x = (double *)take(b, (*n ? *n : 1) * (*d ? *d : 1), sizeof(double), 8);
    for (size_t j = 0; j < *d; j++)
        for (size_t t = 0; t < *n; t++) x[t * *d + j] = src[t + *n * j];
    return x;
}

/* An optional row of d positive values ([] for none). */
static const double *column_values(buffers *b, const mxArray *v, size_t d, const char *what) {
    if (mxIsEmpty(v)) return NULL;
    if (!mxIsDouble(v) || mxIsComplex(v) || mxIsSparse(v) || mxGetNumberOfElements(v) != d) {
        char msg[120];
        snprintf(msg, sizeof msg, "sgs_stein_thin: %s must be [] or %lu real values", what, (unsigned long)d);
        fail(b, "sgsample:badArgument", msg);
    }
    return mxGetPr(v);
}

/* sgsample_mex('stein_thin', X, G, m, scale, precond, c, beta): the 1-based indices (m-by-1). */
static void stein_thin_cmd(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[]) {
    buffers b = {{0}, 0};
    (void)nlhs;
    (void)nrhs;
    size_t n, d, ng, dg;
    double *x = rows_of(&b, prhs[1], "sgs_stein_thin", "X", &n, &d);
    double *g = rows_of(&b, prhs[2], "sgs_stein_thin", "G", &ng, &dg);
    if (ng != n || dg != d) fail(&b, "sgsample:badArgument", "sgs_stein_thin: G must have the size of X");
    uint64_t m64 = arg_u64(&b, prhs[3], "m");
    if (m64 > SIZE_MAX / sizeof(size_t)) fail(&b, "sgsample:tooLarge", "sgs_stein_thin: m does not fit in memory");
    size_t m = (size_t)m64;
    const double *scale = column_values(&b, prhs[4], d, "the scales");
    const double *precond = column_values(&b, prhs[5], d, "the preconditioner");
    if (!is_real_scalar(prhs[6]) || !is_real_scalar(prhs[7]))
        fail(&b, "sgsample:badArgument", "sgs_stein_thin: C and Beta must be real scalars");
    size_t *sel = (size_t *)take(&b, m ? m : 1, sizeof(size_t), 8);
    double *scratch = (double *)take(&b, n ? n : 1, sizeof(double), 8);
    int32_t st = sgs_stein_thin(x, g, n, d, scale, precond, mxGetScalar(prhs[6]), mxGetScalar(prhs[7]), sel, m,
                                scratch, n ? n : 1);
    if (st != SGS_OK) fail_status(&b, "sgs_stein_thin", st);
    plhs[0] = mxCreateDoubleMatrix(m, 1, mxREAL);
    double *out = mxGetPr(plhs[0]);
    for (size_t i = 0; i < m; i++) out[i] = (double)sel[i] + 1.0;
    free_all(&b);
}

/* sgsample_mex('stein_thin_scales', X): each column's mean absolute deviation (1-by-d). */
static void stein_thin_scales_cmd(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[]) {
    buffers b = {{0}, 0};
    (void)nlhs;
    (void)nrhs;
    size_t n, d;
    double *x = rows_of(&b, prhs[1], "sgs_stein_thin", "X", &n, &d);
    double *w = (double *)take(&b, d ? d : 1, sizeof(double), 8);
    int32_t st = sgs_stein_thin_scales(x, n, d, w);
    if (st != SGS_OK) fail_status(&b, "sgs_stein_thin_scales", st);
    plhs[0] = mxCreateDoubleMatrix(1, d, mxREAL);
    memcpy(mxGetPr(plhs[0]), w, d * sizeof(double));
    free_all(&b);
}

/* ---- importance weights of SVGD particles (docs/algorithms.md §2.9) ------------------------ */

/* [w, ess] = sgsample_mex('particle_weights', X, V, h): X n-by-d particles, V their n energies
 * (any vector shape), h > 0 the kernel's bandwidth; w n-by-1 summing to 1, ess = 1/sum(w.^2).
 * Finiteness, the bandwidth and the energies are the library's checks (its statuses). */
static void particle_weights_cmd(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[]) {
    buffers b = {{0}, 0};
    (void)nrhs;
    size_t n, d;
    double *x = rows_of(&b, prhs[1], "sgs_particle_weights", "X", &n, &d);
    const mxArray *V = prhs[2];
    if (!mxIsDouble(V) || mxIsComplex(V) || mxIsSparse(V) || mxGetNumberOfDimensions(V) > 2 ||
        mxGetNumberOfElements(V) != n || (n > 1 && mxGetM(V) != 1 && mxGetN(V) != 1))
        fail(&b, "sgsample:badArgument", "sgs_particle_weights: V must be a real, full double vector of one energy per row of X");
    /* A logical h would silently be 1. */
    if (!is_real_scalar(prhs[3]) || mxIsLogical(prhs[3]))
        fail(&b, "sgsample:badArgument", "sgs_particle_weights: h must be a real scalar");
    /* Copied: an empty V's data pointer may be NULL, which the library would report as a null
     * pointer rather than as no particles. */
    double *v = (double *)take(&b, n ? n : 1, sizeof(double), 8);
    if (n) memcpy(v, mxGetPr(V), n * sizeof(double));
    double *w = (double *)take(&b, n ? n : 1, sizeof(double), 8);
    double ess = 0.0;
    int32_t st = sgs_particle_weights(x, n, d, v, mxGetScalar(prhs[3]), w, &ess);
    /* The library's text for this status speaks of gradients and particles becoming
     * non-finite; here it can only be one of the inputs. */
    if (st == SGS_ERR_NON_FINITE)
        fail(&b, "sgsample:nonFinite", "sgs_particle_weights: a coordinate of X is NaN or Inf, an energy is NaN or -Inf, or every energy is +Inf");
    if (st != SGS_OK) fail_status(&b, "sgs_particle_weights", st);
    plhs[0] = mxCreateDoubleMatrix(n, 1, mxREAL);
    memcpy(mxGetPr(plhs[0]), w, n * sizeof(double));
    if (nlhs >= 2) plhs[1] = mxCreateDoubleScalar(ess);
    free_all(&b);
}

/* Y = sgsample_mex('kde_draws', X, m, seed, h): m draws (m-by-d) from the Gaussian kernel density
 * estimate of the rows of X with bandwidth h, the library's draws for (X, h, seed). */
static void kde_draws_cmd(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[]) {
    buffers b = {{0}, 0};
    (void)nlhs;
    (void)nrhs;
    size_t n, d;
    double *x = rows_of(&b, prhs[1], "sgs_kde_draws", "X", &n, &d);
    uint64_t m = arg_u64(&b, prhs[2], "m");
    uint64_t seed = arg_u64(&b, prhs[3], "seed");
    if (!is_real_scalar(prhs[4]) || mxIsLogical(prhs[4]))
        fail(&b, "sgsample:badArgument", "sgs_kde_draws: h must be a real scalar");
    if (d != 0 && m > (uint64_t)SIZE_MAX / d / sizeof(double))
        fail(&b, "sgsample:tooLarge", "sgs_kde_draws: m-by-d draws do not fit in memory");
    size_t md = (size_t)m * d;
    double *y = (double *)take(&b, md ? md : 1, sizeof(double), 8);
    int32_t st = sgs_kde_draws(x, n, d, mxGetScalar(prhs[4]), seed, y, (size_t)m);
    if (st == SGS_ERR_NON_FINITE) fail(&b, "sgsample:nonFinite", "sgs_kde_draws: a coordinate of X is NaN or Inf");
    if (st != SGS_OK) fail_status(&b, "sgs_kde_draws", st);
    mxArray *Y = double_matrix(&b, (size_t)m, d, "the draws");
    double *o = mxGetPr(Y);
    for (size_t k = 0; k < (size_t)m; k++)
        for (size_t j = 0; j < d; j++) o[k + (size_t)m * j] = y[k * d + j];
    plhs[0] = Y;
    free_all(&b);
}

/* [w, ess] = sgsample_mex('kde_weights', X, Y, V, h): the weights of the draws Y (m-by-d) with
 * the particles' (X) kernel density estimate as the proposal, V the m energies at Y; w m-by-1. */
static void kde_weights_cmd(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[]) {
    buffers b = {{0}, 0};
    (void)nrhs;
    size_t n, d, m, dy;
    double *x = rows_of(&b, prhs[1], "sgs_kde_weights", "X", &n, &d);
    double *y = rows_of(&b, prhs[2], "sgs_kde_weights", "Y", &m, &dy);
    if (dy != d && m != 0)
        fail(&b, "sgsample:badArgument", "sgs_kde_weights: Y must have as many columns as X");
    const mxArray *V = prhs[3];
    if (!mxIsDouble(V) || mxIsComplex(V) || mxIsSparse(V) || mxGetNumberOfDimensions(V) > 2 ||
        mxGetNumberOfElements(V) != m || (m > 1 && mxGetM(V) != 1 && mxGetN(V) != 1))
        fail(&b, "sgsample:badArgument", "sgs_kde_weights: V must be a real, full double vector of one energy per row of Y");
    if (!is_real_scalar(prhs[4]) || mxIsLogical(prhs[4]))
        fail(&b, "sgsample:badArgument", "sgs_kde_weights: h must be a real scalar");
    double *v = (double *)take(&b, m ? m : 1, sizeof(double), 8);
    if (m) memcpy(v, mxGetPr(V), m * sizeof(double));
    double *w = (double *)take(&b, m ? m : 1, sizeof(double), 8);
    double ess = 0.0;
    int32_t st = sgs_kde_weights(x, n, d, mxGetScalar(prhs[4]), y, m, v, w, &ess);
    if (st == SGS_ERR_NON_FINITE)
        fail(&b, "sgsample:nonFinite", "sgs_kde_weights: a coordinate of X or Y is NaN or Inf, an energy is NaN or -Inf, or every energy is +Inf");
    if (st != SGS_OK) fail_status(&b, "sgs_kde_weights", st);
    plhs[0] = mxCreateDoubleMatrix(m, 1, mxREAL);
    memcpy(mxGetPr(plhs[0]), w, m * sizeof(double));
    if (nlhs >= 2) plhs[1] = mxCreateDoubleScalar(ess);
    free_all(&b);
}

/* h = sgsample_mex('median_bandwidth', X): the median heuristic med^2/(2 ln n) of the rows of X,
 * with the n(n-1)/2 pairwise distances in a scratch buffer of the gateway's. */
static void median_bandwidth_cmd(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[]) {
    buffers b = {{0}, 0};
    (void)nlhs;
    (void)nrhs;
    size_t n, d;
    double *x = rows_of(&b, prhs[1], "sgs_median_bandwidth", "X", &n, &d);
    /* n(n-1)/2 without overflowing on the way: the even factor halved first (n = 0: 0 pairs). */
    size_t f1 = n % 2 == 0 ? n / 2 : n, f2 = n % 2 == 0 ? n - 1 : (n - 1) / 2;
    if (f1 != 0 && f2 > SIZE_MAX / sizeof(double) / f1)
        fail(&b, "sgsample:tooLarge", "sgs_median_bandwidth: the n(n-1)/2 pairwise distances do not fit in memory");
    size_t pairs = f1 * f2;
    double *scratch = (double *)take(&b, pairs ? pairs : 1, sizeof(double), 8);
    double h = 0.0;
    int32_t st = sgs_median_bandwidth(x, n, d, scratch, pairs ? pairs : 1, &h);
    if (st == SGS_ERR_NON_FINITE) fail(&b, "sgsample:nonFinite", "sgs_median_bandwidth: a coordinate of X is NaN or Inf");
    if (st != SGS_OK) fail_status(&b, "sgs_median_bandwidth", st);
    plhs[0] = mxCreateDoubleScalar(h);
    free_all(&b);
}

/* ---- entry --------------------------------------------------------------------------------- */
/* Every command with the numbers of arguments (the command name included) and outputs it takes:
 * the counts are checked here, once, so a command reads prhs[0..min_in-1] without checking. */
typedef void (*command_fn)(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[]);
static const struct {
    const char *name;
    command_fn fn;
    int min_in, max_in, max_out;
} commands[] = {
    {"amagold", run_amagold, 6, 6, 2},
    {"sghmc", run_sghmc, 5, 5, 2},
    {"sgld", run_sgld, 5, 5, 2},
    {"tunamh", run_tunamh, 6, 6, 2},
    {"svgd", run_svgd, 5, 5, 2},
    {"amagold_batch", run_amagold_batch, 6, 6, 2},
    {"sghmc_batch", run_sghmc_batch, 5, 5, 2},
    {"sgld_batch", run_sgld_batch, 5, 5, 2},
    {"minibatch", minibatch, 4, 4, 1},
    {"normal", normal_cmd, 3, 3, 1},
    {"uniform", uniform_cmd, 3, 3, 1},
    {"stein_thin", stein_thin_cmd, 8, 8, 1},
    {"stein_thin_scales", stein_thin_scales_cmd, 2, 2, 1},
    {"particle_weights", particle_weights_cmd, 4, 4, 2},
    {"median_bandwidth", median_bandwidth_cmd, 2, 2, 1},
    {"kde_draws", kde_draws_cmd, 5, 5, 1},
    {"kde_weights", kde_weights_cmd, 5, 5, 2},
    {"new", chain_new, 7, 7, 1},
    {"run", chain_run, 6, 7, 2},
    {"query", chain_query, 2, 2, 1},
    {"partial", chain_partial, 1, 2, 1},
    {"free", chain_free, 2, 2, 1},
    {"export", chain_export, 2, 2, 1},
    {"import", chain_import, 3, 3, 0},
    {"amagold_get", amagold_get, 3, 3, 1},
    {"amagold_set", amagold_set, 4, 4, 0},
    {"amagold_compare", amagold_compare, 2, 2, 1},
    {"svgd_new", svgd_new, 5, 5, 1},
    {"svgd_run", svgd_run_obj, 5, 6, 2},
    {"svgd_query", svgd_query, 2, 2, 1},
    {"svgd_set", svgd_set, 4, 4, 0},
    {"svgd_ksd", svgd_ksd, 6, 8, 1},
    {"svgd_free", svgd_free, 2, 2, 1},
    {"stats", stats, 2, 2, 1},
    {"draws", draws, 3, 3, 1},
    {"status", status_text, 2, 2, 1},
    {"version", version_text, 1, 1, 1},
};

/* Called by mexFunction in sgsample_trap.cpp, which rethrows what the interpreter threw. */
void sgs_gateway(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[]) {
    char cmd[32];
    if (nrhs < 1 || !mxIsChar(prhs[0]) || mxGetNumberOfDimensions(prhs[0]) != 2 || mxGetM(prhs[0]) > 1 ||
        mxGetString(prhs[0], cmd, sizeof cmd) != 0)
        mexErrMsgIdAndTxt("sgsample:badArguments", "the first argument must be a command name");
    for (size_t k = 0; k < sizeof commands / sizeof commands[0]; k++) {
        if (strcmp(cmd, commands[k].name) != 0) continue;
        if (nrhs < commands[k].min_in || nrhs > commands[k].max_in)
            mexErrMsgIdAndTxt("sgsample:badArguments", "%s: %d to %d arguments expected (got %d)", cmd,
                              commands[k].min_in - 1, commands[k].max_in - 1, nrhs - 1);
        if (nlhs > (commands[k].max_out > 1 ? commands[k].max_out : 1))
            mexErrMsgIdAndTxt("sgsample:badArguments", "%s: at most %d outputs", cmd, commands[k].max_out);
        commands[k].fn(nlhs, plhs, nrhs, prhs);
        /* A command without outputs called for one (x = ...): [] rather than Octave's "element
         * number 1 undefined in return list". */
        if (nlhs >= 1 && !plhs[0]) plhs[0] = mxCreateDoubleMatrix(0, 0, mxREAL);
        return;
    }
    mexErrMsgIdAndTxt("sgsample:badArguments", "unknown command '%s'", cmd);
}
