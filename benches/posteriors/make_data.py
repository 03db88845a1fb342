#!/usr/bin/env python3
"""Regenerate the CSVs in data/ from the packages they come from (see data/SOURCES.md).

    /work/venv-bench/bin/python benches/posteriors/make_data.py

Everything here is deterministic: the copies are verbatim column subsets, the aggregations are
exact sums, and the one synthetic data set (Lotka-Volterra) uses a fixed seed.  star98 is *not*
copied (its statsmodels note reserves all rights): models.py reads it from the installed
statsmodels at run time.
"""

import os

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.path.join(HERE, "data")

# Lotka-Volterra truth (close to the posterior means of the Hudson's Bay lynx-hare case study
# by Carpenter, 2018, so that the synthetic series looks like the real one).
LV_TRUE = {
    "alpha": 0.55, "beta": 0.028, "gamma": 0.80, "delta": 0.024,
    "u0": 33.0, "v0": 6.2, "sigma_u": 0.25, "sigma_v": 0.25,
}
LV_SEED = 20240611
LV_TIMES = np.arange(1, 21, dtype=float)  # 20 yearly observations after t0 = 0


def _write(name, header, rows, fmt):
    path = os.path.join(DATA, name)
    with open(path, "w") as f:
        f.write(",".join(header) + "\n")
        for r in rows:
            f.write(",".join(fm % v for fm, v in zip(fmt, r)) + "\n")
    print("wrote", path, len(rows), "rows")


def main():
    import sklearn
    import statsmodels
    from statsmodels.datasets import anes96, grunfeld, macrodata, randhie, sunspots

    os.makedirs(DATA, exist_ok=True)
    print("statsmodels", statsmodels.__version__, "scikit-learn", sklearn.__version__)

    g = grunfeld.load_pandas().data
    _write("grunfeld.csv", ["invest", "value", "capital", "firm", "year"],
           g[["invest", "value", "capital", "firm", "year"]].values.tolist(),
           ["%r", "%r", "%r", "%s", "%d"])

    m = macrodata.load_pandas().data
    cols = ["year", "quarter", "infl", "unemp", "tbilrate", "m1", "realgovt"]
    _write("macrodata.csv", cols, m[cols].values.tolist(),
           ["%d", "%d", "%r", "%r", "%r", "%r", "%r"])

    s = sunspots.load_pandas().data
    _write("sunspots.csv", ["year", "sunactivity"], s[["YEAR", "SUNACTIVITY"]].values.tolist(),
           ["%d", "%r"])

    a = anes96.load_pandas().data
    cols = ["vote", "popul", "TVnews", "age", "educ", "income", "PID"]
    _write("anes96.csv", cols, a[cols].values.tolist(), ["%d", "%r", "%d", "%d", "%d", "%d", "%d"])

    # RAND HIE: outpatient MD visits summed per 4-wide bin of `disea` (number of chronic
    # diseases; values 0 ... 58.6), with the number of person-years in the bin as exposure.
    r = randhie.load_pandas().data
    edges = np.arange(0.0, 64.0, 4.0)
    b = np.digitize(r["disea"].values, edges) - 1
    rows = []
    for k in range(len(edges) - 1):
        sel = b == k
        if sel.sum() == 0:
            continue
        rows.append((float(edges[k]), float(edges[k + 1]), float(r["disea"].values[sel].mean()),
                     int(sel.sum()), int(r["mdvis"].values[sel].sum())))
    _write("randhie_disea_bins.csv", ["lo", "hi", "disea_mean", "n", "mdvis_sum"], rows,
           ["%g", "%g", "%r", "%d", "%d"])

    iris = os.path.join(os.path.dirname(sklearn.__file__), "datasets", "data", "iris.csv")
    with open(iris) as f:
        lines = f.read().split("\n")[1:]
    pl = [float(l.split(",")[2]) for l in lines if l.strip()]
    _write("iris_petal_length.csv", ["petal_length_cm"], [(x,) for x in pl], ["%r"])

    # Eight schools (Rubin 1981; Gelman et al., BDA3 Table 5.2): published summary statistics.
    y = [28, 8, -3, 7, -1, 1, 18, 12]
    sd = [15, 10, 16, 11, 9, 11, 10, 18]
    _write("eight_schools.csv", ["school", "y", "sigma"],
           [(s_, y_, sd_) for s_, y_, sd_ in zip("ABCDEFGH", y, sd)], ["%s", "%d", "%d"])

    # Synthetic Lotka-Volterra: exact-ish solution (scipy, rtol 1e-11) at LV_TIMES, lognormal noise.
    from scipy.integrate import solve_ivp

    t = LV_TRUE

    def f(_, z):
        u, v = z
        return [(t["alpha"] - t["beta"] * v) * u, (-t["gamma"] + t["delta"] * u) * v]

    sol = solve_ivp(f, (0.0, LV_TIMES[-1]), [t["u0"], t["v0"]], t_eval=LV_TIMES,
                    rtol=1e-11, atol=1e-11, method="DOP853")
    rng = np.random.default_rng(LV_SEED)
    obs_u = sol.y[0] * np.exp(t["sigma_u"] * rng.standard_normal(LV_TIMES.size))
    obs_v = sol.y[1] * np.exp(t["sigma_v"] * rng.standard_normal(LV_TIMES.size))
    _write("lotka_volterra_synthetic.csv", ["t", "prey", "predator"],
           list(zip(LV_TIMES, obs_u, obs_v)), ["%g", "%.6f", "%.6f"])
    _write("lotka_volterra_initial.csv", ["t", "prey", "predator"],
           [(0.0, t["u0"] * np.exp(t["sigma_u"] * rng.standard_normal()),
             t["v0"] * np.exp(t["sigma_v"] * rng.standard_normal()))], ["%g", "%.6f", "%.6f"])


if __name__ == "__main__":
    main()
