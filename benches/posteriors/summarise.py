#!/usr/bin/env python3
"""Markdown tables of reference.json, nuts_user.json and amagold_user.json (for
docs/benchmarks.md and reports).

    /work/venv-bench/bin/python benches/posteriors/summarise.py
"""

import json
import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    with open(os.path.join(HERE, "reference.json")) as f:
        ref = json.load(f)["models"]
    print("| model | d | posterior sd range | draws/chain (x4) | max rank-R-hat | min bulk / tail ESS "
          "| divergences | min E-BFMI | leapfrog/draw | wall s |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for name, e in ref.items():
        print(f"| {name} | {e['dim']} | {e['sd_range'][0]:.1e} .. {e['sd_range'][1]:.1e} "
              f"| {e['draws_per_chain']} | {e['max_rhat_rank']:.4f} "
              f"| {e['min_ess_bulk']:.0f} / {e['min_ess_tail']:.0f} "
              f"| {sum(e['divergences_per_chain'])} | {min(e['ebfmi_per_chain']):.2f} "
              f"| {np.mean(e['mean_leapfrog_steps_per_draw']):.1f} | {e['wall_seconds']:.0f} |")
    path = os.path.join(HERE, "nuts_user.json")
    if not os.path.exists(path):
        return
    with open(path) as f:
        nu = json.load(f)["models"]
    print()
    print("| model | start | converged | max R-hat | max z | grads warm-up | grads sampling "
          "| min bulk ESS | ESS/grad | divergences w/s | min E-BFMI | wall s w+s |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name, e in nu.items():
        for start in ("init_uniform", "init_far"):
            r = e[start]
            if "error" in r:
                print(f"| {name} | {start} | **error** | | | | | | | | | |")
                continue
            print(f"| {name} | {start} | {'yes' if r['converged'] else '**no**'} "
                  f"| {r['max_rhat_rank']:.3f} | {r['max_z']:.1f} | {r['grad_evals_warmup']} "
                  f"| {r['grad_evals_sampling']} | {r['min_ess_bulk']:.0f} "
                  f"| {r['ess_per_grad']:.1e} | {sum(r['divergences_warmup'])}/"
                  f"{sum(r['divergences_sampling'])} | {np.nanmin(r['ebfmi_per_chain']):.2f} "
                  f"| {r['wall_seconds_warmup'] + r['wall_seconds_sampling']:.0f} |")
    amagold_table()


def amagold_table():
    """AMAGOLD with the library's defaults (amagold_user.py), one row per model, start and mass
    matrix, next to NUTS on the same starts."""
    path = os.path.join(HERE, "amagold_user.json")
    if not os.path.exists(path):
        return
    with open(path) as f:
        runs = json.load(f)["runs"]
    print()
    print("| model | start | mass | outcome | verdict (reasons) | max rank-R-hat | max z "
          "| acceptance after warm-up | ESS/grad | ÷ NUTS's | NUTS converged |")
    print("|---|---|---|---|---|---|---|---|---|---|---|")
    for key, r in runs.items():
        name, start, mass = key.split("/")[:3]
        reasons = sorted({x for rep in r.get("reports", []) for x in rep["reasons"]}
                         | set(r.get("draws_reasons", [])))
        acc = r.get("accept_after_warmup") or []
        nuts = r.get("nuts_ess_per_grad")
        epg = r.get("ess_per_grad")
        ratio = f"{epg / nuts:.2f}" if (epg and nuts and r.get("converged")
                                        and r.get("nuts_converged")) else "–"
        outcome = r["outcome"] if r["outcome"] != "FALSE OK" else "**FALSE OK**"
        print(f"| {name} | {start.replace('init_', '')} | {mass} | {outcome} "
              f"| {r['verdict']}{' (' + ', '.join(reasons) + ')' if reasons else ''} "
              f"| {r.get('max_rhat', float('nan')):.3f} | {r.get('max_z', float('nan')):.1f} "
              f"| {np.mean(acc) if acc else float('nan'):.2f} "
              f"| {epg if epg is not None else float('nan'):.1e} | {ratio} "
              f"| {'yes' if r.get('nuts_converged') else 'no'} |")
    outcomes = [r["outcome"] for r in runs.values()]
    print()
    print(", ".join(f"{o}: {outcomes.count(o)}" for o in
                    ("ok", "caught", "false alarm", "FALSE OK")), f"of {len(outcomes)} runs")


if __name__ == "__main__":
    main()
