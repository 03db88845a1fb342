//! SVGD in standardised coordinates (docs/algorithms.md §2.7): the scale option.
//!
//! With [`Scale::Particles`] or [`Scale::Fixed`] an iteration runs in `u = (x − c)/s`, with `c`
//! the particles' mean and `s` their per-coordinate standard deviation (recomputed at the start
//! of every iteration) or scales the caller set ([`Svgd::set_scale`](super::Svgd::set_scale)).
//! In `u` the score is `s∘∇ₓlog π`, the kernel and the step rule are the configured ones, and the
//! particles move by `Δx = s∘Δu`: SVGD with the anisotropic kernel `k₀(|(x − y)/s|)` and the
//! step `η·s²` (a constant diagonal matrix-valued kernel per iteration; Wang, Tang, Bajaj & Liu
//! 2019), whose fixed point is still π.
//!
//! # Where each value lives
//!
//! The workspace ends with `2·d` values: `s` then `c`. The iteration's slot rows hold `u` and
//! `s∘g` instead of `x` and `g` (converted in the gradient phase, after the callback has seen
//! `x`), so that every pair-sum path, the median and the KSD read them unchanged. The moves read
//! the old positions from the particles themselves (never round-tripped through `u`).
//!
//! # Arithmetic (part of the reproducibility contract)
//!
//! Per coordinate `l`, over the N particles in index order, in `f64` (values widened exactly):
//!
//! ```text
//! m_l = (Σ_i x_il) / N                       (sum from 0.0)
//! v_l = (Σ_i (x_il − m_l)²) / N              (the second pass; Particles only)
//! s_l = T(sqrt(v_l)), or 1 if that is not finite and positive      (Particles)
//! c_l = T(m_l)
//! ```
//!
//! then in the coordinate type `T`: `u_il = (x_il − c_l) / s_l`, `g'_il = s_l·g_il`, and with the
//! step rule's increment `Δ` of φᵤ (`η·φ`, or AdaGrad's `(η·φ)/(ε + √H)`), `x_il ← x_il + s_l·Δ`.
//! The scale draws nothing: the draw order is that of an iteration without it.

use super::{row, rows, rows_mut, step_rule::Update};
use crate::error::Error;
use crate::float::Float;

/// Whether (and with which scales) SVGD runs in standardised coordinates
/// ([`SvgdConfig::scale`](super::SvgdConfig::scale); docs/algorithms.md §2.7).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Default)]
#[repr(u32)]
pub enum Scale {
    /// Raw coordinates (the default): every bit as without the option.
    #[default]
    None = 0,
    /// `s` = the particles' per-coordinate standard deviation, recomputed at the start of every
    /// iteration; the bandwidth (or the median heuristic) and the step are then in units of the
    /// particles' spread.
    Particles = 1,
    /// `s` fixed, set by [`Svgd::set_scale`](super::Svgd::set_scale) (e.g. a pilot run's
    /// posterior standard deviations); all ones until set. The centre is still the particles'
    /// mean, recomputed every iteration.
    Fixed = 2,
}

impl Scale {
    /// [`Error::InvalidOption`] for anything but [`Scale::None`] when the crate is built without
    /// its `svgd-scale` feature (on by default).
    pub fn validate(&self) -> Result<(), Error> {
        match self {
            Scale::None => Ok(()),
            _ if !cfg!(feature = "svgd-scale") => Err(Error::InvalidOption),
            _ => Ok(()),
        }
    }

    /// Whether an iteration runs in standardised coordinates (always `false` without the
    /// `svgd-scale` feature, so that its code is not linked).
    #[inline(always)]
    pub(crate) fn on(&self) -> bool {
        cfg!(feature = "svgd-scale") && *self != Scale::None
    }

    /// Workspace values for dimension `d`: `s` and `c` (`2·d`), none when off.
    pub(crate) fn len(&self, d: usize) -> Option<usize> {
        if self.on() {
            d.checked_mul(2)
        } else {
            Some(0)
        }
    }
}

/// The scale region `sc` (`s` then `c`, `d` each) as its two halves; empty halves if short.
#[inline]
pub(super) fn halves<T>(sc: &[T], d: usize) -> (&[T], &[T]) {
    match sc.split_at_checked(d) {
        Some((s, c)) => (s, c.get(..d).unwrap_or(&[])),
        None => (&[], &[]),
    }
}

