#!/usr/bin/env python3
"""Mutation check: do the tests catch the plausible bugs they claim to catch?

Each mutant (scripts/mutants/chains.py, stats.py, svgd.py, sbc.py, batch.py, thin.py,
checkpoint.py, tunamh.py, weights.py) is one plausible bug written as an exact text replacement
in one source file: a wrong sign, a missing momentum flip, an
off-by-one in T, the kinetic energy added to the M-H ratio, a biased batch force, ... It names
the test targets that must catch it. For each mutant this script copies the tracked sources to
a scratch directory once, applies the replacement there (never in the working tree), builds and
runs the named tests in release mode (without LTO, incremental: a mutant changes one function, so
each build reuses most of the one before), and expects them to fail.

A mutant whose tests all pass has *survived*: either the tests are too weak for that bug, or
the "bug" does not change what the sampler computes; both need a human. A replacement whose
text is no longer found exactly once fails too, so that a refactor cannot silently retire a
mutant: update its text.

Mutants run two at a time by default (MUTANTS_JOBS): each worker has its own scratch tree and
target directory, so that one mutant's build overlaps the other's single-threaded compile
phases and test runs. On two cores the whole check takes about 14 minutes (33 minutes serially
without incremental builds).

Usage: scripts/mutants/run.py [NAME-SUBSTRING ...]   (default: every mutant)
Environment: MUTANTS_TARGET_DIR (default target/mutants; worker k > 0 appends -k),
MUTANTS_JOBS (default 2).
"""
import os
import shutil
import signal
import subprocess
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent.parent
sys.path.insert(0, str(HERE))
import batch  # noqa: E402
import chains  # noqa: E402
import checkpoint  # noqa: E402
import stats  # noqa: E402
import sbc  # noqa: E402
import svgd  # noqa: E402
import thin  # noqa: E402
import tunamh  # noqa: E402
import weights  # noqa: E402

MUTANTS = (chains.MUTANTS + stats.MUTANTS + svgd.MUTANTS + sbc.MUTANTS + batch.MUTANTS
           + thin.MUTANTS + checkpoint.MUTANTS + tunamh.MUTANTS + weights.MUTANTS)


def scratch_copy(k):
    dest = ROOT / "target" / ("mutants-src" if k == 0 else f"mutants-src-{k}")
    if dest.exists():
        shutil.rmtree(dest)
    try:
        files = subprocess.run(
            ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
            cwd=ROOT, check=True, capture_output=True).stdout.decode().split("\0")
    except (OSError, subprocess.CalledProcessError):
        # Not a git checkout (an unpacked archive): every file but the build outputs.
        skip = {"target", ".git", "build", "__pycache__"}
        files = [str(p.relative_to(ROOT)) for p in ROOT.rglob("*")
                 if p.is_file() and not skip.intersection(p.relative_to(ROOT).parts)]
    for f in files:
        if not f:
            continue
        src = ROOT / f
        if not src.is_file():
            continue
        (dest / f).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(src, dest / f)
    return dest


# A mutant that makes a test loop for ever (a rejection loop that never accepts) must not hang
# the suite: a run past this limit counts as caught. The slowest mutant takes about 25 s.
TIMEOUT_S = 600


def cargo_test(tree, m, env):
    """The named tests' outcome: a CompletedProcess, or None when they ran past TIMEOUT_S."""
    # `features`: what the named tests need (the C API's tests: "std,ffi").
    cmd = ["cargo", "test", "--release", "-q", "-p", "sgsample", "--features", m.get("features", "std")]
    for t in m["tests"]:
        cmd += ["--lib"] if t == "lib" else ["--test", t]
    cmd += ["--"]
    for name in m.get("skip", []):
        cmd += ["--skip", name]
    # A session of its own, so that a timeout kills the test binary too, not only cargo.
    with subprocess.Popen(cmd, cwd=tree, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                          text=True, start_new_session=True) as p:
        try:
            out, err = p.communicate(timeout=TIMEOUT_S)
        except subprocess.TimeoutExpired:
            os.killpg(p.pid, signal.SIGKILL)
            p.communicate()
            return None
    return subprocess.CompletedProcess(cmd, p.returncode, out, err)


