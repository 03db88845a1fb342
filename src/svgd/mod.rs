//! SVGD and RBM-SVGD: Stein variational gradient descent with random-batch interactions
//! (Li, Li, Liu, Liu & Lu 2020; docs/algorithms.md §2).
//!
//! N particles `X_1 … X_N` in `R^d` move along the Stein force. One [`step`](Svgd::step) is one
//! iteration. With batch size `p` the interaction costs O(pNd) per iteration instead of O(N²d);
//! `p = N` is full SVGD.
//!
//! # Memory
//!
//! The caller owns three buffers, all checked in [`Svgd::new`]:
//!
//! * the particles, `N·d` coordinates row by row (borrowed: the sampler moves them in place);
//! * a workspace of [`Svgd::workspace_len`]`(N, d, &config)` coordinates of type `T`:
//!   * without replacement: gradients `N·d`, forces φ `N·d`, AdaGrad history `N·d` (AdaGrad
//!     only), positions `N·d`, kernel scratch (the median heuristic only: `N(N−1)/2`). The
//!     gradients, forces and positions are laid out by *permutation slot* (slot `s` holds
//!     particle `perm[s]`), so that each batch's rows are one contiguous run and the batches of
//!     an iteration are disjoint slices (see "Phases" below);
//!   * with replacement: batch gradients `p·d`, batch forces `p·d`, AdaGrad history `N·d`
//!     (AdaGrad only), batch positions `p·d`, working particles `N·d`, working history `N·d`
//!     (AdaGrad only), kernel scratch;
//!   * with the scale option ([`SvgdConfig::scale`], docs/algorithms.md §2.7) `2·d` more at the
//!     end: the scales `s` and the centres `c` of the iteration (the
//!     slot rows then hold `u = (x − c)/s` and `s∘g`, and the particles move by `s∘Δu`);
//!   * with the Feistel permutation ([`SvgdConfig::permutation`]) and the KSD and the scale
//!     option off, on hosts, `N·d` more at the very end: the gradients by slot, kept apart from φ by
//!     particle so that the C API's phases can move each range's particles in place;
//! * an index slice of [`Svgd::index_len`]`(N) = N` `u32`s for the permutation (hence
//!   `N ≤ 2³² − 1`). It is scratch: it carries no state between iterations.
//!
//! Memory is O(Nd + N); nothing is N×N except the median heuristic's pairwise distances. The
//! sampler's own fields are plain data (configuration, generator, iteration count).
//!
//! Stack: an iteration is a chain of phase functions that are never inlined (preparation,
//! gradients, pair sums, self terms, the checked move, the KSD's sums; with replacement the same
//! per sub-step), so their locals never share one frame: at most 776 bytes on a Cortex-M4F in
//! `f64` (772 in `f32`, 752 on a Cortex-M3), callbacks excluded, KSD on or off: the worst over
//! every call path of the linked code, by `scripts/footprint.sh` (docs/footprint.md). No indexing
//! in this module can panic: rows are taken with checked `get`s whose (unreachable) failure
//! skips the row.
//!
//! # One iteration without replacement (docs/algorithms.md §2, Algorithm 3)
//!
//! 1. Draw the iteration's minibatch seed, then a uniformly random permutation of `0..N`, and
//!    prepare the kernel from the particles (e.g. the median bandwidth).
//! 2. Gather the positions into slot order (`Y_s = X_{perm[s]}`) and evaluate their gradients
//!    with `gradients(Y, d, seed, G)` (one call for all N slots in a serial step; rows in slot
//!    order).
//! 3. Cut the slots into `⌊N/p⌋` consecutive batches of `p`; the last batch also takes the
//!    `N mod p` left-over particles. For every batch `C` and `i ∈ C`, with all positions from
//!    the start of the iteration:
//!    `φ_i = (1/N)·F(X_i, X_i) + ((N−1)/N)·(1/(|C|−1))·Σ_{j∈C, j≠i} F(X_i, X_j)`,
//!    `F(x, y) = k(x, y)·(−∇V(y)) + ∇_y k(x, y)`.
//! 4. Compute every particle's new position and history with the step rule ([`StepRule`]),
//!    check every φ, new position and new history value for finiteness, then move all
//!    particles at once and copy φ into particle order. (In the phases below the new values
//!    are computed batch by batch after step 3, into the spent slot rows, and copied in only
//!    when all are finite. On hosts the serial step writes them, and φ, straight into the
//!    particles, the history and φ by particle, keeping the old values in the slot rows, and
//!    copies the old values back if one was not finite: one pass instead of three, same
//!    values. With the KSD on, which needs those rows, they are computed here.)
//!
//! Every φ is computed before any particle moves, so a callback ABORT, a REJECT (SVGD has no
//! proposal to reject: the iteration cannot be completed, [`Error::GradientRejected`](crate::Error::GradientRejected)),
//! a non-finite gradient or a non-finite update leaves the particles, the AdaGrad history and
//! the generator exactly as before the iteration.
//!
//! # Phases (parallel and distributed iterations)
//!
//! The four steps above are four phases over disjoint data: *begin* (step 1: the only draws),
//! *gradients* of slots `a..b` (step 2 on those slots: writes only their rows of `Y` and `G`),
//! *forces* of batches `a..b` (step 3 and the new values of step 4: reads and writes only those
//! batches' rows, reads the history) and *finish* (the rest of step 4: the finiteness verdict
//! and the copies, by permutation, into the particles, the history and φ by particle). A gradient of one slot depends only on that slot's position and the seed, and a
//! batch's φ only on its own rows, with every sum in a fixed order inside the batch; so any
//! split of the slots and batches, run on any number of threads or processes in any order,
//! gives the serial [`step`](Svgd::step) bit for bit (the serial step is begin, one gradient
//! range over all slots, one batch range over all batches, finish; on hosts with the moves
//! made in place as step 4 says). The C API exposes the
//! phases (`sgs_svgd_begin`, `sgs_svgd_gradients_range`, `sgs_svgd_batches_range`,
//! `sgs_svgd_finish`, `sgs_svgd_cancel`); with the `parallel` feature `Svgd::step_parallel`
//! runs them on the rayon pool. (A model whose `gradients` is not a row-by-row function of
//! each point, e.g. one that mixes points, gets the same bits only from the same calls.)
//!
//! # With replacement (Algorithm 2)
//!
//! One iteration is `S = ⌊N/p⌋` sub-steps (the number of batches of the variant without
//! replacement, so both do the same interaction work; when `p` does not divide `N` a particle
//! moves `S·p/N < 1` times per iteration on average). Each sub-step draws `p` distinct
//! particles, evaluates their gradients at their *current* positions (one
//! `gradients(X_C, d, seed, G_C)` call on the gathered batch, rows in draw order), computes their
//! φ with the formula above (`|C| = p`) and moves only them by a full step. The kernel is
//! prepared once per iteration from the positions at its start. The sub-steps work on a copy of
//! the particles (and of the history) that is written back only when the whole iteration
//! succeeded.
//!
//! # Draw order (the reproducibility contract)
//!
//! Per iteration: one [`Rng::next_u64`](crate::Rng::next_u64) (the minibatch seed, shared by every gradient call of
//! the iteration), then
//!
//! * without replacement: the permutation by forward Fisher–Yates on the identity,
//!   `for t in 0..N−1 { j = t + below(N − t); swap(perm[t], perm[j]) }` (N − 1 `below` calls);
//! * with replacement: `perm ← identity` once, then per sub-step the same loop over
//!   `t in 0..min(p, N−1)` on the current `perm`; the batch is `perm[0..p]` in that order.
//!
//! The kernels draw nothing. An iteration that fails restores the generator.
//!
//! # Arithmetic (the reproducibility contract)
//!
//! In `T`, constants rounded once from `f64`: `inv_n = T(1/N)`,
//! `w = T((N−1) / (N·(|C|−1)))` (numerator and denominator in `f64`), `(k₀, c₀) = eval(0)`.
//! For a batch `C = (c_0, …, c_{m−1})` in permutation (draw) order, with `r²(x, y) = Σ_l (x_l −
//! y_l)²` summed from 0 in index order:
//!
//! ```text
//! s_i = 0;  for j in C in order, j ≠ i:  (k, c) = eval(r²(X_i, X_j));
//!                                        s_il = s_il + ((c·(X_il − X_jl)) − (k·g_jl))
//! F_self,il = (c₀·0) − (k₀·g_il)
//! φ_il = (inv_n·F_self,il) + (w·s_il)
//! ```
//!
//! (The implementation evaluates each unordered pair once and adds it to both rows; since
//! `r²` is symmetric and `c·(y − x) = −(c·(x − y))` exactly, the bits are those of the loop
//! above. On hosts (targets with vector units) with d ≤ 4 a batch's pair sums take one of three
//! vectorised forms: batches without replacement of p = 2 … 8 go in groups of eight batches,
//! one batch per vector lane (`src/svgd/pairs/lanes.rs`); batches of 4 to 16 members not in such a
//! group (9 to 16, the last batch with the N mod p left over, every batch with replacement) take
//! one packed triangle of kernel values (`src/svgd/pairs/packed.rs`); batches of 17 or more go in
//! blocks of R×R pairs with one vector lane per row (`src/svgd/pairs/blocked.rs`). The rest (batches
//! of 2 or 3 outside a group, d > 4) take the row loop: a row's later batch mates in tiles of
//! 16, the tile's r², then its `(k, c)` in one vectorisable [`Kernel::eval_tile`] loop, then
//! the sums in the order above; on targets without vector units (Cortex-M) every batch takes the
//! row loop with tiles of one pair. Every form keeps each row's sum in the order above
//! (docs/algorithms.md §2 describes each), so no element's operations change, and neither do the
//! bits.) The kernels' own arithmetic is in [`kernel`](Kernel), the update's in [`StepRule`].
//! The info record's norms are `sqrt(Σ_l φ_il²)` in `f64` (terms widened before squaring).

