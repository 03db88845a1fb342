"""Bit-identical to the C library: the same samplers, seeds and callbacks called from C
(tests/bitcheck.c) and through this binding, with the callbacks in Python (tests/models.py) and as
raw C pointers (tests/models.c)."""

import numpy as np
import pytest

import sgsample

import models as M

DRAWS, NP, ITERS = 500, 32, 100


REPORT_BYTES = sgsample.ffi.sizeof("sgs_warmup_report")


def c_results(raw):
    sizes = [("f8", DRAWS)] * 3 + [("f4", DRAWS), ("f8", NP), ("f8", 2 * DRAWS), ("f8", 2)]
    # The warm-up API's runs: dense warm-up samples, its d x d matrix, its raw report; hand-off.
    sizes += [("f8", 2 * DRAWS), ("f8", 4), ("u1", REPORT_BYTES), ("f8", 2 * DRAWS)]
    out, off = [], 0
    for dt, n in sizes:
        a = np.frombuffer(raw, dtype=dt, count=n, offset=off)
        off += a.nbytes
        out.append(a)
    assert off == len(raw)
    return out


def py_results(models, raw):
    R = sgsample.Raw
    sd = np.array([1.0])
    if raw:
        e, g, e32, g32, gs = (R(models.dw_energy, sd), R(models.dw_grad, sd),
                              R(models.dw_energy_f32), R(models.dw_grad_f32), R(models.mix_grads))
    else:
        e, g, e32, g32, gs = M.dw_energy, M.dw_grad, M.dw_energy, M.dw_grad_f32, M.mix_grads
    a = sgsample.AMAGOLD(e, g, [0.5], step_size=0.25, friction=0.25, steps=10, seed=7, stream=3)
    h = sgsample.SGHMC(g, [0.5], step_size=0.1, friction=1.0, steps=5, seed=11)
    l = sgsample.SGLD(g, [0.5], step_size=0.05, seed=13)
    a32 = sgsample.AMAGOLD(e32, g32, [0.5], step_size=0.25, friction=0.25, steps=10, seed=7,
                           stream=3, dtype=np.float32)
    x0 = -10.0 + 0.125 * np.arange(NP)
    s = sgsample.SVGD(x0, grads=gs, batch_size=8, step_size=0.2, bandwidth=2.0, seed=5)
    # The mass-matrix warm-up on a Gaussian with scales 1 and 0.01 (bitcheck.c's last run).
    scales, noise = (1.0, 0.01), 0.5
    if raw:
        ud = np.array([*scales, noise])
        ge, gg = R(models.gauss_energy, ud), R(models.gauss_grad, ud)
    else:
        ge = lambda t: M.gauss_energy(t, scales)  # noqa: E731
        gg = lambda t, seed: M.gauss_grad(t, seed, scales, noise)  # noqa: E731
    m = sgsample.AMAGOLD(ge, gg, [0.5, 0.005], step_size=0.001, warmup=200, mass="diagonal",
                         seed=9, stream=1)
    out = [a.run(DRAWS)[:, 0], h.run(DRAWS)[:, 0], l.run(DRAWS)[:, 0], a32.run(DRAWS)[:, 0],
           s.run(ITERS)[:, 0], m.run(DRAWS).ravel(), m.inverse_mass]
    # The warm-up API (bitcheck.c's last two runs): a dense warm-up from 200 sds away with
    # jittered T (the adaptive configuration, warm-up 300), then a fresh chain given ε and K.
    w = sgsample.AMAGOLD(ge, gg, [200.0, 2.0], warmup=300, mass="dense", jitter_steps=True,
                         seed=17, stream=2)
    out += [w.run(DRAWS).ravel(), w.inverse_mass_dense.ravel(),
            report_bytes(w.warmup_report())]
    f = sgsample.AMAGOLD(ge, gg, [0.5, 0.5], 0.1, mass="dense", seed=19)
    f.step_size = 0.37
    f.inverse_mass_dense = [[2.0, 0.5], [0.5, 1.0]]
    return out + [f.run(DRAWS).ravel()]


def report_bytes(r):
    """The C struct a WarmupReport came from, rebuilt field by field (so the conversion is
    checked to be lossless too)."""
    c = sgsample.ffi.new("sgs_warmup_report *")
    verdicts = {v: k for k, v in sgsample._VERDICT_NAMES.items()}
    for _, name, _ in sgsample.header.structs["sgs_warmup_report"]:
        value = {"verdict": verdicts[r.verdict], "reasons": r.reason_flags, "reserved": 0}.get(name)
        setattr(c, name, getattr(r, name) if value is None else value)
    return np.frombuffer(sgsample.ffi.buffer(c), np.uint8).copy()


@pytest.mark.parametrize("raw", [False, True], ids=["python-callbacks", "raw-pointers"])
def test_bit_identical_to_c(bitcheck_output, models, raw):
    names = ["amagold", "sghmc", "sgld", "amagold_f32", "svgd", "amagold_mass", "inverse_mass",
             "amagold_dense_warmup", "inverse_mass_dense", "warmup_report", "amagold_handoff"]
    for name, c, p in zip(names, c_results(bitcheck_output), py_results(models, raw)):
        assert c.dtype == p.dtype, name
        assert np.array_equal(c.view(f"u{c.itemsize}"), p.view(f"u{p.itemsize}")), name
        assert np.unique(c).size > DRAWS // 20 if c.size == DRAWS else True, name  # chain moves
    k = c_results(bitcheck_output)[6]
    assert k[0] / k[1] > 100.0, k  # the mass was learnt (variances 10⁴ apart), not left at one
    kd = c_results(bitcheck_output)[8]
    assert kd[0] / kd[3] > 100.0 and kd[1] == kd[2], kd  # the dense one too, symmetric
