"""The Julia package (bindings/julia/SGSample) without Julia: its generated declarations are
current and have the C layouts, and its call pattern (the same @ccall signatures, in the same
order, a non-closure trampoline with the closure as user_data, buffers held for the call,
column-major d x N particles, exceptions rethrown) is replayed here through ctypes, reading the
signatures from generated.jl itself, and must give the Python binding's samples bit for bit."""

import ctypes as C
import importlib.util
import os
import re

import numpy as np
import pytest

import sgsample

import models as M
from conftest import REPO

PKG = os.path.join(REPO, "bindings", "julia", "SGSample")
GENERATED = os.path.join(PKG, "src", "generated.jl")


def test_generated_jl_is_current():
    spec = importlib.util.spec_from_file_location("jlgen", os.path.join(PKG, "gen", "generate.py"))
    gen = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(gen)
    fresh = gen.generate(os.path.join(REPO, "include", "sgsample.h"))
    assert open(GENERATED, encoding="utf-8").read() == fresh, "run gen/generate.py"


# ---------------------------------------------------------------------------------------------
# generated.jl read back into ctypes

SCALAR = {"Cdouble": C.c_double, "Cfloat": C.c_float, "UInt64": C.c_uint64, "UInt32": C.c_uint32,
          "Int32": C.c_int32, "Csize_t": C.c_size_t, "Cchar": C.c_char}


class Julia:
    """The declarations of generated.jl as ctypes types and functions."""

    def __init__(self, path, library):
        text = open(path, encoding="utf-8").read()
        self.aliases = dict(re.findall(r"^const (\w+) = ([A-Za-z_]\w*(?:\{\w+\})?)\s*(?:#.*)?$", text, re.M))
        self.consts = {k: int(v) for k, v in re.findall(r"^const (\w+) = (?:\w+\()?(-?\d+)\)?$",
                                                         text, re.M)}
        self.structs = {}
        for name, body in re.findall(r"^struct (\w+)\n(.*?)^end$", text, re.M | re.S):
            fields = []
            for fname, ftype in re.findall(r"^\s+(\w+)::(.+)$", body, re.M):
                fields.append((fname, self.ctype(ftype)))
            self.structs[name] = type(name, (C.Structure,), {"_fields_": fields})
        self.lib = C.CDLL(library)
        self.signatures = {}
        for name, args, ret in re.findall(
                r"^\w+\(.*?\) = @ccall libsgsample\.(\w+)\((.*?)\)::(\S+)$", text, re.M):
            argtypes = [self.ctype(a.split("::", 1)[1]) for a in args.split(", ") if a]
            f = getattr(self.lib, name)
            f.argtypes, f.restype = argtypes, self.ctype(ret)
            self.signatures[name] = [a.split("::", 1)[0] for a in args.split(", ") if a]

    def ctype(self, t):
        t = t.strip()
        m = re.fullmatch(r"NTuple\{(\d+), (\w+)\}", t)
        if m:
            return self.ctype(m.group(2)) * int(m.group(1))
        m = re.fullmatch(r"Ptr\{(.+)\}", t)
        if m:
            inner = m.group(1)
            return C.c_void_p if self.ctype(inner) is None else C.POINTER(self.ctype(inner))
        if t == "Cvoid":
            return None
        if t in SCALAR:
            return SCALAR[t]
        if t in self.structs:
            return self.structs[t]
        if t in self.aliases:
            return self.ctype(self.aliases[t])
        raise KeyError(t)

    def __getattr__(self, name):
        return getattr(self.lib, name)


@pytest.fixture(scope="module")
def jl():
    return Julia(GENERATED, sgsample.LIBRARY_PATH)


