"""Applies :mod:`._options` to the public samplers and functions (imported last by the
package, once every class exists)."""

from . import _options as o
from ._amagold import _MASS_NAMES, AMAGOLD
from ._chain import SGHMC, SGLD
from ._lib import header, lib
from ._multi import amagold, sghmc, sgld, tunamh
from ._svgd import _SVGD_ENUMS, SVGD, svgd
from ._tunamh import TunaMH

_AMAGOLD_ENUMS = {
    "variant": {"reversible": header.defines["SGS_VARIANT_REVERSIBLE"],
                "non_reversible": header.defines["SGS_VARIANT_NON_REVERSIBLE"]},
    "mass": {name: value for value, name in _MASS_NAMES.items()},
}
_AMAGOLD_COLUMNS = [("without step_size (the adaptive configuration)",
                     lib.sgs_amagold_config_adaptive()),
                    ("with step_size", lib.sgs_amagold_config_default(0.1))]
_POS = o.inspect.Parameter.POSITIONAL_OR_KEYWORD
_MULTI = [o.P("chains", 1), o.P("seed", None), o.P("stream", 0), o.DTYPE]
_RUN = [o.P("sample_stats", True), o.P("progress", None), o.P("vectorized", False)]

o.document(AMAGOLD, "amagold", _AMAGOLD_COLUMNS, _AMAGOLD_ENUMS,
           before=o.positional("energy", "grad", "theta0") + [o.P("step_size", None, _POS),
                                                               o.DTYPE])
o.document(amagold, "amagold", _AMAGOLD_COLUMNS, _AMAGOLD_ENUMS,
           before=o.positional("energy", "grad", "theta0", "draws") + _MULTI
           + [o.P("keep_warmup", False)] + _RUN + [o.P("step_size", None)])
for cls, fn, kind in ((SGHMC, sghmc, "sghmc"), (SGLD, sgld, "sgld")):
    columns = [("(the C defaults)", getattr(lib, f"sgs_{kind}_config_default")(0.1))]
    enums = cls._enums(None)
    o.document(cls, kind, columns, enums, before=o.positional("grad", "theta0")
               + [o.P("step_size"), o.DTYPE])
    o.document(fn, kind, columns, enums, before=o.positional("grad", "theta0", "draws") + _MULTI
               + _RUN + [o.P("step_size")])
# TunaMH: terms and bound are sgs_tunamh_config_default's arguments (no default: required).
_TUNAMH_COLUMNS = [("(the C defaults)", lib.sgs_tunamh_config_default(0.1, 1, 1.0))]
_TUNAMH_REQUIRED = [o.P("terms"), o.P("bound"), o.P("step_size")]
o.document(TunaMH, "tunamh", _TUNAMH_COLUMNS, before=o.positional("differences", "theta0")
           + _TUNAMH_REQUIRED, after=[o.P("exact", None), o.DTYPE], required=("terms", "bound"))
o.document(tunamh, "tunamh", _TUNAMH_COLUMNS, before=o.positional("differences", "theta0", "draws")
           + _TUNAMH_REQUIRED + _MULTI, after=[o.P("exact", None), o.P("sample_stats", True),
                                               o.P("progress", None)],
           required=("terms", "bound"))
_SVGD_COLUMNS = [("(the C defaults)", lib.sgs_svgd_config_default(1, 0.1))]
o.document(SVGD, "svgd", _SVGD_COLUMNS, _SVGD_ENUMS,
           before=o.positional("particles") + [o.P("grad", None, _POS), o.P("grads", None),
                                               o.P("batch_size", None), o.P("step_size"),
                                               o.DTYPE])
o.document(svgd, "svgd", _SVGD_COLUMNS, _SVGD_ENUMS,
           before=o.positional("particles", "iterations") + [o.P("grad", None, _POS),
                                                             o.P("grads", None),
                                                             o.P("batch_size", None),
                                                             o.P("step_size"), o.DTYPE])
