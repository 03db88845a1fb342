#!/usr/bin/env bash
# The measurements of docs/scaling.md (a benchmark, not a test: wall-clock times on this
# machine, meaningful on idle cores only; the CPU-time columns are per-thread clocks, which
# other processes inflate much less). Builds the OpenMP and MPI examples, then prints
#   1. threads: for the cheap (1-D mixture) and the expensive (logistic regression d = 55,
#      minibatch 100) gradient, the median time per iteration of the serial sgs_svgd_step and
#      of the OpenMP iteration on all cores (OMP_NUM_THREADS, default 2), each in a loop of its
#      own, bit identity checked; and the CPU-time model: the serial part (begin + finish) as a
#      share of the serial step, the pieces' CPU time against the step's, and the speed-up idle
#      cores would give if the pieces shared out evenly;
#   2. MPI: median time per iteration on 1 and 2 ranks (svgd_mpi --bench, one rank per core;
#      the ranks share moved rows, and for the mixture also forces: --share forces), the
#      speed-up, and rank 0's CPU per phase;
#   3. one iteration of a large system, BIG_N particles (default 1e8) at d = 1 and BIG_N/10 at
#      d = 10 (the memory check);
#   4. the Feistel permutation (ranges that move their particles in place) against the
#      shuffle, the mixture at p = 8, threads and 1 and 2 ranks;
#   5. the MPI_Allgatherv of 64 Ki, 1 Mi and 8 Mi doubles on 2 ranks alone (svgd_mpi
#      --allgather), and the cluster model's constants and predictions (tools/cluster-model.py,
#      which runs svgd_mpi --bench at N = 65 536 on 1 and 2 ranks, both ways of sharing);
#   6. shards (svgd_shard_mpi, ranks holding only their block of the particles; their records
#      through MPI_Alltoallv, then --shared, read in place from a shared-memory window) against
#      svgd_mpi with the Feistel permutation, 1 and 2 ranks, N = 65 536 … 10⁷; the same with threads
#      (openmp_shard, against the serial step with the same permutation, and the shuffle's
#      serial step printed beside it); the memory per rank; and the shards' cluster model
#      (tools/shard-model.py).
# Threads are bound to cores and spin between iterations (OMP_PROC_BIND=true,
# OMP_WAIT_POLICY=active unless set), so that a wake-up is not timed; ranks are bound to cores
# (-bind-to core).
# Usage: scripts/bench-scaling.sh [quick|shards|repeat]   (quick: N up to 16384, fewer
# iterations; shards: section 6 alone; repeat: section 6's two-worker runs at N = 65 536 and
# 262 144 (or REPEAT_N) alone, REPEAT times (default 9) each, interleaved with the serial step:
# this machine's timings move by up to 10 % from run to run, so one run's ratio is not the ratio)
set -euo pipefail
cd "$(dirname "$0")/.."
mpicc=$(command -v mpicc.mpich || command -v mpicc)
mpiexec=$(command -v mpiexec.mpich || command -v mpiexec)
cargo build -q --release -p sgsample-capi
make -s -C examples-c "$PWD/examples-c/build/openmp_svgd"
make -s -C examples-c/mpi MPICC="$mpicc" BUILD=build
omp=examples-c/build/openmp_svgd
mpi=examples-c/mpi/build/svgd_mpi
export OMP_NUM_THREADS=${OMP_NUM_THREADS:-2}
export OMP_PROC_BIND=${OMP_PROC_BIND:-true}
export OMP_WAIT_POLICY=${OMP_WAIT_POLICY:-active}
sizes="4096 16384 65536"
[ "${1:-}" = quick ] && sizes="4096 16384"
echo "# load before: $(cut -d' ' -f1-3 /proc/loadavg)"
mode=${1:-}
if [ "$mode" = repeat ]; then
  make -s -C examples-c "$PWD/examples-c/build/openmp_shard"
  shard=examples-c/mpi/build/svgd_shard_mpi
  med() { sort -g | awk '{ v[NR] = $1 } END { printf "%.2f", v[int((NR + 1) / 2)] }'; }
  for n in ${REPEAT_N:-65536 262144}; do
    iters=151
    [ "$n" -gt 65536 ] && iters=61
    [ "$n" -gt 262144 ] && iters=31
    [ "$n" -gt 1000000 ] && iters=5
    rows=
    for k in $(seq "${REPEAT:-9}"); do
      # serial step, threads (1 and 2), then ranks with the window (1 and 2), each its median.
      set -- $(examples-c/build/openmp_shard --bench "$n" 8 "$iters" | tail -1 |
        sed 's/.*serial step \([0-9.]*\) s.*1 thread \([0-9.]*\) s, on 2 threads \([0-9.]*\) s.*/\1 \2 \3/')
      r1=$("$mpiexec" -bind-to core -n 1 "$shard" --shared --n "$n" --p 8 --iters "$iters" --bench |
        sed -n 's/.*median time per iteration \([0-9.]*\) s.*/\1/p')
      r2=$("$mpiexec" -bind-to core -n 2 "$shard" --shared --n "$n" --p 8 --iters "$iters" --bench |
        sed -n 's/.*median time per iteration \([0-9.]*\) s.*/\1/p')
      row=$(awk -v s="$1" -v a="$2" -v b="$3" -v c="$r1" -v e="$r2" 'BEGIN {
        printf "%.3f %.3f %.3f %.3f %.3f %.2f %.2f %.2f %.2f", s * 1e3, a * 1e3, b * 1e3, c * 1e3, e * 1e3,
          s / b, a / b, s / e, c / e }')
      echo "N $n run $k: serial $(echo "$row" | cut -d' ' -f1) ms; threads 1/2 $(echo "$row" | cut -d' ' -f2-3) ms;" \
        "ranks (--shared) 1/2 $(echo "$row" | cut -d' ' -f4-5) ms; 2 threads vs serial $(echo "$row" | cut -d' ' -f6)," \
        "vs 1 thread $(echo "$row" | cut -d' ' -f7); 2 ranks vs serial $(echo "$row" | cut -d' ' -f8), vs 1 rank $(echo "$row" | cut -d' ' -f9)"
      rows="$rows$row"$'\n'
    done
    rows=${rows%$'\n'}
    echo "N $n, medians over ${REPEAT:-9} runs: 2 threads vs serial $(echo "$rows" | cut -d' ' -f6 | med)," \
      "vs 1 thread $(echo "$rows" | cut -d' ' -f7 | med); 2 ranks vs serial $(echo "$rows" | cut -d' ' -f8 | med)," \
      "vs 1 rank $(echo "$rows" | cut -d' ' -f9 | med)"
  done
  echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
  exit 0
