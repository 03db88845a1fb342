#!/usr/bin/env python3
"""Long BlackJAX NUTS reference runs of the posteriors in models.py -> reference.json.

    cd /work/wt-model-suite
    nice -n 10 /work/venv-bench/bin/python benches/posteriors/reference.py            # all
    nice -n 10 /work/venv-bench/bin/python benches/posteriors/reference.py NAME ...   # some

Per model and chain: a short L-BFGS from a uniform(-2, 2) start (a good initial point); with
--precondition (used for reference.json) NUTS then runs on Laplace-whitened coordinates
u, x = mode + L u with L L^T the inverse Hessian at the best mode (an exact affine change of
variables, so that raw scales and correlations do not slow the reference down); then
BlackJAX's window adaptation (Stan's windows; dense metric, target acceptance 0.9, a long
warm-up), then NUTS draws in chunks.  After --draws per chain the run goes on, chunk by chunk,
while the pooled rank-normalised R-hat of some coordinate is >= 1.005 or its bulk ESS < 10 000,
up to --max-draws per chain.  Per coordinate the script stores mean, sd, the 5/50/95 % quantiles
and their Monte Carlo standard errors, rank R-hat and bulk/tail ESS (ArviZ), plus divergences,
E-BFMI and tree sizes per chain; models with a known truth (synthetic data) get a check that the
truth sits inside the posterior.  Each model's entry is merged into reference.json as soon as
it is done, so models can be run one process at a time.
"""

import argparse
import datetime
import json
import os
import platform
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

from posteriors.models import MODELS, REFERENCE_JSON  # noqa: E402  (sets x64, 1 thread)

import arviz as az  # noqa: E402
import blackjax  # noqa: E402
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402
from scipy.optimize import minimize  # noqa: E402

RHAT_MAX = 1.005
ESS_MIN = 10_000
LOCAL_MODE_GAP = 20.0
QUANTILES = (0.05, 0.5, 0.95)


def short_optimisation(m, x0, maxiter=200):
    r = minimize(m.energy_and_grad, x0, jac=True, method="L-BFGS-B",
                 options={"maxiter": maxiter})
    x = r.x if np.isfinite(r.fun) else x0
    return x


def laplace_affine(m, mode):
    """(mode, L) with L L^T the inverse Hessian of the energy at the mode, or None."""
    H = np.asarray(jax.hessian(lambda t: -m.logdensity(t))(jnp.asarray(mode)))
    H = 0.5 * (H + H.T)
    try:
        L = np.linalg.cholesky(np.linalg.inv(H))
    except np.linalg.LinAlgError:
        return None
    if not np.all(np.isfinite(L)):
        return None
    return np.asarray(mode, dtype=np.float64), L


def make_runner(m, warmup, dense, target_accept, affine=None):
    """Jitted warm-up and sampling; with ``affine = (x0, L)`` NUTS runs on u, x = x0 + L u (an
    exact reparameterisation: the Jacobian is constant), and positions are mapped back to x."""
    if affine is None:
        logdensity = m.logdensity
        to_x = lambda u: u  # noqa: E731
    else:
        x0, L = jnp.asarray(affine[0]), jnp.asarray(affine[1])
        logdensity = lambda u: m.logdensity(x0 + L @ u)  # noqa: E731
        to_x = lambda u: x0 + L @ u  # noqa: E731

    @jax.jit
    def run_warmup(key, init):
        wa = blackjax.window_adaptation(
            blackjax.nuts, logdensity, is_mass_matrix_diagonal=not dense,
            target_acceptance_rate=target_accept)
        (state, params), info = wa.run(key, init, num_steps=warmup)
        return state, params["step_size"], params["inverse_mass_matrix"], \
            info.info.num_integration_steps

    def sample_chunk(key, state, step_size, imm, n):
        kernel = blackjax.nuts(logdensity, step_size=step_size, inverse_mass_matrix=imm)

        def one(st, k):
            st, info = kernel.step(k, st)
            return st, (to_x(st.position), info.is_divergent, info.num_integration_steps,
                        info.energy)

        return jax.lax.scan(one, state, jax.random.split(key, n))

    return run_warmup, jax.jit(sample_chunk, static_argnums=4)


