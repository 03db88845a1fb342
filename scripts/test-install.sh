#!/usr/bin/env bash
# Installing and linking like a C library: `make install` and `cmake --install` into temporary
# prefixes (same files; DESTDIR honoured), then an out-of-tree program (ffi-tests/install/) built
# three ways — pkg-config + cc, find_package + CMake, plain -I/-L/-l — against the static and the
# shared library, run, and checked to see the version of the header it was compiled against.
# Also: the soname and the symlinks, a program linked against another ABI's soname refused by the
# loader, find_package refusing another minor version, the C ABI against its checked-in list
# (abi/), and the install step's refusals (unset or relative PREFIX, read-only prefix, no cargo,
# a half-writable prefix leaving nothing behind).
set -uo pipefail
cd "$(dirname "$0")/.."
build=ffi-tests/build/install
rm -rf "$build"
mkdir -p "$build"
build=$(cd "$build" && pwd)
source scripts/suite-check.sh

source scripts/abi-version.sh
p1=$build/make-prefix
p2=$build/cmake-prefix
src=$PWD/ffi-tests/install
warn=(-Wall -Wextra -Werror)

make_install() {
  make -s install PREFIX="$p1" && [ -f "$p1/include/sgsample.h" ] && [ -f "$p1/include/sgsample.hpp" ]
}

cmake_install() {
  cmake -S . -B "$build/cmake-build" -DCMAKE_INSTALL_LIBDIR=lib &&
    cmake --build "$build/cmake-build" && cmake --install "$build/cmake-build" --prefix "$p2"
}

same_files() {
  diff <(cd "$p1" && find . | sort) <(cd "$p2" && find . | sort) &&
    cmp "$p1/lib/libsgsample.a" "$p2/lib/libsgsample.a" &&
    cmp "$p1/lib/libsgsample.so.$version" "$p2/lib/libsgsample.so.$version" &&
    diff <(sed "s|$p1|P|" "$p1/lib/pkgconfig/sgsample.pc") <(sed "s|$p2|P|" "$p2/lib/pkgconfig/sgsample.pc") &&
    diff -r "$p1/lib/cmake" "$p2/lib/cmake" && echo "make install == cmake --install"
}

destdir() {
  make -s install PREFIX=/opt/sgs DESTDIR="$build/stage" &&
    [ -f "$build/stage/opt/sgs/lib/libsgsample.a" ] &&
    grep -qx 'prefix=/opt/sgs' "$build/stage/opt/sgs/lib/pkgconfig/sgsample.pc" &&
    echo "DESTDIR staging: files under DESTDIR, paths of PREFIX"
}

soname() {
  local so=$p1/lib/libsgsample.so.$version
  readelf -d "$so" | grep -q "Library soname: \[libsgsample.so.$abi\]" &&
    [ "$(readlink "$p1/lib/libsgsample.so.$abi")" = "libsgsample.so.$version" ] &&
    [ "$(readlink "$p1/lib/libsgsample.so")" = "libsgsample.so.$abi" ] &&
    echo "soname libsgsample.so.$abi, links .so -> .so.$abi -> .so.$version"
}

# run EXE SHARED: runs it; a shared build must load libsgsample.so.ABI from the prefix, a static
# one must not load any libsgsample.
run() {
  local exe=$1 shared=$2 prefix=$3
  if [ "$shared" = 1 ]; then
    LD_LIBRARY_PATH="$prefix/lib" ldd "$exe" | grep -q "libsgsample.so.$abi => $prefix/lib/" || {
      echo "$exe does not load libsgsample.so.$abi from $prefix/lib"
      return 1
    }
  elif ldd "$exe" | grep -q libsgsample; then
    echo "$exe is static but loads libsgsample"
    return 1
  fi
  LD_LIBRARY_PATH="$prefix/lib" "$exe"
}

pkgconfig() {
  local pc="env PKG_CONFIG_PATH=$p1/lib/pkgconfig pkg-config"
  $pc --exists "sgsample = $version" || { echo "pkg-config: sgsample $version not found"; return 1; }
  # shellcheck disable=SC2046
  cc -std=c99 "${warn[@]}" "$src/consumer.c" $($pc --cflags --libs sgsample) -lm -o "$build/pc-shared" &&
    run "$build/pc-shared" 1 "$p1" &&
    cc -std=c99 "${warn[@]}" "$src/consumer.c" $($pc --cflags sgsample) -Wl,-Bstatic \
      $($pc --libs-only-l sgsample) -Wl,-Bdynamic $($pc --static --libs-only-L sgsample) -lm \
      -o "$build/pc-static" && run "$build/pc-static" 0 "$p1"
}

