#!/usr/bin/env bash
# The documentation must stay true and self-contained:
# - the README's C example is examples-c/minimal.c verbatim (that file is compiled and run by
#   test-ffi.sh; the Rust examples run as doc tests), and the files the README links to exist;
# - every tracked file (code, tests, examples, scripts, docs) that cites a repo-relative `….md`
#   path (docs/algorithms.md, ../docs/footprint.md, …) cites one that exists;
# - every `docs/algorithms.md §N.M` (or `… section N.M`) citation names a section heading that
#   exists in docs/algorithms.md, and every quoted title after docs/design.md a heading of that file;
# - nothing refers to the specification files the library was written from, which live outside
#   the repository (a clone must stand alone).
set -uo pipefail
cd "$(dirname "$0")/.."
passed=0
failed=0

# check NAME COMMAND...: runs a check function; it prints its own diagnostics on failure.
check() {
  local name=$1
  shift
  if "$@"; then
    passed=$((passed + 1))
  else
    echo "FAILED: $name" >&2
    failed=$((failed + 1))
  fi
}

readme_c_example() {
  local readme_c
  readme_c=$(awk '/^```c$/{on=1; next} /^```$/{if(on){exit}} on' README.md)
  if [ "$readme_c" != "$(cat examples-c/minimal.c)" ]; then
    echo "README's C example differs from examples-c/minimal.c" >&2
    diff <(printf '%s\n' "$readme_c") examples-c/minimal.c >&2 || true
    return 1
  fi
}

readme_links() {
  local f ok=0
  # Outside fenced code blocks: a C++ lambda `[](const double *x …)` is not a link.
  for f in $(awk '/^```/ { fence = !fence; next } !fence' README.md | grep -o '](\([^)]*\))' |
    sed 's/^](//; s/)$//' | grep -v '^http'); do
    [ -e "$f" ] || { echo "README links to missing $f" >&2; ok=1; }
  done
  return $ok
}

# Tracked text files (binary files are skipped by grep -I).
mapfile -d '' files < <(git ls-files -z)

# Every `dir/…/name.md` path cited anywhere resolves, relative to the citing file's directory or
# one of its ancestors up to the repository root (a comment in examples-embedded/.cargo/ writes
# paths relative to its crate, examples-embedded/), without leaving the repository.
resolves() { # resolves FILE PATH
  local dir root
  dir=$(dirname "$1")
  root=$(pwd -P)
  while :; do
    if [ -e "$dir/$2" ]; then
      case $(cd "$(dirname "$dir/$2")" && pwd -P)/ in "$root"/*) return 0 ;; esac
    fi
    [ "$dir" = . ] && return 1
    dir=$(dirname "$dir")
  done
}

cited_md_paths_exist() {
  local ok=0 file path
  while IFS=: read -r file path; do
    resolves "$file" "$path" && continue
    echo "$file cites missing $path" >&2
    ok=1
  done < <(grep -IoE '(\.\.?/)*[A-Za-z0-9_-]+(/[A-Za-z0-9_.-]+)*/[A-Za-z0-9_.-]*[A-Za-z0-9_-]\.md\b' \
             "${files[@]}" | sort -u)
  return $ok
}

# Section numbers of docs/algorithms.md's headings: "## 1. AMAGOLD" → 1, "### 1.3 …" → 1.3.
algorithm_sections() {
  sed -nE 's/^#{1,6} +([0-9]+(\.[0-9]+)*)\.?( .*)?$/\1/p' docs/algorithms.md
}

# Every `docs/algorithms.md §N.M` / `docs/algorithms.md section N.M` names an existing section.
# The citation may wrap onto the next line, behind a comment marker (//, //!, #, *).
algorithm_sections_exist() {
  [ -f docs/algorithms.md ] || { echo "docs/algorithms.md is missing" >&2; return 1; }
  local sections citations ok=0 file sec
  sections=$(algorithm_sections)
  citations=$(perl -0777 -ne '
      while (/docs\/algorithms\.md(?:[\s,;(]|\/\/!?|#|\*)*(?:§\s*|section\s+)(\d+(?:\.\d+)*)/g) {
        print "$ARGV:$1\n";
      }' "${files[@]}" 2>/dev/null | sort -u)
  # The code cites dozens of sections: finding none means the pattern itself is broken.
  [ -n "$citations" ] || { echo "found no docs/algorithms.md § citation at all" >&2; return 1; }
  while IFS=: read -r file sec; do
    grep -qxF "$sec" <<<"$sections" && continue
    echo "$file cites docs/algorithms.md §$sec, which has no heading there" >&2
    ok=1
  done <<<"$citations"
  return $ok
}

# Every citation of docs/design.md followed by a quoted title names a heading of design.md.
design_sections_exist() {
  [ -f docs/design.md ] || { echo "docs/design.md is missing" >&2; return 1; }
  local ok=0 file title
  while IFS=: read -r file title; do
    grep -qE "^#{1,6} +$title\$" docs/design.md && continue
    echo "$file cites docs/design.md \"$title\", which has no such heading" >&2
    ok=1
  done < <(perl -0777 -ne 'while (/docs\/design\.md\s+"([^"\n]+)"/g) { print "$ARGV:$1\n" }' \
             "${files[@]}" 2>/dev/null | sort -u)
  return $ok
}

# No reference to the out-of-repository specification (written with character classes so that
# this script does not match itself).
no_outside_spec() {
  local hits
  hits=$(grep -InE '[.][.]/shared|ALGORITHMS[.]md|DESIGN[.]md' "${files[@]}")
  if [ -n "$hits" ]; then
    echo "references to files outside the repository (cite docs/algorithms.md or docs/design.md):" >&2
    echo "$hits" >&2
    return 1
  fi
}

check "README C example = examples-c/minimal.c" readme_c_example
check "README links resolve" readme_links
check "cited .md files exist" cited_md_paths_exist
check "cited docs/algorithms.md sections exist" algorithm_sections_exist
check "cited docs/design.md sections exist" design_sections_exist
check "no references outside the repository" no_outside_spec
echo "docs: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