def make_runner_composed(rm, warmup, dense, target_accept, affine):
    """make_runner for a _Reparam: NUTS on v, u = x0 + L v, theta = to_model(u)."""
    x0, L = jnp.asarray(affine[0]), jnp.asarray(affine[1])

    class _M:
        logdensity = staticmethod(lambda v: rm.logdensity(x0 + L @ v))

    run_warmup, _ = make_runner(_M, warmup, dense, target_accept, None)

    def sample_chunk(key, state, step_size, imm, n):
        kernel = blackjax.nuts(_M.logdensity, step_size=step_size, inverse_mass_matrix=imm)

        def one(st, k):
            st, info = kernel.step(k, st)
            return st, (rm.to_model(x0 + L @ st.position), info.is_divergent,
                        info.num_integration_steps, info.energy)

        return jax.lax.scan(one, state, jax.random.split(key, n))

    return run_warmup, jax.jit(sample_chunk, static_argnums=4)


def diagnostics(draws):
    """draws: (chains, n, d) -> dict of per-coordinate lists."""
    ds = az.convert_to_dataset({"x": draws})
    out = {}
    flat = draws.reshape(-1, draws.shape[-1])
    out["mean"] = flat.mean(0)
    out["sd"] = flat.std(0, ddof=1)
    for q in QUANTILES:
        out[f"q{round(q * 100):02d}"] = np.quantile(flat, q, axis=0)
        out[f"mcse_q{round(q * 100):02d}"] = az.mcse(ds, method="quantile", prob=q)["x"].values
    out["mcse_mean"] = az.mcse(ds, method="mean")["x"].values
    out["mcse_sd"] = az.mcse(ds, method="sd")["x"].values
    out["rhat_rank"] = az.rhat(ds, method="rank")["x"].values
    out["ess_bulk"] = az.ess(ds, method="bulk")["x"].values
    out["ess_tail"] = az.ess(ds, method="tail")["x"].values
    return out


class _Reparam:
    """The model seen in the coordinates u of m.reference_reparam (same interface as Model for
    what run_model needs); ``to_model`` maps u back."""

    def __init__(self, m):
        to_model, from_model, logdet, self.note = m.reference_reparam
        self.model = m
        self.name, self.dim, self.names, self.truth = m.name, m.dim, m.names, m.truth
        self.to_model = jax.jit(to_model)
        self.from_model = jax.jit(from_model)
        self.logdensity = lambda u: m.logdensity(to_model(u)) + logdet(u)
        self._vg = jax.jit(jax.value_and_grad(lambda u: -self.logdensity(u)))

    def energy(self, u):
        return float(self._vg(jnp.asarray(u))[0])

    def energy_and_grad(self, u):
        e, g = self._vg(jnp.asarray(u))
        return float(e), np.asarray(g)

    def init_uniform(self, rng):
        return np.asarray(self.from_model(jnp.asarray(self.model.init_uniform(rng))))


