#!/usr/bin/env bash
# The README shows code that must stay true: its C example is examples-c/minimal.c verbatim (that
# file is compiled and run by test-ffi.sh; the Rust examples run as doc tests), and the files it
# links to exist.
set -euo pipefail
cd "$(dirname "$0")/.."
readme_c=$(awk '/^```c$/{on=1; next} /^```$/{if(on){exit}} on' README.md)
if [ "$readme_c" != "$(cat examples-c/minimal.c)" ]; then
  echo "README's C example differs from examples-c/minimal.c" >&2
  diff <(printf '%s\n' "$readme_c") examples-c/minimal.c >&2 || true
  exit 1
fi
for f in $(grep -o '](\([^)]*\))' README.md | sed 's/^](//; s/)$//' | grep -v '^http'); do
  [ -e "$f" ] || { echo "README links to missing $f" >&2; exit 1; }
done
echo "docs: 2 passed, 0 failed"
