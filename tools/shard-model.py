#!/usr/bin/env python3
"""The cluster-scale model of the sharded RBM-SVGD (docs/scaling.md §6), from constants measured
on this machine, checked against a 2-rank run.

Usage: tools/shard-model.py [--n N ...] [--iters K] [--bandwidth B] [--latency A] [--from FILE]

Runs examples-c/mpi/build/svgd_shard_mpi --bench (built by scripts/bench-scaling.sh or
`make -C examples-c/mpi`; the 1-D mixture, p = 8, AdaGrad) on 1 and on 2 ranks bound to cores,
for each N, and reads the median time per iteration and rank 0's CPU time per step. Per
particle and iteration:

    t_w = CPU(begin + forces + finish + commit) / N on 1 rank: all of a shard's work, divided
          among the ranks (nothing is done by every rank for all N);

and per iteration on 2 ranks the exchanges' wall time E(2) (two all-to-alls of records, their
counts, the status reductions and the gather of the 48-byte summaries with their statuses). The check: the 2-rank
time predicted from the 1-rank constant and the measured exchange, t_w·N/2 + E(2), against the
measured median.

The prediction on R ranks of a network of bandwidth B and latency α (assumed, not measured: a
loopback is no network):

    T(R) = t_w·N/R + b·(N/R)·(R − 1)/R / B + (6·(R − 1) + 5·log2 R)·α

with b = 36 bytes per particle at d = 1 leaving a rank in the two exchanges ((slot, particle) and
(position, gradient): 8 + 16d; (particle) and (φ): 4 + 8d), spread over all links (a full
bisection network); per exchange three pairwise all-to-alls (counts, indices, rows: R − 1
latencies each), and per iteration five collectives of log2 R latencies each (the status
reductions after begin and forces, one per exchange on its sizes, and the gather). T(1) = t_w·N. Prints
T(1)/T(R) for N = 10^6, 10^7, 10^8 and R = 8, 32, 128, 512 and the memory per rank,
104 bytes per particle held at d = 1 (svgd_shard_mpi --memory).

CPU times are per-thread clocks, medians are wall times; say the load when quoting the output.
--from FILE reads the bench lines from FILE (an earlier run's output) instead of running them.
"""
import argparse
import math
import re
import shutil
import subprocess

LINE = re.compile(
    r"^# ranks (\d+), N (\d+): .*median time per iteration ([0-9.]+) s; rank 0 per iteration: CPU begin "
    r"([0-9.]+) s, forces ([0-9.]+) s, finish ([0-9.]+) s, commit ([0-9.]+) s, exchanges \(wall\) ([0-9.]+) s"
)


def run(n, ranks, iters):
    mpiexec = shutil.which("mpiexec.mpich") or shutil.which("mpiexec")
    cmd = [mpiexec, "-bind-to", "core", "-n", str(ranks), "examples-c/mpi/build/svgd_shard_mpi", "--n", str(n),
           "--p", "8", "--iters", str(iters), "--bench"]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    line = f"# ranks {ranks}, N {n}: " + " | ".join(out.strip().splitlines())
    print(line, flush=True)
    return line + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, nargs="+", default=[65536, 1000000])
    ap.add_argument("--iters", type=int, default=31)
    ap.add_argument("--bandwidth", type=float, default=12.5e9, help="bytes/s per link (default 12.5e9)")
    ap.add_argument("--latency", type=float, default=2e-6, help="seconds per message (default 2e-6)")
    ap.add_argument("--from", dest="src")
    a = ap.parse_args()
    text = open(a.src).read() if a.src else "".join(run(n, r, a.iters) for n in a.n for r in (1, 2))
    got = {}
    for ln in text.splitlines():
        m = LINE.match(ln)
        if m:
            r, n = int(m[1]), int(m[2])
            got[(r, n)] = [float(v) for v in m.groups()[2:]]
    b, B, alpha = 36.0, a.bandwidth, a.latency
    tws = []
    print("\n| N | t_w (1 rank) | T(1) measured | E(2) measured | T(2) predicted | T(2) measured | error |")
    print("|---:|---:|---:|---:|---:|---:|---:|")
    for n in sorted({n for (_, n) in got}):
        if (1, n) not in got or (2, n) not in got:
            continue
        med1, *cpu1, _ = got[(1, n)]
        med2, *_, ex2 = got[(2, n)]
        tw = sum(cpu1) / n
        tws.append(tw)
        pred = tw * n / 2 + ex2
        print(f"| {n} | {tw * 1e9:.1f} ns | {med1 * 1e3:.2f} ms | {ex2 * 1e3:.2f} ms | {pred * 1e3:.2f} ms | "
              f"{med2 * 1e3:.2f} ms | {100 * (pred - med2) / med2:+.0f} % |")
    if not tws:
        print("no complete pair of runs")
        return
    tw = tws[-1]
    print(f"\nPredictions with t_w = {tw * 1e9:.1f} ns (the largest N), b = {b:.0f} bytes, "
          f"B = {B / 1e9:.1f} GB/s, α = {alpha * 1e6:.1f} µs: speed-up T(1)/T(R), memory per rank")
    rs = [8, 32, 128, 512]
    print("| N | " + " | ".join(f"R = {r}" for r in rs) + " |")
    print("|---:|" + "---:|" * len(rs))
    for n in (10**6, 10**7, 10**8):
        cells = []
        for r in rs:
            t = tw * n / r + b * (n / r) * (r - 1) / r / B + (6 * (r - 1) + 5 * math.log2(r)) * alpha
            cells.append(f"{tw * n / t:.1f}× ({104 * n / r / 1e6:.1f} MB)")
        print(f"| {n:.0e} | " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