def run_model(m, args):
    dense = not args.diagonal
    reparam = None
    if m.reference_reparam is not None:
        reparam = m = _Reparam(m)
    rng = np.random.default_rng(args.seed)
    key = jax.random.PRNGKey(args.seed)
    t0 = time.time()
    states, params, warm_steps, inits, starts = [], [], [], [], []
    for c in range(args.chains):
        x0 = m.init_uniform(rng)
        starts.append(x0.tolist())
        inits.append(short_optimisation(m, x0))
    # A chain whose optimisation stopped far below the best one (energy more than LOCAL_MODE_GAP
    # higher: a local mode of negligible mass, or an optimisation that had not got there yet)
    # starts from the best point instead, moved by a little noise; the replaced points are
    # recorded.
    energies0 = np.array([m.energy(x) for x in inits])
    best = int(np.argmin(energies0))
    restarted = []
    for c in range(args.chains):
        if not energies0[c] <= energies0[best] + LOCAL_MODE_GAP:
            restarted.append({"chain": c, "energy": float(energies0[c]),
                                "best_energy": float(energies0[best]),
                                "position": inits[c].tolist()})
            inits[c] = inits[best] + 1e-3 * rng.standard_normal(m.dim) * np.maximum(
                1e-3, np.abs(inits[best]))
    affine = laplace_affine(m, inits[best]) if args.precondition else None
    if reparam is None:
        run_warmup, sample_chunk = make_runner(m, args.warmup, dense, args.target_accept, affine)
    else:  # theta = to_model(x0 + L v)
        if affine is None:
            affine = (np.zeros(m.dim), np.eye(m.dim))
        run_warmup, sample_chunk = make_runner_composed(m, args.warmup, dense,
                                                        args.target_accept, affine)
    for c in range(args.chains):
        x = inits[c]
        if affine is not None:
            x = np.linalg.solve(affine[1], np.asarray(x) - affine[0])
        key, kw = jax.random.split(key)
        st, eps, imm, nsteps = run_warmup(kw, jnp.asarray(x))
        states.append(st)
        params.append((eps, imm))
        warm_steps.append(int(np.sum(nsteps)))
    t_warm = time.time() - t0

    chunks = [[] for _ in range(args.chains)]
    div = np.zeros(args.chains, dtype=np.int64)
    steps = np.zeros(args.chains, dtype=np.int64)
    energies = [[] for _ in range(args.chains)]
    n = 0
    while True:
        for c in range(args.chains):
            key, kc = jax.random.split(key)
            st, (pos, is_div, nst, en) = sample_chunk(kc, states[c], params[c][0], params[c][1],
                                                      args.chunk)
            states[c] = st
            chunks[c].append(np.asarray(pos))
            energies[c].append(np.asarray(en))
            div[c] += int(np.sum(is_div))
            steps[c] += int(np.sum(nst))
        n += args.chunk
        if n < args.draws:
            continue
        draws = np.stack([np.concatenate(ch) for ch in chunks])
        d = diagnostics(draws)
        worst_rhat = float(np.max(d["rhat_rank"]))
        worst_ess = float(np.min(d["ess_bulk"]))
        print(f"  {m.name}: {n} draws/chain, max rank-Rhat {worst_rhat:.4f}, min bulk ESS "
              f"{worst_ess:.0f}, {time.time() - t0:.0f} s", flush=True)
        if (worst_rhat < RHAT_MAX and worst_ess >= ESS_MIN) or n >= args.max_draws:
            break
    wall = time.time() - t0
    en = np.stack([np.concatenate(e) for e in energies])
    ebfmi = az.bfmi(en)
    converged = bool(worst_rhat < RHAT_MAX and worst_ess >= ESS_MIN)
    if reparam is not None:
        m = reparam.model
    entry = {
        "dim": m.dim,
        "names": m.names,
        "description": m.description,
        "data": m.data,
        "prior": m.prior,
        **{k: np.asarray(v).tolist() for k, v in d.items()},
        "converged": converged,
        "criteria": f"rank-Rhat < {RHAT_MAX} and bulk ESS >= {ESS_MIN} for every coordinate",
        "max_rhat_rank": worst_rhat,
        "min_ess_bulk": worst_ess,
        "min_ess_tail": float(np.min(d["ess_tail"])),
        "sd_range": [float(np.min(d["sd"])), float(np.max(d["sd"]))],
        "chains": args.chains,
        "warmup_per_chain": args.warmup,
        "draws_per_chain": n,
        "seed": args.seed,
        "init": "uniform(-2, 2) then L-BFGS-B (200 iterations at most); a chain whose optimisation stopped at an energy > best + 20 starts at the best point instead",
        "uniform_starts": starts,  # (in the reparameterised coordinates, if any)
        "optimised_inits": [np.asarray(x).tolist() for x in inits],
        "chains_restarted_at_best_start": restarted,
        "reparameterisation": reparam.note if reparam is not None else "none",
        "metric": "dense" if dense else "diagonal",
        "preconditioning": ("NUTS on u with x = mode + L u, L L^T = inverse Hessian of the "
                            "energy at the best mode (exact affine reparameterisation; step "
                            "sizes and metric refer to u)") if affine is not None else "none",
        "target_acceptance_rate": args.target_accept,
        "step_size": [float(p[0]) for p in params],
        "divergences_per_chain": div.tolist(),
        "ebfmi_per_chain": np.asarray(ebfmi).tolist(),
        "mean_leapfrog_steps_per_draw": (steps / n).tolist(),
        "warmup_leapfrog_steps_per_chain": warm_steps,
        "wall_seconds": round(wall, 1),
        "warmup_wall_seconds": round(t_warm, 1),
    }
    if m.truth is not None:
        tr = np.array([m.truth[k] for k in m.names])
        z = (tr - d["mean"]) / d["sd"]
        inside = (tr > np.quantile(draws.reshape(-1, m.dim), 0.005, axis=0)) & \
                 (tr < np.quantile(draws.reshape(-1, m.dim), 0.995, axis=0))
        entry["truth"] = tr.tolist()
        entry["truth_z"] = z.tolist()
        entry["truth_inside_99"] = bool(np.all(inside))
    return entry


