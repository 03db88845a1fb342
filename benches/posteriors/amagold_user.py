#!/usr/bin/env python3
"""sgsample's AMAGOLD as a user runs it on the real-data posteriors, judged against
reference.json -> amagold_user.json (docs/benchmarks.md, "Warm-up on real models").

    nice -n 10 /work/venv-bench/bin/python benches/posteriors/amagold_user.py            # all
    nice -n 10 /work/venv-bench/bin/python benches/posteriors/amagold_user.py NAME ...   # some
        [--mass diagonal,dense] [--starts init_uniform,init_far] [--warmup 1000] [--draws 1000]

Needs the sgsample Python package installed in the venv (``pip install ./bindings/python``).

Per model, start and mass matrix, 4 chains with the library's defaults
(``sgsample.AMAGOLD(energy, grad, theta0, seed=…, stream=c, mass=…)``: T = 10, a warm-up of 1000
iterations (the approach, then Stan's windows, docs/algorithms.md §1.7), target acceptance
0.65), then 1000 draws. Same starts as nuts_user.py (``init_uniform``: uniform(-2, 2);
``init_far``: reference mean ± 20 reference sds), same seeds every run.

Judged as nuts_user.py judges NUTS, plus what the library says about itself:
* converged: every chain in the typical set (its draws' mean within 3 reference sds of the
  reference mean in every coordinate), pooled rank-normalised R-hat < 1.01 for every coordinate,
  and every coordinate's mean within 4 combined MCSE of the reference, |mean - ref| <= 4
  sqrt(mcse^2 + mcse_ref^2);
* the verdict: OK when every chain's warm-up report, compared across the chains
  (``sgsample.warmup_compare``), is "ok", and the draws pass the stored-draws verdict (rank-R-hat
  < 1.01, bulk and tail ESS >= 100 per chain, no divergence after the warm-up); else SUSPECT;
* the outcome: "ok" (OK and converged), "caught" (SUSPECT, not converged), "false alarm"
  (SUSPECT, converged), "FALSE OK" (OK, not converged: the one failure not allowed);
* gradient evaluations (gradient calls, warm-up and sampling apart; energies apart), bulk-ESS per
  sampling gradient (the smallest over the coordinates), against NUTS's from nuts_user.json;
* acceptance after the warm-up (per chain) against the target.
"""

import argparse
import datetime
import json
import os
import platform
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from posteriors.models import MODELS  # noqa: E402  (sets x64, 1 thread)

import arviz as az  # noqa: E402
import numpy as np  # noqa: E402
import sgsample  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "amagold_user.json")
CHAINS = 4
SEEDS = {"init_uniform": 1, "init_far": 2}
RHAT_MAX, Z_MAX, TYPICAL_SDS = 1.01, 4.0, 3.0
ESS_PER_CHAIN = 100


class Counted:
    """The model's energy and gradient, counting calls."""

    def __init__(self, m):
        self.m = m
        self.grads = 0
        self.energies = 0

    def energy(self, theta):
        self.energies += 1
        return self.m.energy(theta)

    def grad(self, theta, seed):
        self.grads += 1
        return self.m.grad(theta, seed)


