"""Plausible bugs in SVGD / RBM-SVGD (the batch force on each of its code paths, the kernels, the
median heuristic, the permutation, the batches with replacement, the step rule) and in the
kernelized Stein discrepancy, each with the tests that must catch it. As in chains.py, the tests
named are the statistical ones against exact truth and the direct checks of the documented
formulas, never the bit-for-bit comparisons with the reference build (a misreading of the paper
would be in both builds): those are skipped where they share a target with the others.

The pair sums take one of four code paths (src/svgd/mod.rs, "Arithmetic"; src/svgd/pairs/), so a bug in one path
names the tests that run it:
  lanes    (lanes.rs, packed.rs `triangle`): batches of 2..8 without replacement, d <= 4
           svgd_unbiased p = 2, 5; svgd_mixture p = 2, 8
  packed   (packed.rs `triangle`, the same function): batches of 4..16 outside a group, d <= 4
           svgd_unbiased p = 5 (the last batch, 7 members) and with replacement (p = 7)
  blocked  (blocked.rs): batches of 17 or more, d <= 4
           svgd_mixture p = 32, 256; svgd_banana p = 64, 512; svgd_reference full_batch_is_svgd
  rows     (pairs/rows.rs pair_sums_d1 / pair_sums_rows): d > 4, and batches of 2 or 3 outside a group
           svgd_unbiased d = 5, the leftover batch of 3 at d = 1, with replacement p = 3 at d = 1
Batches with replacement over several sub-steps (each from the current positions):
           svgd_reference with_replacement_sub_steps_move_from_current_positions

Candidates left out as equivalent for what any statistical test can measure (each with its
reason):
  * `shuffle_prefix(.., n - 1)` -> `n - 2` (the last Fisher-Yates swap skipped): it only orders
    the last two slots, which are always in the same (last) batch, so the partition into batches
    is still uniform; only the bits of a batch's sum order change.
  * the iteration's minibatch seed drawn after the permutation instead of before: the seed and
    the permutation are independent uniform draws either way; only the draw order (the bits)
    changes.
  * (AdaGrad's history weights swapped, or its first update H <- (1-a)phi^2, keep the step a
    positive per-coordinate multiple of phi, so the fixed point the moment tests measure is
    unchanged. They are listed all the same: the direct check
    `svgd_reference::step_rules_move_by_their_documented_formulas` pins both step rules with a
    history or a schedule to their formulas, and kills them.)
  * with replacement, `perm` reset to the identity before every sub-step: a Fisher-Yates prefix
    of any fixed arrangement is a uniform draw, so the batches have the same distribution.
"""

F = "src/svgd/pairs/mod.rs"
ROWS = "src/svgd/pairs/rows.rs"
P = "src/svgd/pairs/packed.rs"
B = "src/svgd/pairs/blocked.rs"
C = "src/svgd/core.rs"
PERM = "src/svgd/permutation.rs"
WR = "src/svgd/replacement.rs"
K = "src/svgd/kernel.rs"
MED = "src/svgd/median.rs"
KSD = "src/svgd/ksd.rs"
R = "src/svgd/step_rule.rs"
S = "src/svgd/scale.rs"

# The bit-for-bit comparisons with the reference build, skipped where a target also holds
# direct checks.
REF_SKIP = ["core_matches_reference", "an_info_with_nan_fields_equals_itself"]
KSD_SKIP = ["ksd_on_changes_nothing_else_and_matches_the_reference",
            "ksd_full_matches_the_formula_written_out"]