/// The start of an iteration (serial, identical on every thread and rank): the centre `c` and,
/// for [`Scale::Particles`], the scale `s` of the particles `xs` (N rows of `d`) into `sc`, then
/// the standardised positions `u` in particle order into `u` (for the kernel's preparation).
/// Two passes per coordinate over the particles in index order, in `f64` (module docs).
#[inline(never)]
pub(super) fn begin<T: Float>(which: Scale, xs: &[T], d: usize, sc: &mut [T], u: &mut [T]) {
    let n = xs.len().checked_div(d).unwrap_or(0);
    let inv = n as f64;
    let Some((s, c)) = sc.split_at_mut_checked(d) else {
        return;
    };
    for (l, (sl, cl)) in s.iter_mut().zip(c.iter_mut()).enumerate() {
        let at = |r: &[T]| r.get(l).map_or(0.0, |v| v.to_f64());
        let mut sum = 0.0f64;
        for r in rows(xs, d) {
            sum += at(r);
        }
        let mean = sum / inv;
        *cl = T::from_f64(mean);
        if which == Scale::Particles {
            let mut ss = 0.0f64;
            for r in rows(xs, d) {
                let dv = at(r) - mean;
                ss += dv * dv;
            }
            let sd = T::from_f64(libm::sqrt(ss / inv));
            *sl = if sd.is_finite() && sd > T::ZERO {
                sd
            } else {
                T::from_f64(1.0)
            };
        }
    }
    let (s, c) = halves(sc, d);
    for (ur, xr) in rows_mut(u, d).zip(rows(xs, d)) {
        for (((ul, &xl), &sl), &cl) in ur.iter_mut().zip(xr).zip(s).zip(c) {
            *ul = (xl - cl) / sl;
        }
    }
}

/// The rows of a gradient range after the callback saw `x`: `xs` ← `u = (x − c)/s`,
/// `g` ← `s∘g`, row by row. Returns whether every new value is finite.
#[inline(never)]
pub(super) fn standardise<T: Float>(sc: &[T], xs: &mut [T], g: &mut [T], d: usize) -> bool {
    let (s, c) = halves(sc, d);
    let mut finite = s.len() == d && c.len() == d;
    for (xr, gr) in rows_mut(xs, d).zip(rows_mut(g, d)) {
        for (((xl, gl), &sl), &cl) in xr.iter_mut().zip(gr.iter_mut()).zip(s).zip(c) {
            *xl = (*xl - cl) / sl;
            *gl = sl * *gl;
            finite &= xl.is_finite() & gl.is_finite();
        }
    }
    finite
}

/// The step rule's new `(x, H)` of one coordinate moved in `u`: `x + s·Δ` with `Δ` the rule's
/// increment of φ (`H` is 0, ignored, without a history).
#[inline(always)]
fn step<T: Float>(up: &Update<T>, x: T, h: T, phi: T, s: T) -> (T, T) {
    match up.adagrad_constants() {
        Some(k) => {
            let (delta, hn) = up.adagrad_delta(k, h, phi);
            (x + s * delta, hn)
        }
        None => (x + s * up.plain_delta(phi), T::ZERO),
    }
}

/// [`move_slots`](super::move_slots) in standardised coordinates: for each slot `t`, particle
/// `perm[t]`'s new position `x + s∘Δ` (old `x` read from `particles`) into row `t` of `xs`,
/// its new history into row `t` of `g`. Returns whether every φ and new value is finite.
#[inline(never)]
#[allow(clippy::too_many_arguments)]
pub(super) fn move_slots<T: Float>(
    up: &Update<T>,
    sc: &[T],
    particles: &[T],
    hist: &[T],
    perm: &[u32],
    xs: &mut [T],
    g: &mut [T],
    phi: &[T],
    d: usize,
) -> bool {
    let (s, _) = halves(sc, d);
    let history = up.adagrad_constants().is_some();
    let mut finite = perm.len().wrapping_mul(d) == xs.len() && s.len() == d;
    for (((xr, gr), pr), &i) in rows_mut(xs, d)
        .zip(rows_mut(g, d))
        .zip(rows(phi, d))
        .zip(perm)
    {
        let (xo, ho) = (row(particles, i as usize, d), row(hist, i as usize, d));
        finite &= xo.len() == d && (!history || ho.len() == d);
        for (l, ((xl, gl), &pl)) in xr.iter_mut().zip(gr.iter_mut()).zip(pr).enumerate() {
            let (Some(&x), Some(&sl)) = (xo.get(l), s.get(l)) else {
                continue;
            };
            let h = ho.get(l).copied().unwrap_or(T::ZERO);
            let (xn, hn) = step(up, x, h, pl, sl);
            finite &= pl.is_finite() & xn.is_finite() & hn.is_finite();
            *xl = xn;
            if history {
                *gl = hn;
            }
        }
    }
    finite
}

