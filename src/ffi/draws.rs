//! Diagnostics of stored draws in C (`sgs_draws_…`): the rank-normalised split-R̂, bulk- and
//! tail-ESS and Monte Carlo standard errors of `sgsample::draws` (docs/algorithms.md §4.6), and
//! the one-call verdict. Stateless: every call takes the draws, a scratch buffer and an output.

use super::common::{check_array, check_ptr, overlap, to_status};
use super::sgs_status;
use crate::draws::{self, One, Shape, Summary, Verdict};
use crate::error::Error;
use crate::float::Float;

/// The verdict's R̂ bound: every coordinate's rank-normalised split-R̂ must be below it.
pub const SGS_DRAWS_RHAT_MAX: f64 = 1.01;
/// The verdict's ESS bound per chain: every bulk- and tail-ESS must be at least this many times
/// the number of chains.
pub const SGS_DRAWS_ESS_PER_CHAIN: u32 = 100;
/// The fewest draws per chain the `sgs_draws_…` functions accept (2 per split chain).
pub const SGS_DRAWS_MIN_DRAWS: u32 = 4;
/// Verdict flag: a rank-normalised R̂ is at or above `SGS_DRAWS_RHAT_MAX` (or infinite).
pub const SGS_DRAWS_SUSPECT_RHAT: u32 = 1;
/// Verdict flag: a bulk-ESS is below `SGS_DRAWS_ESS_PER_CHAIN` times the chains.
pub const SGS_DRAWS_SUSPECT_ESS_BULK: u32 = 2;
/// Verdict flag: a tail-ESS is below `SGS_DRAWS_ESS_PER_CHAIN` times the chains.
pub const SGS_DRAWS_SUSPECT_ESS_TAIL: u32 = 4;
/// Verdict flag: the caller reported divergent transitions after warm-up.
pub const SGS_DRAWS_SUSPECT_DIVERGENCES: u32 = 8;
/// Verdict flag: an R̂, bulk- or tail-ESS is NaN (one chain: R̂ needs two).
pub const SGS_DRAWS_SUSPECT_NOT_COMPUTABLE: u32 = 16;

const _: () = {
    assert!(SGS_DRAWS_RHAT_MAX == draws::RHAT_MAX);
    assert!(SGS_DRAWS_ESS_PER_CHAIN as f64 == draws::ESS_PER_CHAIN);
    assert!(SGS_DRAWS_MIN_DRAWS as usize == draws::MIN_DRAWS);
    assert!(SGS_DRAWS_SUSPECT_RHAT == draws::SUSPECT_RHAT);
    assert!(SGS_DRAWS_SUSPECT_ESS_BULK == draws::SUSPECT_ESS_BULK);
    assert!(SGS_DRAWS_SUSPECT_ESS_TAIL == draws::SUSPECT_ESS_TAIL);
    assert!(SGS_DRAWS_SUSPECT_DIVERGENCES == draws::SUSPECT_DIVERGENCES);
    assert!(SGS_DRAWS_SUSPECT_NOT_COMPUTABLE == draws::SUSPECT_NOT_COMPUTABLE);
};

