#!/usr/bin/env python3
"""The cluster-scale model of docs/scaling.md §5, from constants measured on this machine.

Usage: tools/cluster-model.py [--n N] [--iters-mixture K] [--iters-logistic K] [--bandwidth B]
                              [--latency A] [--from FILE] [--permutation shuffle|feistel]
                              [--only MODEL:P]

Runs examples-c/mpi/build/svgd_mpi --bench (built by scripts/bench-scaling.sh or
`make -C examples-c/mpi`) on 1 rank, then on 2 ranks sharing moved rows and sharing forces, for
the three rows of the model (mixture p = 8 and p = 64, logistic p = 64) at N = 65 536, and reads
rank 0's CPU time per phase. Per particle and iteration:

    t_s   = CPU(begin + finish) / N on 1 rank: done by every rank for all N particles;
    t_p   = CPU(own ranges) / N on 1 rank: gradients, forces and moves, divided among the ranks;
    t_put = (CPU(put + finish) on 2 ranks − CPU(finish) on 1 rank) / (N/2): putting in another
            rank's slot, for each way of sharing.

The prediction on R ranks (every rank holds all N particles):

    T(R) = t_s·N + t_put·N·(R − 1)/R + t_p·N/R + (R − 1)·α + b·N·(R − 1)/(R·B)

with b the bytes per particle the allgather carries (8·w: w = 3d values with AdaGrad for moved
rows, d for forces) and a ring allgather on a network of bandwidth B and latency α (assumed, not
measured: a loopback is no network). Prints the constants and T(1)/T(R) for N = 10^6, 10^7, 10^8
and R = 8, 32, 128, 512, with the limit R → ∞, (t_s + t_p)/(t_s + t_put + b/B).

CPU times are per-thread clocks: other processes inflate them much less than wall times, but a
loaded machine still moves them; say the load when quoting the output. --from FILE reads the
bench lines from FILE (the output of an earlier run) instead of running them. --permutation
feistel runs svgd_mpi with the Feistel permutation (the ranks move their particles in place: begin
and finish shrink into t_put); --only mixture:8 runs one row.
"""
import argparse
import re
import shutil
import subprocess
import sys

ROWS = [("mixture", 1, 8), ("mixture", 1, 64), ("logistic", 55, 64)]
LINE = re.compile(
    r"^# ranks (\d+): .*model (\w+), N \d+, d \d+, p (\d+), \d+ iterations, sharing (\w+).*"
    r"median time per iteration ([0-9.]+) s; rank 0 per iteration: CPU begin ([0-9.]+) s, "
    r"own ranges ([0-9.]+) s, put \+ finish ([0-9.]+) s"
)


def run(model, n, p, ranks, share, iters, permutation):
    """One bench run, as one line `# ranks R: <its output joined by ' | '>` (printed and returned)."""
    mpiexec = shutil.which("mpiexec.mpich") or shutil.which("mpiexec")
    cmd = [mpiexec, "-bind-to", "core", "-n", str(ranks), "examples-c/mpi/build/svgd_mpi", "--model", model,
           "--n", str(n), "--p", str(p), "--iters", str(iters), "--bench", "--share", share,
           "--permutation", permutation]
    out = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
    line = f"# ranks {ranks}: " + " | ".join(out.strip().splitlines())
    print(line, flush=True)
    return line + "\n"


def parse(text):
    """{(model, p, tag): (median, begin, ranges, put_finish)}, tag 1 for one rank, else the sharing."""
    found = {}
    for line in text.splitlines():
        g = LINE.match(line)
        if g:
            ranks, model, p, share = int(g.group(1)), g.group(2), int(g.group(3)), g.group(4)
            found[(model, p, 1 if ranks == 1 else share)] = tuple(float(g.group(k)) for k in range(5, 9))
    return found


def speedups(ts, tp, tput, b, bw, alpha):
    t1 = lambda n: (ts + tp) * n
    tr = lambda n, r: ts * n + tput * n * (r - 1) / r + tp * n / r + (r - 1) * alpha + b * n * (r - 1) / (r * bw)
    cells = []
    for r in (8, 32, 128, 512):
        s = [t1(n) / tr(n, r) for n in (1e6, 1e7, 1e8)]
        lo, hi = min(s), max(s)
        cells.append(f"{lo:.2f}" if f"{lo:.2f}" == f"{hi:.2f}" else f"{lo:.2f}–{hi:.2f}")
    cells.append(f"{(ts + tp) / (ts + tput + b / bw):.2f}")
    return cells


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--n", type=int, default=65536)
    ap.add_argument("--iters-mixture", type=int, default=31)
    ap.add_argument("--iters-logistic", type=int, default=5)
    ap.add_argument("--bandwidth", type=float, default=12.5e9, help="bytes/s (default 100 Gb/s)")
    ap.add_argument("--latency", type=float, default=2e-6, help="seconds per message (default 2 µs)")
    ap.add_argument("--from", dest="src", help="read the bench lines from this file")
    ap.add_argument("--permutation", choices=("shuffle", "feistel"), default="shuffle")
    ap.add_argument("--only", help="one row, MODEL:P (e.g. mixture:8)")
    a = ap.parse_args()
    rows = ROWS
    if a.only:
        model, _, p = a.only.partition(":")
        rows = [r for r in ROWS if r[0] == model and str(r[2]) == p]
        if not rows:
            ap.error(f"--only {a.only}: not a row of the model ({', '.join(f'{m}:{q}' for m, _, q in ROWS)})")
    if a.src:
        text = open(a.src).read()
    else:
        print(f"# load before: {open('/proc/loadavg').read().split()[:3]}")
        text = ""
        for model, _, p in rows:
            iters = a.iters_mixture if model == "mixture" else a.iters_logistic
            text += run(model, a.n, p, 1, "moves", iters, a.permutation)
            for share in ("moves", "forces"):
                text += run(model, a.n, p, 2, share, iters, a.permutation)
        print(f"# load after: {open('/proc/loadavg').read().split()[:3]}")
    data = parse(text)
    print("\n| model | sharing | t_s | t_p | t_put | bytes per particle | R = 8 | 32 | 128 | 512 | limit R → ∞ |")
    print("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|")
    for model, d, p in rows:
        one = data.get((model, p, 1))
        if not one:
            print(f"missing 1-rank run for {model} p = {p}", file=sys.stderr)
            continue
        n = a.n
        ts = (one[1] + one[3]) / n
        tp = one[2] / n
        w = {"moves": 3 * d, "forces": d}
        for share in ("moves", "forces"):
            two = data.get((model, p, share))
            if not two:
                continue
            tput = max(two[3] - one[3], 0.0) / (n / 2)
            b = 8 * w[share]
            cells = speedups(ts, tp, tput, b, a.bandwidth, a.latency)
            ns = lambda t: f"{t * 1e9:.1f} ns" if t < 1e-6 else f"{t * 1e6:.2f} µs"
            print(f"| {model}, d = {d}, p = {p} | {share} | {ns(ts)} | {ns(tp)} | {ns(tput)} | {b} | "
                  + " | ".join(cells) + " |")


if __name__ == "__main__":
    main()
