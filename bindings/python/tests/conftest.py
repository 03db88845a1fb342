import ctypes
import os
import shutil
import subprocess

import pytest

import sgsample

import models as M

HERE = os.path.dirname(os.path.abspath(__file__))
# The repository (for the header and the Julia package); the tests run from a checkout.
REPO = os.environ.get("SGSAMPLE_SOURCE_DIR") or os.path.abspath(os.path.join(HERE, "..", "..", ".."))
PKG = os.path.dirname(sgsample.__file__)
CFLAGS = ["-std=c11", "-O2", "-ffp-contract=off", "-Wall", "-Wextra", "-Werror"]


def _cc():
    cc = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if not cc:
        pytest.skip("no C compiler")
    return cc


@pytest.fixture(scope="session")
def cbuild(tmp_path_factory):
    return tmp_path_factory.mktemp("c")


@pytest.fixture(scope="session")
def models(cbuild):
    """tests/models.c as a shared library (ctypes.CDLL): C callbacks for the raw-pointer path."""
    so = str(cbuild / "libsgtmodels.so")
    subprocess.run([_cc(), *CFLAGS, "-shared", "-fPIC", os.path.join(HERE, "models.c"), "-lm",
                    "-o", so], check=True)
    return M.typed(ctypes.CDLL(so))



@pytest.fixture(scope="session")
def bitcheck_output(cbuild):
    """What tests/bitcheck.c (C, linked to the package's own libsgsample.so) writes."""
    exe = str(cbuild / "bitcheck")
    # The program records the library's soname, libsgsample.so.0.MINOR (0.x: the minor names the
    # ABI), which the package does not ship: a link of that name in the build directory.
    major, minor = sgsample.__version__.split(".")[:2]
    soname = f"libsgsample.so.{major}.{minor}" if major == "0" else f"libsgsample.so.{major}"
    link = cbuild / soname
    if not link.exists():
        os.symlink(os.path.join(PKG, "libsgsample.so"), link)
    subprocess.run([_cc(), *CFLAGS, "-I", PKG, os.path.join(HERE, "bitcheck.c"),
                    os.path.join(HERE, "models.c"), "-L", PKG, "-lsgsample",
                    "-Wl,-rpath," + str(cbuild), "-lm", "-o", exe], check=True)
    return subprocess.run([exe], check=True, capture_output=True).stdout
