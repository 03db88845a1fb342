"""Bad inputs raise InvalidInput (a ValueError) carrying the status; callback errors re-raise."""

import math
import traceback

import numpy as np
import pytest

import sgsample

import models as M

S = dict(sgsample.header.enums["sgs_status"])


@pytest.mark.parametrize("kwargs, status", [
    (dict(step_size=-1.0), "SGS_ERR_INVALID_STEP_SIZE"),
    (dict(step_size=math.nan), "SGS_ERR_INVALID_STEP_SIZE"),
    (dict(step_size=0.1, steps=0), "SGS_ERR_INVALID_STEPS"),
    (dict(step_size=0.1, friction=-1.0), "SGS_ERR_INVALID_FRICTION"),
    (dict(step_size=0.1, momentum_sd=0.0), "SGS_ERR_INVALID_MOMENTUM_SCALE"),
    (dict(step_size=0.1, warmup=10, target_accept=1.5), "SGS_ERR_INVALID_TARGET_ACCEPTANCE"),
    (dict(step_size=0.1, variant=7), "SGS_ERR_INVALID_OPTION"),
    (dict(step_size=0.1, warmup=19, mass="diagonal"), "SGS_ERR_INVALID_WARMUP"),
    (dict(step_size=0.1, warmup=1, mass="dense"), "SGS_ERR_INVALID_WARMUP"),
    (dict(warmup=19), "SGS_ERR_INVALID_WARMUP"),  # the adaptive configuration: diagonal mass
    (dict(step_size=0.1, warmup=50, mass="sideways"), "SGS_ERR_INVALID_OPTION"),
    (dict(step_size=0.1, mass=7), "SGS_ERR_INVALID_OPTION"),
    (dict(step_size=0.1, warmup=50, approach=2), "SGS_ERR_INVALID_OPTION"),
    (dict(step_size=0.1, jitter_steps=2), "SGS_ERR_INVALID_OPTION"),
])
def test_amagold_bad_config(kwargs, status):
    with pytest.raises(ValueError) as e:
        sgsample.AMAGOLD(M.dw_energy, M.dw_grad, [0.0], **kwargs)
    assert isinstance(e.value, sgsample.Error) and e.value.status == S[status]
    assert e.value.name == status and status in str(e.value)


def test_bad_positions_and_shapes():
    with pytest.raises(sgsample.InvalidInput) as e:
        sgsample.SGHMC(M.dw_grad, [math.nan], step_size=0.1)
    assert e.value.status == S["SGS_ERR_INVALID_POSITION"]
    with pytest.raises(sgsample.InvalidInput) as e:
        sgsample.SGLD(M.dw_grad, np.zeros(0), step_size=0.1)
    assert e.value.status == S["SGS_ERR_ZERO_DIMENSION"]
    with pytest.raises(ValueError):
        sgsample.SGLD(M.dw_grad, np.zeros((2, 2)), step_size=0.1)
    with pytest.raises(ValueError):
        sgsample.amagold(M.dw_energy, M.dw_grad, np.zeros((3, 1)), 10, chains=2, step_size=0.1)
    with pytest.raises(ValueError):
        sgsample.SGLD(M.dw_grad, [0.0], step_size=0.1, dtype=np.int32)


def test_unknown_options():
    with pytest.raises(TypeError, match="unknown amagold option"):
        sgsample.AMAGOLD(M.dw_energy, M.dw_grad, [0.0], step_size=0.1, stepz=3)
    with pytest.raises(ValueError, match="variant"):
        sgsample.AMAGOLD(M.dw_energy, M.dw_grad, [0.0], step_size=0.1, variant="sideways")
    with pytest.raises(ValueError, match="kernel"):
        sgsample.SVGD(np.zeros((4, 1)), M.dw_grad, step_size=0.1, kernel="box")
    with pytest.raises(TypeError):
        sgsample.SGLD(42, [0.0], step_size=0.1)


@pytest.mark.parametrize("kwargs, status", [
    (dict(batch_size=1, step_size=0.1), "SGS_ERR_INVALID_BATCH_SIZE"),
    (dict(batch_size=9, step_size=0.1), "SGS_ERR_INVALID_BATCH_SIZE"),
    (dict(step_size=0.1, bandwidth=-2.0), "SGS_ERR_INVALID_BANDWIDTH"),
    (dict(step_size=0.1, step_rule="adagrad", adagrad_alpha=1.0), "SGS_ERR_INVALID_STEP_RULE"),
    (dict(step_size=0.0), "SGS_ERR_INVALID_STEP_SIZE"),
])
def test_svgd_bad_config(kwargs, status):
    with pytest.raises(sgsample.InvalidInput) as e:
        sgsample.SVGD(np.zeros((8, 1)), grads=M.mix_grads, **kwargs)
    assert e.value.status == S[status]


