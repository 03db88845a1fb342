/* sgsample_mex: the MEX gateway behind sgs_amagold, sgs_sghmc, sgs_sgld, sgs_svgd and sgs_minibatch.
 *
 * Portable between MATLAB's `mex` and GNU Octave's `mkoctfile --mex`; it uses only the documented
 * MEX C API (separate-complex mxGetPr, so it builds with either API version) plus, for Ctrl-C,
 * MATLAB's undocumented utIsInterruptPending (link with -lut; define SGS_NO_UT to leave it out) or
 * Octave's exported octave_interrupt_state. Users call the .m wrappers, not this file:
 *
 *   [samples, info] = sgsample_mex('amagold', energy, gradient, theta0, opts, trampoline)
 *   [samples, info] = sgsample_mex('sghmc'|'sgld', gradient, theta0, opts, trampoline)
 *   [X, info]       = sgsample_mex('svgd', gradients, X0, opts, trampoline)
 *   idx             = sgsample_mex('minibatch', seed, n, B)        (1-based, B×1 double)
 *   text            = sgsample_mex('status', code)                 (sgs_status_str)
 *   v               = sgsample_mex('version')
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
 * Memory: all buffers come from mxMalloc/mxCalloc and are freed with mxFree on every path before
 * an error is raised (MEX would also free them when the function exits with an error). */
#include <math.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "mex.h"
#include "sgsample.h"

/* ---- Ctrl-C -------------------------------------------------------------------------------- */
#if defined(HAVE_OCTAVE)
/* liboctave's flag (quit.h): > 0 while an interrupt is pending. */
extern sig_atomic_t octave_interrupt_state;
#define SGS_INTERRUPT_PENDING() (octave_interrupt_state > 0)
#define SGS_USE_TRAMPOLINE 1
#elif defined(MATLAB_MEX_FILE) && !defined(SGS_NO_UT)
#include <stdbool.h>
extern bool utIsInterruptPending(void);
#define SGS_INTERRUPT_PENDING() utIsInterruptPending()
#define SGS_USE_TRAMPOLINE 0
#else
#define SGS_INTERRUPT_PENDING() 0
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
    mxArray *ex = mexCallMATLABWithTrap(nout, outs, nargs, args, "feval");
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

/* After a sampler call: re-raise a callback's error (first the user's own, then a bad output),
 * then an interrupt, then a library status. Frees the buffers first. */
static void finish(buffers *b, cb_ctx *c, int32_t st, const char *what, int interrupted) {
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
}

static mxArray *make_info(const char **names, int n) {
    return mxCreateStructMatrix(1, 1, n, names);
}

static void set_num(mxArray *s, const char *name, double v) {
    mxSetField(s, 0, name, mxCreateDoubleScalar(v));
}