/// [`move_in_place`](super::move_in_place) in standardised coordinates: particle `perm[t]`
/// moves to `x + s∘Δ` in place, its old position goes into row `t` of `xs` (whose `u` is spent)
/// and, with a history, its old history into row `t` of `phi` once φ is read; φ goes into row
/// `perm[t]` of `by_particle`. On a non-finite value the old values are copied back and `false`
/// returned, as there.
#[inline(never)]
#[allow(clippy::too_many_arguments)]
pub(super) fn move_in_place<T: Float>(
    up: &Update<T>,
    sc: &[T],
    particles: &mut [T],
    hist: &mut [T],
    perm: &[u32],
    xs: &mut [T],
    phi: &mut [T],
    by_particle: &mut [T],
    d: usize,
) -> bool {
    let (s, _) = halves(sc, d);
    let history = up.adagrad_constants().is_some();
    let mut finite =
        perm.len().wrapping_mul(d) == xs.len() && xs.len() == phi.len() && s.len() == d;
    for ((xr, pr), &i) in rows_mut(xs, d).zip(rows_mut(phi, d)).zip(perm) {
        let i = i as usize;
        let (xt, ft) = (
            super::row_mut(particles, i, d),
            super::row_mut(by_particle, i, d),
        );
        let ht = super::row_mut(hist, i, d);
        finite &= xt.len() == d && ft.len() == d && (!history || ht.len() == d);
        for (l, ((xl, pl), (t, f))) in xr
            .iter_mut()
            .zip(pr.iter_mut())
            .zip(xt.iter_mut().zip(ft.iter_mut()))
            .enumerate()
        {
            let Some(&sl) = s.get(l) else {
                continue;
            };
            let h = ht.get(l).copied().unwrap_or(T::ZERO);
            let (xn, hn) = step(up, *t, h, *pl, sl);
            finite &= pl.is_finite() & xn.is_finite() & hn.is_finite();
            (*xl, *t, *f) = (*t, xn, *pl);
            if let Some(hl) = ht.get_mut(l) {
                (*pl, *hl) = (*hl, hn);
            }
        }
    }
    if !finite {
        super::scatter_moves(particles, hist, xs, phi, perm, d);
    }
    finite
}

/// [`move_checked`](super::move_checked) in standardised coordinates: `x` and `h` are rows (or
/// whole row-major arrays) of `d`-coordinate rows, coordinate `l` of each scaled by `s_l`.
#[inline(never)]
pub(super) fn move_checked<T: Float>(
    up: &Update<T>,
    sc: &[T],
    x: &mut [T],
    h: Option<&mut [T]>,
    phi: &[T],
    d: usize,
) -> bool {
    let (s, _) = halves(sc, d);
    if s.len() != d || x.len() != phi.len() {
        return false;
    }
    let ok =
        match &h {
            Some(h) => x.iter().zip(h.iter()).zip(phi).zip(s.iter().cycle()).all(
                |(((&xl, &hl), &pl), &sl)| {
                    let (xn, hn) = step(up, xl, hl, pl, sl);
                    pl.is_finite() && xn.is_finite() && hn.is_finite()
                },
            ),
            None => x
                .iter()
                .zip(phi)
                .zip(s.iter().cycle())
                .all(|((&xl, &pl), &sl)| {
                    let (xn, _) = step(up, xl, T::ZERO, pl, sl);
                    pl.is_finite() && xn.is_finite()
                }),
        };
    if !ok {
        return false;
    }
    match h {
        Some(h) => {
            for (((xl, hl), &pl), &sl) in x
                .iter_mut()
                .zip(h.iter_mut())
                .zip(phi)
                .zip(s.iter().cycle())
            {
                (*xl, *hl) = step(up, *xl, *hl, pl, sl);
            }
        }
        None => {
            for ((xl, &pl), &sl) in x.iter_mut().zip(phi).zip(s.iter().cycle()) {
                *xl = step(up, *xl, T::ZERO, pl, sl).0;
            }
        }
    }
    true
}

/// Checks fixed scales: [`Error::LengthMismatch`] unless `d` values, [`Error::InvalidArgument`]
/// unless each is finite and positive.
pub(crate) fn check_fixed<T: Float>(s: &[T], d: usize) -> Result<(), Error> {
    if s.len() != d {
        return Err(Error::LengthMismatch);
    }
    if !s.iter().all(|&v| v.is_finite() && v > T::ZERO) {
        return Err(Error::InvalidArgument);
    }
    Ok(())
}