def test_svgd_needs_a_gradient():
    with pytest.raises(sgsample.InvalidInput) as e:
        sgsample.SVGD(np.zeros((8, 1)), step_size=0.1)
    assert e.value.status == S["SGS_ERR_NULL_POINTER"]


def test_minibatch():
    b = sgsample.minibatch(123, 10, 4)
    assert b.dtype == np.uint64 and len(set(b.tolist())) == 4 and b.max() < 10
    assert np.array_equal(b, sgsample.minibatch(123, 10, 4))
    with pytest.raises(sgsample.InvalidInput) as e:
        sgsample.minibatch(1, 3, 5)
    assert e.value.status == S["SGS_ERR_INVALID_MINIBATCH"]


def test_initial_energy_rejected_is_not_a_value_error():
    with pytest.raises(sgsample.Error) as e:
        sgsample.AMAGOLD(lambda t: math.nan, M.dw_grad, [0.0], step_size=0.1)
    assert e.value.status == S["SGS_ERR_INITIAL_ENERGY_REJECTED"]
    assert not isinstance(e.value, ValueError)


class Boom(Exception):
    pass


def test_exception_in_callback_aborts_and_is_reraised_with_traceback():
    calls = []

    def grad(t, seed):
        calls.append(seed)
        if len(calls) == 40:
            raise Boom("from the gradient")
        return M.dw_grad(t, seed)

    s = sgsample.SGHMC(grad, [0.0], step_size=0.1, steps=5, seed=1)
    with pytest.raises(Boom, match="from the gradient") as e:
        s.run(100)
    assert "raise Boom" in "".join(traceback.format_tb(e.value.__traceback__))
    # The chain kept its last completed iteration and goes on from there.
    done = s.info.iterations
    assert 0 < done < 100 and s.partial.shape == (done, 1)
    assert np.array_equal(s.position, s.partial[-1])
    calls.clear()
    s._cb.py.grad = M.dw_grad
    assert s.run(10).shape == (10, 1)


def test_energy_may_return_a_one_element_array():
    # numpy 2 refuses float() on a 1-element 1-d array; the binding takes its one value (the
    # same numbers as a scalar energy) and refuses a longer one.
    def run(energy):
        return sgsample.amagold(energy, M.dw_grad, [0.0], 50, step_size=0.1, seed=4).samples

    scalar = run(M.dw_energy)
    assert np.array_equal(run(lambda t: np.array([M.dw_energy(t)])), scalar)
    assert np.array_equal(run(lambda t: np.array([[M.dw_energy(t)]])), scalar)
    with pytest.raises(ValueError, match="scalar"):
        run(lambda t: np.array([M.dw_energy(t), 0.0]))


def test_exception_in_energy_and_bad_return_shape():
    def energy(t):
        raise KeyError("energy")

    with pytest.raises(KeyError):
        sgsample.AMAGOLD(energy, M.dw_grad, [0.0], step_size=0.1)
    with pytest.raises(ValueError, match="shape"):
        sgsample.sgld(lambda t, s: np.zeros(3), [0.0], 5, step_size=0.1)
    with pytest.raises(ZeroDivisionError):
        sgsample.svgd(np.zeros((4, 1)), 3, grads=lambda X, s: 1 / 0, step_size=0.1)


def test_out_of_domain_rejects():
    # theta must stay below 1: OutOfDomain -> SGS_CB_REJECT -> the iteration is discarded.
    def grad(t, seed):
        if t[0] > 1.0:
            raise sgsample.OutOfDomain
        return M.dw_grad(t, seed)

    res = sgsample.sghmc(grad, [0.0], 2000, step_size=0.2, steps=5, seed=3)
    assert res.samples.max() <= 1.0