/// The diagnostics of one coordinate, as written by `sgs_draws_summary` (docs/algorithms.md
/// §4.6 for each estimator; ArviZ's name in brackets). With m chains of n draws (N = m·n), each
/// chain split into its first and last ⌊n/2⌋ draws.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct sgs_draws_stats {
    /// Mean of all N draws.
    pub mean: f64,
    /// Standard deviation of all N draws (N − 1 in the denominator).
    pub sd: f64,
    /// Monte Carlo standard error of the mean, sd/√ess_mean (`mcse(method="mean")`).
    pub mcse_mean: f64,
    /// Monte Carlo standard error of the sd (`mcse(method="sd")`).
    pub mcse_sd: f64,
    /// 5 % quantile of all draws (linear interpolation between order statistics, numpy's
    /// default).
    pub q5: f64,
    /// Median of all draws.
    pub q50: f64,
    /// 95 % quantile of all draws.
    pub q95: f64,
    /// Monte Carlo standard error of the 5 % quantile (`mcse(method="quantile", prob=0.05)`).
    pub mcse_q5: f64,
    /// Monte Carlo standard error of the median.
    pub mcse_q50: f64,
    /// Monte Carlo standard error of the 95 % quantile.
    pub mcse_q95: f64,
    /// Bulk-ESS: of the normal scores (Blom) of the ranks of the split draws
    /// (`ess(method="bulk")`).
    pub ess_bulk: f64,
    /// Tail-ESS: the smaller ESS of the indicators of the 5 % and 95 % quantiles
    /// (`ess(method="tail")`).
    pub ess_tail: f64,
    /// ESS of the mean: of the split draws (`ess(method="mean")`).
    pub ess_mean: f64,
    /// Rank-normalised split-R̂: max(rhat_bulk, rhat_folded) (`rhat(method="rank")`); NaN for
    /// one chain.
    pub rhat: f64,
    /// Split-R̂ of the normal scores (`rhat(method="z_scale")`).
    pub rhat_bulk: f64,
    /// Split-R̂ of the normal scores of |x − median| (`rhat(method="folded")`).
    pub rhat_folded: f64,
    /// Classic split-R̂ of the draws (`rhat(method="split")`).
    pub rhat_split: f64,
    /// This coordinate's `SGS_DRAWS_SUSPECT_…` flags (R̂, bulk ESS, tail ESS, not computable)
    /// against the thresholds for its number of chains; 0 when it passes.
    pub flags: u32,
    /// Always 0 (the padding made explicit).
    pub reserved: u32,
}

impl From<&Summary> for sgs_draws_stats {
    fn from(s: &Summary) -> Self {
        sgs_draws_stats {
            mean: s.mean,
            sd: s.sd,
            mcse_mean: s.mcse_mean,
            mcse_sd: s.mcse_sd,
            q5: s.q5,
            q50: s.q50,
            q95: s.q95,
            mcse_q5: s.mcse_q5,
            mcse_q50: s.mcse_q50,
            mcse_q95: s.mcse_q95,
            ess_bulk: s.ess_bulk,
            ess_tail: s.ess_tail,
            ess_mean: s.ess_mean,
            rhat: s.rhat,
            rhat_bulk: s.rhat_bulk,
            rhat_folded: s.rhat_folded,
            rhat_split: s.rhat_split,
            flags: s.flags,
            reserved: 0,
        }
    }
}

impl From<&sgs_draws_stats> for Summary {
    fn from(s: &sgs_draws_stats) -> Self {
        Summary {
            mean: s.mean,
            sd: s.sd,
            mcse_mean: s.mcse_mean,
            mcse_sd: s.mcse_sd,
            q5: s.q5,
            q50: s.q50,
            q95: s.q95,
            mcse_q5: s.mcse_q5,
            mcse_q50: s.mcse_q50,
            mcse_q95: s.mcse_q95,
            ess_bulk: s.ess_bulk,
            ess_tail: s.ess_tail,
            ess_mean: s.ess_mean,
            rhat: s.rhat,
            rhat_bulk: s.rhat_bulk,
            rhat_folded: s.rhat_folded,
            rhat_split: s.rhat_split,
            flags: s.flags,
        }
    }
}