def versions():
    return {"blackjax": blackjax.__version__, "jax": jax.__version__,
            "jaxlib": jax.lib.__version__ if hasattr(jax.lib, "__version__") else None,
            "arviz": az.__version__, "numpy": np.__version__, "python": platform.python_version()}


def write_entry(name, entry, path=REFERENCE_JSON):
    data = {}
    if os.path.exists(path):
        with open(path) as f:
            data = json.load(f)
    data.setdefault("models", {})
    data["models"][name] = entry
    entry["date"] = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")
    entry["versions"] = versions()
    data["about"] = ("Reference posterior summaries (unconstrained coordinates) from long BlackJAX "
                     "NUTS runs; made by benches/posteriors/reference.py. Each model's entry "
                     "has its own date, versions, seed and run lengths.")
    data["models"] = dict(sorted(data["models"].items()))
    tmp = path + ".tmp"
    with open(tmp, "w") as f:
        json.dump(data, f, indent=1)
        f.write("\n")
    os.replace(tmp, path)


def report(name, e):
    print(f"{name}: converged={e['converged']} draws/chain={e['draws_per_chain']} "
          f"max rank-Rhat={e['max_rhat_rank']:.4f} min bulk ESS={e['min_ess_bulk']:.0f} "
          f"min tail ESS={e['min_ess_tail']:.0f} divergences={e['divergences_per_chain']} "
          f"E-BFMI={np.round(e['ebfmi_per_chain'], 2).tolist()} "
          f"steps/draw={np.round(e['mean_leapfrog_steps_per_draw'], 1).tolist()} "
          f"sd range {e['sd_range'][0]:.2e}..{e['sd_range'][1]:.2e} wall {e['wall_seconds']} s")
    for lm in e["chains_restarted_at_best_start"]:
        print(f"  chain {lm['chain']}: its optimisation stopped at energy {lm['energy']:.1f} "
              f"(best {lm['best_energy']:.1f}); started from the best point instead")
    if not e["converged"]:
        print(f"  NOT CONVERGED by the criteria ({e['criteria']})")
    if "truth" in e:
        print(f"  truth check: inside the central 99% interval for every coordinate: "
              f"{e['truth_inside_99']}; z = {np.round(e['truth_z'], 2).tolist()}")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("models", nargs="*", help="model names (default: all)")
    ap.add_argument("--chains", type=int, default=4)
    ap.add_argument("--warmup", type=int, default=5000)
    ap.add_argument("--draws", type=int, default=20_000)
    ap.add_argument("--max-draws", type=int, default=200_000)
    ap.add_argument("--chunk", type=int, default=5000)
    ap.add_argument("--seed", type=int, default=20240611)
    ap.add_argument("--target-accept", type=float, default=0.9)
    ap.add_argument("--diagonal", action="store_true", help="diagonal metric (default dense)")
    ap.add_argument("--precondition", action="store_true",
                    help="run NUTS on the Laplace-whitened coordinates (affine, exact)")
    args = ap.parse_args()
    names = args.models or list(MODELS)
    for name in names:
        m = MODELS[name]
        print(f"== {name} (d={m.dim})", flush=True)
        e = run_model(m, args)
        write_entry(name, e)
        report(name, e)


if __name__ == "__main__":
    main()
