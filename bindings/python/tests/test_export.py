"""export() / restore(): a chain as bytes without pickle (the C checkpoint behind a small header),
restored with its callbacks in O(1) — no iteration run again — in this process or another,
continuing bit for bit."""

import json
import os
import subprocess
import sys

import numpy as np
import pytest

import sgsample

import models as M

HERE = os.path.dirname(os.path.abspath(__file__))


def _same(a, b, n=200):
    np.testing.assert_array_equal(a.run(n), b.run(n))
    assert (a.info.iterations, a.info.accepted, a.info.divergences) == \
        (b.info.iterations, b.info.accepted, b.info.divergences)


def test_amagold_through_its_warmup_and_setters():
    a = sgsample.AMAGOLD(M.dw_energy, M.dw_grad, [3.0], warmup=120, mass="diagonal", seed=4)
    a.run(70)  # inside the warm-up
    data = a.export()
    assert isinstance(data, bytes) and b"pickle" not in data
    b = sgsample.AMAGOLD.restore(data, M.dw_energy, M.dw_grad)
    assert b.seed == a.seed and b.info.iterations == 70
    _same(a, b)  # through the end of the warm-up and on
    # A chain set up by hand between runs: the settings are part of the record.
    c = sgsample.AMAGOLD(M.dw_energy, M.dw_grad, [0.0], 0.2, mass="dense", seed=9)
    c.run(30)
    c.step_size = 0.35
    c.inverse_mass_dense = [[2.5]]
    c.run(40)
    c.step_size = 0.3
    d = sgsample.AMAGOLD.restore(c.export(), M.dw_energy, M.dw_grad)
    assert d.step_size == c.step_size
    np.testing.assert_array_equal(d.inverse_mass_dense, c.inverse_mass_dense)
    _same(c, d)
    # A restored chain exports again (its record is the same).
    assert sgsample.AMAGOLD.restore(d.export(), M.dw_energy, M.dw_grad).position == d.position


@pytest.mark.parametrize("cls, dtype", [(sgsample.SGHMC, np.float64), (sgsample.SGLD, np.float32)])
def test_sghmc_sgld(cls, dtype):
    g = M.dw_grad_f32 if dtype == np.float32 else M.dw_grad
    a = cls(g, [0.5], step_size=0.05, steps=3, seed=2, dtype=dtype)
    a.run(123)
    b = cls.restore(a.export(), g)
    assert b.dtype == dtype
    _same(a, b)


def test_after_an_interrupted_run():
    a = sgsample.AMAGOLD(M.dw_energy, M.failing_at(500, M.dw_grad), [0.0], 0.25, steps=5, seed=1)
    with pytest.raises(RuntimeError):
        a.run(1000)
    b = sgsample.AMAGOLD.restore(a.export(), M.dw_energy, M.dw_grad)
    assert b.info.iterations == a.info.iterations == a.partial.shape[0]
    _same(a, b)


def test_in_another_process(tmp_path):
    a = sgsample.AMAGOLD(M.dw_energy, M.dw_grad, [1.0], 0.25, seed=6)
    a.run(55)
    path = tmp_path / "chain.bin"
    path.write_bytes(a.export())
    code = (f"import sys; sys.path.insert(0, {HERE!r}); import numpy as np, sgsample, models as M; "
            f"b = sgsample.AMAGOLD.restore(open({str(path)!r}, 'rb').read(), M.dw_energy, "
            f"M.dw_grad); np.save(sys.stdout.buffer, b.run(50))")
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True).stdout
    import io

    np.testing.assert_array_equal(np.load(io.BytesIO(out)), a.run(50))


def _counting(fn):
    calls = [0]

    def wrapped(*args):
        calls[0] += 1
        return fn(*args)

    return wrapped, calls


