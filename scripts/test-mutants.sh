#!/usr/bin/env bash
# The mutation check (scripts/mutants/run.py): each plausible bug the test policy names — a
# wrong sign, a missing momentum flip, an off-by-one in T, the kinetic energy in the M-H ratio,
# a biased batch force, a wrong noise variance, ... — is applied in turn to a scratch copy of
# the sources, and the statistical tests that claim to catch it must fail. A surviving mutant,
# or one whose text no longer matches the source after a refactor, fails this suite.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 scripts/mutants/run.py
