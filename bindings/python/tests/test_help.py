"""help() shows every option with its default, read from the library's own default configs."""

import inspect
import pydoc

import pytest

import sgsample
from sgsample import header, lib

CASES = [
    (sgsample.AMAGOLD, "amagold", lib.sgs_amagold_config_adaptive()),
    (sgsample.amagold, "amagold", lib.sgs_amagold_config_adaptive()),
    (sgsample.SGHMC, "sghmc", lib.sgs_sghmc_config_default(0.1)),
    (sgsample.sghmc, "sghmc", lib.sgs_sghmc_config_default(0.1)),
    (sgsample.SGLD, "sgld", lib.sgs_sgld_config_default(0.1)),
    (sgsample.sgld, "sgld", lib.sgs_sgld_config_default(0.1)),
    (sgsample.SVGD, "svgd", lib.sgs_svgd_config_default(1, 0.1)),
    (sgsample.svgd, "svgd", lib.sgs_svgd_config_default(1, 0.1)),
]
HIDDEN = {"reserved", "ksd_reserved", "scale_reserved", "batch_size"}


@pytest.mark.parametrize("obj, kind, cfg", CASES, ids=[c[0].__name__ for c in CASES])
def test_every_option_in_the_signature_with_its_default(obj, kind, cfg):
    params = inspect.signature(obj).parameters
    text = pydoc.render_doc(obj, renderer=pydoc.plaintext)
    for _, name, _ in header.structs[f"sgs_{kind}_config"]:
        if name in HIDDEN:
            continue
        assert name in params, name
        if name == "step_size":
            continue  # required, or None for AMAGOLD's adaptive configuration
        assert f"{name}=" in text and f"    {name} = " in text, name
        p = params[name]
        if name == "seed":
            assert p.default is None  # a fresh seed, not the C default 0
        elif isinstance(p.default, str):
            assert isinstance(getattr(cfg, name), int), name  # an enum shown by its name
        else:
            assert p.default == getattr(cfg, name), name
    assert "step_size" in params and "dtype" in params


def test_amagold_signature_names_the_adaptive_default():
    p = inspect.signature(sgsample.AMAGOLD).parameters
    assert p["step_size"].default is None and p["mass"].default == "diagonal"
    assert p["warmup"].default == 1000
    p = inspect.signature(sgsample.amagold).parameters
    assert p["keep_warmup"].default is False and p["chains"].default == 1
