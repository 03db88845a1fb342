"""Drift: the declarations, sizes and symbols the binding uses are the library's own."""

import filecmp
import os
import re
import shutil
import subprocess

import pytest

import sgsample
from sgsample import _header, ffi, header, lib

from conftest import REPO

STATES = [f"{s}{sfx}" for s in ("amagold", "sghmc", "sgld", "tunamh", "svgd")
          for sfx in ("", "_f32")]


def test_shipped_header_is_the_repository_header():
    # The package carries the header its library was built from; it must be today's header.
    assert filecmp.cmp(sgsample.HEADER_PATH, os.path.join(REPO, "include", "sgsample.h"),
                       shallow=False), "reinstall: pip install ./bindings/python"


@pytest.mark.parametrize("state", STATES)
def test_state_layout_matches_size_queries(state):
    kind, _, sfx = state.partition("_")
    sfx = "_" + sfx if sfx else ""
    size = getattr(lib, f"sgs_{kind}_state_size{sfx}")()
    align = getattr(lib, f"sgs_{kind}_state_align{sfx}")()
    assert ffi.sizeof(f"sgs_{state}") == size
    assert ffi.alignof(f"sgs_{state}") <= align and align & (align - 1) == 0


def test_every_declared_function_is_exported_and_nothing_else():
    names = set(header.functions)
    for name in names:
        getattr(lib, name)  # raises AttributeError when the symbol is missing
    nm = shutil.which("nm")
    if nm:
        out = subprocess.run([nm, "-D", "--defined-only", sgsample.LIBRARY_PATH],
                             capture_output=True, text=True, check=True).stdout
        exported = {line.split()[-1] for line in out.splitlines() if " T " in line}
        assert exported == names


def test_parser_counts_every_prototype():
    # An independent count (one function name followed by '(' at the start of a declaration).
    text = open(sgsample.HEADER_PATH).read()
    declared = set(re.findall(r"^\S[^\n(]*?\b(sgs_\w+)\(", text, re.M))
    assert declared == set(header.functions)


def test_statuses_and_versions():
    statuses = header.statuses()
    # Every status of the enum is read (its codes may leave gaps: a code is never reused).
    text = open(sgsample.HEADER_PATH).read()
    assert statuses[0] == "SGS_OK"
    assert len(statuses) == len(re.findall(r"^\s*SGS_(?:OK|ERR_\w+) = \d+,$", text, re.M))
    for code, name in statuses.items():
        assert ffi.string(lib.sgs_status_str(code)) != b"unknown status", name
    assert ffi.string(lib.sgs_status_str(max(statuses) + 1)) == b"unknown status"
    assert sgsample.version() == sgsample.__version__ == header.defines["SGS_VERSION_STRING"]
    pyproject = open(os.path.join(REPO, "bindings", "python", "pyproject.toml")).read()
    assert f'version = "{sgsample.__version__}"' in pyproject


def test_callback_typedefs_match_the_trampolines():
    # user_data first, int32_t status back: the shape the static trampolines rely on.
    for name, (ret, params) in header.callbacks.items():
        assert ret == "int32_t" and params[0] == ("void*", "user_data"), name


def test_parser_rejects_what_it_does_not_understand():
    with pytest.raises(ValueError):
        _header.parse("#define SGS_X foo(1)\n")
