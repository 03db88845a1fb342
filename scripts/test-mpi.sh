#!/usr/bin/env bash
# The MPI examples (examples-c/mpi/, MPICH, built with mpicc) on 1, 2 and 4 ranks of this machine
# (oversubscribed, loopback): RBM-SVGD with the batches split across ranks (sharing moved rows,
# and sharing forces) is bit-identical to the serial run for every rank count (including counts that do not divide the batches, and more
# ranks than batches), on the cheap and the expensive model; a rank whose callback aborts makes
# every rank return the same status with the particles as before the iteration; multi-chain
# AMAGOLD (one chain per rank, also after a warm-up, whose reports rank 0 prints) equals the
# serial chains of the same streams and its pooled moments agree with the target; RBM-SVGD over
# ranks that each hold only their block of the particles (svgd_shard_mpi) is bit-identical too.
set -uo pipefail
cd "$(dirname "$0")/.."
build=examples-c/mpi/build
mkdir -p "$build"
# MPICH's compiler driver and launcher by name: with Open MPI also installed, plain mpicc may
# be Open MPI's.
mpicc=$(command -v mpicc.mpich || command -v mpicc)
mpiexec=$(command -v mpiexec.mpich || command -v mpiexec)
# check NAME COMMAND... (passed/failed counts, logs in $build).
source scripts/suite-check.sh
bit_identical() { # RANKS ARGS...: the run says so on rank 0, and exits 0
  local n=$1
  shift
  "$mpiexec" -n "$n" "$build/svgd_mpi" --check "$@" && true
}
cargo build -q --release -p sgsample-capi || exit 1
check build make -s -C examples-c/mpi MPICC="$mpicc" BUILD=build
for r in 1 2 4; do
  check "svgd-mixture-d2-N1001-p8-$r-ranks" bit_identical "$r" --n 1001 --d 2 --p 8 --iters 6
done
check "svgd-logistic-d55-N256-2-ranks" bit_identical 2 --model logistic --n 256 --p 8 --iters 3
check "svgd-4-ranks-3-batches-one-rank-idle" bit_identical 4 --n 24 --p 8 --iters 4
check "svgd-full-p-eq-N-2-ranks" bit_identical 2 --n 64 --p 64 --iters 4
# Sharing forces instead of moved rows (every rank computes every move): the same bits.
check "svgd-share-forces-mixture-3-ranks" bit_identical 3 --n 1001 --d 2 --p 8 --iters 6 --share forces
check "svgd-share-forces-logistic-2-ranks" bit_identical 2 --model logistic --n 256 --p 8 --iters 3 --share forces
# The scale option (docs/algorithms.md §2.7): every rank computes the same scales in its begin.
check "svgd-scale-mixture-d2-3-ranks" bit_identical 3 --n 1001 --d 2 --p 8 --iters 6 --scale particles
check "svgd-scale-share-forces-logistic-2-ranks" bit_identical 2 --model logistic --n 256 --p 8 --iters 3 --share forces --scale particles
# The Feistel permutation: each rank moves its own particles in place and puts the others' moved
# rows (or computes their moves from the forces) in place.
check "svgd-feistel-mixture-d2-3-ranks" bit_identical 3 --n 1001 --d 2 --p 8 --iters 6 --permutation feistel
check "svgd-feistel-share-forces-logistic-2-ranks" bit_identical 2 --model logistic --n 256 --p 8 --iters 3 --share forces --permutation feistel
check "svgd-feistel-rank-1-aborts-2-ranks" bit_identical 2 --n 300 --p 8 --iters 5 --abort-rank 1 --abort-iter 3 --permutation feistel
check "svgd-rank-1-aborts-2-ranks" bit_identical 2 --n 300 --p 8 --iters 5 --abort-rank 1 --abort-iter 3
check "svgd-rank-3-aborts-4-ranks" bit_identical 4 --n 300 --p 8 --iters 5 --abort-rank 3 --abort-iter 2
# Ranks that hold only their block of the particles (svgd_shard_mpi): two record exchanges per
# iteration (or, with --shared, none: the records read where they were written), bit-identical to the serial run; idle ranks (fewer batches than ranks, p = N); a
# rank's callback aborting makes every rank cancel with its particles as before.
shard() { # RANKS ARGS...
  local n=$1
  shift
  "$mpiexec" -n "$n" "$build/svgd_shard_mpi" --check "$@" && true
}
for r in 1 2 3; do
  check "svgd-shard-mixture-d2-N1001-p8-$r-ranks" shard "$r" --n 1001 --d 2 --p 8 --iters 6
done
check "svgd-shard-4-ranks-3-batches" shard 4 --n 24 --p 8 --iters 4
check "svgd-shard-p-eq-N-2-ranks" shard 2 --n 64 --p 64 --iters 4
check "svgd-shard-rank-1-aborts-3-ranks" shard 3 --n 300 --p 8 --iters 5 --abort-rank 1 --abort-iter 3
# The same with the records read in place from a shared-memory window (--shared): no exchange.
for r in 2 3; do
  check "svgd-shard-shared-d2-N1001-p8-$r-ranks" shard "$r" --shared --n 1001 --d 2 --p 8 --iters 6
done
check "svgd-shard-shared-4-ranks-3-batches" shard 4 --shared --n 24 --p 8 --iters 4
check "svgd-shard-shared-rank-2-aborts-3-ranks" shard 3 --shared --n 300 --p 8 --iters 5 --abort-rank 2 --abort-iter 2
for r in 1 2 4; do
  check "amagold-chains-$r-ranks" "$mpiexec" -n "$r" "$build/amagold_chains" --check --iters 20000
done
# With the library's warm-up (diagonal mass matrix): each rank's verdict printed, its report and
# chain equal to the serial chain's.
check "amagold-chains-warmup-3-ranks" "$mpiexec" -n 3 "$build/amagold_chains" --check --iters 5000 --warmup 500
echo "mpi: $passed passed, $failed failed"
[ "$failed" -eq 0 ]
