"""The raw function-pointer path, results, and Ctrl-C."""

import ctypes
import os
import signal
import threading
import time

import numpy as np
import pytest

import sgsample

import models as M


def test_raw_forms_agree(models):
    # ctypes symbol, ctypes CFUNCTYPE of a Python function, cffi callback, plain address.
    sd = np.array([1.0])
    ref = sgsample.sgld(sgsample.Raw(models.dw_grad, sd), [0.0], 300, step_size=0.05,
                        seed=1).samples
    addr = ctypes.cast(models.dw_grad, ctypes.c_void_p).value
    by_addr = sgsample.sgld(sgsample.Raw(addr, sd.ctypes.data), [0.0], 300, step_size=0.05,
                            seed=1)
    assert np.array_equal(ref, by_addr.samples)
    GRAD = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p, ctypes.POINTER(ctypes.c_double),
                            ctypes.c_size_t, ctypes.c_uint64, ctypes.POINTER(ctypes.c_double))

    @GRAD
    def ct_grad(ud, x, d, seed, g):
        g[0] = M.dw_grad([x[0]], seed)[0]
        return 0

    assert np.array_equal(ref, sgsample.sgld(sgsample.Raw(ct_grad), [0.0], 300,
                                             step_size=0.05, seed=1).samples)
    ffi = sgsample.ffi

    @ffi.callback("sgs_gradient_fn")
    def cffi_grad(ud, x, d, seed, g):
        g[0] = M.dw_grad([x[0]], seed)[0]
        return 0

    assert np.array_equal(ref, sgsample.sgld(sgsample.Raw(cffi_grad), [0.0], 300,
                                             step_size=0.05, seed=1).samples)


def test_raw_user_data_reaches_the_callback(models):
    count = np.zeros(1, np.uint64)
    s = sgsample.SGHMC(sgsample.Raw(models.count_grad, count), [1.0, 2.0], step_size=0.1, steps=4)
    s.run(25)
    assert count[0] == 25 * 4  # one gradient per inner step


def test_raw_and_python_user_data_cannot_mix(models):
    with pytest.raises(ValueError, match="mix"):
        sgsample.AMAGOLD(M.dw_energy, sgsample.Raw(models.dw_grad, np.ones(1)), [0.0],
                         step_size=0.1)


def test_numba_cfunc_if_available():
    numba = pytest.importorskip("numba")
    from numba import types as T

    sig = T.int32(T.voidptr, T.CPointer(T.float64), T.uintp, T.uint64, T.CPointer(T.float64))

    @numba.cfunc(sig)
    def grad(ud, x, d, seed, g):
        for i in range(d):
            g[i] = x[i]
        return 0

    res = sgsample.sgld(sgsample.Raw(grad), [1.0], 1000, step_size=0.05)
    assert abs(res.samples.mean()) < 0.5


def test_results_shape_dict_and_arviz(models):
    sd = np.array([1.0])
    res = sgsample.amagold(sgsample.Raw(models.dw_energy, sd), sgsample.Raw(models.dw_grad, sd),
                           np.array([[0.0], [1.0], [-1.0]]), 50, chains=3, step_size=0.25)
    assert res.samples.shape == (3, 50, 1)
    assert [i.iterations for i in res.info] == [50] * 3
    assert isinstance(res.info[0], sgsample.RunInfo) and res.info[0].sampler == "amagold"
    d = res.to_dict()
    assert d["posterior"]["theta"].shape == (3, 50, 1)
    # Per draw, every stat with a draw axis (per-chain totals shaped as one draw made ArviZ warn).
    assert set(d["sample_stats"]) == {"diverging", "accepted", "acceptance_rate", "step_size",
                                      "energy", "lp", "n_steps"}
    assert all(v.shape == (3, 50) for v in d["sample_stats"].values())
    assert d["attrs"]["seed"] == res.seed and "warmup_posterior" not in d
    # Different streams: different chains.
    assert not np.array_equal(res.samples[1], res.samples[2])
    try:
        import arviz  # noqa: F401
    except ImportError:
        with pytest.raises(ImportError):
            res.to_arviz()
    else:
        import warnings

        with warnings.catch_warnings():
            warnings.simplefilter("error")  # e.g. ArviZ's "more chains than draws"
            idata = res.to_arviz()
        assert idata.posterior["theta"].shape == (3, 50, 1)
        assert idata.sample_stats["diverging"].shape == (3, 50)
        assert idata.posterior.attrs["seed"] == res.seed


def _interrupt_after(seconds):
    t = threading.Timer(seconds, lambda: os.kill(os.getpid(), signal.SIGINT))
    t.start()
    return t


def test_ctrl_c_stops_a_raw_run_between_iterations(models):
    # No Python code runs inside the C calls: the chunked run must still notice SIGINT.
    sd = np.array([1.0])
    s = sgsample.AMAGOLD(sgsample.Raw(models.dw_energy, sd), sgsample.Raw(models.dw_grad, sd),
                         [0.0], step_size=0.25, steps=10)
    _interrupt_after(0.3)
    t0 = time.perf_counter()
    with pytest.raises(KeyboardInterrupt):
        s.run(10**8)  # minutes at full speed
    assert time.perf_counter() - t0 < 5
    assert s.info.iterations > 0
    assert s.run(3).shape == (3, 1)  # still usable


def test_ctrl_c_inside_a_python_callback():
    s = sgsample.SGLD(M.dw_grad, [0.0], step_size=0.01)
    _interrupt_after(0.3)
    with pytest.raises(KeyboardInterrupt):
        s.run(10**8)
    assert s.run(2).shape == (2, 1)


def test_numpy_user_data_layout(models):
    # The data pointer is passed as it is: a strided view would be read as the underlying
    # buffer's elements ([0, 1, 2] for np.arange(6.)[::2]), so it is refused, as are object arrays.
    for bad in (np.arange(6.0)[::2], np.zeros((3, 2))[:, 0], np.zeros((2, 3)).T,
                np.array([1.0, None], dtype=object)):
        with pytest.raises(sgsample.InvalidInput) as e:
            sgsample.Raw(models.dw_grad, bad)
        assert e.value.name == "SGS_ERR_INVALID_ARGUMENT"
    # Any plain-memory dtype goes through unconverted: the address of the first element.
    for ok in (np.arange(3.0), np.arange(3, dtype=np.float32), np.zeros(1, np.uint64),
               np.zeros((2, 3))[1], np.zeros((3, 2), order="F")[:, 0]):
        assert sgsample.Raw(models.dw_grad, ok).user_data_address == ok.ctypes.data