@pytest.mark.parametrize("make", [
    lambda: sgsample.SGLD(M.dw_grad, [0.0], step_size=0.1, seed=-1),
    lambda: sgsample.SGLD(M.dw_grad, [0.0], step_size=0.1, seed=2**64),
    lambda: sgsample.SGHMC(M.dw_grad, [0.0], step_size=0.1, steps=-1),
    lambda: sgsample.SGHMC(M.dw_grad, [0.0], step_size=0.1, steps=2.5),
    lambda: sgsample.SGLD(M.dw_grad, [0.0], step_size="0.1"),
    lambda: sgsample.AMAGOLD(M.dw_energy, M.dw_grad, [0.0], step_size=0.1, warmup=-3),
    lambda: sgsample.SVGD(np.zeros((4, 1)), grads=M.mix_grads, step_size=0.1, batch_size=-1),
    lambda: sgsample.SVGD(np.zeros((4, 1)), grads=M.mix_grads, step_size=0.1, stream=-2),
    lambda: sgsample.minibatch(-1, 10, 3),
    lambda: sgsample.minibatch(0, 10, -1),
    lambda: sgsample.minibatch(0, 10.5, 3),
    lambda: sgsample.sgld(M.dw_grad, [0.0], 5, step_size=0.1, stream=-1),
])
def test_bad_integers_and_types_raise_invalid_input(make):
    # cffi's OverflowError / TypeError for a negative count or a wrong type become the
    # binding's InvalidInput (a ValueError), as the README promises for bad arguments.
    with pytest.raises(sgsample.InvalidInput) as e:
        make()
    assert e.value.status == S["SGS_ERR_INVALID_ARGUMENT"]


def test_shape_and_choice_errors_are_invalid_input():
    cases = [
        (lambda: sgsample.SGLD(M.dw_grad, np.zeros((2, 2)), step_size=0.1),
         "SGS_ERR_LENGTH_MISMATCH"),
        (lambda: sgsample.amagold(M.dw_energy, M.dw_grad, np.zeros((3, 1)), 10, chains=2,
                                  step_size=0.1), "SGS_ERR_LENGTH_MISMATCH"),
        (lambda: sgsample.SVGD(np.zeros((2, 2, 2)), grads=M.mix_grads, step_size=0.1),
         "SGS_ERR_LENGTH_MISMATCH"),
        (lambda: sgsample.SGLD(M.dw_grad, [0.0], step_size=0.1, dtype=np.int32),
         "SGS_ERR_INVALID_ARGUMENT"),
        (lambda: sgsample.AMAGOLD(M.dw_energy, M.dw_grad, [0.0], step_size=0.1,
                                  variant="sideways"), "SGS_ERR_INVALID_OPTION"),
        (lambda: sgsample.ess([]), "SGS_ERR_INVALID_ARGUMENT"),
    ]
    for make, status in cases:
        with pytest.raises(sgsample.InvalidInput) as e:
            make()
        assert e.value.name == status


def test_svgd_out_of_domain_is_gradient_rejected():
    # SVGD has no proposal to reject: OutOfDomain stops the run with SGS_ERR_GRADIENT_REJECTED
    # (an Error, not InvalidInput), the particles those of the last completed iteration.
    calls = [0]

    def grads(X, seed):
        calls[0] += 1
        if calls[0] == 4:
            raise sgsample.OutOfDomain
        return M.mix_grads(X, seed)

    s = sgsample.SVGD(np.linspace(-1, 1, 6)[:, None], grads=grads, step_size=0.1, seed=2)
    with pytest.raises(sgsample.Error) as e:
        s.run(10)
    assert e.value.name == "SGS_ERR_GRADIENT_REJECTED" and not isinstance(e.value, ValueError)
    ref = sgsample.SVGD(np.linspace(-1, 1, 6)[:, None], grads=M.mix_grads, step_size=0.1, seed=2)
    assert np.array_equal(s.particles, ref.run(s.info.iterations))


def test_complex_inputs_are_refused_not_cast():
    # numpy casts complex to real with only a ComplexWarning, dropping the imaginary part.
    with pytest.raises(sgsample.InvalidInput):
        sgsample.SGLD(M.dw_grad, [0.5 + 1j], step_size=0.1)
    with pytest.raises(sgsample.InvalidInput):
        sgsample.svgd(np.zeros((4, 1), dtype=complex), 3, grads=lambda X, s: X.real, step_size=0.1)
    with pytest.raises(sgsample.InvalidInput):
        sgsample.Stats(1).push(np.array([1 + 2j]))
    with pytest.raises(ValueError, match="complex"):
        sgsample.sgld(lambda t, s: M.dw_grad(t, s) + 0j, [0.0], 5, step_size=0.1)

