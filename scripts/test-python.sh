#!/usr/bin/env bash
# The Python and Julia bindings (bindings/python, bindings/julia/SGSample). Creates a virtual
# environment under target/python-venv (kept between runs), installs the package the way a user
# does (`pip install ./bindings/python`: cargo builds the C library inside the build step), and
# runs its pytest suite: header/layout drift, exact-truth checks, bit-identity with a C program,
# bad inputs, callback errors, the raw-pointer path, Ctrl-C, and the Julia package's generated
# declarations and call pattern (exercised through ctypes), and a smoke run of benches/compare.py.
# runtests.jl runs too when `julia` is on PATH. The last line is pytest's.
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

# benches/compare.py (the side-by-side timings of docs/benchmarks.md, run by hand) on a few
# iterations with this venv's numpy: its ctypes mirrors of the C structs are checked against the
# header at start-up, and its sgsample and numpy paths run (BlackJAX is not installed here).
smoke=target/compare-smoke.log
if ! "$py" benches/compare.py --skip-blackjax --parts mixture double-well --runs 1 \
  --svgd-iters 2 --chain-runs 1 --chain-iters 100 --eps 0.25 >"$smoke" 2>&1; then
  tail -n 20 "$smoke"
  echo "benches/compare.py smoke run FAILED (log: $smoke)"
  exit 1
fi
echo "benches/compare.py: smoke run passed (struct mirrors match include/sgsample.h)"

if command -v julia >/dev/null 2>&1; then
  SGSAMPLE_LIB=$("$py" -c 'import sgsample; print(sgsample.LIBRARY_PATH)') \
    julia --project=bindings/julia/SGSample -e 'using Pkg; Pkg.instantiate(); Pkg.test()'
else
  echo "julia not on PATH: bindings/julia/SGSample/test/runtests.jl skipped (its declarations and call pattern are tested from Python)"
fi

# Run from the repository root with the venv's pytest (not `python -m pytest`, which would put the
# current directory on sys.path): the installed package is the one tested.
exec "$venv/bin/pytest" -q -p no:cacheprovider bindings/python/tests "$@"