def test_generated_layouts_are_the_c_layouts(jl):
    for name, st in jl.structs.items():
        assert C.sizeof(st) == sgsample.ffi.sizeof(name), name
        for (fname, _), off in zip(st._fields_, [getattr(st, f).offset for f, _ in st._fields_]):
            assert off == sgsample.ffi.offsetof(name, fname), (name, fname)
    for kind in ("amagold", "sghmc", "sgld", "tunamh", "svgd"):
        for sfx in ("", "_f32"):
            assert C.sizeof(jl.structs[f"sgs_{kind}{sfx}"]) == getattr(
                sgsample.lib, f"sgs_{kind}_state_size{sfx}")()
    assert jl.consts["SGS_CB_ABORT"] == sgsample.SGS_CB_ABORT
    assert jl.consts["SGS_ERR_CALLBACK_ABORTED"] == sgsample.SGS_ERR_CALLBACK_ABORTED


def test_every_c_function_has_a_julia_wrapper(jl):
    assert set(jl.signatures) == set(sgsample.header.functions)
    for name, (_, params) in sgsample.header.functions.items():
        assert jl.signatures[name] == [p for _, p in params], name


# ---------------------------------------------------------------------------------------------
# The call pattern of src/SGSample.jl, step by step (names in comments are the Julia ones)


class Callbacks:  # mutable struct Callbacks
    def __init__(self):
        self.energy = self.grad = self.grads = self.err = None
        self.differences = self.exact = None


def _cb(ud):  # unsafe_pointer_to_objref(ud)::Callbacks
    return C.cast(ud, C.POINTER(C.py_object)).contents.value


def _fail(cb, e):  # fail!
    if isinstance(e, sgsample.OutOfDomain):  # e isa OutOfDomain && return SGS_CB_REJECT
        return 1
    cb.err = e
    return 2  # SGS_CB_ABORT


# Non-closure trampolines (the @cfunction targets), one per signature.
@C.CFUNCTYPE(C.c_int32, C.c_void_p, C.POINTER(C.c_double), C.c_size_t, C.POINTER(C.c_double))
def energy_tramp(ud, theta, d, u):
    cb = _cb(ud)
    try:
        u[0] = float(cb.energy(np.ctypeslib.as_array(theta, (d,)).copy()))
        return 0
    except Exception as e:  # noqa: BLE001
        return _fail(cb, e)


@C.CFUNCTYPE(C.c_int32, C.c_void_p, C.POINTER(C.c_double), C.c_size_t, C.c_uint64,
             C.POINTER(C.c_double))
def grad_tramp(ud, x, d, seed, g):
    cb = _cb(ud)
    try:
        v = np.asarray(cb.grad(np.ctypeslib.as_array(x, (d,)).copy(), seed), float)
        np.ctypeslib.as_array(g, (d,))[:] = v
        return 0
    except Exception as e:  # noqa: BLE001
        return _fail(cb, e)


@C.CFUNCTYPE(C.c_int32, C.c_void_p, C.POINTER(C.c_double), C.c_size_t, C.c_size_t, C.c_uint64,
             C.POINTER(C.c_double))
def grads_tramp(ud, xs, n, d, seed, g):
    cb = _cb(ud)
    try:
        # unsafe_wrap(Array, xs, (d, n)): column-major d x n over the C row-major n x d.
        X = np.ctypeslib.as_array(xs, (n * d,)).reshape((d, n), order="F").copy(order="F")
        G = np.asarray(cb.grads(X, seed), float)
        assert G.shape == (d, n)
        np.ctypeslib.as_array(g, (n * d,))[:] = G.ravel(order="F")
        return 0
    except Exception as e:  # noqa: BLE001
        return _fail(cb, e)