MUTANTS = [
    # --- the batch weights (finish_force: every path) -------------------------------------
    dict(name="svgd_weight_p", bug="batch sum normalised by |C| instead of |C| - 1",
         file=F, old="(n as f64 * (m - 1) as f64));", new="(n as f64 * m as f64));",
         tests=["svgd_unbiased"]),
    dict(name="svgd_weight_biased", bug="batch weight 1/(|C| - 1) without the (N - 1)/N factor",
         file=F, old="let w = T::from_f64((n - 1) as f64 / (n as f64 * (m - 1) as f64));",
         new="let w = T::from_f64(1.0 / (m - 1) as f64);", tests=["svgd_unbiased"]),
    dict(name="svgd_self_term_as_mate", bug="the self term weighted like a batch mate",
         file=F, old="*p = wt.inv_n * fs + w * *p;", new="*p = w * fs + w * *p;",
         tests=["svgd_unbiased"]),
    dict(name="svgd_self_term_missing", bug="the self term F(X_i, X_i) left out",
         file=F, old="*p = wt.inv_n * fs + w * *p;", new="*p = w * *p + T::ZERO * fs;",
         tests=["svgd_unbiased"]),
    dict(name="svgd_self_kernel_one", bug="the self term with k(x, x) = 1 (true for the Gaussian only)",
         file=F, old="let fs = wt.c0 * T::ZERO - wt.k0 * gl;", new="let fs = wt.c0 * T::ZERO - gl;",
         tests=["svgd_unbiased"]),
    dict(name="rbm_leftover_dropped", bug="the N mod p left-over particles get no batch",
         file=C, old="if b >= self.batches() {\n            self.n",
         new="if b > self.batches() {\n            self.n", tests=["svgd_unbiased"]),
    dict(name="rbm_lanes_last_batch", bug="the group takes the last batch as if it had p members",
         file=C, old="if batch + count == nb && n - self.batch_start(nb - 1) != p {",
         new="if batch + count == nb && n - self.batch_start(nb - 1) == 0 {",
         tests=["svgd_unbiased"]),
    dict(name="svgd_self_in_batch_sum_blocked", bug="blocks: the diagonal pair j = i added too",
         file=B, old="a.s[l][i] = if i == j { s } else { s + t };", new="a.s[l][i] = s + t;",
         tests=["svgd_reference", "svgd_mixture"], skip=REF_SKIP),
    # --- the repulsive term ∇_y k ---------------------------------------------------------
    dict(name="svgd_repulsion_sign_lanes", bug="lanes/packed: ∇_y k with the wrong sign",
         file=P, old="let cd = c[b] * (xi[l][b] - xs[j][l][b]);",
         new="let cd = c[b] * (xs[j][l][b] - xi[l][b]);", tests=["svgd_unbiased", "svgd_mixture"]),
    dict(name="svgd_repulsion_sign_blocked", bug="blocks: ∇_y k with the wrong sign",
         edits=[(B, "let t = c[j][i] * (a.x[l][i] - xj) - k[j][i] * gj;",
                 "let t = c[j][i] * (xj - a.x[l][i]) - k[j][i] * gj;"),
                (B, "a.s[l][i] += c[j][i] * (a.x[l][i] - xj) - k[j][i] * gj;",
                 "a.s[l][i] += c[j][i] * (xj - a.x[l][i]) - k[j][i] * gj;"),
                (B, "b.s[l][j] += c[j][i] * (b.x[l][j] - xi) - k[j][i] * gi;",
                 "b.s[l][j] += c[j][i] * (xi - b.x[l][j]) - k[j][i] * gi;")],
         tests=["svgd_mixture", "svgd_banana"]),
    dict(name="svgd_repulsion_sign_rows", bug="row loops: ∇_y k with the wrong sign",
         edits=[(ROWS, "let cd = c * (xi - xj);", "let cd = c * (xj - xi);"),
                (ROWS, "let cd = c * (xi[l] - xj[l]);", "let cd = c * (xj[l] - xi[l]);")],
         tests=["svgd_unbiased"]),
    # --- the driving term: ∇V of the mate j, not of the particle i -------------------------
    dict(name="svgd_score_of_i_lanes", bug="lanes/packed: driving term with ∇V(X_i) for ∇V(X_j)",
         edits=[(P, "si[l][b] += cd - k[b] * gs[j][l][b];", "si[l][b] += cd - k[b] * gi[l][b];"),
                (P, "ps[j][l][b] += -cd - k[b] * gi[l][b];",
                 "ps[j][l][b] += -cd - k[b] * gs[j][l][b];")],
         tests=["svgd_unbiased", "svgd_mixture"]),
    dict(name="svgd_score_of_i_blocked", bug="blocks: driving term with ∇V(X_i) for ∇V(X_j)",
         edits=[(B, "let t = c[j][i] * (a.x[l][i] - xj) - k[j][i] * gj;",
                 "let t = c[j][i] * (a.x[l][i] - xj) - k[j][i] * a.g[l][i];"),
                (B, "a.s[l][i] += c[j][i] * (a.x[l][i] - xj) - k[j][i] * gj;",
                 "a.s[l][i] += c[j][i] * (a.x[l][i] - xj) - k[j][i] * a.g[l][i];"),
                (B, "b.s[l][j] += c[j][i] * (b.x[l][j] - xi) - k[j][i] * gi;",
                 "b.s[l][j] += c[j][i] * (b.x[l][j] - xi) - k[j][i] * b.g[l][j];")],
         tests=["svgd_reference", "svgd_mixture"], skip=REF_SKIP),
    dict(name="svgd_score_of_i_rows", bug="row loops: driving term with ∇V(X_i) for ∇V(X_j)",
         edits=[(ROWS, "si += cd - k * gj;\n                *pj += -cd - k * gi;",
                 "si += cd - k * gi;\n                *pj += -cd - k * gj;"),
                (ROWS, "pi[l] += cd - k * gj[l];\n                    pj[l] += -cd - k * gi[l];",
                 "pi[l] += cd - k * gi[l];\n                    pj[l] += -cd - k * gj[l];")],
         tests=["svgd_unbiased"]),
    # --- the kernels ----------------------------------------------------------------------
    dict(name="svgd_gaussian_grad_half", bug="Gaussian ∇_y k = (x − y)/(2h)·k (chain rule's 2 lost)",
         file=K, old="let b = T::from_f64(1.0 / h);", new="let b = T::from_f64(0.5 / h);",
         tests=["svgd_unbiased", "svgd_mixture"]),
    dict(name="svgd_gaussian_grad_h2", bug="Gaussian ∇_y k scaled by 1/h² instead of 1/h",
         file=K, old="let b = T::from_f64(1.0 / h);", new="let b = T::from_f64(1.0 / (h * h));",
         tests=["svgd_unbiased", "svgd_mixture"]),
    dict(name="svgd_gaussian_width", bug="k = exp(−r²/h) with the gradient of exp(−r²/(2h))",
         file=K, old="let a = T::from_f64(0.5 / h);", new="let a = T::from_f64(1.0 / h);",
         tests=["svgd_unbiased", "svgd_mixture"]),
    dict(name="svgd_imq_grad_exponent", bug="IMQ β = ½: ∇_y k = 2β·s^(−β)·(x − y), exponent −β",
         file=K, old="let k = T::from_f64(1.0) / s.sqrt();\n        (k, (self.two_beta * k) / s)",
         new="let k = T::from_f64(1.0) / s.sqrt();\n        (k, self.two_beta * k)",
         tests=["svgd_unbiased"]),
    dict(name="svgd_imq_grad_exponent_general", bug="IMQ β ≠ ½: ∇_y k with exponent −β − 2",
         file=K, old="let k = call_exp(-(self.beta * call_ln(s)));\n        (k, (self.two_beta * k) / s)",
         new="let k = call_exp(-(self.beta * call_ln(s)));\n        (k, (self.two_beta * k) / (s * s))",
         tests=["svgd_unbiased"]),
    dict(name="svgd_imq_two_beta", bug="IMQ ∇_y k without the factor 2 (β·s^(−β−1))",
         file=K, old="two_beta: T::from_f64(2.0 * beta),", new="two_beta: T::from_f64(beta),",
         tests=["svgd_unbiased"]),
    # --- the median heuristic -------------------------------------------------------------
    dict(name="median_log_n_plus_1", bug="h = med²/(2 ln(N + 1)) (Liu's code) instead of ln N",
         file=K, old="(med * med) / (2.0 * libm::log(n as f64))",
         new="(med * med) / (2.0 * libm::log(n as f64 + 1.0))",
         tests=["svgd_reference", "svgd_unbiased"], skip=REF_SKIP),
    dict(name="median_of_squared", bug="median of the squared distances, not of the distances",
         edits=[(MED, "right.first().map(|v| v.sqrt().to_f64())", "right.first().map(|v| v.to_f64())"),
                (MED, "0.5 * (lo.sqrt().to_f64() + hi)", "0.5 * (lo.to_f64() + hi)")],
         tests=["svgd_reference", "svgd_unbiased"], skip=REF_SKIP),
    dict(name="median_select_off_by_one", bug="odd count: the element after the middle one",
         file=MED, old="let k = m / 2;", new="let k = (m + 1) / 2;",
         tests=["svgd_reference", "svgd_unbiased"], skip=REF_SKIP),
    dict(name="median_even_upper_middle", bug="even count: the upper middle value, not the mean",
         file=MED, old="if m % 2 == 1 {", new="if m % 2 == 1 || m > 0 {",
         tests=["svgd_reference", "svgd_unbiased"], skip=REF_SKIP),
    # --- the permutation and the batches --------------------------------------------------
    dict(name="perm_sattolo", bug="Sattolo's algorithm (only cyclic permutations)",
         file=PERM, old="let j = t + local.below_inlined((len - t) as u64) as usize;",
         new="let j = t + 1 + local.below_inlined((len - t - 1) as u64) as usize;",
         tests=["svgd_unbiased", "svgd_ksd"], skip=KSD_SKIP),
    dict(name="perm_last_never_moves", bug="Fisher–Yates with below(len − t − 1): the last slot fixed",
         file=PERM, old="let j = t + local.below_inlined((len - t) as u64) as usize;",
         new="let j = t + local.below_inlined((len - t - 1) as u64) as usize;",
         tests=["svgd_unbiased", "svgd_ksd"], skip=KSD_SKIP),
    dict(name="rbm_replacement_prefix_short", bug="with replacement: only p − 1 members drawn",
         file=WR, old="shuffle_prefix(&mut self.rng, perm, p.min(n - 1));",
         new="shuffle_prefix(&mut self.rng, perm, (p - 1).min(n - 1));",
         tests=["svgd_unbiased"]),
    dict(name="rbm_replacement_stale_positions",
         bug="with replacement: every sub-step's batch from the start-of-iteration positions",
         edits=[(WR, "self.draw_batch(seed, ws, perm, model)?;",
                 "self.draw_batch(seed, ws, perm, model, particles)?;"),
                (WR, "        model: &mut M,\n    ) -> Result<(), Error>\n    where\n        K: Kernel<T>,\n"
                    "    {\n        let (n, d, p) = (self.n, self.d, self.cfg.batch_size);\n        shuffle_prefix",
                 "        model: &mut M,\n        start: &[T],\n    ) -> Result<(), Error>\n    where\n"
                 "        K: Kernel<T>,\n    {\n        let (n, d, p) = (self.n, self.d, self.cfg.batch_size);\n"
                 "        shuffle_prefix"),
                (WR, "copy(xb, row(parts.xwork, i as usize, d));", "copy(xb, row(start, i as usize, d));")],
         tests=["svgd_reference"], skip=REF_SKIP),
    dict(name="perm_minibatch_sattolo", bug="minibatch order shuffled by Sattolo's algorithm",
         file="src/minibatch.rs", old="let m = rng.below(k as u64 + 1) as usize;",
         new="let m = rng.below(k as u64) as usize;", tests=["rng"], skip=["value_stability"]),
    # --- the step rule --------------------------------------------------------------------
    dict(name="svgd_adagrad_no_sqrt", bug="AdaGrad divides by ε + H instead of ε + √H",
         file=R, old="(fudge + h.sqrt())", new="(fudge + h)", tests=["svgd_mixture"]),
    dict(name="svgd_adagrad_step_sign", bug="AdaGrad moves x − η·φ/(ε + √H)",
         file=R, old="(x + delta, h)", new="(x - delta, h)", tests=["svgd_mixture"]),
    dict(name="svgd_constant_step_sign", bug="constant step x − η·φ",
         file=R, old="x + self.eta * phi", new="x - self.eta * phi",
         tests=["svgd_reference"], skip=REF_SKIP),
    dict(name="svgd_decaying_sqrt", bug="decaying step η/√k instead of η/k",
         file=R, old="StepRule::Decaying { eta } => eta / k as f64,",
         new="StepRule::Decaying { eta } => eta / libm::sqrt(k as f64),",
         tests=["svgd_reference"], skip=REF_SKIP),
    dict(name="svgd_adagrad_weights_swapped", bug="AdaGrad's H ← (1 − α)·H + α·φ²",
         file=R, old="alpha * h + omega * sq", new="omega * h + alpha * sq",
         tests=["svgd_reference"], skip=REF_SKIP),
    dict(name="svgd_adagrad_first_update", bug="AdaGrad's first H ← (1 − α)·φ² instead of φ²",
         file=R, old="{\n            sq\n        } else {", new="{\n            omega * sq\n        } else {",
         tests=["svgd_reference"], skip=REF_SKIP),
    dict(name="svgd_adagrad_fudge_in_sqrt", bug="AdaGrad divides by √(ε + H) instead of ε + √H",
         file=R, old="(fudge + h.sqrt())", new="((fudge + h).sqrt())",
         tests=["svgd_reference"], skip=REF_SKIP),
    # --- the scale option (SVGD in u = (x - c)/s, docs/algorithms.md §2.7) -------------------
    # svgd_scale: the raw-scale Gaussian against exact truth; svgd_unbiased: the force in u;
    # svgd_reference's direct check `scaled_iteration_is_svgd_in_standardised_coordinates`
    # (s from the current particles, the median on u, the move x + η·s∘φ).
    dict(name="svgd_scale_step_without_s", bug="AdaGrad moves by Δu instead of s∘Δu (s, not s², in the step)",
         file=S, old="(x + s * delta, hn)", new="(x + delta, hn)", tests=["svgd_scale"]),
    dict(name="svgd_scale_plain_step_without_s",
         bug="constant/decaying rules move by η·φ instead of η·s∘φ (s, not s², in the step)",
         file=S, old="(x + s * up.plain_delta(phi), T::ZERO)", new="(x + up.plain_delta(phi), T::ZERO)",
         tests=["svgd_reference", "svgd_unbiased"], skip=REF_SKIP),
    dict(name="svgd_scale_gradient_unscaled", bug="the score in u taken as ∇V(x), not s∘∇V(x)",
         file=S, old="*gl = sl * *gl;", new="*gl = *gl * T::from_f64(1.0);",
         tests=["svgd_scale", "svgd_unbiased"]),
    dict(name="svgd_scale_sd_stale", bug="s computed from the first iteration's particles only, never updated",
         file=S, old="if which == Scale::Particles {", new="if which == Scale::Particles && *sl == T::from_f64(1.0) {",
         tests=["svgd_reference", "svgd_scale"], skip=REF_SKIP),
    dict(name="svgd_scale_kernel_on_x", bug="the kernel (median heuristic) prepared from x instead of u",
         file=C, old="self.cfg.kernel.prepare(parts.xbatch, self.d, parts.scratch)",
         new="self.cfg.kernel.prepare(particles, self.d, parts.scratch)",
         tests=["svgd_reference", "svgd_scale"], skip=REF_SKIP),
    dict(name="svgd_scale_sample_sd_from_centre_zero", bug="s = the root mean square of x (about 0), not the sd",
         file=S, old="let dv = at(r) - mean;", new="let dv = at(r);",
         tests=["svgd_reference", "svgd_scale"], skip=REF_SKIP),
    # --- the kernelized Stein discrepancy -------------------------------------------------
    dict(name="ksd_score_sign", bug="Stein kernel: score term with the wrong sign",
         file=KSD, old="((k * gg + self.tb * k1 * gd) - self.tbd * k1)",
         new="((k * gg - self.tb * k1 * gd) - self.tbd * k1)", tests=["svgd_ksd"], skip=KSD_SKIP),
    dict(name="ksd_no_trace", bug="Stein kernel without the trace term",
         file=KSD, old="((k * gg + self.tb * k1 * gd) - self.tbd * k1) - self.fb * k2 * r2",
         new="k * gg + self.tb * k1 * gd", tests=["svgd_ksd"], skip=KSD_SKIP),
    dict(name="ksd_full_off_once", bug="V-statistic counts each off-diagonal pair once",
         file=KSD, old="(diag + 2.0 * off) / (nf * nf)", new="(diag + off) / (nf * nf)",
         tests=["svgd_ksd"], skip=KSD_SKIP),
    dict(name="ksd_batch_weight_p", bug="batch estimate's pair sum divided by m instead of m − 1",
         file=KSD, old="/ (end - start - 1) as f64;", new="/ (end - start) as f64;",
         tests=["svgd_ksd"], skip=KSD_SKIP),
    dict(name="ksd_batch_n_weight", bug="batch estimate's pair sums weighted N/N² instead of (N − 1)/N²",
         file=KSD, old="(diag + (nf - 1.0) * sb) / (nf * nf)", new="(diag + nf * sb) / (nf * nf)",
         tests=["svgd_ksd"], skip=KSD_SKIP),
    dict(name="ksd_trace_exponent", bug="Stein kernel's r² trace term with q^(β−1) for q^(β−2)",
         file=KSD, old="let k2 = k1 / q;", new="let k2 = k1;", tests=["svgd_ksd"], skip=KSD_SKIP),
    dict(name="feistel_four_rounds", bug="a Feistel network of 4 rounds above N = 256 (batch mates not uniform)",
         file="src/svgd/permutation.rs", old="const ROUNDS: usize = 8;", new="const ROUNDS: usize = 4;",
         tests=["svgd_permutation"]),
    dict(name="feistel_small_n_rounds", bug="8 rounds at small N, where the radices are a few values",
         file="src/svgd/permutation.rs", old="const ROUNDS_SMALL: usize = 16;",
         new="const ROUNDS_SMALL: usize = 8;", tests=["svgd_permutation"]),
    dict(name="in_place_finish_no_rollback", bug="a failed finish with moves in place leaves the moved particles",
         file="src/ffi/svgd/phases.rs", old="            unsafe { roll_back(&fx, core, None) };",
         new="", tests=["svgd_in_place"], features="std,ffi"),
    dict(name="in_place_cancel_no_rollback", bug="a cancel with moves in place leaves the moved particles",
         file="src/ffi/svgd/phases.rs", old="        unsafe { roll_back(&fx, core, Some(&pr)) };",
         new="", tests=["svgd_in_place"], features="std,ffi"),
    dict(name="in_place_positions_unchecked", bug="begin leaves the positions' check to the ranges, which skip it",
         file="src/svgd/core.rs", old="        if !all_finite(xs) {\n            return Err(Error::InvalidPosition);",
         new="        if false {\n            return Err(Error::InvalidPosition);", tests=["svgd_in_place"],
         features="std,ffi"),
    dict(name="feistel_one_walk", bug="cycle walking stopped after one extra pass",
         file="src/svgd/permutation.rs",
         old="    fn walk(&self, mut x: u64) -> u64 {\n        while x >= self.n {",
         new="    fn walk(&self, mut x: u64) -> u64 {\n        if x >= self.n {", tests=["lib"]),
    dict(name="feistel_one_walk_back", bug="the inverse's cycle walking stopped after one extra pass",
         file="src/svgd/permutation.rs",
         old="    fn walk_back(&self, mut x: u64) -> u64 {\n        while x >= self.n {",
         new="    fn walk_back(&self, mut x: u64) -> u64 {\n        if x >= self.n {", tests=["lib"]),
    dict(name="shard_commit_alone", bug="a shard commits its own finite moves although another process's were not",
         file="src/svgd/shard.rs",
         old="        let moved = if partials.iter().any(|q| q.finite == 0) {",
         new="        let moved = if false {", tests=["svgd_shard"]),
    dict(name="shard_commit_trusts_partials", bug="a shard copies its staged moves when the partials say finite, though its own were not",
         file="src/svgd/shard.rs", old="            if self.staged_finite {", new="            if true {",
         tests=["svgd_shard"]),
    dict(name="shard_few_ranks_owner", bug="with few processes an index at a block's start is sent to the block before",
         file="src/svgd/shard.rs", old="used.iter().map(|&e| (i >= e) as usize).sum()",
         new="used.iter().map(|&e| (i > e) as usize).sum()", tests=["svgd_shard"]),
    dict(name="feistel_vector_carry", bug="the vector Feistel blocks' lanes step without the carry into l",
         file="src/svgd/permutation.rs", old="(s(q + 1), s(rem), s(f.b))", new="(s(q), s(rem), s(f.b))",
         tests=["lib"]),
    dict(name="shard_few_ranks_count", bug="with few processes the records counted for a destination miss the key at its block's start",
         file="src/svgd/shard.rs", old="b.iter().map(|&k| (k >= e) as u32)",
         new="b.iter().map(|&k| (k > e) as u32)", tests=["svgd_shard"]),
    dict(name="all_finite_any", bug="a block of values counts as finite when any of them is (a NaN particle or gradient taken)",
         file="src/float.rs", old=".all(|b| b.iter().fold(true, |all, x| all & x.is_finite()))",
         new=".all(|b| b.iter().fold(false, |all, x| all | x.is_finite()))", tests=["svgd_errors", "svgd_shard"]),
    dict(name="shard_two_ranks_place", bug="with two processes the record of the key at the second block's start is placed with the first",
         file="src/svgd/shard.rs", old="let two = |k| (k >= e) as usize;",
         new="let two = |k| (k > e) as usize;", tests=["svgd_shard"]),
    dict(name="shard_slot_owner_off_by_one", bug="a slot's records sent to the process after its batch's owner",
         file="src/svgd/shard.rs", old="            .div((self.ranks * (b + 1)).saturating_sub(1)) as usize",
         new="            .div(self.ranks * (b + 1)) as usize", tests=["svgd_shard"]),
    dict(name="shard_slot_twice", bug="a slot delivered twice is taken (another slot then keeps stale rows)",
         file="src/svgd/shard.rs", old="        if *mark != u32::MAX {", new="        if false {",
         tests=["svgd_shard"]),
    dict(name="shard_divisor_floor", bug="the owners' reciprocal rounded down: some quotients one short",
         file="src/svgd/shard.rs", old="            u64::MAX / d + 1", new="            u64::MAX / d",
         tests=["lib"]),
    dict(name="shard_particle_twice", bug="a particle's φ delivered twice is taken (another particle then keeps a stale φ)",
         file="src/svgd/shard.rs", old="        if *word & bit != 0 {", new="        if false {",
         tests=["svgd_shard"]),
    dict(name="shard_particle_past_block", bug="a particle index past the block but inside the last mark word is taken",
         file="src/svgd/shard.rs", old="(seen.get_mut(k / 32), k < c)", new="(seen.get_mut(k / 32), true)",
         tests=["svgd_shard"]),
    dict(name="shard_pieces_split_record", bug="a piece that ends inside a (slot, particle) record is taken",
         file="src/svgd/shard.rs", old="        if p.idx.len() % per != 0 || Some(p.rows.len()) != p.idx.len().checked_mul(d) {",
         new="        if Some(p.rows.len()) != p.idx.len().checked_mul(d) {", tests=["svgd_shard"]),
    dict(name="shard_pieces_rows_unchecked", bug="a piece's rows not checked against its indices (only the total)",
         file="src/svgd/shard.rs", old="        if p.idx.len() % per != 0 || Some(p.rows.len()) != p.idx.len().checked_mul(d) {",
         new="        if p.idx.len() % per != 0 {", tests=["svgd_shard"]),
    dict(name="shard_pieces_short", bug="pieces with fewer records than the process must receive are taken",
         file="src/svgd/shard.rs", old="    if total != want {", new="    if total > want {",
         tests=["svgd_shard"]),
    dict(name="shard_pieces_overlap_unchecked", bug="a piece over an output or the state's buffers is read while they are written",
         file="src/ffi/svgd/shard.rs", old="    for r in reads {", new="    for r in reads.take(0) {",
         tests=["svgd_shard_capi"], features="std,ffi"),
    dict(name="feistel_inverse_round", bug="an inverse round's subtraction off by one when it wraps",
         file="src/svgd/permutation.rs", old="    let left = if r >= f { r - f } else { r + ml - f };",
         new="    let left = if r >= f { r - f } else { r + ml - f - 1 };", tests=["svgd_shard"]),
]