plain() {
  cc -std=c99 "${warn[@]}" -I"$p1/include" "$src/consumer.c" -L"$p1/lib" -lsgsample -lm \
    -o "$build/plain-shared" && run "$build/plain-shared" 1 "$p1" &&
    cc -std=c99 "${warn[@]}" -I"$p1/include" "$src/consumer.c" "$p1/lib/libsgsample.a" -lm \
      -o "$build/plain-static" && run "$build/plain-static" 0 "$p1"
}

find_package_ways() {
  local t kind prefix
  for prefix in "$p1" "$p2"; do
    for t in sgsample::sgsample sgsample::shared; do
      kind=${t#sgsample::}
      cmake -S "$src" -B "$build/fp-$kind" -DCMAKE_PREFIX_PATH="$prefix" -DSGSAMPLE_TARGET="$t" \
        -DSGSAMPLE_VERSION="$vmajor.$vminor" -DCMAKE_C_FLAGS="${warn[*]}" \
        -DCMAKE_CXX_FLAGS="${warn[*]}" >/dev/null &&
        cmake --build "$build/fp-$kind" >/dev/null || return 1
      local shared=0
      [ "$kind" = shared ] && shared=1
      run "$build/fp-$kind/consumer" $shared "$prefix" && run "$build/fp-$kind/consumer_cxx" $shared "$prefix" || return 1
      rm -rf "$build/fp-$kind"
    done
  done
}

# A version of another ABI is refused: find_package of another minor, and a program linked
# against another ABI's soname (a stand-in library built here with that soname) cannot start.
other_abi_refused() {
  local other="$vmajor.$((vminor + 1))"
  if cmake -S "$src" -B "$build/fp-other" -DCMAKE_PREFIX_PATH="$p1" -DSGSAMPLE_VERSION="$other" \
    >"$build/fp-other.log" 2>&1; then
    echo "find_package(sgsample $other) accepted $version"
    return 1
  fi
  grep -q "compatible with requested version \"$other\"" "$build/fp-other.log" || { cat "$build/fp-other.log"; return 1; }
  # An install of the next ABI (a stand-in library with its soname) in place of this one: the
  # program linked against this install must not start.
  local next="libsgsample.so.$other"
  mkdir -p "$build/next"
  printf 'const char *sgs_version(void) { return "%s.0"; }\n' "$other" >"$build/next/v.c"
  cc -shared -fPIC -Wl,-soname,"$next" "$build/next/v.c" -o "$build/next/$next" &&
    ln -sf "$next" "$build/next/libsgsample.so" || return 1
  if LD_LIBRARY_PATH="$build/next" "$build/plain-shared" >"$build/next/run.log" 2>&1; then
    echo "a program linked against libsgsample.so.$abi ran against $next"
    return 1
  fi
  grep -q "libsgsample.so.$abi: cannot open shared object file" "$build/next/run.log" &&
    echo "find_package($other) refused; with only $next installed, the loader refuses a program linked against $abi"
}

# refuse NAME EXPECTED-TEXT ENV...: the install step fails with one line naming the problem.
refuse() {
  local expect=$1
  shift
  local out
  if out=$(env "$@" ./scripts/install.sh 2>&1); then
    echo "install succeeded with $*"
    return 1
  fi
  [ "$(printf '%s\n' "$out" | wc -l)" -eq 1 ] && grep -q "$expect" <<<"$out" || {
    echo "with $*: expected one line with '$expect', got:"
    printf '%s\n' "$out"
    return 1
  }
  echo "$* -> $out"
}

bad_input() {
  refuse "PREFIX is not set" PREFIX= &&
    refuse "absolute path" PREFIX=relative/dir &&
    refuse "not writable" PREFIX=/proc/sgsample-install-test &&
    refuse "cargo not found" PREFIX="$build/nocargo" CARGO=/nonexistent/cargo &&
    [ ! -e "$build/nocargo" ] &&
    half_writable
}

# lib/ exists as a file: include/ could be written, lib/ cannot; nothing may be left behind.
half_writable() {
  local p=$build/half
  mkdir -p "$p" && : >"$p/lib"
  refuse "nothing was installed" PREFIX="$p" || return 1
  [ -z "$(find "$p" -mindepth 1 ! -path "$p/lib")" ] && echo "nothing left in $p"
}

check make-install make_install
check cmake-install cmake_install
check same-files-both-ways same_files
check destdir-staging destdir
check soname-and-links soname
check consumer-pkg-config-shared-static pkgconfig
check consumer-plain-flags-shared-static plain
check consumer-find-package-static-shared find_package_ways
check other-abi-refused other_abi_refused
check abi-matches-checked-in-list bash scripts/abi-check.sh
check install-refusals bad_input
# The core crate packages and its package builds (nothing published).
check cargo-package-core cargo package -q -p sgsample --allow-dirty
echo "install: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