/// The verdict of `sgs_draws_diagnose`: OK (`ok = 1`, `flags = 0`) only if every rank-normalised
/// R̂ is below `SGS_DRAWS_RHAT_MAX`, every bulk- and tail-ESS is at least
/// `SGS_DRAWS_ESS_PER_CHAIN`·chains and no divergence was reported; otherwise SUSPECT
/// (`ok = 0`) with the reasons in `flags` and the worst values.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct sgs_draws_verdict {
    /// 1 when `flags` is 0 (OK), else 0 (SUSPECT).
    pub ok: u32,
    /// The `SGS_DRAWS_SUSPECT_…` reasons, or-ed.
    pub flags: u32,
    /// The largest rank-normalised R̂ over the coordinates (NaN when none is computable).
    pub worst_rhat: f64,
    /// The smallest bulk-ESS (NaN when none is computable).
    pub min_ess_bulk: f64,
    /// The smallest tail-ESS (NaN when none is computable).
    pub min_ess_tail: f64,
    /// The ESS bound applied: `SGS_DRAWS_ESS_PER_CHAIN`·chains.
    pub ess_threshold: f64,
    /// The coordinate (0-based) of `worst_rhat` (the first one; 0 when it is NaN).
    pub worst_rhat_coord: u64,
    /// The coordinate of `min_ess_bulk`.
    pub min_ess_bulk_coord: u64,
    /// The coordinate of `min_ess_tail`.
    pub min_ess_tail_coord: u64,
    /// How many coordinates have a NaN R̂, bulk- or tail-ESS.
    pub not_computable: u64,
    /// The first such coordinate (0 when there is none).
    pub first_not_computable: u64,
    /// The divergences the caller reported.
    pub divergences: u64,
}

impl From<&Verdict> for sgs_draws_verdict {
    fn from(v: &Verdict) -> Self {
        sgs_draws_verdict {
            ok: u32::from(v.ok()),
            flags: v.flags,
            worst_rhat: v.worst_rhat,
            min_ess_bulk: v.min_ess_bulk,
            min_ess_tail: v.min_ess_tail,
            ess_threshold: v.ess_threshold,
            worst_rhat_coord: v.worst_rhat_coord as u64,
            min_ess_bulk_coord: v.min_ess_bulk_coord as u64,
            min_ess_tail_coord: v.min_ess_tail_coord as u64,
            not_computable: v.not_computable as u64,
            first_not_computable: v.first_not_computable as u64,
            divergences: v.divergences,
        }
    }
}

/// The scratch length (in doubles) every `sgs_draws_…` function needs for `chains` chains of
/// `draws` draws, whatever the dimension: 4N + 2·chains·⌊draws/2⌋ + 4M + ⌊draws/2⌋ with
/// N = chains·draws and M the smallest power of two ≥ max(2·⌊draws/2⌋, 4). 0 when `chains` or
/// `draws` is 0 or the size overflows.
#[no_mangle]
pub extern "C" fn sgs_draws_scratch_len(chains: usize, draws: usize) -> usize {
    draws::scratch_len(chains, draws).unwrap_or(0)
}

/// The checks every `sgs_draws_…` function makes on its pointers, before the core's checks of
/// sizes and values: null pointers, alignment, no chain or coordinate, a draw count that
/// overflows, and overlap between the draws, the scratch and the output (only addresses are
/// compared).
fn check_buffers<T, O>(
    draws: *const T,
    shape: Shape,
    scratch: *mut f64,
    scratch_len: usize,
    out: *mut O,
    out_len: usize,
) -> Result<usize, Error> {
    if draws.is_null() || scratch.is_null() || out.is_null() {
        return Err(Error::NullPointer);
    }
    check_ptr(draws)?;
    check_ptr(scratch)?;
    check_ptr(out)?;
    if shape.chains == 0 || shape.dim == 0 {
        return Err(Error::ZeroDimension);
    }
    let len = shape
        .chains
        .checked_mul(shape.draws)
        .and_then(|v| v.checked_mul(shape.dim))
        .ok_or(Error::InvalidArgument)?;
    check_array(draws, len)?;
    check_array(scratch, scratch_len)?;
    check_array(out, out_len)?;
    if overlap(draws, len, scratch, scratch_len)
        || overlap(draws, len, out, out_len)
        || overlap(scratch, scratch_len, out, out_len)
    {
        return Err(Error::InvalidArgument);
    }
    Ok(len)
}

