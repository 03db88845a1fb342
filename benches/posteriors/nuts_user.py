#!/usr/bin/env python3
"""BlackJAX NUTS as a user runs it, judged against reference.json -> nuts_user.json.

    cd /work/wt-model-suite
    nice -n 10 /work/venv-bench/bin/python benches/posteriors/nuts_user.py            # all
    nice -n 10 /work/venv-bench/bin/python benches/posteriors/nuts_user.py NAME ...   # some

Per model and per start (``init_uniform``: uniform(-2, 2) as Stan does; ``init_far``: every
coordinate at reference mean +- 20 reference sds), 4 chains, each: BlackJAX's default window
adaptation (diagonal metric, target acceptance 0.8, initial step size 1) for 1000 iterations,
then 1000 NUTS draws.  One thread, fixed seeds (the same numbers every run).

Reported per model and start:
* converged: pooled rank-normalised R-hat < 1.01 for every coordinate AND every coordinate's
  mean within 4 combined Monte Carlo standard errors of the reference mean,
  |mean - ref| <= 4 sqrt(mcse^2 + mcse_ref^2) (mcse: ArviZ's, of this run);
* gradient evaluations: leapfrog steps (NUTS's ``num_integration_steps``) summed over the
  chains, warm-up and sampling separately (plus one per chain for the initial point, not counted);
* ESS per gradient: the smallest bulk ESS over the coordinates (pooled chains, sampling phase)
  divided by the sampling-phase gradient evaluations;
* divergences (warm-up, sampling), E-BFMI per chain, final step sizes;
* wall time of warm-up and sampling (compilation timed apart, ahead of time).
"""

import argparse
import datetime
import json
import os
import platform
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from posteriors.models import MODELS, load_reference  # noqa: E402  (sets x64, 1 thread)

import arviz as az  # noqa: E402
import blackjax  # noqa: E402
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
OUT = os.path.join(HERE, "nuts_user.json")
CHAINS, WARMUP, DRAWS = 4, 1000, 1000
SEEDS = {"init_uniform": 1, "init_far": 2}
RHAT_MAX, Z_MAX = 1.01, 4.0


def make_fns(m):
    def warm(key, init):
        wa = blackjax.window_adaptation(blackjax.nuts, m.logdensity)  # all defaults
        (state, params), info = wa.run(key, init, num_steps=WARMUP)
        return (state, params["step_size"], params["inverse_mass_matrix"],
                info.info.num_integration_steps, info.info.is_divergent)

    def sample(key, state, step_size, imm):
        kernel = blackjax.nuts(m.logdensity, step_size=step_size, inverse_mass_matrix=imm)

        def one(st, k):
            st, info = kernel.step(k, st)
            return st, (st.position, info.is_divergent, info.num_integration_steps, info.energy)

        return jax.lax.scan(one, state, jax.random.split(key, DRAWS))

    return jax.jit(warm), jax.jit(sample)


