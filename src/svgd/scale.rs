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

use super::regions::{InPlace, SlotMoves};
use super::rows::{row, row_mut, rows, rows_mut};
use super::scatter::scatter_moves;
use super::step_rule::Update;
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
    let nf = n as f64;
    let Some((s, c)) = sc.split_at_mut_checked(d) else {
        return;
    };
    for (l, (sl, cl)) in s.iter_mut().zip(c.iter_mut()).enumerate() {
        let at = |r: &[T]| r.get(l).map_or(0.0, |v| v.to_f64());
        let mut sum = 0.0f64;
        for r in rows(xs, d) {
            sum += at(r);
        }
        let mean = sum / nf;
        *cl = T::from_f64(mean);
        if which == Scale::Particles {
            let mut ss = 0.0f64;
            for r in rows(xs, d) {
                let dv = at(r) - mean;
                ss += dv * dv;
            }
            let sd = T::from_f64(libm::sqrt(ss / nf));
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

/// [`move_slots`](super::moves::move_slots) in standardised coordinates: for each slot `t`, particle
/// `perm[t]`'s new position `x + s∘Δ` (old `x` read from `particles`) into row `t` of `xs`,
/// its new history into row `t` of `g`. Returns whether every φ and new value is finite.
#[inline(never)]
pub(super) fn move_slots<T: Float>(
    up: &Update<T>,
    sc: &[T],
    particles: &[T],
    moves: SlotMoves<'_, T>,
) -> bool {
    let SlotMoves {
        hist,
        perm,
        xs,
        g,
        phi,
        d,
    } = moves;
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

/// [`move_in_place`](super::moves::move_in_place) in standardised coordinates: particle `perm[t]`
/// moves to `x + s∘Δ` in place, its old position goes into row `t` of `xs` (whose `u` is spent)
/// and, with a history, its old history into row `t` of `phi` once φ is read; φ goes into row
/// `perm[t]` of `by_particle`. On a non-finite value the old values are copied back and `false`
/// returned, as there.
#[inline(never)]
pub(super) fn move_in_place<T: Float>(up: &Update<T>, sc: &[T], at: InPlace<'_, T>) -> bool {
    let InPlace {
        particles,
        hist,
        perm,
        xs,
        phi,
        by_particle,
        d,
    } = at;
    let (s, _) = halves(sc, d);
    let history = up.adagrad_constants().is_some();
    let mut finite =
        perm.len().wrapping_mul(d) == xs.len() && xs.len() == phi.len() && s.len() == d;
    for ((xr, pr), &i) in rows_mut(xs, d).zip(rows_mut(phi, d)).zip(perm) {
        let i = i as usize;
        let (xt, ft) = (row_mut(particles, i, d), row_mut(by_particle, i, d));
        let ht = row_mut(hist, i, d);
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
        scatter_moves(particles, hist, xs, phi, perm, d);
    }
    finite
}

/// [`move_checked`](super::moves::move_checked) in standardised coordinates: `x` and `h` are rows (or
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::Rng;
    use crate::svgd::permutation::shuffle_prefix;
    use crate::svgd::scatter::{scatter_moves, scatter_rows};
    use crate::svgd::StepRule;

    /// Without the crate's `svgd-scale` feature a configuration asking for the option is
    /// refused (and `on` is false, so that its code is not linked); with it, accepted.
    #[test]
    fn scale_needs_the_feature() {
        assert_eq!(Scale::None.validate(), Ok(()));
        for s in [Scale::Particles, Scale::Fixed] {
            if cfg!(feature = "svgd-scale") {
                assert_eq!(s.validate(), Ok(()));
                assert!(s.on());
                assert_eq!(s.len(3), Some(6));
            } else {
                assert_eq!(s.validate(), Err(Error::InvalidOption));
                assert!(!s.on());
                assert_eq!(s.len(3), Some(0));
            }
        }
        assert_eq!(Scale::None.len(3), Some(0));
    }

    /// The serial step's scaled moves in place give what the phases' scaled moves into the slot
    /// rows and the copies give, and on a non-finite φ anywhere leave the particles and the
    /// history bit for bit as they were: every step rule, d = 1 and 3, f64 and f32.
    #[test]
    fn scaled_moves_in_place_equal_the_two_passes_or_change_nothing() {
        fn check<T: Float>(rule: StepRule, n: usize, d: usize, bad: Option<usize>) {
            let mut rng = Rng::new(6, (n * d) as u64);
            let mut perm: Vec<u32> = (0..n as u32).collect();
            shuffle_prefix(&mut rng, &mut perm, n - 1);
            let mut draw =
                |k: usize| -> Vec<T> { (0..k).map(|_| T::from_f64(rng.normal())).collect() };
            let x0 = draw(n * d);
            let h0: Vec<T> = if rule.has_history() {
                draw(n * d)
                    .iter()
                    .map(|v| *v * *v - T::from_f64(0.2))
                    .collect()
            } else {
                Vec::new()
            };
            let mut phi = draw(n * d);
            if let Some(b) = bad {
                phi[b * d + d - 1] = T::from_f64(f64::NAN);
            }
            // s then c.
            let sc: Vec<T> = (0..2 * d)
                .map(|l| T::from_f64(0.3 + 0.9 * l as f64))
                .collect();
            let us = draw(n * d); // the slots' u (spent by the moves)
            let up = Update::<T>::new(&rule, 3);
            // The two passes.
            let (mut x2, mut h2, mut xs2, mut g2) =
                (x0.clone(), h0.clone(), us.clone(), draw(n * d));
            let moves = SlotMoves {
                hist: &h0,
                perm: &perm,
                xs: &mut xs2,
                g: &mut g2,
                phi: &phi,
                d,
            };
            let ok2 = move_slots(&up, &sc, &x0, moves);
            if ok2 {
                scatter_moves(&mut x2, &mut h2, &xs2, &g2, &perm, d);
            }
            let mut f2 = draw(n * d);
            if ok2 {
                scatter_rows(&mut f2, &phi, &perm, d);
            }
            // In place.
            let (mut x1, mut h1, mut xs1, mut p1, mut f1) =
                (x0.clone(), h0.clone(), us.clone(), phi.clone(), f2.clone());
            let at = InPlace {
                particles: &mut x1,
                hist: &mut h1,
                perm: &perm,
                xs: &mut xs1,
                phi: &mut p1,
                by_particle: &mut f1,
                d,
            };
            let ok1 = move_in_place(&up, &sc, at);
            assert_eq!(ok1, bad.is_none());
            assert_eq!(ok1, ok2);
            let bits = |v: &[T]| v.iter().map(|t| t.to_f64().to_bits()).collect::<Vec<_>>();
            assert_eq!(bits(&x1), bits(&x2), "{rule:?} n {n} d {d} bad {bad:?}");
            assert_eq!(bits(&h1), bits(&h2), "{rule:?} n {n} d {d} bad {bad:?}");
            if ok1 {
                assert_eq!(bits(&f1), bits(&f2), "φ by particle");
                // The moves are x + s_l·Δ: coordinate l moved by s_l times the unscaled
                // rule's move of the same φ and history (up to one rounding of the sum).
                let (mut xu, mut hu) = (x0.clone(), h0.clone());
                let hist = if rule.has_history() {
                    Some(&mut hu[..])
                } else {
                    None
                };
                let mut by_particle = vec![T::ZERO; n * d];
                scatter_rows(&mut by_particle, &phi, &perm, d);
                assert!(crate::svgd::moves::move_checked(
                    &up,
                    &mut xu,
                    hist,
                    &by_particle
                ));
                for (k, ((&a, &b), &c)) in x1.iter().zip(&x0).zip(&xu).enumerate() {
                    let (scaled, plain) = ((a - b).to_f64(), (c - b).to_f64());
                    let want = sc[k % d].to_f64() * plain;
                    assert!(
                        (scaled - want).abs() <= 1e-5 * (1.0 + want.abs() + b.to_f64().abs()),
                        "{rule:?} coordinate {k}: {scaled} vs {want}"
                    );
                }
            } else {
                assert_eq!(bits(&x1), bits(&x0));
                assert_eq!(bits(&h1), bits(&h0));
            }
            // move_checked over the whole arrays by particle gives the same positions.
            let mut x3 = x0.clone();
            let mut h3 = h0.clone();
            let mut by_particle = vec![T::ZERO; n * d];
            scatter_rows(&mut by_particle, &phi, &perm, d);
            let hist = if rule.has_history() {
                Some(&mut h3[..])
            } else {
                None
            };
            let ok3 = move_checked(&up, &sc, &mut x3, hist, &by_particle, d);
            assert_eq!(ok3, ok1);
            assert_eq!(bits(&x3), bits(&x1));
            assert_eq!(bits(&h3), bits(&h1));
        }
        let rules = [
            StepRule::adagrad(0.1),
            StepRule::Constant { eta: 0.3 },
            StepRule::Decaying { eta: 0.3 },
        ];
        for rule in rules {
            for d in [1, 3] {
                let n = 13;
                for bad in [None, Some(0), Some(6), Some(n - 1)] {
                    check::<f64>(rule, n, d, bad);
                    check::<f32>(rule, n, d, bad);
                }
            }
        }
    }
}
