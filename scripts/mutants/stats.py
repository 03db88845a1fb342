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

# The diagnostics of stored draws (src/draws/): each plausible bug must break tests/draws.rs, which
# compares every statistic with ArviZ 0.23 on generated draws (ties, an odd count, chains apart,
# a drift, heavy tails, one chain, the fewest draws).
D = "src/draws/mod.rs"
DF = "src/draws/fft.rs"
DT = ["draws"]

MUTANTS += [
    dict(name="draws_ranks_without_tie_average", bug="ties get their first rank, not the average",
         file=D, old="let rank = 0.5 * ((k0 + k1 + 1) as f64);", new="let rank = (k0 + 1) as f64;",
         tests=DT),
    dict(name="draws_blom_offset", bug="(r − ½)/S (Hazen) instead of Blom's (r − 3/8)/(S + 1/4)",
         file=D, old="special::normal_quantile((rank - 0.375) / denom)",
         new="special::normal_quantile((rank - 0.5) / denom)", tests=DT),
    dict(name="draws_blom_denominator", bug="Blom's denominator S + 1 instead of S + 1/4",
         file=D, old="let denom = (s as f64 - 0.75) + 1.0;", new="let denom = s as f64 + 1.0;",
         tests=DT),
    dict(name="draws_fold_around_mean", bug="folded around the mean instead of the median",
         file=D, old="let median = (a + b) / 2.0;",
         new="let median = v.iter().sum::<f64>() / s as f64 + 0.0 * (a + b);", tests=DT),
    dict(name="draws_chains_not_split", bug="R̂ and ESS over whole chains, not their halves",
         file=D, old="let half = n / 2;\n        let splits = chains.checked_mul(2)?;",
         new="let half = n;\n        let splits = chains;", tests=DT),
    dict(name="draws_odd_middle_kept", bug="the second half of an odd chain starts at its middle draw",
         file=D, old="(k - d.chains) * d.n + (d.n - d.half)", new="(k - d.chains) * d.n + d.half",
         tests=DT),
    dict(name="draws_quantile_weibull", bug="quantiles at virtual index (n + 1)q − 1 (R type 6), "
         "not numpy's (n − 1)q", file=D,
         old="let vi = (n.saturating_sub(1)) as f64 * q;",
         new="let vi = ((n as f64 + 1.0) * q - 1.0).max(0.0);", tests=DT),
    dict(name="draws_indicator_threshold_np", bug="the tail indicators' threshold at n·p (no type-7 "
         "offset 1 − p)", file=D, old="let aleph = n * p + (1.0 - p);", new="let aleph = n * p;",
         tests=DT),
    dict(name="draws_indicator_strict", bug="indicator x < q instead of x ≤ q (differs on ties)",
         file=D, old="if v <= threshold { 1.0 } else { 0.0 }", new="if v < threshold { 1.0 } else { 0.0 }",
         tests=DT),
    dict(name="draws_tail_ess_max", bug="tail-ESS the larger of the two quantiles' ESS",
         file=D, old="let ess_tail = py_min(ess_lo, ess_hi);", new="let ess_tail = py_max(ess_lo, ess_hi);",
         tests=DT),
    dict(name="draws_mcse_quantile_floor_ceil", bug="the quantile MCSE's lower index rounded up and "
         "upper one down", file=D,
         old="let (i1, i2) = (libm::floor(lo) as usize, libm::ceil(hi) as usize);",
         new="let (i1, i2) = (libm::ceil(lo) as usize, libm::floor(hi) as usize);", tests=DT),
    dict(name="draws_mcse_sd_factor", bug="Var(sd) ≈ Var(s²)/(2·s²) instead of /(4·s²)",
         file=D, old="let varsd = (m4 - m2 * m2) / ess_sd / m2 / 4.0;",
         new="let varsd = (m4 - m2 * m2) / ess_sd / m2 / 2.0;", tests=DT),
    dict(name="draws_rhat_within_ddof0", bug="within-chain variances with n instead of n − 1",
         file=D, old="c.iter().map(|&v| (v - mean) * (v - mean)).sum::<f64>() / (h - 1.0)",
         new="c.iter().map(|&v| (v - mean) * (v - mean)).sum::<f64>() / h", tests=DT),
    dict(name="draws_ess_no_tau_floor", bug="τ̂ not floored at 1/log10(S)",
         file=D, old="let tau = py_max(tau, 1.0 / libm::log10(size));", new="let tau = tau;",
         tests=DT),
    dict(name="draws_ess_no_monotone", bug="Geyer's pairs not made monotone", file=D,
         old="if at(rho, s + 1) + at(rho, s + 2) > previous {",
         new="if false && at(rho, s + 1) + at(rho, s + 2) > previous {", tests=DT),
    dict(name="draws_ess_tail_term_dropped", bug="the even term after the last pair left out of τ̂",
         file=D, old="let tau = -1.0 + 2.0 * body + at(rho, tail);", new="let tau = -1.0 + 2.0 * body;",
         tests=DT),
    dict(name="draws_autocov_global_mean", bug="each chain's autocovariance around 0 instead of "
         "its own mean", file=DF, old="*re = x - ma;", new="*re = x - 0.0 * ma;", tests=DT),
]
