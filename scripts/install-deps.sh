#!/usr/bin/env bash
# Everything `make test` and `make demo` need beyond the Rust toolchain. Idempotent: installs only
# what is missing, so running it when nothing is costs a fraction of a second.
#
#   scripts/install-deps.sh [--check] [test|demo]
#
#   test (default)  what `make test` needs: the two bare-metal Rust targets and the toolchain of
#                   the crate's rust-version (rustup, no root),
#                   the apt packages below and python3-venv when python3 cannot make a venv
#                   (root), and when a nightly toolchain is installed, the
#                   nightly tools of scripts/test-fuzz.sh and scripts/test-miri.sh (cargo-fuzz;
#                   the miri and rust-src components; no root). Without nightly those two suites
#                   skip themselves.
#   demo            what `make demo` needs: the C and C++ compilers only
#   --check         install nothing: print what is missing and exit 1 if anything is
#
# scripts/test.sh and scripts/demo.sh call it themselves, so a fresh machine needs no set-up step;
# without root, missing apt packages end it with one line saying to run it under sudo.
set -euo pipefail
cd "$(dirname "$0")/.."

check=0
need=test
for a in "$@"; do
  case "$a" in
    --check) check=1 ;;
    test | demo) need=$a ;;
    *) echo "usage: scripts/install-deps.sh [--check] [test|demo]" >&2; exit 2 ;;
  esac
done

if [ "$need" = test ]; then
  targets=(thumbv7em-none-eabihf thumbv7m-none-eabi)
  # octave, liboctave-dev: the MATLAB/Octave binding (mkoctfile --mex, octave-cli). gnuplot-nox and
  # fonts-freefont-otf: Octave's only headless graphics toolkit and the font its text renderer
  # needs, for the binding's PNG example (print -dpngcairo; -dpng would also need ghostscript).
  # mpich, libmpich-dev: the MPI examples and their suite (mpicc.mpich, mpiexec.mpich).
  # cmake, pkg-config: scripts/test-install.sh (cmake --install, find_package, pkg-config consumers).
  pkgs=(qemu-system-arm gcc-arm-none-eabi libnewlib-arm-none-eabi gcc g++ binutils
    octave liboctave-dev gnuplot-nox fonts-freefont-otf mpich libmpich-dev cmake pkg-config)
else
  targets=()
  pkgs=(gcc g++ binutils)
fi

missing_targets=()
if [ "${#targets[@]}" -gt 0 ]; then
  if command -v rustup >/dev/null 2>&1; then
    installed=$(rustup target list --installed)
    for t in "${targets[@]}"; do
      grep -qx "$t" <<<"$installed" || missing_targets+=("$t")
    done
  elif [ "$(id -u)" -eq 0 ]; then
    # Root under sudo often has no rustup on its PATH. The targets belong to the toolchain's
    # owner, and scripts/test.sh adds them without root.
    echo "rustup not on root's PATH: Rust targets ${targets[*]} left to scripts/test.sh" >&2
  else
    echo "rustup not found: cannot add the Rust targets ${targets[*]}" >&2
    exit 1
  fi
fi

# The minimum compiler the crate declares (rust-version in Cargo.toml), for scripts/test-rust.sh's
# build with it: a minimal rustup toolchain, no root.
msrv=$(sed -n 's/^rust-version = "\(.*\)"/\1/p' Cargo.toml)
missing_msrv=()
if [ "$need" = test ] && [ -n "$msrv" ] && command -v rustup >/dev/null 2>&1 &&
  ! cargo "+$msrv" --version >/dev/null 2>&1; then
  missing_msrv+=("$msrv")
fi

# Nightly tools (fuzzing, Miri): only where a nightly toolchain exists; never installs nightly.
missing_nightly=()
if [ "$need" = test ] && command -v rustup >/dev/null 2>&1 &&
  cargo +nightly --version >/dev/null 2>&1; then
  nightly_components=$(rustup +nightly component list --installed)
  for c in miri rust-src; do
    grep -q "^$c" <<<"$nightly_components" || missing_nightly+=("component:$c")
  done
  cargo +nightly fuzz --version >/dev/null 2>&1 || missing_nightly+=("cargo-fuzz")
fi

missing_pkgs=()
for p in "${pkgs[@]}"; do
  dpkg -s "$p" >/dev/null 2>&1 || missing_pkgs+=("$p")
done
# scripts/test-python.sh makes a virtual environment: it needs a python3 with venv and ensurepip
# (Debian and Ubuntu ship those in python3-venv). Checked by what works, not by package name, so
# that a python3 from elsewhere (pyenv, a distribution build) that has them is left alone.
if [ "$need" = test ] && ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
  command -v python3 >/dev/null 2>&1 || missing_pkgs+=(python3)
  missing_pkgs+=(python3-venv)
fi

if [ "$check" -eq 1 ]; then
  [ "${#missing_targets[@]}" -eq 0 ] || echo "missing Rust targets: ${missing_targets[*]}"
  [ "${#missing_pkgs[@]}" -eq 0 ] || echo "missing apt packages: ${missing_pkgs[*]}"
  [ "${#missing_nightly[@]}" -eq 0 ] || echo "missing nightly tools: ${missing_nightly[*]}"
  [ "${#missing_msrv[@]}" -eq 0 ] || echo "missing Rust toolchain (rust-version): ${missing_msrv[*]}"
  [ "${#missing_targets[@]}" -eq 0 ] && [ "${#missing_pkgs[@]}" -eq 0 ] &&
    [ "${#missing_nightly[@]}" -eq 0 ] && [ "${#missing_msrv[@]}" -eq 0 ]
  exit
fi

if [ "$need" = test ] && ! cargo +nightly --version >/dev/null 2>&1; then
  echo "no nightly toolchain: scripts/test-fuzz.sh and scripts/test-miri.sh will skip (rustup toolchain install nightly, then rerun this script, to run them)"
fi
for m in "${missing_nightly[@]}"; do
  case "$m" in
    component:*) rustup +nightly component add "${m#component:}" ;;
    cargo-fuzz) cargo +nightly install cargo-fuzz --locked ;;
  esac
done

if [ "${#missing_targets[@]}" -gt 0 ]; then
  rustup target add "${missing_targets[@]}"
fi
for t in "${missing_msrv[@]}"; do
  # Not fatal: without it scripts/test-rust.sh says it did not check the rust-version build.
  rustup toolchain install "$t" --profile minimal ||
    echo "could not install rust $t: scripts/test-rust.sh will skip its rust-version build" >&2
done
if [ "${#missing_pkgs[@]}" -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then
    arg=""
    [ "$need" = test ] || arg=" $need"
    echo "missing apt packages: ${missing_pkgs[*]}; install them with: sudo scripts/install-deps.sh$arg" >&2
    exit 1
  fi
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -q
  apt-get install -y -q --no-install-recommends "${missing_pkgs[@]}"
fi
