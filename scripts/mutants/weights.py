"""Plausible bugs in the particles' importance weights (src/svgd/weights.rs), each with the tests
that must catch it: the weights against the formula written out directly, the cluster shares
recovered from unequal counts, +∞ energies, and the median bandwidth against a sort; and in the
draws from the particles' density estimate and their weights (src/svgd/kde.rs): the draw order
re-drawn, the weights against the formula, a mixture's mode mass recovered."""

F = "src/svgd/weights.rs"
T = ["lib"]
K = "src/svgd/kde.rs"

MUTANTS = [
    dict(name="weights_self_term_missing", bug="s_i without its own kernel value (leave-one-out)",
         file=F, old="weights.fill(1.0);", new="weights.fill(0.0);", tests=T),
    dict(name="weights_pair_added_once", bug="each pair's kernel added to the first row only",
         file=F, old="            if let Some(s) = weights.get_mut(j) {\n                *s += k;\n            }\n",
         new="", tests=T),
    # The bandwidth check is shared with the KDE draws' weights (check_bandwidth): both sets of
    # tests see this one.
    dict(name="weights_bandwidth_convention", bug="exp(−r²/h) instead of exp(−r²/(2h))",
         file=F, old="let scale = 1.0 / (2.0 * h);", new="let scale = 1.0 / h;", tests=T),
    dict(name="weights_energy_sign", bug="exp(+V) instead of exp(−V)",
         file=F, old="let l = -v - *w;", new="let l = v - *w;", tests=T),
    dict(name="weights_density_not_divided", bug="w ∝ π alone (the density estimate left out)",
         file=F, old="*w = libm::log(*w);", new="*w = 0.0 * libm::log(*w);", tests=T),
    dict(name="weights_all_infinite_accepted", bug="every energy +∞ not refused (0/0 weights)",
         file=F, old="\n        || !energies.iter().any(|v| v.is_finite())", new="", tests=T),
    dict(name="weights_median_of_squares", bug="the median heuristic from r² instead of r",
         file="src/svgd/kernel.rs", old="(med * med) / (2.0 * libm::log(n as f64))",
         new="med / (2.0 * libm::log(n as f64))", tests=T),
    dict(name="kde_density_not_divided", bug="draw weights ∝ π alone (the proposal left out)",
         file=K, old="*w = top + libm::log(sum);", new="*w = 0.0 * (top + libm::log(sum));",
         tests=T),
    dict(name="kde_rescale_sign", bug="the running log-sum-exp rescaled by exp(a − M), not exp(M − a)",
         file=K, old="sum = sum * libm::exp(top - a) + 1.0;", new="sum = sum * libm::exp(a - top) + 1.0;",
         tests=T),
    dict(name="kde_draws_sd_is_h", bug="draws spread by h instead of √h",
         file=K, old="let sd = libm::sqrt(h);", new="let sd = h;", tests=T),
    dict(name="kde_last_particle_never_drawn", bug="the particle drawn from 0..N−1",
         file=K, old="rng.below(n as u64)", new="rng.below(n as u64 - 1)", tests=T),
]