/* ---- chain samplers (AMAGOLD, SGHMC, SGLD) ------------------------------------------------- */
enum { AMAGOLD, SGHMC, SGLD };

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
    check_real_double(&b, theta0, "theta0");
    if (!mxIsStruct(opts)) fail(&b, "sgsample:badArguments", "options must be a struct");
    if (!mxIsEmpty(theta0) && mxGetM(theta0) != 1 && mxGetN(theta0) != 1)
        fail(&b, "sgsample:badArgument", "theta0 must be a vector");
    size_t d = mxGetNumberOfElements(theta0);
    c.d = d;
    uint64_t samples = opt_u64(&b, opts, "samples", 1000);
    uint64_t burnin = opt_u64(&b, opts, kind == AMAGOLD ? "warmup" : "burnin", 0);
    int want_la = kind == AMAGOLD && opt(opts, "log_accept") && mxGetScalar(opt(opts, "log_accept")) != 0;
    double step = opt_double(&b, opts, "step_size", 0.1);
    double dummy = 0.0;
    const double *th = d ? mxGetPr(theta0) : &dummy;
    size_t dd = d ? d : 1;

    void *state = NULL;
    double *ws = NULL;
    size_t wlen = 0;
    int32_t st;
    if (kind == AMAGOLD) {
        sgs_amagold_config cfg = sgs_amagold_config_default(step);
        cfg.friction = opt_double(&b, opts, "friction", cfg.friction);
        cfg.momentum_sd = opt_double(&b, opts, "momentum_sd", cfg.momentum_sd);
        cfg.target_accept = opt_double(&b, opts, "target_accept", cfg.target_accept);
        cfg.steps = opt_u32(&b, opts, "steps", cfg.steps);
        cfg.variant = opt_u32(&b, opts, "variant", cfg.variant);
        cfg.seed = opt_u64(&b, opts, "seed", cfg.seed);
        cfg.stream = opt_u64(&b, opts, "stream", cfg.stream);
        cfg.warmup = burnin;
        state = take(&b, 1, sgs_amagold_state_size(), sgs_amagold_state_align());
        wlen = sgs_amagold_workspace_len(dd);
        ws = (double *)take(&b, wlen, sizeof(double), 8);
        st = sgs_amagold_init((sgs_amagold *)state, &cfg, th, d, ws, wlen, energy_cb, gradient_cb, &c);
    } else if (kind == SGHMC) {
        sgs_sghmc_config cfg = sgs_sghmc_config_default(step);
        cfg.friction = opt_double(&b, opts, "friction", cfg.friction);
        cfg.momentum_sd = opt_double(&b, opts, "momentum_sd", cfg.momentum_sd);
        cfg.steps = opt_u32(&b, opts, "steps", cfg.steps);
        cfg.resample_momentum = opt_u32(&b, opts, "resample_momentum", cfg.resample_momentum);
        cfg.seed = opt_u64(&b, opts, "seed", cfg.seed);
        cfg.stream = opt_u64(&b, opts, "stream", cfg.stream);
        state = take(&b, 1, sgs_sghmc_state_size(), sgs_sghmc_state_align());
        wlen = sgs_sghmc_workspace_len(dd);
        ws = (double *)take(&b, wlen, sizeof(double), 8);
        st = sgs_sghmc_init((sgs_sghmc *)state, &cfg, th, d, ws, wlen, gradient_cb, &c);
    } else {
        sgs_sgld_config cfg = sgs_sgld_config_default(step);
        cfg.steps = opt_u32(&b, opts, "steps", cfg.steps);
        cfg.seed = opt_u64(&b, opts, "seed", cfg.seed);
        cfg.stream = opt_u64(&b, opts, "stream", cfg.stream);
        state = take(&b, 1, sgs_sgld_state_size(), sgs_sgld_state_align());
        wlen = sgs_sgld_workspace_len(dd);
        ws = (double *)take(&b, wlen, sizeof(double), 8);
        st = sgs_sgld_init((sgs_sgld *)state, &cfg, th, d, ws, wlen, gradient_cb, &c);
    }
    finish(&b, &c, st, "init", 0);

    if (samples > (uint64_t)SIZE_MAX / (d ? d : 1) / sizeof(double))
        fail(&b, "sgsample:tooLarge", "Samples × d does not fit in memory");
    plhs[0] = mxCreateDoubleMatrix((size_t)samples, d, mxREAL);
    double *out = mxGetPr(plhs[0]);
    double *pos = (double *)take(&b, dd, sizeof(double), 8);
    mxArray *la = want_la ? mxCreateDoubleMatrix((size_t)samples, 1, mxREAL) : NULL;
    uint64_t total = burnin + samples, accepted = 0, accepted_warm = 0, ood = 0, divergent = 0;
    int interrupted = 0;
    st = SGS_OK;
    for (uint64_t k = 0; k < total; k++) {
        if (SGS_INTERRUPT_PENDING()) {
            interrupted = 1;
            break;
        }
        uint32_t outcome;
        if (kind == AMAGOLD) {
            sgs_amagold_info info;
            st = sgs_amagold_step((sgs_amagold *)state, &info);
            if (st != SGS_OK) break;
            outcome = info.outcome;
            if (k >= burnin && la) mxGetPr(la)[k - burnin] = info.log_accept;
            if (info.accepted) {
                if (k >= burnin) accepted++; else accepted_warm++;
            }
        } else {
            sgs_chain_info info;
            st = kind == SGHMC ? sgs_sghmc_step((sgs_sghmc *)state, &info) : sgs_sgld_step((sgs_sgld *)state, &info);
            if (st != SGS_OK) break;
            outcome = info.outcome;
            if (k >= burnin && outcome == SGS_OUTCOME_ACCEPTED) accepted++;
        }
        if (k >= burnin) {
            if (outcome == SGS_OUTCOME_OUT_OF_DOMAIN) ood++;
            if (outcome == SGS_OUTCOME_DIVERGENT) divergent++;
            st = kind == AMAGOLD ? sgs_amagold_position((sgs_amagold *)state, pos, dd)
                 : kind == SGHMC ? sgs_sghmc_position((sgs_sghmc *)state, pos, dd)
                                 : sgs_sgld_position((sgs_sgld *)state, pos, dd);
            if (st != SGS_OK) break;
            size_t row = (size_t)(k - burnin);
            for (size_t j = 0; j < d; j++) out[j * (size_t)samples + row] = pos[j];
        }
    }
    if (c.exception || c.bad_id[0] || interrupted || st != SGS_OK) {
        mxDestroyArray(plhs[0]);
        plhs[0] = NULL;
        if (la) mxDestroyArray(la);
        finish(&b, &c, st, "step", interrupted);
    }

    if (nlhs > 1) {
        uint64_t divs = 0, iters = 0;
        double eps = step;
        if (kind == AMAGOLD) {
            sgs_amagold_divergences((sgs_amagold *)state, &divs);
            sgs_amagold_iterations((sgs_amagold *)state, &iters);
            sgs_amagold_step_size((sgs_amagold *)state, &eps);
        } else if (kind == SGHMC) {
            sgs_sghmc_divergences((sgs_sghmc *)state, &divs);
            sgs_sghmc_iterations((sgs_sghmc *)state, &iters);
        } else {
            sgs_sgld_divergences((sgs_sgld *)state, &divs);
            sgs_sgld_iterations((sgs_sgld *)state, &iters);
        }
        static const char *names[] = {"iterations", "samples", "accepted", "acceptance", "divergences",
                                      "out_of_domain", "step_size", "callback_calls", "warmup_acceptance",
                                      "log_accept"};
        int nf = kind == AMAGOLD ? (la ? 10 : 9) : 8;
        mxArray *s = make_info(names, nf);
        set_num(s, "iterations", (double)iters);
        set_num(s, "samples", (double)samples);
        set_num(s, "accepted", (double)accepted);
        set_num(s, "acceptance", samples ? (double)accepted / (double)samples : NAN);
        set_num(s, "divergences", (double)divs);
        set_num(s, "out_of_domain", (double)ood);
        set_num(s, "step_size", eps);
        set_num(s, "callback_calls", (double)c.calls);
        if (kind == AMAGOLD) set_num(s, "warmup_acceptance", burnin ? (double)accepted_warm / (double)burnin : NAN);
        if (la) mxSetField(s, 0, "log_accept", la);
        plhs[1] = s;
    } else if (la) {
        mxDestroyArray(la);
    }
    (void)divergent;
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
    finish(&b, &c, st, "init", 0);

    sgs_svgd_info info;
    memset(&info, 0, sizeof info);
    int interrupted = 0;
    for (uint64_t k = 0; k < iters; k++) {
        if (SGS_INTERRUPT_PENDING()) {
            interrupted = 1;
            break;
        }
        st = sgs_svgd_step((sgs_svgd *)state, &info);
        if (st != SGS_OK) break;
    }
    finish(&b, &c, st, "step", interrupted);

    plhs[0] = mxCreateDoubleMatrix(n, d, mxREAL);
    double *po = mxGetPr(plhs[0]);
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < d; j++) po[j * n + i] = particles[i * d + j];
    if (nlhs > 1) {
        static const char *names[] = {"iterations", "interactions", "bandwidth", "step_size",
                                      "mean_force", "max_force", "callback_calls"};
        mxArray *s = make_info(names, 7);
        set_num(s, "iterations", (double)iters);
        set_num(s, "interactions", (double)info.interactions);
        set_num(s, "bandwidth", iters ? info.bandwidth : NAN);
        set_num(s, "step_size", iters ? info.step_size : NAN);
        set_num(s, "mean_force", iters ? info.mean_force : NAN);
        set_num(s, "max_force", iters ? info.max_force : NAN);
        set_num(s, "callback_calls", (double)c.calls);
        plhs[1] = s;
    }
    free_all(&b);
}

