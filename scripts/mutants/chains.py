"""Plausible bugs in the gradient chains (AMAGOLD, SGHMC, SGLD) and the generator, each with
the tests that must catch it. The tests named are the statistical ones against exact truth
(and the direct checks of the documented behaviour), not the bit-for-bit comparisons with the
reference build: a misreading of the paper would be in both builds."""

A = "src/amagold.rs"
S = "src/sghmc.rs"
L = "src/sgld.rs"
AMAGOLD = ["amagold_stats"]

MUTANTS = [
    # --- AMAGOLD ---------------------------------------------------------------------------
    dict(name="amagold_gradient_sign", bug="momentum pushed up the gradient (+ε·g)",
         file=A, old="let rn = ((a * ri - eps_t * gi) + eta) / b;",
         new="let rn = ((a * ri + eps_t * gi) + eta) / b;", tests=AMAGOLD),
    dict(name="amagold_no_momentum_flip", bug="non-reversible variant keeps r on reject",
         file=A, old="*ri = -r0i;", new="*ri = r0i;", tests=AMAGOLD),
    dict(name="amagold_kinetic_in_mh", bug="kinetic energy change added to the M-H ratio",
         file=A, old="let log_a = (self.u - u_new) + rho;",
         new="let log_a = (self.u - u_new) + rho + (r0.iter().map(|x| x.to_f64() * x.to_f64())"
             ".sum::<f64>() - rw.iter().map(|x| x.to_f64() * x.to_f64()).sum::<f64>()) / (2.0 * s2);",
         tests=AMAGOLD),
    dict(name="amagold_t_plus_one", bug="T + 1 inner steps per outer iteration",
         file=A, old="for t in 0..cfg.steps {", new="for t in 0..cfg.steps + 1 {", tests=AMAGOLD),
    dict(name="amagold_t_minus_one", bug="T − 1 inner steps per outer iteration",
         file=A, old="for t in 0..cfg.steps {", new="for t in 1..cfg.steps {", tests=AMAGOLD),
    dict(name="amagold_rho_sign", bug="ρ subtracted instead of added",
         file=A, old="rho += half64 * s;", new="rho -= half64 * s;", tests=AMAGOLD),
    dict(name="amagold_rho_old_momentum", bug="ρ from the old momentum only (2·r instead of r + r')",
         file=A, old="(ri.to_f64() + rn.to_f64())", new="(ri.to_f64() + ri.to_f64())",
         tests=AMAGOLD),
    dict(name="amagold_final_full_drift", bug="the last drift a full step instead of a half",
         file=A, old="let drift = if t + 1 < cfg.steps { full } else { half };",
         new="let drift = full;", tests=AMAGOLD),
    dict(name="amagold_first_full_drift", bug="the first drift a full step instead of a half",
         file=A, old="copy(prop, theta);\n        add_scaled_by(prop, half, kf, rw);",
         new="copy(prop, theta);\n        add_scaled_by(prop, full, kf, rw);", tests=AMAGOLD),
    dict(name="amagold_noise_variance", bug="friction noise of variance 2εβσ² instead of 4εβσ²",
         file=A, old="libm::sqrt(4.0 * eps * cfg.friction)", new="libm::sqrt(2.0 * eps * cfg.friction)",
         tests=AMAGOLD),
    dict(name="amagold_no_friction_denominator", bug="r' not divided by 1 + εβ",
         file=A, old="let b = T::from_f64(1.0 + eb);", new="let b = T::from_f64(1.0);",
         tests=AMAGOLD),
    dict(name="amagold_accept_without_log", bug="accept when u < log a (log of u forgotten)",
         file=A, old="libm::log(uniform) < log_a", new="uniform < log_a", tests=AMAGOLD),
    dict(name="amagold_energy_not_updated", bug="cached energy not updated on accept",
         file=A, old="self.u = u_new;", new="let _ = u_new;", tests=AMAGOLD),
    dict(name="amagold_momentum_sd_ignored", bug="resampled momentum N(0, 1) whatever σ",
         file=A, old="*x = (sigma * mi) * self.rng.normal_as::<T>();",
         new="*x = mi * self.rng.normal_as::<T>(); let _ = sigma;", tests=AMAGOLD),
    dict(name="welford_old_mean", bug="Welford's M2 updated with the old mean twice",
         file="src/mass.rs", old="*si += d * (xi - *mi);", new="*si += d * d;",
         tests=["amagold_mass"]),
    # --- SGHMC -----------------------------------------------------------------------------
    dict(name="sghmc_gradient_sign", bug="momentum pushed up the gradient",
         file=S, old="((ri - eps_t * gi) - c * ri) + eta", new="((ri + eps_t * gi) - c * ri) + eta",
         tests=["sghmc_stats"]),
    dict(name="sghmc_noise_variance", bug="friction noise of variance 2εβσ² instead of 4εβσ²",
         file=S, old="libm::sqrt(4.0 * eps * cfg.friction)", new="libm::sqrt(2.0 * eps * cfg.friction)",
         tests=["sghmc_stats"]),
    dict(name="sghmc_friction_halved", bug="friction εβ·r instead of 2εβ·r",
         file=S, old="let c = T::from_f64(2.0 * eps * cfg.friction);",
         new="let c = T::from_f64(eps * cfg.friction);", tests=["sghmc_stats"]),
    dict(name="sghmc_last_step_moves", bug="the last inner step moves θ too (θ moved twice)",
         file=S, old="if t + 1 < cfg.steps {", new="if t < cfg.steps {", tests=["sghmc_stats"]),
    dict(name="sghmc_momentum_sd_ignored", bug="resampled momentum N(0, 1) whatever σ",
         file=S, old="*x = sigma * self.rng.normal_as::<T>();",
         new="*x = self.rng.normal_as::<T>(); let _ = sigma;", tests=["sghmc_stats"]),
    # --- SGLD ------------------------------------------------------------------------------
    dict(name="sgld_noise_variance", bug="noise of variance 2ε instead of ε",
         file=L, old="let sd = T::from_f64(libm::sqrt(eps));",
         new="let sd = T::from_f64(libm::sqrt(2.0 * eps));", tests=["sgld_stats"]),
    dict(name="sgld_full_drift", bug="drift ε·g instead of ε/2·g",
         file=L, old="let half = T::from_f64(eps / 2.0);", new="let half = T::from_f64(eps);",
         tests=["sgld_stats"]),
    dict(name="sgld_gradient_sign", bug="drift up the gradient",
         file=L, old="*x = (*x - half * gi)", new="*x = (*x + half * gi)", tests=["sgld_stats"]),
    # --- the generator ---------------------------------------------------------------------
    dict(name="normal_tail_wrong", bug="Marsaglia's tail test y ≥ x² instead of 2y ≥ x²",
         file="src/ziggurat.rs", old="if y + y >= x * x {", new="if y >= x * x {",
         tests=["rng"], skip=["value_stability"]),
    dict(name="normal_wedge_nonuniform", bug="the wedge's height drawn non-uniformly",
         file="src/ziggurat.rs", old="let y = F[i] + (F[i + 1] - F[i]) * rng.uniform_f64();",
         new="let y = F[i] + (F[i + 1] - F[i]) * { let u = rng.uniform_f64(); u * u };",
         tests=["rng"], skip=["value_stability"]),
    dict(name="below_no_rejection", bug="Lemire's method without its rejection (modulo bias)",
         file="src/rng.rs", old="if low >= n || low >= n.wrapping_neg() % n {", new="if true {",
         tests=["rng"], skip=["value_stability"]),
]
