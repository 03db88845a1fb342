#!/usr/bin/env bash
# The Python and Julia bindings (bindings/python, bindings/julia/SGSample). Creates a virtual
# environment under target/python-venv (kept between runs), installs the package the way a user
# does (`pip install ./bindings/python`: cargo builds the C library inside the build step), and
# runs its pytest suite: header/layout drift, exact-truth checks, bit-identity with a C program,
# bad inputs, callback errors, the raw-pointer path, Ctrl-C, and the Julia package's generated
# declarations and call pattern (exercised through ctypes). runtests.jl runs too when `julia` is on
# PATH. The last line is pytest's.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=target/python-venv
py=$venv/bin/python
if [ ! -x "$py" ]; then
  python3 -m venv "$venv"
fi
# Quiet unless it fails; the first run downloads numpy, cffi, pytest (and setuptools for the build).
log=target/python-install.log
if ! "$py" -m pip install --disable-pip-version-check ./bindings/python pytest numpy arviz >"$log" 2>&1 ||
  ! "$py" -m pip install --disable-pip-version-check --no-deps --force-reinstall ./bindings/python \
    >>"$log" 2>&1; then
  tail -n 30 "$log"
  echo "pip install ./bindings/python FAILED (log: $log)"
  exit 1
fi
echo "installed: $("$py" -c 'import sgsample, numpy; print("sgsample", sgsample.version(), "numpy", numpy.__version__)')"

if command -v julia >/dev/null 2>&1; then
  SGSAMPLE_LIB=$("$py" -c 'import sgsample; print(sgsample.LIBRARY_PATH)') \
    julia --project=bindings/julia/SGSample -e 'using Pkg; Pkg.instantiate(); Pkg.test()'
else
  echo "julia not on PATH: bindings/julia/SGSample/test/runtests.jl skipped (its declarations and call pattern are tested from Python)"
fi

# Run from the repository root with the venv's pytest (not `python -m pytest`, which would put the
# current directory on sys.path): the installed package is the one tested.
exec "$venv/bin/pytest" -q -p no:cacheprovider bindings/python/tests "$@"
