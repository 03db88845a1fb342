"""What Stats.push accepts: one draw (d,) or draws (n, d), finite; nothing else is reshaped."""

import numpy as np
import pytest

import sgsample


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("shape", [(2, 3), (3, 2, 2), (4,), (6,), (1,), (2, 3, 1), ()],
                         ids=str)
def test_push_refuses_other_shapes(shape, dtype):
    # Stats(2): a (2, 3) array (d by n, transposed) used to become 3 scrambled draws, a stack of
    # chains (m, n, d) m·n draws, a (4,) vector two draws.
    s = sgsample.Stats(2)
    with pytest.raises(sgsample.InvalidInput) as e:
        s.push(np.arange(np.prod(shape), dtype=dtype).reshape(shape))
    assert e.value.name == "SGS_ERR_LENGTH_MISMATCH" and str(shape) in str(e.value)
    assert s.count == 0


def test_push_accepts_one_draw_or_rows():
    s = sgsample.Stats(2)
    s.push(np.array([1.0, 2.0])).push(np.array([[3.0, 4.0], [5.0, 6.0]])).push(np.zeros((0, 2)))
    s.push([7.0, 8.0])
    assert s.count == 4
    assert np.allclose(s.mean(), [4.0, 5.0])
    one = sgsample.Stats(1).push(np.arange(5.0)[:, None])
    assert one.count == 5
    with pytest.raises(sgsample.InvalidInput):
        sgsample.Stats(1).push(np.arange(5.0))  # (n,) for d = 1 is ambiguous: give (n, 1)


def test_non_finite_draw_pushes_nothing_and_says_which():
    s = sgsample.Stats(2).push([0.0, 0.0])
    with pytest.raises(sgsample.InvalidInput) as e:
        s.push(np.array([[1.0, 2.0], [np.nan, 1.0], [3.0, np.inf]]))
    assert e.value.name == "SGS_ERR_NON_FINITE" and isinstance(e.value, sgsample.Error)
    assert "draw 1" in str(e.value) and "nothing was pushed" in str(e.value)
    assert "particle" not in str(e.value)
    assert s.count == 1


@pytest.mark.parametrize("d", [-1, 2.5, "3"])
def test_bad_dimension(d):
    with pytest.raises(sgsample.InvalidInput) as e:
        sgsample.Stats(d)
    assert e.value.name == "SGS_ERR_INVALID_ARGUMENT"