mod anneal;
mod config;
mod core;
mod force_stats;
mod kde;
mod kernel;
pub(crate) mod ksd;
mod layout;
mod median;
mod moves;
mod pairs;
mod permutation;
mod phases;
mod regions;
mod replacement;
mod rows;
mod sampler;
mod scale;
mod scatter;
mod schedule;
mod shard;
mod shared_rows;
mod step_rule;
#[cfg(test)]
mod tests;
mod weights;

pub use anneal::Anneal;
pub use config::{Batching, SvgdConfig, SvgdInfo};
pub use kde::{kde_draws, kde_weights, KDE_STREAM};
pub use kernel::{
    Gaussian, GaussianMedian, GaussianParams, ImqParams, InverseMultiquadric, Kernel, KernelChoice,
    KernelParams,
};
pub use ksd::{ksd_batch, ksd_full, KsdChoice, SteinImq};
pub use permutation::{Feistel, Permutation};
pub use phases::{SvgdIteration, SvgdPiece, SvgdPieces};
pub use sampler::Svgd;
pub use scale::Scale;
pub use schedule::{BatchSchedule, BatchScheduler};
#[cfg(feature = "std")]
pub use shard::shard_iteration;
#[cfg(feature = "ffi")]
pub(crate) use shard::{
    particle_range, shard_index_len, shard_workspace_len, slot_range, ShardCore,
};
pub use shard::{ShardRecords, SvgdShard, SvgdShardPartial};
pub use step_rule::{StepRule, ADAGRAD_FUDGE};
pub use weights::{median_bandwidth, particle_weights};

// What the C API (src/ffi/svgd.rs) drives the iteration with.
#[cfg(feature = "ffi")]
pub(crate) use self::core::{Pending, SvgdCore};
#[cfg(feature = "ffi")]
pub(crate) use layout::workspace_len;
#[cfg(feature = "ffi")]
pub(crate) use moves::restore;
#[cfg(feature = "ffi")]
pub(crate) use regions::{InPlaceRows, Shared};
#[cfg(feature = "ffi")]
pub(crate) use shared_rows::SharedRows;