def run(m, start, ref, fns):
    warm, sample = fns
    seed = SEEDS[start]
    rng = np.random.default_rng(seed)
    key = jax.random.PRNGKey(seed)
    inits = [m.init_uniform(rng) if start == "init_uniform" else m.init_far(rng, ref)
             for _ in range(CHAINS)]
    # compile ahead of time (not counted in the wall times below)
    t0 = time.time()
    k0 = jax.random.PRNGKey(0)
    warm_c = warm.lower(k0, jnp.asarray(inits[0])).compile()
    st0 = blackjax.nuts(m.logdensity, 0.1, jnp.ones(m.dim)).init(jnp.asarray(inits[0]))
    sample_c = sample.lower(k0, st0, 0.1, jnp.ones(m.dim)).compile()
    t_compile = time.time() - t0

    res = {"start": start, "seed": seed, "inits": [x.tolist() for x in inits],
           "init_energy_finite": [bool(np.isfinite(m.energy(x))) for x in inits]}
    pos, en = [], []
    wg, sg, wdiv, sdiv, eps, t_w, t_s = [], [], [], [], [], 0.0, 0.0
    for c in range(CHAINS):
        key, kw, ks = jax.random.split(key, 3)
        t0 = time.time()
        st, step_size, imm, nst, dv = warm_c(kw, jnp.asarray(inits[c]))
        jax.block_until_ready(st)
        t_w += time.time() - t0
        wg.append(int(np.sum(nst)))
        wdiv.append(int(np.sum(dv)))
        eps.append(float(step_size))
        t0 = time.time()
        _, (p, dv, nst, e) = sample_c(ks, st, step_size, imm)
        jax.block_until_ready(p)
        t_s += time.time() - t0
        pos.append(np.asarray(p))
        en.append(np.asarray(e))
        sg.append(int(np.sum(nst)))
        sdiv.append(int(np.sum(dv)))
    draws = np.stack(pos)
    finite = bool(np.all(np.isfinite(draws)))
    ref_mean = np.asarray(ref["mean"])
    ref_mcse = np.asarray(ref["mcse_mean"])
    if finite:
        ds = az.convert_to_dataset({"x": draws})
        rhat = az.rhat(ds, method="rank")["x"].values
        ess = az.ess(ds, method="bulk")["x"].values
        mcse = az.mcse(ds, method="mean")["x"].values
        mean = draws.reshape(-1, m.dim).mean(0)
        z = np.abs(mean - ref_mean) / np.sqrt(mcse ** 2 + ref_mcse ** 2)
        ebfmi = np.asarray(az.bfmi(np.stack(en))).tolist()
    else:
        rhat = ess = mcse = z = np.full(m.dim, np.nan)
        mean = np.full(m.dim, np.nan)
        ebfmi = [float("nan")] * CHAINS
    rhat_ok = bool(np.all(rhat < RHAT_MAX))
    means_ok = bool(np.all(z <= Z_MAX))
    min_ess = float(np.min(ess)) if finite else 0.0
    res.update({
        "converged": bool(finite and rhat_ok and means_ok),
        "draws_finite": finite,
        "rhat_ok": rhat_ok,
        "means_ok": means_ok,
        "max_rhat_rank": float(np.max(rhat)),
        "max_z": float(np.max(z)),
        "worst_z_coordinate": m.names[int(np.nanargmax(z))] if finite else None,
        "min_ess_bulk": min_ess,
        "min_ess_coordinate": m.names[int(np.argmin(ess))] if finite else None,
        "grad_evals_warmup": int(np.sum(wg)),
        "grad_evals_sampling": int(np.sum(sg)),
        "grad_evals_warmup_per_chain": wg,
        "grad_evals_sampling_per_chain": sg,
        "ess_per_grad": min_ess / max(1, int(np.sum(sg))),
        "divergences_warmup": wdiv,
        "divergences_sampling": sdiv,
        "ebfmi_per_chain": ebfmi,
        "step_size_per_chain": eps,
        "mean": mean.tolist(),
        "chain_means": draws.mean(1).tolist(),
        "chain_sds": draws.std(1, ddof=1).tolist(),
        "chain_energy_at_mean": [m.energy(x) for x in draws.mean(1)],
        "chains_moved": [bool(np.any(np.ptp(draws[c], axis=0) > 0)) for c in range(CHAINS)],
        "z_vs_reference": np.asarray(z).tolist(),
        "rhat_rank": np.asarray(rhat).tolist(),
        "ess_bulk": np.asarray(ess).tolist(),
        "wall_seconds_warmup": round(t_w, 2),
        "wall_seconds_sampling": round(t_s, 2),
        "wall_seconds_compile": round(t_compile, 2),
    })
    return res


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("models", nargs="*")
    args = ap.parse_args()
    refs = load_reference()["models"]
    names = args.models or [n for n in MODELS if n in refs]
    out = {}
    if os.path.exists(OUT):
        with open(OUT) as f:
            out = json.load(f)
    out.setdefault("models", {})
    out["settings"] = {
        "sampler": "blackjax.nuts with blackjax.window_adaptation defaults (diagonal metric, "
                   "target acceptance 0.8, initial step size 1)",
        "chains": CHAINS, "warmup": WARMUP, "draws": DRAWS, "seeds": SEEDS,
        "converged": f"max rank-Rhat < {RHAT_MAX} and every |mean - ref| <= {Z_MAX} "
                     "sqrt(mcse^2 + mcse_ref^2)",
        "threads": "one (XLA_FLAGS single-threaded eigen, intra_op_parallelism_threads=1)",
    }
    for name in names:
        m = MODELS[name]
        fns = make_fns(m)
        entry = {"dim": m.dim}
        for start in ("init_uniform", "init_far"):
            try:
                r = run(m, start, refs[name], fns)
            except Exception as exc:  # a run that blows up is a result too
                r = {"start": start, "converged": False, "error": repr(exc)}
            entry[start] = r
            print_row(name, m.dim, r)
        entry["date"] = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
        entry["versions"] = {"blackjax": blackjax.__version__, "jax": jax.__version__,
                             "arviz": az.__version__, "numpy": np.__version__,
                             "python": platform.python_version()}
        out["models"][name] = entry
        out["models"] = dict(sorted(out["models"].items()))
        with open(OUT + ".tmp", "w") as f:
            json.dump(out, f, indent=1)
            f.write("\n")
        os.replace(OUT + ".tmp", OUT)
    print()
    print_table(out)


def print_row(name, dim, r):
    if "error" in r:
        print(f"{name:20s} {r['start']:12s} ERROR {r['error']}", flush=True)
        return
    print(f"{name:20s} {r['start']:12s} conv={'yes' if r['converged'] else 'NO ':3s} "
          f"Rhat={r['max_rhat_rank']:.3f} maxz={r['max_z']:.1f} minESS={r['min_ess_bulk']:.0f} "
          f"grads w/s={r['grad_evals_warmup']}/{r['grad_evals_sampling']} "
          f"ESS/grad={r['ess_per_grad']:.2e} div w/s={sum(r['divergences_warmup'])}/"
          f"{sum(r['divergences_sampling'])} wall w/s={r['wall_seconds_warmup']:.1f}/"
          f"{r['wall_seconds_sampling']:.1f}s", flush=True)


def print_table(out):
    print("| model | d | start | converged | max R-hat | max z | grads warm-up | grads sampling "
          "| min bulk ESS | ESS/grad | divergences (w/s) | min E-BFMI | wall s (w+s) |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for name, e in out["models"].items():
        for start in ("init_uniform", "init_far"):
            r = e[start]
            if "error" in r:
                print(f"| {name} | {e['dim']} | {start} | error | | | | | | | | | |")
                continue
            print(f"| {name} | {e['dim']} | {start} | {'yes' if r['converged'] else '**no**'} "
                  f"| {r['max_rhat_rank']:.3f} | {r['max_z']:.1f} | {r['grad_evals_warmup']} "
                  f"| {r['grad_evals_sampling']} | {r['min_ess_bulk']:.0f} "
                  f"| {r['ess_per_grad']:.2e} | {sum(r['divergences_warmup'])}/"
                  f"{sum(r['divergences_sampling'])} | {np.nanmin(r['ebfmi_per_chain']):.2f} "
                  f"| {r['wall_seconds_warmup'] + r['wall_seconds_sampling']:.1f} |")


if __name__ == "__main__":
    main()
