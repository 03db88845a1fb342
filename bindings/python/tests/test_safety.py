"""Hostile cases (unsafe paths and silent failures): what reaches C is type-checked,
user_data is the memory it stands for, nothing the state reads can be swapped, and a callback
that returns nonsense raises instead of becoming NaN."""

import ctypes
import gc

import numpy as np
import pytest

import sgsample

import models as M

ffi = sgsample.ffi
D = ctypes.POINTER(ctypes.c_double)
GRAD_T = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p, D, ctypes.c_size_t, ctypes.c_uint64, D)


def test_ctypes_pointer_user_data_is_its_pointee(models):
    count = ctypes.c_uint64(0)
    s = sgsample.SGHMC(sgsample.Raw(models.count_grad, ctypes.pointer(count)), [1.0],
                       step_size=0.1, steps=4)
    s.run(25)
    assert count.value == 25 * 4


@pytest.mark.parametrize("make", [
    lambda: (ctypes.c_uint64 * 1)(), lambda: ctypes.c_uint64(0),
])
def test_ctypes_buffers_are_their_own_memory(models, make):
    mem = make()
    raw = sgsample.Raw(models.count_grad, mem)
    assert raw.user_data_address == ctypes.addressof(mem)
    sgsample.SGLD(raw, [0.0], step_size=0.1).run(7)
    assert np.frombuffer(mem, np.uint64)[0] == 7


def test_cffi_and_bytes_user_data(models):
    p = ffi.new("uint64_t *")
    sgsample.SGLD(sgsample.Raw(models.count_grad, p), [0.0], step_size=0.1).run(5)
    assert p[0] == 5
    b = bytearray(8)
    sgsample.SGLD(sgsample.Raw(models.count_grad, b), [0.0], step_size=0.1).run(3)
    assert int.from_bytes(b, "little") == 3
    data = bytes(8)
    assert sgsample.Raw(models.dw_grad, data).user_data_address == \
        int(ffi.cast("uintptr_t", ffi.from_buffer(data)))


@pytest.mark.parametrize("bad", [[1.0], 3.5, "abc", object(), True, ffi.cast("int", 5)])
def test_user_data_that_is_not_memory_is_refused(models, bad):
    with pytest.raises(TypeError):
        sgsample.Raw(models.dw_grad, bad)


def test_cffi_callback_types_are_checked(models):
    @ffi.callback("sgs_energy_fn")
    def energy(ud, x, d, u):
        u[0] = 0.5 * x[0] * x[0]
        return 0

    @ffi.callback("sgs_gradient_fn_f32")
    def grad32(ud, x, d, seed, g):
        g[0] = x[0]
        return 0

    @ffi.callback("sgs_gradients_fn")
    def grads(ud, x, n, d, seed, g):
        return 0

    good = sgsample.Raw(models.dw_grad, np.ones(1))
    # An energy in the gradient slot, a gradient in the energy slot: each would read the
    # arguments of the other (a crash); a float32 gradient for a float64 chain is silently wrong.
    with pytest.raises(TypeError, match="sgs_gradient_fn"):
        sgsample.SGLD(sgsample.Raw(energy), [0.0], step_size=0.1)
    with pytest.raises(TypeError, match="sgs_energy_fn"):
        sgsample.AMAGOLD(good, good, [0.0], step_size=0.1)
    with pytest.raises(TypeError, match="sgs_gradient_fn"):
        sgsample.SGLD(sgsample.Raw(grad32), [0.0], step_size=0.1)
    with pytest.raises(TypeError, match="sgs_gradient_fn"):
        sgsample.SGLD(sgsample.Raw(grads), [0.0], step_size=0.1)
    # The right types are accepted, also in the float32 chain.
    sgsample.SGLD(sgsample.Raw(grad32), [0.0], step_size=0.1, dtype=np.float32).run(3)
    sgsample.AMAGOLD(sgsample.Raw(energy), good, [0.0], step_size=0.1).run(3)


def test_ctypes_callback_types_are_checked(models):
    F = ctypes.POINTER(ctypes.c_float)
    grad32_t = ctypes.CFUNCTYPE(ctypes.c_int32, ctypes.c_void_p, F, ctypes.c_size_t,
                                ctypes.c_uint64, F)
    wrong = grad32_t(lambda ud, x, d, seed, g: 0)
    with pytest.raises(TypeError, match="sgs_gradient_fn"):
        sgsample.SGLD(sgsample.Raw(wrong), [0.0], step_size=0.1)
    with pytest.raises(TypeError, match="sgs_energy_fn"):  # a gradient in the energy slot
        sgsample.AMAGOLD(sgsample.Raw(models.dw_grad, np.ones(1)),
                         sgsample.Raw(models.dw_grad, np.ones(1)), [0.0], step_size=0.1)
    # An untyped symbol cannot be checked: refused, with the way out named.
    untyped = ctypes.CDLL(models._name).dw_grad
    with pytest.raises(TypeError, match="argtypes"):
        sgsample.Raw(untyped)._check_type("sgs_gradient_fn")
    with pytest.raises(TypeError, match="argtypes"):
        sgsample.SGLD(sgsample.Raw(untyped, np.ones(1)), [0.0], step_size=0.1)
    # The int address is the documented, unchecked escape hatch.
    addr = ctypes.cast(untyped, ctypes.c_void_p).value
    sgsample.SGLD(sgsample.Raw(addr, np.ones(1)), [0.0], step_size=0.1).run(2)


