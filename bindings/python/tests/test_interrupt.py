"""Ctrl-C (SIGINT) during a run, with every kind of callback: every draw made is kept, the totals
are exact, and running on is bit-identical to a run that was never interrupted."""

import ctypes
import os
import signal
import threading

import numpy as np
import pytest

import sgsample

import models as M

ffi = sgsample.ffi
D = ctypes.POINTER(ctypes.c_double)
CT_ENERGY = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p, D, ctypes.c_size_t, D)
CT_GRAD = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p, D, ctypes.c_size_t, ctypes.c_uint64, D)


@ffi.callback("sgs_energy_fn")
def _cffi_energy(ud, x, d, u):
    u[0] = M.dw_energy([x[0]])
    return 0


@ffi.callback("sgs_gradient_fn")
def _cffi_grad(ud, x, d, seed, g):
    g[0] = M.dw_grad([x[0]], seed)[0]
    return 0


@CT_ENERGY
def _ct_energy(ud, x, d, u):
    u[0] = M.dw_energy([x[0]])
    return 0


@CT_GRAD
def _ct_grad(ud, x, d, seed, g):
    g[0] = M.dw_grad([x[0]], seed)[0]
    return 0


def _callbacks(kind, models):
    sd = np.array([1.0])
    return {
        "python": (M.dw_energy, M.dw_grad),
        "raw-c": (sgsample.Raw(models.dw_energy, sd), sgsample.Raw(models.dw_grad, sd)),
        "raw-cffi": (sgsample.Raw(_cffi_energy), sgsample.Raw(_cffi_grad)),
        "raw-ctypes": (sgsample.Raw(_ct_energy), sgsample.Raw(_ct_grad)),
    }[kind]


def _sigint_after(seconds):
    t = threading.Timer(seconds, lambda: os.kill(os.getpid(), signal.SIGINT))
    t.start()
    return t


KINDS = ["python", "raw-c", "raw-cffi", "raw-ctypes"]


@pytest.mark.parametrize("kind", KINDS)
def test_ctrl_c_keeps_every_draw_and_resumes_bit_for_bit(kind, models):
    energy, grad = _callbacks(kind, models)
    make = lambda: sgsample.AMAGOLD(energy, grad, [0.5], step_size=0.25, steps=5,  # noqa: E731
                                    seed=11, stream=2)
    a = make()
    a.run(7)
    before = a.info.iterations
    _sigint_after(0.3)
    with pytest.raises(KeyboardInterrupt) as e:
        a.run(10**7)
    rows = e.value.partial
    assert rows is a.partial and rows.shape[1] == 1 and 0 < rows.shape[0] < 10**7
    n = rows.shape[0]
    # The totals count exactly the rows kept: no chunk lost, none counted twice.
    assert a.info.iterations == before + n
    np.testing.assert_array_equal(a.position, rows[-1])
    rest = a.run(20)
    b = make()
    ref = b.run(7 + n + 20)
    np.testing.assert_array_equal(np.concatenate([rows, rest]), ref[7:])
    assert (a.info.iterations, a.info.accepted, a.info.divergences) == \
        (b.info.iterations, b.info.accepted, b.info.divergences)


def test_raw_callbacks_never_see_the_interrupt():
    seen = []

    @CT_GRAD
    def grad(ud, x, d, seed, g):
        try:
            g[0] = M.dw_grad([x[0]], seed)[0]
        except BaseException as exc:  # noqa: BLE001
            seen.append(exc)
            raise
        return 0

    s = sgsample.SGLD(sgsample.Raw(grad), [0.0], step_size=0.05, seed=1)
    _sigint_after(0.3)
    with pytest.raises(KeyboardInterrupt):
        s.run(10**7)
    assert seen == []
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler  # restored


def test_multi_chain_interrupt_returns_the_finished_chains():
    grad = M.failing_at(2 * 300 + 120, M.dw_grad, KeyboardInterrupt())  # in the third chain
    with pytest.raises(KeyboardInterrupt) as e:
        sgsample.sgld(grad, [0.0], 300, chains=4, step_size=0.05, seed=8)
    p = e.value.partial
    assert isinstance(p, sgsample.Partial) and p.complete == [True, True, False]
    assert [x.shape for x in p.samples] == [(300, 1), (300, 1), (119, 1)]
    assert [i.iterations for i in p.info] == [300, 300, 119]
    ref = sgsample.sgld(M.dw_grad, [0.0], 300, chains=3, step_size=0.05, seed=8).samples
    np.testing.assert_array_equal(p.samples[0], ref[0])
    np.testing.assert_array_equal(p.samples[1], ref[1])
    np.testing.assert_array_equal(p.samples[2], ref[2, :119])
    assert p.seed == 8


def test_multi_chain_error_in_the_warmup_keeps_its_rows():
    energy = M.failing_at(30, M.dw_energy)
    with pytest.raises(RuntimeError) as e:
        sgsample.amagold(energy, M.dw_grad, [0.0], 100, step_size=0.2, warmup=50, seed=1)
    p = e.value.partial
    assert p.complete == [False] and p.samples[0].shape == (0, 1)
    assert p.warmup_samples[0].shape[0] == p.info[0].iterations > 0


def test_svgd_ctrl_c_with_raw_callbacks_keeps_exact_particles(models):
    x0 = np.linspace(-3, 3, 16)[:, None]
    make = lambda: sgsample.SVGD(x0, grads=sgsample.Raw(models.mix_grads),  # noqa: E731
                                 step_size=0.05, seed=3)
    s = make()
    _sigint_after(0.3)
    with pytest.raises(KeyboardInterrupt):
        s.run(10**9)
    n = s.info.iterations
    assert n > 0
    np.testing.assert_array_equal(s.particles, make().run(n))
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
