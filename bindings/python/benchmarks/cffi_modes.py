#!/usr/bin/env python3
"""Benchmark (not a test): what cffi's API mode would save on the batch callbacks.

The package opens libsgsample in ABI mode (``ffi.dlopen``) and makes its trampolines with
``ffi.callback`` (a libffi closure). API mode would compile a module at install time and declare
the trampolines ``extern "Python"`` (``@ffi.def_extern``). This script builds such a module in a
temporary directory (needs a C compiler and setuptools) with a C loop that calls a
``sgs_batch_gradient_fn``-shaped function pointer n times, and times, per call from C into
Python (CPU time of the process, best of ``--repeat``):

* an empty callback, as a libffi closure and as an ``extern "Python"`` function;
* the body of the package's batch gradient trampoline (views looked up, X and seeds copied, the
  callback called, its k × 1 result checked and written) the same two ways.

Run from the repository root with the package installed (``scripts/test-python.sh`` makes a
venv with it):

    target/python-venv/bin/python bindings/python/benchmarks/cffi_modes.py
"""

import argparse
import sys
import tempfile
import time

import cffi
import numpy as np

SIG = ("(void *, const double *, size_t, size_t, const uint64_t *, const size_t *, double *, "
       "int32_t *)")
CDEF = f"""
typedef int32_t (*grad_fn){SIG};
extern "Python" int32_t api_empty{SIG};
extern "Python" int32_t api_body{SIG};
int32_t loop(grad_fn f, size_t n, double *x, size_t k, uint64_t *s, size_t *c, double *g,
             int32_t *st);
grad_fn api_empty_ptr(void);
grad_fn api_body_ptr(void);
"""
SOURCE = f"""
typedef int32_t (*grad_fn){SIG};
static int32_t api_empty{SIG};
static int32_t api_body{SIG};
static int32_t loop(grad_fn f, size_t n, double *x, size_t k, uint64_t *s, size_t *c,
                    double *g, int32_t *st) {{
    int32_t r = 0;
    for (size_t i = 0; i < n; i++) r |= f(NULL, x, k, 1, s, c, g, st);
    return r;
}}
static grad_fn api_empty_ptr(void) {{ return api_empty; }}
static grad_fn api_body_ptr(void) {{ return api_body; }}
"""


def build(where):
    ffibuilder = cffi.FFI()
    ffibuilder.cdef(CDEF)
    ffibuilder.set_source("_sgs_cffi_modes", SOURCE)
    ffibuilder.compile(tmpdir=where, verbose=False)
    sys.path.insert(0, where)
    import _sgs_cffi_modes

    return _sgs_cffi_modes.ffi, _sgs_cffi_modes.lib


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--k", type=int, default=16)
    ap.add_argument("--calls", type=int, default=200000)
    ap.add_argument("--repeat", type=int, default=7)
    args = ap.parse_args()
    k, n = args.k, args.calls
    with tempfile.TemporaryDirectory() as where:
        ffi, lib = build(where)
        result = np.zeros((k, 1))
        f64, u64 = np.dtype(np.float64), np.dtype(np.uint64)
        views = {}

        def user_grad(X, s):
            return result

        def view(p, count, dtype):
            return np.frombuffer(ffi.buffer(p, count * dtype.itemsize), dtype)

        # The package's batch gradient trampoline (sgsample/_batch.py), on this module's ffi.
        def body(ud, x, k, d, seeds, chains, g, st):
            v = views.get(k)
            if v is None or v[0] != x or v[1] != seeds or v[2] != g or v[3] != d:
                v = views[k] = (x, seeds, g, d, view(x, k * d, f64).reshape(k, d),
                                view(seeds, k, u64), view(g, k * d, f64).reshape(k, d), (k, d))
            value = user_grad(v[4].copy(), v[5].copy())
            if type(value) is np.ndarray and value.shape == v[7] and value.dtype is f64:
                v[6][...] = value
            return 0

        def empty(ud, x, k, d, seeds, chains, g, st):
            return 0

        ffi.def_extern(name="api_empty")(empty)
        ffi.def_extern(name="api_body")(body)
        bufs = (ffi.new("double[]", k), k, ffi.new("uint64_t[]", k), ffi.new("size_t[]", k),
                ffi.new("double[]", k), ffi.new("int32_t[]", k))

        def per_call(fp):
            best = float("inf")
            for _ in range(args.repeat):
                t = time.process_time()
                lib.loop(fp, n, *bufs)
                best = min(best, time.process_time() - t)
            return best / n * 1e6

        closures = [ffi.callback("grad_fn", f) for f in (empty, body)]
        print(f"cffi {cffi.__version__}, numpy {np.__version__}, Python "
              f"{sys.version.split()[0]}; k = {k}, {n} calls from C, best of {args.repeat}")
        print(f"{'callback':>22} {'ABI ffi.callback µs/call':>25} "
              f"{'API extern Python µs/call':>26}")
        for name, closure, api in (("empty", closures[0], lib.api_empty_ptr()),
                                   ("trampoline body", closures[1], lib.api_body_ptr())):
            print(f"{name:>22} {per_call(closure):>25.3f} {per_call(api):>26.3f}")


if __name__ == "__main__":
    main()