/// The body of `sgs_draws_summary` / `…_f32`.
///
/// # Safety
/// The C contract of `sgs_draws_summary`.
#[allow(clippy::too_many_arguments)]
unsafe fn summary_c<T: Float>(
    x: *const T,
    chains: usize,
    n: usize,
    dim: usize,
    scratch: *mut f64,
    scratch_len: usize,
    out: *mut sgs_draws_stats,
    out_len: usize,
) -> Result<(), Error> {
    let shape = Shape::new(chains, n, dim);
    let len = check_buffers(x, shape, scratch, scratch_len, out, out_len)?;
    // SAFETY: checked non-null, aligned, representable and pairwise disjoint; the caller's
    // contract makes them valid for these lengths.
    let (xs, ws, os) = unsafe {
        (
            core::slice::from_raw_parts(x, len),
            core::slice::from_raw_parts_mut(scratch, scratch_len),
            core::slice::from_raw_parts_mut(out, out_len),
        )
    };
    draws::summary_into(xs, shape, ws, out_len, |j, s| {
        if let Some(o) = os.get_mut(j) {
            *o = sgs_draws_stats::from(s);
        }
    })
}

/// The body of the one-statistic functions.
///
/// # Safety
/// The C contract of `sgs_draws_rhat_rank`.
#[allow(clippy::too_many_arguments)]
unsafe fn one_c<T: Float>(
    x: *const T,
    chains: usize,
    n: usize,
    dim: usize,
    scratch: *mut f64,
    scratch_len: usize,
    out: *mut f64,
    out_len: usize,
    what: One,
) -> Result<(), Error> {
    let shape = Shape::new(chains, n, dim);
    let len = check_buffers(x, shape, scratch, scratch_len, out, out_len)?;
    // SAFETY: as in `summary_c`.
    let (xs, ws, os) = unsafe {
        (
            core::slice::from_raw_parts(x, len),
            core::slice::from_raw_parts_mut(scratch, scratch_len),
            core::slice::from_raw_parts_mut(out, out_len),
        )
    };
    draws::one_into(xs, shape, ws, os, what)
}

