"""Plausible bugs in TunaMH (src/tunamh.rs) and its Poisson draw (src/poisson.rs), each with the
tests that must catch it: the moments against quadrature on both paths, the bound check, the
draws' χ² against the Poisson law."""

F = "src/tunamh.rs"
P = "src/poisson.rs"
T = ["tunamh"]
L = ["lib"]

MUTANTS = [
    dict(name="tunamh_keep_every_draw", bug="every drawn term kept (no thinning by φ)",
         file=F, old="if u * (lambda1 + m) < base {", new="if u * (lambda1 + m) < lambda1 + m {",
         tests=T),
    dict(name="tunamh_lambda_not_per_term", bug="λ instead of λ/N in the per-term weights",
         file=F, old="lambda / n)?", new="lambda)?", tests=T),
    dict(name="tunamh_prior_dropped", bug="the exact part U₀ left out of the ratio",
         file=F, old="} => (log - delta0, evaluations, kept),", new="} => (log, evaluations, kept),",
         tests=T),
    dict(name="tunamh_batch_mean_without_l", bug="B ~ Poisson(λ) instead of Poisson(λ + L)",
         file=F, old="let mean = lambda + l;", new="let mean = lambda + 0.0 * l;", tests=T),
    dict(name="tunamh_phi_sign", bug="φ = (c·M − Δ)/2 (the sides of the pair swapped)",
         file=F, old="let phi = 0.5 * (delta + m);", new="let phi = 0.5 * (m - delta);", tests=T),
    dict(name="tunamh_no_bound_check", bug="a difference past the bound accepted",
         file=F, old="if libm::fabs(delta) > limit {", new="if libm::fabs(delta) > 1e300 * limit {",
         tests=T),
    dict(name="tunamh_full_pass_sign", bug="the full pass adds Σ Δ instead of subtracting",
         file=F, old="            log -= delta;", new="            log += delta;", tests=T),
    dict(name="poisson_log_factorial_off_by_one", bug="ln Γ(k) instead of ln Γ(k + 1) = ln k!",
         file=P, old="libm::lgamma(k + 1.0);", new="libm::lgamma(k);", tests=L),
    dict(name="poisson_inversion_off_by_one", bug="inversion returns k + 1",
         file=P, old="    }\n    k\n}", new="    }\n    k + 1\n}", tests=L),
]
