"""Plausible bugs in the streaming convergence diagnostics (src/stats.rs: mean, variance,
autocovariances, ESS, MCSE, split-R̂), each with the tests that must catch it."""

F = "src/stats.rs"
T = ["lib"]

MUTANTS = [
    dict(name="stats_merge_no_n_weight", bug="merged M2 without the n_a·n_b/n weight",
         file=F, old="m2: (self.m2 + o.m2) + d * d * (na * nb / nn),",
         new="m2: (self.m2 + o.m2) + d * d,", tests=T),
    dict(name="stats_autocov_window_sign", bug="the head sum added instead of subtracted",
         file=F, old="(s - m * ((2.0 * total - p) - q)", new="(s - m * ((2.0 * total + p) - q)",
         tests=T),
    dict(name="ess_tau_plus_one", bug="τ = 1 + 2·Σ (the lag-0 term counted twice)",
         file=F, old="let tau = -1.0 + 2.0 * sum + tail;", new="let tau = 1.0 + 2.0 * sum + tail;",
         tests=T),
    dict(name="ess_no_monotone", bug="Geyer's pairs not made monotone",
         file=F, old="let pair = (even + odd).min(prev_pair);", new="let pair = even + odd;",
         tests=T),
    dict(name="ess_var_plus_without_between", bug="var₊ without the between-chain variance",
         file=F, old="        var_plus += means.variance();\n", new="        let _ = means.variance();\n",
         tests=T),
    dict(name="rhat_b_not_scaled", bug="B without the factor n (the variance of the half means)",
         file=F, old="let b = nh * means.variance();", new="let b = means.variance();", tests=T),
    dict(name="rhat_off_by_one", bug="R̂² = (B/W + n)/n instead of (B/W + n − 1)/n",
         file=F, old="Ok(libm::sqrt((b / w + nh - 1.0) / nh))", new="Ok(libm::sqrt((b / w + nh) / nh))",
         tests=T),
    dict(name="mcse_without_ess", bug="MCSE = √(variance / n), autocorrelation ignored",
         file=F, old="libm::sqrt(self.variance() / self.ess())",
         new="libm::sqrt(self.variance() / self.count() as f64)", tests=T),
]