macro_rules! draws_api {
    (
        float = $T:ty, ctype = $ctype:literal, summary = $summary:ident,
        rhat_rank = $rhat:ident, ess_bulk = $bulk:ident, ess_tail = $tail:ident,
        mcse_quantile = $mcseq:ident,
    ) => {
        #[doc = concat!(" Every diagnostic of every coordinate of stored draws (`", $ctype, "`)")]
        /// into `out[0..dim]`: mean, sd, their Monte Carlo standard errors, the 5/50/95 %
        /// quantiles and theirs, bulk-, tail- and mean-ESS, the rank-normalised split-R̂ with
        /// its bulk and folded parts, and the classic split-R̂ (ArviZ 0.23's estimators,
        /// conventions and NaN cases; docs/algorithms.md §4.6). `draws` holds `chains·n·dim`
        /// values in the layout the samplers' runs write: chain after chain, draw after draw,
        /// the `dim` coordinates of a draw together (value j of draw t of chain c at
        /// `(c·n + t)·dim + j`); it is only read. `scratch` holds `scratch_len ≥
        /// sgs_draws_scratch_len(chains, n)` doubles (contents on return unspecified).
        /// O(N log N) per coordinate (N = chains·n); the same bits on every target.
        ///
        /// Returns `SGS_OK` or, checked in this order with nothing written on an error:
        /// `SGS_ERR_NULL_POINTER` (`draws`, `scratch` or `out` NULL), `SGS_ERR_INVALID_ARGUMENT`
        /// (a misaligned buffer), `SGS_ERR_ZERO_DIMENSION` (`chains` or `dim` 0),
        /// `SGS_ERR_INVALID_ARGUMENT` (chains·n·dim overflows, or two of the buffers overlap),
        /// `SGS_ERR_TOO_FEW_DRAWS` (n < `SGS_DRAWS_MIN_DRAWS`), `SGS_ERR_WORKSPACE_TOO_SMALL`
        /// (`scratch_len` short), `SGS_ERR_OUTPUT_TOO_SMALL` (`out_len < dim`),
        /// `SGS_ERR_NON_FINITE_DRAWS` (a NaN or infinite draw).
        ///
        /// # Safety
        /// `draws` valid for `chains·n·dim` reads, `scratch` for `scratch_len` reads and writes,
        /// `out` for `out_len` writes.
        #[no_mangle]
        #[allow(clippy::too_many_arguments)]
        pub unsafe extern "C" fn $summary(
            draws: *const $T,
            chains: usize,
            n: usize,
            dim: usize,
            scratch: *mut f64,
            scratch_len: usize,
            out: *mut sgs_draws_stats,
            out_len: usize,
        ) -> sgs_status {
            // SAFETY: forwarded C contract.
            to_status(unsafe {
                summary_c(draws, chains, n, dim, scratch, scratch_len, out, out_len)
            })
        }

        /// The rank-normalised split-R̂ of each coordinate (the `rhat` of `…draws_summary`)
        /// into `out[0..dim]` (`out_len ≥ dim` doubles); NaN for one chain. Arguments and
        /// statuses as for `…draws_summary`.
        ///
        /// # Safety
        /// As for `…draws_summary`, `out` valid for `out_len` double writes.
        #[no_mangle]
        #[allow(clippy::too_many_arguments)]
        pub unsafe extern "C" fn $rhat(
            draws: *const $T,
            chains: usize,
            n: usize,
            dim: usize,
            scratch: *mut f64,
            scratch_len: usize,
            out: *mut f64,
            out_len: usize,
        ) -> sgs_status {
            // SAFETY: forwarded C contract.
            to_status(unsafe {
                one_c(
                    draws,
                    chains,
                    n,
                    dim,
                    scratch,
                    scratch_len,
                    out,
                    out_len,
                    One::RhatRank,
                )
            })
        }

        /// The bulk-ESS of each coordinate into `out[0..dim]`. Arguments and statuses as for
        /// `…draws_rhat_rank`.
        ///
        /// # Safety
        /// As for `…draws_rhat_rank`.
        #[no_mangle]
        #[allow(clippy::too_many_arguments)]
        pub unsafe extern "C" fn $bulk(
            draws: *const $T,
            chains: usize,
            n: usize,
            dim: usize,
            scratch: *mut f64,
            scratch_len: usize,
            out: *mut f64,
            out_len: usize,
        ) -> sgs_status {
            // SAFETY: forwarded C contract.
            to_status(unsafe {
                one_c(
                    draws,
                    chains,
                    n,
                    dim,
                    scratch,
                    scratch_len,
                    out,
                    out_len,
                    One::EssBulk,
                )
            })
        }

        /// The tail-ESS (5 % and 95 % quantiles) of each coordinate into `out[0..dim]`.
        /// Arguments and statuses as for `…draws_rhat_rank`.
        ///
        /// # Safety
        /// As for `…draws_rhat_rank`.
        #[no_mangle]
        #[allow(clippy::too_many_arguments)]
        pub unsafe extern "C" fn $tail(
            draws: *const $T,
            chains: usize,
            n: usize,
            dim: usize,
            scratch: *mut f64,
            scratch_len: usize,
            out: *mut f64,
            out_len: usize,
        ) -> sgs_status {
            // SAFETY: forwarded C contract.
            to_status(unsafe {
                one_c(
                    draws,
                    chains,
                    n,
                    dim,
                    scratch,
                    scratch_len,
                    out,
                    out_len,
                    One::EssTail,
                )
            })
        }

        /// The Monte Carlo standard error of the `prob` quantile of each coordinate into
        /// `out[0..dim]` (ArviZ `mcse(method="quantile", prob=prob)`). Statuses as for
        /// `…draws_rhat_rank`, plus `SGS_ERR_INVALID_ARGUMENT` for `prob` outside (0, 1) or NaN
        /// (checked after the sizes, before the draws' values).
        ///
        /// # Safety
        /// As for `…draws_rhat_rank`.
        #[no_mangle]
        #[allow(clippy::too_many_arguments)]
        pub unsafe extern "C" fn $mcseq(
            draws: *const $T,
            chains: usize,
            n: usize,
            dim: usize,
            prob: f64,
            scratch: *mut f64,
            scratch_len: usize,
            out: *mut f64,
            out_len: usize,
        ) -> sgs_status {
            // SAFETY: forwarded C contract.
            to_status(unsafe {
                one_c(
                    draws,
                    chains,
                    n,
                    dim,
                    scratch,
                    scratch_len,
                    out,
                    out_len,
                    One::McseQuantile(prob),
                )
            })
        }
    };
}