fi
if [ "$mode" != shards ]; then
for model in mixture logistic; do
  for p in 8 64; do
    for n in $sizes; do
      iters=31
      [ "$model" = logistic ] && iters=5
      "$omp" --bench "$model" "$n" "$p" "$iters"
      t1=
      shares="1:moves 2:moves"
      [ "$model" = mixture ] && shares="$shares 2:forces"
      for rs in $shares; do
        r=${rs%%:*} share=${rs#*:}
        line=$("$mpiexec" -bind-to core -n "$r" "$mpi" --model "$model" --n "$n" --p "$p" --iters "$iters" --bench \
          --share "$share" | grep median)
        t=$(echo "$line" | sed -n 's/.*median time per iteration \([0-9.]*\) s.*/\1/p')
        [ "$r" = 1 ] && t1=$t
        echo "mpi $r rank(s), sharing $share: $line$([ "$r" = 2 ] && awk -v a="$t1" -v b="$t" 'BEGIN { printf "; speed-up %.2f", a / b }')"
      done
    done
  done
done
# The Feistel permutation, where the ranges evaluate their own slots and move their particles in
# place (no O(N) serial step): the cheap gradient at p = 8, threads and ranks, each against its
# own serial run and against the shuffle's (printed alongside).
fsizes="65536 262144"
[ "${1:-}" = quick ] && fsizes="16384"
for n in $fsizes; do
  for perm in shuffle feistel; do
    SGS_PERMUTATION=$perm "$omp" --bench mixture "$n" 8 31 | sed "s/^/$perm: /"
    t1=
    for r in 1 2; do
      line=$("$mpiexec" -bind-to core -n "$r" "$mpi" --model mixture --n "$n" --p 8 --iters 31 --bench \
        --permutation "$perm" | grep median)
      t=$(echo "$line" | sed -n 's/.*median time per iteration \([0-9.]*\) s.*/\1/p')
      [ "$r" = 1 ] && t1=$t
      echo "$perm: mpi $r rank(s): $line$([ "$r" = 2 ] && awk -v a="$t1" -v b="$t" 'BEGIN { printf "; speed-up %.2f", a / b }')"
    done
  done
done
for c in 65536 1048576 8388608; do
  "$mpiexec" -bind-to core -n 2 "$mpi" --allgather "$c"
done
[ "${1:-}" != quick ] && python3 tools/cluster-model.py
fi
# 6. Shards (svgd_shard_mpi: each rank holds only its block of the particles; the records sent
# by MPI_Alltoallv, then with --shared read in place from a shared-memory window) against the
# ranks that each hold the whole system (svgd_mpi, Feistel permutation), the mixture at p = 8, on
# 1 and 2 ranks; then the shards' cluster model, checked against the 2-rank runs.
ssizes="65536 262144 1000000 10000000"
[ "${1:-}" = quick ] && ssizes="65536"
shard=examples-c/mpi/build/svgd_shard_mpi
for n in $ssizes; do
  iters=31
  [ "$n" -ge 10000000 ] && iters=5
  for prog in "$mpi --permutation feistel" "$shard" "$shard --shared"; do
    t1=
    for r in 1 2; do
      # shellcheck disable=SC2086 # $prog is a command and its option
      line=$("$mpiexec" -bind-to core -n "$r" $prog --n "$n" --p 8 --iters "$iters" --bench | grep median)
      t=$(echo "$line" | sed -n 's/.*median time per iteration \([0-9.]*\) s.*/\1/p')
      [ "$r" = 1 ] && t1=$t
      how=; [ "${prog%--shared}" != "$prog" ] && how=" (records read in place, --shared)"
      echo "N $n: $r rank(s)$how: $line$([ "$r" = 2 ] && awk -v a="$t1" -v b="$t" 'BEGIN { printf "; speed-up %.2f", a / b }')"
    done
  done
done
# The same with threads (examples-c/openmp_shard: the serial step, the shards on 1 thread and on
# OMP_NUM_THREADS threads; speed-ups printed).
make -s -C examples-c "$PWD/examples-c/build/openmp_shard"
for n in $ssizes; do
  iters=31
  [ "$n" -ge 10000000 ] && iters=5
  examples-c/build/openmp_shard --bench "$n" 8 "$iters" | tail -1
  "$omp" --bench mixture "$n" 8 "$iters" | sed -n 's/.*wall serial \([0-9.]*\) s.*/shuffle: serial step \1 s/p'
done
[ "${1:-}" != quick ] && "$mpiexec" -n 2 "$shard" --n 10000000 --iters 2 --memory | grep rank
[ "${1:-}" != quick ] && python3 tools/shard-model.py --n 65536 1000000 10000000 --iters 11
if [ "$mode" != quick ] && [ "$mode" != shards ]; then
  big=${BIG_N:-100000000}
  "$omp" --big "$big" 1 8
  "$omp" --big "$((big / 10))" 10 8
fi
echo "# load after: $(cut -d' ' -f1-3 /proc/loadavg)"
