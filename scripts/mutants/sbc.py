"""Plausible bugs that only simulation-based calibration (tests/sbc.rs, docs/algorithms.md §5)
catches: one normal drawn for all coordinates where each needs its own (SGHMC's resampled
momentum, SGHMC's friction noise, SGLD's noise). In one dimension each is the correct sampler
draw for draw (tests/sghmc_stats.rs is one-dimensional), and on an isotropic target each
coordinate's marginal law is unchanged (tests/sgld_stats.rs checks marginal means and variances
on N(m, I₂)); on the SBC's linear regression, whose first two coefficients are correlated, the
marginals move and the small-step SGHMC and SGLD cases, which must pass, fail.

Evidence (python3 scripts/mutants/run.py sbc_, and each mutant once more with the other test
targets named instead of `sbc`):
  * killed by tests/sbc.rs `sghmc_and_sgld_at_a_small_step_pass` (about 30 s each): SGHMC's
    momentum θ₁ χ² 90.6 (p 1e-15), SGHMC's friction noise with persistent momentum θ₁ χ² 380.8
    (p 2e-76), SGLD's noise θ₀ χ² 113.8 (p 2e-20); unmutated 9.8, 23.8 and 18.7;
  * all pass with lib, sghmc_stats, sghmc_errors, sgld_stats, amagold_stats, amagold_mass,
    amagold_errors and rng;
  * only the bit-for-bit comparison with the reference build sees the SGHMC ones
    (tests/sghmc_reference.rs), which the mutation check does not count (a misreading of the
    paper would be in both builds); no Rust test sees the SGLD one.

Tried and left out: the same bug in AMAGOLD's momentum and in the friction-noise sweep all three
chains share (src/noise.rs) is caught by SBC and by tests/amagold_stats.rs's correlated
10-dimensional Gaussian as well.
"""

S = "src/sghmc.rs"
L = "src/sgld.rs"

# Only the SGHMC and SGLD cases of the SBC suite run these samplers.
CHAIN_ONLY = ["amagold_", "svgd", "exact_posterior", "chi2"]

MUTANTS = [
    dict(name="sbc_sghmc_momentum_one_normal",
         bug="SGHMC: the resampled momentum is one normal for all coordinates",
         file=S,
         old="            for (x, mi) in rw.iter_mut().zip(Factors::of(mf)) {\n"
             "                *x = (sigma * mi) * self.rng.normal_as::<T>();\n"
             "            }",
         new="            let z = self.rng.normal_as::<T>();\n"
             "            for (x, mi) in rw.iter_mut().zip(Factors::of(mf)) {\n"
             "                *x = (sigma * mi) * z;\n"
             "            }",
         tests=["sbc"], skip=CHAIN_ONLY),
    dict(name="sbc_sghmc_noise_one_normal",
         bug="SGHMC: one friction-noise normal per inner step, shared by all coordinates",
         edits=[(S, "                sweep(\n"
                    "                    &mut self.rng,\n"
                    "                    noisy,\n"
                    "                    items,\n"
                    "                    |(((ri, &gi), ti), (mi, ki)), z| {\n"
                    "                        *ri = momentum(*ri, gi, mi, z);",
                 "                let z = noisy.then(|| self.rng.normal_as::<T>());\n"
                 "                sweep(\n"
                 "                    &mut self.rng,\n"
                 "                    false,\n"
                 "                    items,\n"
                 "                    |(((ri, &gi), ti), (mi, ki)), _: Option<T>| {\n"
                 "                        *ri = momentum(*ri, gi, mi, z);"),
                (S, "                sweep(\n"
                    "                    &mut self.rng,\n"
                    "                    noisy,\n"
                    "                    items,\n"
                    "                    |(((ri, &gi), _), (mi, _)), z| {\n"
                    "                        *ri = momentum(*ri, gi, mi, z);",
                 "                let z = noisy.then(|| self.rng.normal_as::<T>());\n"
                 "                sweep(\n"
                 "                    &mut self.rng,\n"
                 "                    false,\n"
                 "                    items,\n"
                 "                    |(((ri, &gi), _), (mi, _)), _: Option<T>| {\n"
                 "                        *ri = momentum(*ri, gi, mi, z);")],
         tests=["sbc"], skip=CHAIN_ONLY),
    dict(name="sbc_sgld_noise_one_normal",
         bug="SGLD: one noise normal per update, shared by all coordinates",
         file=L,
         old="            sweep(\n"
             "                &mut self.rng,\n"
             "                true,\n"
             "                tw.iter_mut().zip(g.iter()).zip(factors),\n"
             "                |((x, &gi), (ki, si)), z: Option<T>| {\n"
             "                    *x = (*x - (half * ki) * gi) + (sd * si) * z.unwrap_or(T::ZERO);\n"
             "                },\n"
             "            );",
         new="            let z = self.rng.normal_as::<T>();\n"
             "            for ((x, &gi), (ki, si)) in tw.iter_mut().zip(g.iter()).zip(factors) {\n"
             "                *x = (*x - (half * ki) * gi) + (sd * si) * z;\n"
             "            }",
         tests=["sbc"], skip=CHAIN_ONLY),
]
