#!/usr/bin/env bash
# Installs the C library (`make install PREFIX=… [DESTDIR=…] [LIBDIR=lib] [INCLUDEDIR=include]`):
#
#   $PREFIX/include/sgsample.h, sgsample.hpp
#   $PREFIX/lib/libsgsample.a
#   $PREFIX/lib/libsgsample.so.X.Y.Z, libsgsample.so.ABI -> …X.Y.Z, libsgsample.so -> …ABI
#   $PREFIX/lib/pkgconfig/sgsample.pc
#   $PREFIX/lib/cmake/sgsample/sgsampleConfig.cmake, sgsampleConfigVersion.cmake
#   $PREFIX/share/doc/sgsample/LICENSE-MIT, LICENSE-APACHE, README.md
#
# ABI is 0.MINOR while the major version is 0 (the soname, docs/abi.md). Files go to
# $DESTDIR$PREFIX; the paths written into sgsample.pc are $PREFIX's (the DESTDIR convention of
# packagers). The CMake package finds its files relative to itself.
#
# Nothing half-installed: the library is built and every file staged in a temporary directory
# first; then each file is copied next to its destination under a temporary name, and only when
# all copies succeeded are they renamed into place (a failure removes the copies and any
# directory this run created). Every refusal is one line on stderr and exit status 1 (2 for
# usage).
set -euo pipefail
cd "$(dirname "$0")/.."

die() {
  echo "make install: $*" >&2
  exit 1
}

prefix=${PREFIX:-}
destdir=${DESTDIR:-}
libdir=${LIBDIR:-lib}
includedir=${INCLUDEDIR:-include}
if [ -z "$prefix" ]; then
  echo "make install: PREFIX is not set (e.g. make install PREFIX=/usr/local)" >&2
  exit 2
fi
case "$prefix" in
  /*) ;;
  *) echo "make install: PREFIX must be an absolute path, not '$prefix'" >&2; exit 2 ;;
esac
case "$libdir$includedir" in
  /* | *..*) echo "make install: LIBDIR and INCLUDEDIR are relative to PREFIX, without '..'" >&2; exit 2 ;;
esac
prefix=${prefix%/}
[ -n "$prefix" ] || prefix=/
dest="$destdir$prefix"

cargo=${CARGO:-cargo}
command -v "$cargo" >/dev/null 2>&1 ||
  die "cargo not found: the library is built from source with Rust (https://rustup.rs)"
command -v "${CC:-cc}" >/dev/null 2>&1 ||
  die "no C compiler/linker '${CC:-cc}' found: cargo links the shared library with it (install gcc or clang)"

# The nearest existing ancestor of the destination must be a writable directory: checked before
# building, so that a read-only or mistyped prefix costs nothing.
probe=$dest
while [ ! -e "$probe" ]; do probe=$(dirname "$probe"); done
[ -d "$probe" ] || die "cannot install into $dest: $probe is not a directory"
# Tried, not asked (`test -w` is true for root on a read-only mount and on /proc).
if ! t=$(mktemp -d "$probe/.sgsample-probe.XXXXXX" 2>/dev/null); then
  die "cannot install into $dest: $probe is not writable (read-only, or run with sudo)"
fi
rmdir "$t"

source scripts/abi-version.sh
[ -n "$vpatch" ] || die "cannot read the version from Cargo.toml"

log=$(mktemp)
stage=$(mktemp -d)
trap 'rm -rf "$stage" "$log"' EXIT
if ! "$cargo" build --release --locked -p sgsample-capi >"$log" 2>&1; then
  tail -n 20 "$log" >&2
  die "cargo build --release -p sgsample-capi failed (output above)"
fi
target=${CARGO_TARGET_DIR:-target}/release
so=$target/libsgsample.so
soname=$(readelf -d "$so" 2>/dev/null | sed -n 's/.*Library soname: \[\(.*\)\].*/\1/p')
[ "$soname" = "libsgsample.so.$abi" ] ||
  die "$so has soname '${soname:-none}', expected libsgsample.so.$abi (capi/build.rs)"

# The staged tree, relative to the prefix.
mkdir -p "$stage/$includedir" "$stage/$libdir/pkgconfig" "$stage/$libdir/cmake/sgsample" \
  "$stage/share/doc/sgsample"
cp include/sgsample.h include/sgsample.hpp "$stage/$includedir/"
cp "$target/libsgsample.a" "$stage/$libdir/"
cp "$so" "$stage/$libdir/libsgsample.so.$version"
ln -s "libsgsample.so.$version" "$stage/$libdir/libsgsample.so.$abi"
ln -s "libsgsample.so.$abi" "$stage/$libdir/libsgsample.so"
cp LICENSE-MIT LICENSE-APACHE README.md "$stage/share/doc/sgsample/"
# From lib/cmake/sgsample back to the prefix (LIBDIR may have several components).
up=$(realpath -m --relative-to="/p/$libdir/cmake/sgsample" /p)
pointer=$(getconf LONG_BIT)
subst() {
  sed -e "s|@PREFIX@|$prefix|g" -e "s|@LIBDIR@|$libdir|g" -e "s|@INCLUDEDIR@|$includedir|g" \
    -e "s|@VERSION@|$version|g" -e "s|@VERSION_MAJOR@|$vmajor|g" -e "s|@VERSION_MINOR@|$vminor|g" \
    -e "s|@ABI@|$abi|g" -e "s|@CMAKE_TO_PREFIX@|$up|g" -e "s|@SIZEOF_VOID_P@|$((pointer / 8))|g" "$1"
}
subst packaging/sgsample.pc.in >"$stage/$libdir/pkgconfig/sgsample.pc"
subst packaging/sgsampleConfig.cmake.in >"$stage/$libdir/cmake/sgsample/sgsampleConfig.cmake"
subst packaging/sgsampleConfigVersion.cmake.in \
  >"$stage/$libdir/cmake/sgsample/sgsampleConfigVersion.cmake"

# Copy next to the destination under temporary names, then rename.
made_dirs=()
placed=()
undo() {
  local f d
  for f in "${placed[@]}"; do rm -f "$f"; done
  for ((d = ${#made_dirs[@]} - 1; d >= 0; d--)); do rmdir "${made_dirs[d]}" 2>/dev/null || true; done
}
fail() {
  undo
  die "$1; nothing was installed"
}
mkdirs() {
  local d=$1 missing=()
  while [ ! -d "$d" ]; do
    [ -e "$d" ] && return 1
    missing+=("$d")
    d=$(dirname "$d")
  done
  local i
  for ((i = ${#missing[@]} - 1; i >= 0; i--)); do
    mkdir "${missing[i]}" 2>/dev/null || return 1
    made_dirs+=("${missing[i]}")
  done
}
files=()
while IFS= read -r rel; do files+=("$rel"); done < <(cd "$stage" && find . ! -type d | sed 's|^\./||' | sort)
tmpname=".sgsample-install.$$"
for rel in "${files[@]}"; do
  dir=$(dirname "$dest/$rel")
  mkdirs "$dir" || fail "cannot create directory $dir"
  cp -P "$stage/$rel" "$dir/$tmpname.$(basename "$rel")" 2>/dev/null || fail "cannot write into $dir"
  placed+=("$dir/$tmpname.$(basename "$rel")")
done
for rel in "${files[@]}"; do
  dir=$(dirname "$dest/$rel")
  mv -f "$dir/$tmpname.$(basename "$rel")" "$dest/$rel"
done
echo "installed sgsample $version (ABI $abi) into $dest: ${#files[@]} files"