def try_mutant(tree, m, env):
    """One mutant in one scratch tree: (outcome, detail, line). The outcome is "killed",
    "survived" or "stale"; the detail is what the summary lists for the last two (None when
    killed); the line is what to print."""
    edits = m.get("edits") or [(m["file"], m["old"], m["new"])]
    originals = {f: (tree / f).read_text() for f, _, _ in edits}
    texts = dict(originals)
    bad = []
    for f, old, new in edits:
        n = texts[f].count(old)
        if n != 1:
            bad.append(f"{n} matches in {f}")
        texts[f] = texts[f].replace(old, new)
    if bad:
        return "stale", f'{m["name"]}: its text has {", ".join(bad)}', f'STALE    {m["name"]} ({", ".join(bad)})'
    t0 = time.time()
    try:
        for f, text in texts.items():
            (tree / f).write_text(text)
        r = cargo_test(tree, m, env)
    finally:
        for f, text in originals.items():
            (tree / f).write_text(text)
    if r is None:
        return "killed", None, f'killed   {m["name"]} (its tests ran past {TIMEOUT_S} s)'
    out = r.stdout + r.stderr
    if r.returncode == 0:
        return "survived", m["name"], f'SURVIVED {m["name"]}: {m["bug"]}'
    if "error[E" in out or "could not compile" in out:
        return "stale", f'{m["name"]}: does not compile', f'STALE    {m["name"]} (does not compile)\n{out[-2000:]}'
    failing = sorted({line.split()[1] for line in out.splitlines()
                      if line.startswith("---- ") and line.endswith(" stdout ----")})
    return "killed", None, (f'killed   {m["name"]} ({time.time() - t0:.0f} s) by '
                            f'{", ".join(failing) or "a failing test"}')


def main():
    wanted = sys.argv[1:]
    chosen = [m for m in MUTANTS if not wanted or any(w in m["name"] for w in wanted)]
    # Mutants that build the same test targets with the same features run one after another, so
    # that each build is incremental on the one before (a change of features or targets rebuilds).
    chosen.sort(key=lambda m: (m.get("features", "std"), tuple(m["tests"])))
    names = [m["name"] for m in MUTANTS]
    dup = {n for n in names if names.count(n) > 1}
    if dup:
        sys.exit(f"mutants: duplicate names {sorted(dup)}")
    jobs = max(1, min(int(os.environ.get("MUTANTS_JOBS", "2")), len(chosen) or 1))
    base_dir = os.environ.get("MUTANTS_TARGET_DIR", str(ROOT / "target" / "mutants"))
    workers = []
    for k in range(jobs):
        env = dict(os.environ)
        env.update({
            "CARGO_TARGET_DIR": base_dir if k == 0 else f"{base_dir}-{k}",
            "CARGO_PROFILE_RELEASE_LTO": "false",
            "CARGO_PROFILE_RELEASE_CODEGEN_UNITS": "16",
            "CARGO_INCREMENTAL": "1",
        })
        workers.append((scratch_copy(k), env))
    # The unmutated tree must pass the same tests, or a "killed" mutant proves nothing. Each
    # worker builds it in its own target directory (which also warms that directory).
    targets = sorted({t for m in chosen for t in m["tests"]})
    features = ",".join(sorted({f for m in chosen for f in m.get("features", "std").split(",")}))
    with ThreadPoolExecutor(jobs) as pool:
        bases = list(pool.map(lambda w: cargo_test(w[0], {"tests": targets, "features": features}, w[1]),
                              workers))
    for base in bases:
        if base is None:
            sys.exit(f"mutants: the unmutated sources' tests ran past {TIMEOUT_S} s")
        if base.returncode != 0:
            print(base.stdout[-3000:], base.stderr[-3000:])
            sys.exit("mutants: the unmutated sources fail their own tests")
    # Each worker takes the next mutant when it is free; lines print as mutants finish.
    queue = list(reversed(chosen))
    lock = threading.Lock()
    results = []

    def work(w):
        while True:
            with lock:
                if not queue:
                    return
                m = queue.pop()
            outcome, detail, line = try_mutant(w[0], m, w[1])
            with lock:
                results.append((outcome, detail))
                print(line, flush=True)

    with ThreadPoolExecutor(jobs) as pool:
        for f in [pool.submit(work, w) for w in workers]:
            f.result()
    killed = sum(1 for o, _ in results if o == "killed")
    survived = [d for o, d in results if o == "survived"]
    stale = [d for o, d in results if o == "stale"]
    print(f"mutants: {killed} killed, {len(survived)} survived, {len(stale)} stale")
    for s in stale:
        print("  stale:", s)
    sys.exit(0 if not survived and not stale else 1)


if __name__ == "__main__":
    main()