def test_raw_attributes_are_read_only_and_keep_user_data_alive(models):
    count = np.zeros(1, np.uint64)
    raw = sgsample.Raw(models.count_grad, count)
    for name, value in (("user_data", None), ("fn", None), ("address", 0),
                        ("user_data_address", 0)):
        with pytest.raises(AttributeError):
            setattr(raw, name, value)
    s = sgsample.SGLD(raw, [0.0], step_size=0.1)
    del raw, count
    gc.collect()
    s.run(10)  # the array C writes into is still alive (kept by the sampler's Raw)
    (kept,) = [r for r in s._cb.keep if isinstance(r, sgsample.Raw)]
    assert kept.user_data[0] == 10


@pytest.mark.parametrize("make", [
    lambda: sgsample.AMAGOLD(M.dw_energy, M.dw_grad, [0.0], step_size=0.1),
    lambda: sgsample.SGLD(M.dw_grad, [0.0], step_size=0.1, dtype=np.float32),
    lambda: sgsample.SVGD(np.zeros((3, 1)), M.dw_grad, step_size=0.1),
])
def test_state_shaping_attributes_are_read_only(make):
    s = make()
    for name, value in (("dtype", np.float64 if s.dtype == np.float32 else np.float32),
                        ("dim", 3), ("theta0", np.zeros(3)), ("n", 7)):
        if hasattr(s, name):
            with pytest.raises(AttributeError):
                setattr(s, name, value)
    if isinstance(s, sgsample.SVGD):
        assert s.particles.shape == (3, 1)
    else:
        assert s.position.shape == (1,)


@pytest.mark.parametrize("energy, grad, what", [
    (lambda th: None, M.dw_grad, "energy"),
    (M.dw_energy, lambda th, seed: None, "grad"),
    (M.dw_energy, lambda th, seed: np.array(["1.0"]), "grad"),
    (lambda th: "0.5", M.dw_grad, "energy"),
    (M.dw_energy, lambda th, seed: [None], "grad"),
])
def test_callback_returning_nonsense_raises_and_keeps_the_chain(energy, grad, what):
    # None became NaN (every proposal a divergence, no error); "1.0" was parsed as a number.
    calls = {"n": 0}

    def first_fine(th, *a):
        calls["n"] += 1
        return (M.dw_energy if not a else M.dw_grad)(th, *a) if calls["n"] < 40 else \
            (energy if not a else grad)(th, *a)

    s = sgsample.AMAGOLD(lambda th: first_fine(th) if what == "energy" else M.dw_energy(th),
                         lambda th, seed: first_fine(th, seed) if what == "grad"
                         else M.dw_grad(th, seed), [0.3], step_size=0.2, steps=3)
    with pytest.raises(TypeError, match=what):
        s.run(100)
    done = s.info.iterations
    assert s.partial.shape == (done, 1) and done < 100
    np.testing.assert_array_equal(s.position, s.partial[-1] if done else [0.3])


def test_wrong_shape_is_a_value_error_naming_the_callback():
    s = sgsample.SGLD(lambda th, seed: np.zeros(2), [0.0, 1.0, 2.0], step_size=0.1)
    with pytest.raises(ValueError, match="grad returned shape"):
        s.run(1)


@pytest.mark.parametrize("theta0", [["1.0"], "1.5", [1.0, None], np.array(["2"])])
def test_numeric_strings_are_not_positions(theta0):
    with pytest.raises(sgsample.InvalidInput, match="real numbers"):
        sgsample.SGLD(M.dw_grad, theta0, step_size=0.1)
    with pytest.raises(sgsample.InvalidInput, match="real numbers"):
        sgsample.sgld(M.dw_grad, theta0, 5, step_size=0.1)


def test_svgd_refuses_grad_and_grads_together():
    with pytest.raises(ValueError, match="not both"):
        sgsample.SVGD(np.zeros((4, 1)), M.dw_grad, grads=M.mix_grads, step_size=0.1)


@pytest.mark.parametrize("bad", [np.nan, np.inf])
def test_ksd_of_non_finite_particles_is_refused(bad):
    x = np.linspace(-1, 1, 10).reshape(5, 2)
    g = x.copy()
    for which in ("particles", "grads"):
        xx, gg = x.copy(), g.copy()
        (xx if which == "particles" else gg)[2, 1] = bad
        with pytest.raises(ValueError, match=which):
            sgsample.ksd(xx, gg)


def test_partial_is_only_this_runs_rows():
    s = sgsample.SGLD(M.failing_at(30, M.dw_grad), [0.0], step_size=0.1)
    with pytest.raises(RuntimeError) as e:
        s.run(100)
    assert s.partial.shape == (29, 1) and e.value.partial is s.partial
    s.run(5)
    assert s.partial is None  # not the earlier run's rows


def test_functions_of_a_cffi_opened_library_are_checked(models):
    import cffi

    own = cffi.FFI()  # the user's own FFI, not sgsample's: the types still compare
    own.cdef("int32_t dw_grad(void *, const double *, size_t, uint64_t, double *);"
             "int32_t dw_energy(void *, const double *, size_t, double *);")
    so = own.dlopen(models._name)
    sd = np.ones(1)
    res = sgsample.sgld(sgsample.Raw(so.dw_grad, sd), [0.0], 50, step_size=0.1, seed=1)
    ref = sgsample.sgld(sgsample.Raw(models.dw_grad, sd), [0.0], 50, step_size=0.1, seed=1)
    np.testing.assert_array_equal(res.samples, ref.samples)
    with pytest.raises(TypeError, match="sgs_gradient_fn"):
        sgsample.sgld(sgsample.Raw(so.dw_energy, sd), [0.0], 5, step_size=0.1)
