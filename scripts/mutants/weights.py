"""Plausible bugs in the particles' importance weights (src/svgd/weights.rs), each with the tests
that must catch it: the weights against the formula written out directly, the cluster shares
recovered from unequal counts, +∞ energies, and the median bandwidth against a sort."""

F = "src/svgd/weights.rs"
T = ["lib"]

MUTANTS = [
    dict(name="weights_self_term_missing", bug="s_i without its own kernel value (leave-one-out)",
         file=F, old="weights.fill(1.0);", new="weights.fill(0.0);", tests=T),
    dict(name="weights_pair_added_once", bug="each pair's kernel added to the first row only",
         file=F, old="            if let Some(s) = weights.get_mut(j) {\n                *s += k;\n            }\n",
         new="", tests=T),
    dict(name="weights_bandwidth_convention", bug="exp(−r²/h) instead of exp(−r²/(2h))",
         file=F, old="let scale = 1.0 / (2.0 * h);", new="let scale = 1.0 / h;", tests=T),
    dict(name="weights_energy_sign", bug="exp(+V) instead of exp(−V)",
         file=F, old="let l = -v - libm::log(*w);", new="let l = v - libm::log(*w);", tests=T),
    dict(name="weights_density_not_divided", bug="w ∝ π alone (the density estimate left out)",
         file=F, old="let l = -v - libm::log(*w);", new="let l = -v - 0.0 * libm::log(*w);",
         tests=T),
    dict(name="weights_all_infinite_accepted", bug="every energy +∞ not refused (0/0 weights)",
         file=F, old="\n        || !energies.iter().any(|v| v.is_finite())", new="", tests=T),
    dict(name="weights_median_of_squares", bug="the median heuristic from r² instead of r",
         file="src/svgd/kernel.rs", old="(med * med) / (2.0 * libm::log(n as f64))",
         new="med / (2.0 * libm::log(n as f64))", tests=T),
]