def state_memory(jl, kind):  # StateMemory(kind, T)
    size, align = getattr(jl, f"sgs_{kind}_state_size")(), getattr(jl, f"sgs_{kind}_state_align")()
    buf = (C.c_uint64 * (-(-(size + align) // 8)))()
    addr = C.addressof(buf)
    return buf, C.cast(addr + (-addr) % align, C.POINTER(jl.structs[f"sgs_{kind}"]))


def with_fields(default, kw):  # with_fields(x, kw)
    for k, v in kw.items():
        setattr(default, k, v)
    return default


class JuliaChain:
    """Chain{K}(energy, grad, theta0; step_size, kw...) and run!(chain, n)."""

    def __init__(self, jl, kind, energy, grad, theta0, step_size, **kw):
        self.jl, self.kind = jl, kind
        default = (jl.sgs_amagold_config_adaptive() if kind == "amagold" and step_size is None
                   else getattr(jl, f"sgs_{kind}_config_default")(step_size))
        config = with_fields(default, kw)
        self.config = C.pointer(config)  # Ref(config)
        self.theta0 = np.array(theta0, float)
        self.d = d = self.theta0.size
        # AMAGOLD: cfun(K, "workspace_len_for", T)(config, d); the others: workspace_len(d).
        wl = (jl.sgs_amagold_workspace_len_for(self.config, d) if kind == "amagold"
              else getattr(jl, f"sgs_{kind}_workspace_len")(d))
        self.ws = np.zeros(max(wl, 1))
        self.cb = Callbacks()
        self.cb.energy, self.cb.grad = energy, grad
        self.state_buf, self.state = state_memory(jl, kind)
        self.ud = C.py_object(self.cb)  # pointer_from_objref(cb); kept alive by the chain
        args = [self.state, self.config, self.theta0.ctypes.data_as(C.POINTER(C.c_double)), d,
                self.ws.ctypes.data_as(C.POINTER(C.c_double)), wl]
        if kind == "amagold":
            args.append(C.cast(energy_tramp, C.c_void_p))
        args += [C.cast(grad_tramp, C.c_void_p), C.cast(C.pointer(self.ud), C.c_void_p)]
        status = getattr(jl, f"sgs_{kind}_init")(*args)  # inside GC.@preserve
        self.rethrow()
        assert status == 0, status

    def rethrow(self):  # rethrow_callback_error!
        e, self.cb.err = self.cb.err, None
        if e is not None:
            raise e

    def run(self, n, chunk=7):
        out = np.empty((self.d, n), order="F")  # Matrix{T}(undef, d, n)
        done = C.c_size_t(0)
        summ = self.jl.structs[{"amagold": "sgs_amagold_run_summary",  # summary_type(c)
                                "tunamh": "sgs_tunamh_run_summary"}.get(
                                    self.kind, "sgs_chain_run_summary")]()
        total = 0
        while total < n:
            k = min(chunk, n - total)
            ptr = C.cast(out.ctypes.data + total * self.d * 8, C.POINTER(C.c_double))
            status = getattr(self.jl, f"sgs_{self.kind}_run")(self.state, k, ptr, k * self.d,
                                                              C.byref(done), C.byref(summ))
            total += done.value
            if status != 0:
                self.rethrow()
                raise sgsample.Error(status, "run!")
        return out


def test_julia_chain_pattern_matches_the_python_binding(jl):
    for kind, args, kw in [
        ("amagold", (M.dw_energy, M.dw_grad), dict(friction=0.25, steps=10, seed=7, stream=3)),
        ("sghmc", (None, M.dw_grad), dict(friction=1.0, steps=5, seed=11)),
        ("sgld", (None, M.dw_grad), dict(seed=13)),
    ]:
        j = JuliaChain(jl, kind, *args, [0.5], 0.1, **kw).run(200)
        cls = {"amagold": sgsample.AMAGOLD, "sghmc": sgsample.SGHMC, "sgld": sgsample.SGLD}[kind]
        py_args = args if kind == "amagold" else args[1:]
        p = cls(*py_args, [0.5], step_size=0.1, **kw).run(200)
        assert j.shape == (1, 200) and np.array_equal(j, p.T), kind


def test_julia_amagold_warmup_pattern_matches_the_python_binding(jl):
    # AMAGOLD(e, g, θ0; mass=:dense, warmup=300, seed=…) (the adaptive configuration), run!,
    # warmup_report, inverse_mass_dense, warmup_compare, and a chain without a warm-up set up by
    # set_step_size! and set_inverse_mass_dense! (a Julia matrix passed as permutedims(K): the
    # C API's row-major layout), all through generated.jl's signatures.
    sd = np.array([1.0, 0.01])
    e = lambda t: 0.5 * float(np.sum((t / sd) ** 2))  # noqa: E731
    g = lambda t, seed: t / sd**2  # noqa: E731
    dense = jl.consts["SGS_MASS_DENSE"]
    chains = [JuliaChain(jl, "amagold", e, g, [200.0, 2.0 * (c + 1)], None, mass=dense,
                         warmup=300, seed=5, stream=c) for c in range(2)]
    runs = [c.run(400) for c in chains]
    R = jl.structs["sgs_warmup_report"]
    rep = R()
    assert jl.sgs_amagold_warmup_report(chains[0].state, C.byref(rep)) == 0
    K = np.empty((2, 2), order="F")  # Matrix{T}(undef, d, d)
    assert jl.sgs_amagold_inverse_mass_dense(
        chains[0].state, K.ctypes.data_as(C.POINTER(C.c_double)), 4) == 0
    ptrs = (C.POINTER(jl.structs["sgs_amagold"]) * 2)(*[c.state for c in chains])
    out = (R * 2)()
    assert jl.sgs_amagold_warmup_compare(ptrs, 2, out, 2) == 0
    p = [sgsample.AMAGOLD(e, g, [200.0, 2.0 * (c + 1)], mass="dense", warmup=300, seed=5,
                          stream=c) for c in range(2)]
    for j, q in zip(runs, p):
        assert np.array_equal(j, q.run(400).T)
    mine = p[0].warmup_report()
    skip = ("verdict", "reasons", "reserved")  # reserved: the struct's padding
    assert {f: getattr(rep, f) for f, _ in R._fields_ if f not in skip} == {
        f: getattr(mine, f) for f, _ in R._fields_ if f not in skip}
    assert rep.reserved == 0
    assert sgsample._VERDICT_NAMES[rep.verdict] == mine.verdict == "ok"
    assert np.array_equal(K, p[0].inverse_mass_dense)
    assert [o.reasons for o in out] == [r.reason_flags for r in sgsample.warmup_compare(p)]
    # set_step_size!(c, 0.37), set_inverse_mass_dense!(c, K) with K a column-major Julia matrix.
    f = JuliaChain(jl, "amagold", e, g, [0.5, 0.5], 0.1, mass=dense, seed=7)
    assert jl.sgs_amagold_set_step_size(f.state, 0.37) == 0
    Kj = np.asfortranarray([[2.0, 0.5], [0.5, 1.0]])
    rowmajor = np.asfortranarray(Kj.T)  # Matrix{T}(permutedims(K)): K's rows in memory
    assert jl.sgs_amagold_set_inverse_mass_dense(
        f.state, rowmajor.ctypes.data_as(C.POINTER(C.c_double)), 4) == 0
    q = sgsample.AMAGOLD(e, g, [0.5, 0.5], 0.1, mass="dense", seed=7)
    q.step_size = 0.37
    q.inverse_mass_dense = Kj
    assert np.array_equal(f.run(200), q.run(200).T)


def test_julia_exception_is_rethrown(jl):
    def grad(t, seed):
        raise KeyError("inside the Julia-style callback")

    c = JuliaChain(jl, "sgld", None, M.dw_grad, [0.0], 0.1)
    c.cb.grad = grad
    with pytest.raises(KeyError):
        c.run(10)


# TunaMH's trampolines (differences_tramp, exact_tramp): the library's 0-based indices handed to
# the Julia function 1-based.
@C.CFUNCTYPE(C.c_int32, C.c_void_p, C.POINTER(C.c_double), C.POINTER(C.c_double), C.c_size_t,
             C.POINTER(C.c_uint64), C.c_size_t, C.POINTER(C.c_double))
def differences_tramp(ud, theta, proposal, d, indices, count, out):
    cb = _cb(ud)
    try:
        x = np.ctypeslib.as_array(theta, (d,)).copy()
        y = np.ctypeslib.as_array(proposal, (d,)).copy()
        idx = [int(i) + 1 for i in np.ctypeslib.as_array(indices, (count,))]
        v = np.asarray(cb.differences(x, y, idx), float).ravel()
        assert v.size == count  # DimensionMismatch
        np.ctypeslib.as_array(out, (count,))[:] = v
        return 0
    except Exception as e:  # noqa: BLE001
        return _fail(cb, e)


@C.CFUNCTYPE(C.c_int32, C.c_void_p, C.POINTER(C.c_double), C.POINTER(C.c_double), C.c_size_t,
             C.POINTER(C.c_double))
def exact_tramp(ud, theta, proposal, d, out):
    cb = _cb(ud)
    try:
        out[0] = float(cb.exact(np.ctypeslib.as_array(theta, (d,)).copy(),
                                np.ctypeslib.as_array(proposal, (d,)).copy()))
        return 0
    except Exception as e:  # noqa: BLE001
        return _fail(cb, e)


class JuliaTunaMH(JuliaChain):
    """TunaMH(differences, θ0; terms, bound, step_size, exact, kw...) and run!(chain, n)."""

    def __init__(self, jl, differences, theta0, terms, bound, step_size, exact=None, **kw):
        self.jl, self.kind = jl, "tunamh"
        config = with_fields(jl.sgs_tunamh_config_default(step_size, terms, bound), kw)
        self.config = C.pointer(config)
        self.theta0 = np.array(theta0, float)
        self.d = d = self.theta0.size
        wl = jl.sgs_tunamh_workspace_len(d)
        self.ws = np.zeros(max(wl, 1))
        self.cb = Callbacks()
        self.cb.differences, self.cb.exact = differences, exact
        self.state_buf, self.state = state_memory(jl, "tunamh")
        self.ud = C.py_object(self.cb)
        efn = None if exact is None else C.cast(exact_tramp, C.c_void_p)
        status = jl.sgs_tunamh_init(self.state, self.config,
                                    self.theta0.ctypes.data_as(C.POINTER(C.c_double)), d,
                                    self.ws.ctypes.data_as(C.POINTER(C.c_double)), wl, efn,
                                    C.cast(differences_tramp, C.c_void_p),
                                    C.cast(C.pointer(self.ud), C.c_void_p))
        self.rethrow()
        assert status == 0, status


def test_julia_tunamh_pattern_matches_the_python_binding(jl):
    # runtests.jl's model: 40 Laplace terms |y_i − θ| (y 1-based in Julia), a N(0, 1) prior.
    y = np.array([((i * 0.6180339887) % 1.0 - 0.5) * 4.0 + 1.0 for i in range(40)])

    def jl_diffs(t, p, idx):  # diffs(t, p, idx) = [abs(y[i] - p[1]) - abs(y[i] - t[1]) for i in idx]
        return [abs(y[i - 1] - p[0]) - abs(y[i - 1] - t[0]) for i in idx]

    def py_diffs(t, p, idx):
        return np.abs(y[idx] - p[0]) - np.abs(y[idx] - t[0])

    def prior(t, p):
        return (p[0] ** 2 - t[0] ** 2) / 2

    for exact in (prior, None):
        j = JuliaTunaMH(jl, jl_diffs, [0.5], 40, 1.0, 0.5, exact=exact, chi=0.05, seed=3).run(300)
        q = sgsample.TunaMH(py_diffs, [0.5], terms=40, bound=1.0, step_size=0.5, chi=0.05,
                            exact=exact, seed=3).run(300)
        assert j.shape == (1, 300) and np.array_equal(j, q.T)
    # A difference past the bound: SGS_ERR_BOUND_EXCEEDED, no row written.
    c = JuliaTunaMH(jl, lambda t, p, idx: [3 * abs(p[0] - t[0]) + 1 for _ in idx], [0.5], 40,
                    1.0, 0.5)
    with pytest.raises(sgsample.Error) as e:
        c.run(10)
    assert e.value.status == jl.consts["SGS_ERR_BOUND_EXCEEDED"]
    # An exception inside the callback is rethrown.
    c = JuliaTunaMH(jl, jl_diffs, [0.5], 40, 1.0, 0.5)
    c.cb.differences = lambda t, p, idx: {}["boom"]
    with pytest.raises(KeyError):
        c.run(5)


def test_julia_svgd_pattern_column_major(jl):
    # SVGD(X0::d x N; grads) and svgd!(s, iterations), with the particles a Fortran-order d x N
    # array handed over without a copy: must equal the Python binding's row-major N x d run.
    d, n = 2, 16
    X = np.asfortranarray(np.linspace(-10, -6, d * n).reshape(d, n))
    X0 = X.copy(order="F")
    cfg = C.pointer(with_fields(jl.sgs_svgd_config_default(8, 0.2), dict(bandwidth=2.0, seed=5)))
    wl, il = jl.sgs_svgd_workspace_len(n, d, cfg), jl.sgs_svgd_index_len(n)
    ws, idx = np.zeros(wl), np.zeros(il, np.uint32)
    cb = Callbacks()
    cb.grads = lambda Xc, seed: M.mix_grads(Xc.T, seed).T  # the user's d x N function
    ud = C.py_object(cb)
    buf, state = state_memory(jl, "svgd")
    dp = lambda a: a.ctypes.data_as(C.POINTER(C.c_double))  # noqa: E731
    st = jl.sgs_svgd_init(state, cfg, dp(X), n, d, dp(ws), wl,
                          idx.ctypes.data_as(C.POINTER(C.c_uint32)), il, None,
                          C.cast(grads_tramp, C.c_void_p), C.cast(C.pointer(ud), C.c_void_p))
    assert st == 0 and cb.err is None
    summ = jl.structs["sgs_svgd_run_summary"]()
    st = jl.sgs_svgd_run(state, 50, C.byref(summ))
    assert st == 0 and summ.iterations == 50, (st, cb.err)
    p = sgsample.SVGD(X0.T, grads=M.mix_grads, batch_size=8, step_size=0.2, bandwidth=2.0,
                      seed=5).run(50)
    assert np.array_equal(X, p.T)


# ---------------------------------------------------------------------------------------------
# Batch{K}(energy, grad, θ0; chains) and run!(b, n): sgs_*_run_batch with the batched
# trampolines, k states in one contiguous buffer, d x k point matrices, a d x m x k output


def _split(r, k):  # split_rejects
    v, rej = r if isinstance(r, tuple) else (r, None)
    assert rej is None or len(rej) == k
    return v, rej


@C.CFUNCTYPE(C.c_int32, C.c_void_p, C.POINTER(C.c_double), C.c_size_t, C.c_size_t,
             C.POINTER(C.c_size_t), C.POINTER(C.c_double), C.POINTER(C.c_int32))
def batch_energy_tramp(ud, theta, k, d, chains, u, st):
    cb = _cb(ud)
    try:
        X = np.ctypeslib.as_array(theta, (k * d,)).reshape((d, k), order="F").copy(order="F")
        v, rej = _split(cb.energy_batch(X), k)
        np.ctypeslib.as_array(u, (k,))[:] = np.asarray(v, float)
        for i in range(k):
            if rej is not None and rej[i]:
                st[i] = 1  # SGS_CB_REJECT
        return 0
    except Exception as e:  # noqa: BLE001
        return _fail(cb, e)


@C.CFUNCTYPE(C.c_int32, C.c_void_p, C.POINTER(C.c_double), C.c_size_t, C.c_size_t,
             C.POINTER(C.c_uint64), C.POINTER(C.c_size_t), C.POINTER(C.c_double),
             C.POINTER(C.c_int32))
def batch_grad_tramp(ud, x, k, d, seeds, chains, g, st):
    cb = _cb(ud)
    try:
        X = np.ctypeslib.as_array(x, (k * d,)).reshape((d, k), order="F").copy(order="F")
        s = np.ctypeslib.as_array(seeds, (k,)).copy()
        G, rej = _split(cb.grad_batch(X, s), k)
        G = np.asarray(G, float)
        assert G.shape == (d, k)
        np.ctypeslib.as_array(g, (k * d,))[:] = G.ravel(order="F")
        for i in range(k):
            if rej is not None and rej[i]:
                st[i] = 1
        return 0
    except Exception as e:  # noqa: BLE001
        return _fail(cb, e)


class JuliaBatch:
    """Batch{K}(energy, grad, θ0; chains, step_size, seed, stream, max_calls, kw...)."""

    def __init__(self, jl, kind, energy, grad, theta0, chains, step_size, seed=0, stream=0,
                 max_calls=16, **kw):
        self.jl, self.kind, self.k = jl, kind, chains
        self.d = d = len(theta0)
        self.cb = Callbacks()
        self.cb.energy_batch, self.cb.grad_batch = energy, grad
        # The per-point closures init uses: one column.
        self.cb.energy = lambda t: float(_split(energy(t.reshape(d, 1, order="F")), 1)[0][0])
        self.cb.grad = lambda t, s: np.asarray(
            _split(grad(t.reshape(d, 1, order="F"), np.array([s], np.uint64)), 1)[0])[:, 0]
        self.ud = C.py_object(self.cb)
        size, align = (getattr(jl, f"sgs_{kind}_state_size")(),
                       getattr(jl, f"sgs_{kind}_state_align")())
        self.buf = (C.c_uint64 * (-(-(chains * size + align) // 8)))()
        addr = C.addressof(self.buf)
        self.base = addr + (-addr) % align
        S = jl.structs[f"sgs_{kind}"]
        self.states = C.cast(self.base, C.POINTER(S))
        self.configs, self.ws = [], []
        for c in range(chains):
            default = (jl.sgs_amagold_config_adaptive() if kind == "amagold" and step_size is None
                       else getattr(jl, f"sgs_{kind}_config_default")(step_size))
            cfg = C.pointer(with_fields(default, dict(kw, seed=seed, stream=stream + c)))
            wl = (jl.sgs_amagold_workspace_len_for(cfg, d) if kind == "amagold"
                  else getattr(jl, f"sgs_{kind}_workspace_len")(d))
            ws = np.zeros(max(wl, 1))
            th = np.array(theta0, float)
            args = [C.cast(self.base + c * size, C.POINTER(S)), cfg,
                    th.ctypes.data_as(C.POINTER(C.c_double)), d,
                    ws.ctypes.data_as(C.POINTER(C.c_double)), wl]
            if kind == "amagold":
                args.append(C.cast(energy_tramp, C.c_void_p))
            args += [C.cast(grad_tramp, C.c_void_p), C.cast(C.pointer(self.ud), C.c_void_p)]
            assert getattr(jl, f"sgs_{kind}_init")(*args) == 0
            self.configs.append(cfg)
            self.ws.append(ws)
        self.max_calls = max_calls
        n = getattr(jl, f"sgs_{kind}_batch_scratch_len")(chains, d, max_calls)
        self.scratch = np.zeros(max(n, 1))

    def run(self, n, chunk=7):
        jl, k, d = self.jl, self.k, self.d
        out = np.empty((d, n, k), order="F")  # Array{T,3}(undef, d, n, k)
        done = (C.c_size_t * k)()
        summ = (jl.structs["sgs_amagold_run_summary" if self.kind == "amagold"
                           else "sgs_chain_run_summary"] * k)()
        efn = C.cast(batch_energy_tramp, C.c_void_p) if self.kind == "amagold" else None
        total = 0
        while total < n:
            m = min(chunk, n - total)
            part = np.empty((d, m, k), order="F")  # the C API's chain-major k x m x d
            st = getattr(jl, f"sgs_{self.kind}_run_batch")(
                self.states, k, m, efn, C.cast(batch_grad_tramp, C.c_void_p),
                C.cast(C.pointer(self.ud), C.c_void_p),
                self.scratch.ctypes.data_as(C.POINTER(C.c_double)), self.scratch.size,
                self.max_calls, part.ctypes.data_as(C.POINTER(C.c_double)), part.size, done, summ)
            for c in range(k):
                out[:, total:total + done[c], c] = part[:, :done[c], c]
            if st != 0:
                e, self.cb.err = self.cb.err, None
                if e is not None:
                    raise e
                raise sgsample.Error(st, "run!")
            total += m
        return out


def _vectorised(energy, grad):
    def ve(X):
        return np.array([energy(X[:, r]) for r in range(X.shape[1])])

    def vg(X, seeds):
        return np.column_stack([grad(X[:, r], int(seeds[r])) for r in range(X.shape[1])])

    return ve, vg


def test_julia_batch_pattern_equals_separate_chains(jl):
    e2 = lambda t: M.dw_energy(t[:1]) + 0.5 * float(t[1]) * float(t[1])  # noqa: E731
    g2 = lambda t, s: np.array([M.dw_grad(t[:1], s)[0], t[1]])  # noqa: E731
    dense = jl.consts["SGS_MASS_DENSE"]
    cases = [
        ("amagold", (M.dw_energy, M.dw_grad), [0.5], 0.15, dict(friction=0.25, steps=10), 16),
        ("amagold", (e2, g2), [3.0, -2.0], None, dict(warmup=60, mass=dense, jitter_steps=1), 1),
        ("sghmc", (None, M.dw_grad), [0.5], 0.1, dict(steps=5), 16),
        ("sgld", (None, M.dw_grad), [0.5], 0.1, {}, 2),
    ]
    for kind, (e, g), th, eps, kw, max_calls in cases:
        ve, vg = _vectorised(e or (lambda t: 0.0), g)
        b = JuliaBatch(jl, kind, ve if e else None, vg, th, 3, eps, seed=7, stream=2,
                       max_calls=max_calls, **kw).run(90)
        for c in range(3):
            ch = JuliaChain(jl, kind, e, g, th, eps, seed=7, stream=2 + c, **kw).run(90)
            assert np.array_equal(b[:, :, c], ch), (kind, c)


def test_julia_batch_rejects_and_errors(jl):
    # (values, rejected) = OutOfDomain() per point; an exception aborts and is rethrown.
    ve, vg = _vectorised(M.dw_energy, M.dw_grad)

    def vr(X, s):
        return vg(X, s), [abs(X[0, r]) > 1.5 for r in range(X.shape[1])]

    def pr(t, s):
        if abs(t[0]) > 1.5:
            raise sgsample.OutOfDomain()
        return M.dw_grad(t, s)

    b = JuliaBatch(jl, "sgld", None, vr, [0.0], 3, 0.3, seed=2).run(200)
    for c in range(3):
        ch = JuliaChain(jl, "sgld", None, pr, [0.0], 0.3, seed=2, stream=c)
        assert np.array_equal(b[:, :, c], ch.run(200)), c
    calls = [0]

    def boom(X, s):
        calls[0] += 1
        if calls[0] == 20:
            raise KeyError("inside the vectorised callback")
        return vg(X, s)

    with pytest.raises(KeyError):
        JuliaBatch(jl, "amagold", ve, boom, [0.0], 3, 0.2).run(50)


def test_julia_noise_pattern_pinned(jl):
    # SGSample.normal(seed, n) / uniform(seed, n; T): the generated wrappers, the pinned values.
    out = np.empty(3)
    assert jl.sgs_normal(0, out.ctypes.data_as(C.POINTER(C.c_double)), 3) == 0
    assert list(out.view(np.uint64)) == [4604866114992135790, 4604690700726220116,
                                         13821958858590898646]
    assert jl.sgs_uniform(0, out.ctypes.data_as(C.POINTER(C.c_double)), 3) == 0
    assert list(out.view(np.uint64)) == [4602327445986093812, 4598672291840245262,
                                         4606322996006196477]
    f = np.empty(3, np.float32)
    assert jl.sgs_normal_f32(0, f.ctypes.data_as(C.POINTER(C.c_float)), 3) == 0
    assert np.array_equal(f, np.array([0.7428386180462903, 0.7233637223595601,
                                       -0.2728485114631928], np.float32))
    assert jl.sgs_normal(0, None, 3) == jl.consts["SGS_ERR_NULL_POINTER"]
