#!/usr/bin/env bash
# The C ABI of include/sgsample.h against the checked-in list of this version's ABI,
# abi/sgsample-<ABI>.abi (ABI = 0.MINOR while the major version is 0, else MAJOR; docs/abi.md).
# A difference fails with the items that changed: within a release line the ABI is frozen, so
# either the change is undone or the version is bumped (0.x: the minor) and the list recorded:
#
#   scripts/abi-check.sh            # compare (scripts/test-install.sh runs it)
#   scripts/abi-check.sh --update   # record the header's ABI as this version's
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/abi-version.sh
list=abi/sgsample-$abi.abi
now=$(mktemp)
trap 'rm -f "$now"' EXIT
python3 tools/abi-list.py include/sgsample.h >"$now"
if [ "${1:-}" = --update ]; then
  cp "$now" "$list"
  echo "recorded the ABI of $version in $list"
  exit 0
fi
[ -f "$list" ] || { echo "no $list: record it with scripts/abi-check.sh --update"; exit 1; }
if ! python3 tools/abi-diff.py "$list" "$now" >"$now.diff"; then
  echo "the C ABI differs from $list (version $version):"
  sed 's/^/  /' "$now.diff"
  echo "undo the change, or bump the version (docs/abi.md) and run scripts/abi-check.sh --update"
  rm -f "$now.diff"
  exit 1
fi
rm -f "$now.diff"
echo "C ABI == $list ($(grep -c '^function' "$list") functions, $(grep -c '^struct .* size' "$list") structs)"