def run(m, start, mass, ref, warmup, draws, target, extra=None):
    seed = SEEDS[start]
    rng = np.random.default_rng(seed)
    inits = [m.init_uniform(rng) if start == "init_uniform" else m.init_far(rng, ref)
             for _ in range(CHAINS)]
    counted = Counted(m)
    chains, rows, reports, accept, info = [], [], [], [], []
    t0 = time.time()
    g_warm = g_draw = e_warm = e_draw = 0
    div_draw = 0
    for c, th0 in enumerate(inits):
        try:
            ch = sgsample.AMAGOLD(counted.energy, counted.grad, np.asarray(th0, float),
                                  seed=1000 + seed, stream=c, mass=mass, warmup=warmup,
                                  target_accept=target, **(extra or {}))
        except sgsample.Error as e:
            # A start where the energy is not finite: the library refuses it at once.
            info.append({"chain": c, "refused": str(e)})
            continue
        g0, e0 = counted.grads, counted.energies
        ch.run(warmup)
        g_warm += counted.grads - g0
        e_warm += counted.energies - e0
        reports.append(ch.warmup_report())
        g0, e0, d0, a0 = counted.grads, counted.energies, ch.info.divergences, ch.info.accepted
        x = ch.run(draws)
        g_draw += counted.grads - g0
        e_draw += counted.energies - e0
        div_draw += ch.info.divergences - d0
        accept.append((ch.info.accepted - a0) / draws)
        chains.append(ch)
        rows.append(x)
        info.append({"chain": c, "step_size": ch.step_size})
    wall = time.time() - t0
    res = {"model": m.name, "start": start, "mass": mass, "chains_run": len(chains),
           "chain_info": info, "wall_s": wall, "grads_warmup": g_warm, "grads_sampling": g_draw,
           "energies_warmup": e_warm, "energies_sampling": e_draw,
           "divergences_sampling": div_draw, "accept_after_warmup": accept, "target": target}
    if len(chains) < 2:
        res.update(converged=False, verdict="suspect", outcome="caught",
                   note="fewer than 2 chains could start")
        return res
    compared = sgsample.warmup_compare(chains)
    res["reports"] = [dict(verdict=r.verdict, reasons=list(r.reasons),
                           step_size=r.step_size, accept_rate=r.accept_rate,
                           trend_z=r.energy_trend_z, falling=r.energy_trend_falling,
                           rising=r.energy_trend_rising, energy_mean=r.energy_mean,
                           energy_sd=r.energy_sd, bfmi=r.bfmi,
                           condition_number=r.condition_number,
                           approach_iterations=r.approach_iterations,
                           approach_energy=[r.approach_energy_start, r.approach_energy_end],
                           restarts=r.restarts, metric_updates=r.metric_updates)
                      for r in compared]
    x = np.stack(rows)  # (chains, draws, d)
    post = az.convert_to_dataset(x)  # var "x" with dims chain, draw, x_dim_0
    rhat = np.asarray(az.rhat(post, method="rank")["x"])
    ess_bulk = np.asarray(az.ess(post, method="bulk")["x"])
    ess_tail = np.asarray(az.ess(post, method="tail")["x"])
    mcse = np.asarray(az.mcse(post, method="mean")["x"])
    mean = x.mean(axis=(0, 1))
    ref_mean = np.asarray(ref["mean"])
    ref_sd = np.asarray(ref["sd"])
    ref_mcse = np.asarray(ref["mcse_mean"])
    z = np.abs(mean - ref_mean) / np.sqrt(mcse ** 2 + ref_mcse ** 2)
    chain_dev = np.abs(x.mean(axis=1) - ref_mean) / ref_sd  # (chains, d)
    in_typical = [bool(np.all(dev <= TYPICAL_SDS)) for dev in chain_dev]
    converged = (len(chains) == CHAINS and all(in_typical) and bool(np.all(rhat < RHAT_MAX))
                 and bool(np.all(z <= Z_MAX)))
    warm_ok = all(r.verdict == "ok" for r in compared)
    k = len(chains)
    # The library's own verdict on the stored draws (sgs_draws_diagnose: rank-R-hat < 1.01,
    # bulk and tail ESS >= 100 per chain, no divergence).
    v = sgsample.diagnose(x, divergences=div_draw)
    draws_ok = bool(v.ok) and len(chains) == CHAINS
    res["draws_reasons"] = list(v.reasons)
    verdict = "ok" if (warm_ok and draws_ok) else "suspect"
    outcome = {(True, True): "ok", (False, False): "caught", (False, True): "false alarm",
               (True, False): "FALSE OK"}[(verdict == "ok", converged)]
    res.update(converged=converged, verdict=verdict, outcome=outcome,
               warmup_verdicts_ok=warm_ok, draws_verdict_ok=draws_ok,
               in_typical_set=in_typical, max_chain_dev_sds=float(chain_dev.max()),
               max_rhat=float(rhat.max()), max_z=float(z.max()),
               min_ess_bulk=float(ess_bulk.min()), min_ess_tail=float(ess_tail.min()),
               ess_per_grad=float(ess_bulk.min() / max(g_draw, 1)),
               ess_per_grad_energy=float(ess_bulk.min() / max(g_draw + e_draw, 1)))
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("names", nargs="*")
    ap.add_argument("--mass", default="diagonal,dense")
    ap.add_argument("--starts", default="init_uniform,init_far")
    ap.add_argument("--warmup", type=int, default=1000)
    ap.add_argument("--draws", type=int, default=1000)
    ap.add_argument("--target", type=float, default=0.65)
    ap.add_argument("--out", default=OUT)
    ap.add_argument("--steps", type=int, default=None, help="inner steps T (default 10)")
    ap.add_argument("--friction", type=float, default=None, help="friction (default 0.25)")
    ap.add_argument("--jitter", action="store_true", help="jittered T")
    ap.add_argument("--label", default="", help="suffix of the result keys")
    a = ap.parse_args()
    names = a.names or sorted(MODELS)
    old = {}
    if os.path.exists(a.out):
        with open(a.out) as f:
            old = json.load(f).get("runs", {})
    nuts = {}
    nuts_path = os.path.join(HERE, "nuts_user.json")
    if os.path.exists(nuts_path):
        with open(nuts_path) as f:
            nuts = json.load(f)["models"]
    for name in names:
        m = MODELS[name]
        ref = m.reference()
        for start in a.starts.split(","):
            for mass in a.mass.split(","):
                extra = {}
                if a.steps is not None:
                    extra["steps"] = a.steps
                if a.friction is not None:
                    extra["friction"] = a.friction
                if a.jitter:
                    extra["jitter_steps"] = True
                r = run(m, start, mass, ref, a.warmup, a.draws, a.target, extra)
                r["options"] = extra
                n = nuts.get(name, {}).get(start, {})
                r["nuts_ess_per_grad"] = n.get("ess_per_grad")
                r["nuts_converged"] = n.get("converged")
                old[f"{name}/{start}/{mass}{a.label}"] = r
                print(f"{name:20s} {start:13s} {mass:9s} {r['outcome']:11s} verdict "
                      f"{r['verdict']:8s} conv {r['converged']!s:5s} "
                      f"R̂ {r.get('max_rhat', float('nan')):.3f} z {r.get('max_z', float('nan')):.1f} "
                      f"ESS/grad {r.get('ess_per_grad', float('nan')):.2e} "
                      f"(NUTS {r['nuts_ess_per_grad'] or float('nan'):.2e}) "
                      f"acc {np.round(r['accept_after_warmup'], 2)} "
                      f"reasons {[rep['reasons'] for rep in r.get('reports', [])]} "
                      f"{r['wall_s']:.0f}s", flush=True)
                with open(a.out, "w") as f:
                    json.dump({"runs": old, "settings": {
                        "chains": CHAINS, "warmup": a.warmup, "draws": a.draws,
                        "target": a.target, "sgsample": sgsample.version(),
                        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
                        "machine": platform.platform()}}, f, indent=1, default=float)


if __name__ == "__main__":
    main()