def test_restore_runs_no_iteration():
    # O(1): the gradient is never called, the energy once (AMAGOLD's init at the start), however
    # long the exported chain ran.
    a = sgsample.AMAGOLD(M.dw_energy, M.dw_grad, [2.0], warmup=150, mass="dense", seed=12)
    a.run(300)
    e, ne = _counting(M.dw_energy)
    g, ng = _counting(M.dw_grad)
    b = sgsample.AMAGOLD.restore(a.export(), e, g)
    assert (ne[0], ng[0]) == (1, 0)
    assert b.info.iterations == 300 and b.info.phase == a.info.phase == "sampling"
    assert (b.info.accepted, b.info.divergences) == (a.info.accepted, a.info.divergences)
    assert b.warmup_report() == a.warmup_report()
    _same(a, b)


def test_other_callbacks_and_damaged_data_are_refused():
    a = sgsample.AMAGOLD(M.dw_energy, M.dw_grad, [0.0], 0.25, seed=3)
    a.run(20)
    data = a.export()
    # Other callbacks are the caller's choice: the chain continues from the state with them.
    other = sgsample.AMAGOLD.restore(data, M.dw_energy, lambda t, s: M.dw_grad(t, s, sd=0.5))
    np.testing.assert_array_equal(other.position, a.position)
    with pytest.raises(sgsample.InvalidInput, match="SGLD|AMAGOLD") as e:
        sgsample.SGLD.restore(data, M.dw_grad)
    assert e.value.name == "SGS_ERR_CHECKPOINT_MISMATCH"
    start = len(b"SGSAMPLE-CHAIN\x00")
    n = int.from_bytes(data[start:start + 4], "little")
    # A bit flipped in the C checkpoint (its workspace, near the end): the C checksum refuses it.
    flipped = bytearray(data)
    flipped[-12] ^= 0x04
    for bad, status in ((b"", "SGS_ERR_INVALID_CHECKPOINT"),
                        (b"not a chain", "SGS_ERR_INVALID_CHECKPOINT"),
                        (data[:20], "SGS_ERR_INVALID_CHECKPOINT"),
                        (data[:-1], "SGS_ERR_INVALID_CHECKPOINT"),
                        (data + b"\0", "SGS_ERR_INVALID_CHECKPOINT"),
                        (bytes(flipped), "SGS_ERR_INVALID_CHECKPOINT"),
                        (data.replace(b'"format": 2', b'"format": 9'), "SGS_ERR_CHECKPOINT_MISMATCH"),
                        (data.replace(b'"format": 2', b'"format": 1'), "SGS_ERR_CHECKPOINT_MISMATCH")):
        with pytest.raises(sgsample.InvalidInput) as e:
            sgsample.AMAGOLD.restore(bad, M.dw_energy, M.dw_grad)
        assert e.value.name == status, bad[:40]
    with pytest.raises(TypeError):
        sgsample.AMAGOLD.restore(data, M.dw_grad)
    # The header is plain JSON after the magic and its length: readable without sgsample.
    head = json.loads(data[start + 4:start + 4 + n])
    assert head["sampler"] == "amagold" and head["info"]["iterations"] == 20
    assert head["config"]["seed"] == 3
    # ... and the C checkpoint after the start: its own magic, the sampler and float tag.
    c = data[start + 4 + n + head["c_offset"]:]
    assert len(c) == head["c_len"] and c[:8] == b"SGSCHKPT" and c[16:24] == b"sgsAMG64"


def test_float32_chain_and_busy_export():
    g = M.dw_grad_f32
    a = sgsample.SGLD(g, [0.5], step_size=0.05, steps=2, seed=5, dtype=np.float32)
    a.run(40)
    data = a.export()
    assert b"sgsSGL32" in data
    b = sgsample.SGLD.restore(data, g)
    assert b.dtype == np.float32
    _same(a, b)

    # From the chain's own callback: refused (the state is mid-iteration), the run stops with
    # that error and the chain keeps its last state.
    chains = []

    def grad_exporting(t, seed):
        chains[0].export()
        return g(t, seed)

    c = sgsample.SGLD(grad_exporting, [0.5], step_size=0.05, seed=5, dtype=np.float32)
    chains.append(c)
    with pytest.raises(sgsample.InvalidInput, match="in use") as e:
        c.run(1)
    assert e.value.name == "SGS_ERR_BUSY" and c.info.iterations == 0