/* ---- minibatch ----------------------------------------------------------------------------- */
static uint64_t arg_u64(buffers *b, const mxArray *v, const char *name) {
    char msg[200];
    snprintf(msg, sizeof msg, "%s must be a non-negative integer (a double up to 2^53 or a uint64)", name);
    if (!is_real_scalar(v)) fail(b, "sgsample:badArgument", msg);
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

/* ---- entry --------------------------------------------------------------------------------- */
void mexFunction(int nlhs, mxArray *plhs[], int nrhs, const mxArray *prhs[]) {
    char cmd[32];
    if (nrhs < 1 || !mxIsChar(prhs[0]) || mxGetString(prhs[0], cmd, sizeof cmd) != 0)
        mexErrMsgIdAndTxt("sgsample:badArguments", "the first argument must be a command name");
    if (strcmp(cmd, "amagold") == 0) run_chain(AMAGOLD, nlhs, plhs, nrhs, prhs);
    else if (strcmp(cmd, "sghmc") == 0) run_chain(SGHMC, nlhs, plhs, nrhs, prhs);
    else if (strcmp(cmd, "sgld") == 0) run_chain(SGLD, nlhs, plhs, nrhs, prhs);
    else if (strcmp(cmd, "svgd") == 0) run_svgd(nlhs, plhs, nrhs, prhs);
    else if (strcmp(cmd, "minibatch") == 0) minibatch(nlhs, plhs, nrhs, prhs);
    else if (strcmp(cmd, "status") == 0 && nrhs == 2) plhs[0] = mxCreateString(sgs_status_str((int32_t)mxGetScalar(prhs[1])));
    else if (strcmp(cmd, "version") == 0) plhs[0] = mxCreateString(sgs_version());
    else mexErrMsgIdAndTxt("sgsample:badArguments", "unknown command '%s'", cmd);
}