draws_api! {
    float = f64, ctype = "double", summary = sgs_draws_summary, rhat_rank = sgs_draws_rhat_rank,
    ess_bulk = sgs_draws_ess_bulk, ess_tail = sgs_draws_ess_tail,
    mcse_quantile = sgs_draws_mcse_quantile,
}

draws_api! {
    float = f32, ctype = "float", summary = sgs_draws_summary_f32,
    rhat_rank = sgs_draws_rhat_rank_f32, ess_bulk = sgs_draws_ess_bulk_f32,
    ess_tail = sgs_draws_ess_tail_f32, mcse_quantile = sgs_draws_mcse_quantile_f32,
}

/// The one-call verdict over the `dim` per-coordinate results `stats[0..dim]` of
/// `sgs_draws_summary` for `chains` chains, and the caller's count of divergent transitions
/// after warm-up: OK only if every rank-normalised R̂ < `SGS_DRAWS_RHAT_MAX` (1.01), every
/// bulk- and tail-ESS ≥ `SGS_DRAWS_ESS_PER_CHAIN` (100)·chains and `divergences` is 0; else
/// SUSPECT with the `SGS_DRAWS_SUSPECT_…` reasons (a NaN — one chain's R̂ — is
/// `SGS_DRAWS_SUSPECT_NOT_COMPUTABLE`), the worst values and their coordinates. The flags are
/// recomputed from the values (the `flags` fields are not read). Reads only `stats`.
///
/// Returns `SGS_OK`, `SGS_ERR_NULL_POINTER` (`stats` or `verdict` NULL),
/// `SGS_ERR_INVALID_ARGUMENT` (misaligned, `dim` too large for memory, or `verdict` inside
/// `stats`), `SGS_ERR_ZERO_DIMENSION` (`dim` or `chains` 0); `*verdict` is written only on
/// `SGS_OK`.
///
/// # Safety
/// `stats` valid for `dim` reads, `verdict` for one write.
#[no_mangle]
pub unsafe extern "C" fn sgs_draws_diagnose(
    stats: *const sgs_draws_stats,
    dim: usize,
    chains: usize,
    divergences: u64,
    verdict: *mut sgs_draws_verdict,
) -> sgs_status {
    to_status((|| {
        if stats.is_null() || verdict.is_null() {
            return Err(Error::NullPointer);
        }
        check_ptr(stats)?;
        check_ptr(verdict)?;
        check_array(stats, dim)?;
        if overlap(stats, dim, verdict, 1) {
            return Err(Error::InvalidArgument);
        }
        if dim == 0 || chains == 0 {
            return Err(Error::ZeroDimension);
        }
        // SAFETY: checked array of `dim` structs (every bit pattern is a valid one).
        let all = unsafe { core::slice::from_raw_parts(stats, dim) };
        let v = draws::diagnose_by(dim, |j| all.get(j).map(Summary::from), chains, divergences)?;
        // SAFETY: checked non-null, aligned, disjoint from `stats`.
        unsafe { verdict.write(sgs_draws_verdict::from(&v)) };
        Ok(())
    })())
}
