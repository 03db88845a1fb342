//! The phases, the moves and the statistics of an iteration against the serial step.

use super::core::SvgdCore;
use super::force_stats::ForceStats;
use super::layout::workspace_len;
use super::moves::{move_in_place, move_slots};
use super::permutation::shuffle_prefix;
use super::regions::{InPlaceRows, Shared};
use super::scatter::{scatter_moves, scatter_rows};
use super::shared_rows::SharedRows;
use super::step_rule::Update;
use super::*;
use crate::error::Stop;
use crate::float::Float;
use crate::model::Gradient;
use crate::rng::Rng;

struct Quadratic;
impl Gradient<f64> for Quadratic {
    fn gradient(&mut self, x: &[f64], seed: u64, g: &mut [f64]) -> Result<(), Stop> {
        for (gl, xl) in g.iter_mut().zip(x) {
            *gl = *xl + (seed % 7) as f64 * 0.01;
        }
        Ok(())
    }
}

/// The phases of one iteration touch disjoint data: gradient slot ranges and batch ranges
/// cut at arbitrary points and run in any order (as threads or MPI ranks would) give the
/// serial `step` bit for bit, info included, for batch sizes that do and do not divide N,
/// in raw and in standardised coordinates (the scale option, both kinds, every step rule).
#[test]
fn phases_split_in_any_order_give_the_serial_result() {
    let cases = [
        (23, 2, 4, Scale::None, StepRule::adagrad(0.1)),
        (24, 1, 6, Scale::None, StepRule::adagrad(0.1)),
        (9, 3, 9, Scale::None, StepRule::adagrad(0.1)),
        (23, 2, 4, Scale::Particles, StepRule::adagrad(0.1)),
        (24, 1, 6, Scale::Particles, StepRule::Constant { eta: 0.05 }),
        (9, 3, 9, Scale::Fixed, StepRule::Decaying { eta: 0.05 }),
        (17, 6, 5, Scale::Particles, StepRule::adagrad(0.1)),
    ];
    for (n, d, p, scale, rule) in cases {
        if scale != Scale::None && !scale.on() {
            continue; // built without the `svgd-scale` feature
        }
        let cfg = SvgdConfig {
            scale,
            ..SvgdConfig::new(p, KernelChoice::Gaussian { h: 0.6 }, rule)
        };
        let mut rng = Rng::new(3, n as u64);
        let x0: Vec<f64> = (0..n * d).map(|_| rng.normal()).collect();
        let len = workspace_len::<f64, _>(n, d, &cfg);
        let (mut xa, mut wa, mut ia) = (x0.clone(), vec![0.0; len], vec![0u32; n]);
        let (mut xb, mut wb, mut ib) = (x0.clone(), vec![0.0; len], vec![0u32; n]);
        let mut a = SvgdCore::new(&cfg, d, &xa, &mut wa, &mut ia).unwrap();
        let mut b = SvgdCore::new(&cfg, d, &xb, &mut wb, &mut ib).unwrap();
        if scale == Scale::Fixed {
            let s: Vec<f64> = (0..d).map(|l| 0.5 + l as f64).collect();
            a.set_scale(&mut wa, &s).unwrap();
            b.set_scale(&mut wb, &s).unwrap();
        }
        let nb = b.batches();
        let [ox, og, of] = b.slot_offsets();
        for it in 0..5 {
            let ia_ = a.step(&mut xa, &mut wa, &mut ia, &mut Quadratic).unwrap();
            let lay = b.lay;
            let pending = b.begin(&xb, &mut wb, &mut ib).unwrap();
            let (osc, lsc) = b.scale_range();
            let sc = wb[osc..osc + lsc].to_vec();
            // Gradient slots in three uneven pieces, last first.
            let cuts = [0, (it + 1).min(n), n / 2 + 1, n];
            for k in [2, 0, 1] {
                let (s, e) = (cuts[k], cuts[k + 1].max(cuts[k]));
                let (mut xs, mut g) = (vec![0.0; (e - s) * d], vec![0.0; (e - s) * d]);
                let shared = Shared {
                    particles: &xb,
                    perm: &ib,
                    hist: &[],
                    sc: &sc,
                };
                b.gradient_rows(&pending, shared, s, &mut xs, &mut g, &mut Quadratic)
                    .unwrap();
                wb[ox + s * d..ox + e * d].copy_from_slice(&xs);
                wb[og + s * d..og + e * d].copy_from_slice(&g);
            }
            // Batches one at a time, in reverse order.
            let (mut count, mut moved) = (0, true);
            let oh = b.lay.grads + b.lay.force;
            let hist = wb[oh..oh + b.lay.hist].to_vec();
            for bt in (0..nb).rev() {
                let (s, e) = b.batch_rows(bt).unwrap();
                let mut xs = wb[ox + s * d..ox + e * d].to_vec();
                let mut g = wb[og + s * d..og + e * d].to_vec();
                let mut phi = wb[of + s * d..of + e * d].to_vec();
                let k = b.batch_forces(&pending, bt, bt + 1, &xs, &g, &mut phi);
                let shared = Shared {
                    particles: &xb,
                    perm: &ib,
                    hist: &hist,
                    sc: &sc,
                };
                let ok = b.move_range(&pending, shared, s, &mut xs, &mut g, &phi);
                wb[ox + s * d..ox + e * d].copy_from_slice(&xs);
                wb[og + s * d..og + e * d].copy_from_slice(&g);
                wb[of + s * d..of + e * d].copy_from_slice(&phi);
                count += k;
                moved &= ok;
            }
            assert!(moved);
            let ib_ = b.finish(&pending, &mut xb, &mut wb, &ib).unwrap();
            assert_eq!(count, ia_.interactions);
            assert_eq!(ia_, ib_);
            assert_eq!(xa, xb);
            // φ by particle and the history; the slots' position and force rows differ
            // (the step moves in place and keeps the old positions and histories there).
            let oh = lay.grads + lay.force;
            assert_eq!(wa[..lay.grads], wb[..lay.grads]);
            assert_eq!(wa[oh..oh + lay.hist], wb[oh..oh + lay.hist]);
        }
    }
}

/// The serial step's moves in place give what the phases' two passes give (moves into the
/// slot rows, then the copies into particle order), and on a non-finite value anywhere
/// (first, a middle or the last slot) leave the particles and the history bit for bit as
/// they were: every step rule, d = 1 (its own loop) and d = 3, f64 and f32.
#[test]
fn moves_in_place_equal_the_two_passes_or_change_nothing() {
    fn check<T: Float>(rule: StepRule, n: usize, d: usize, bad: Option<usize>) {
        let mut rng = Rng::new(5, (n * d) as u64);
        let mut perm: Vec<u32> = (0..n as u32).collect();
        shuffle_prefix(&mut rng, &mut perm, n - 1);
        let mut draw = |k: usize| -> Vec<T> { (0..k).map(|_| T::from_f64(rng.normal())).collect() };
        let x0 = draw(n * d);
        // Negative entries: a history not yet started (the first iteration's case).
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
        let mut xs = vec![T::ZERO; n * d];
        scatter_rows_back(&mut xs, &x0, &perm, d);
        let up = Update::<T>::new(&rule, 3);
        // The two passes.
        let (mut x2, mut h2, mut xs2, mut g2) = (x0.clone(), h0.clone(), xs.clone(), draw(n * d));
        let ok2 = move_slots(&up, &h2, &perm, &mut xs2, &mut g2, &phi, d);
        if ok2 {
            scatter_moves(&mut x2, &mut h2, &xs2, &g2, &perm, d);
        }
        let mut f2 = draw(n * d);
        if ok2 {
            scatter_rows(&mut f2, &phi, &perm, d);
        }
        // In place.
        let (mut x1, mut h1, mut p1, mut f1) = (x0.clone(), h0.clone(), phi.clone(), f2.clone());
        let at = InPlaceRows {
            particles: SharedRows::new(&mut x1, d),
            hist: SharedRows::new(&mut h1, d),
            by_particle: SharedRows::new(&mut f1, d),
            perm: &perm,
            xs: &mut xs,
            phi: &mut p1,
            d,
        };
        // SAFETY: the three buffers are borrowed whole here.
        let ok1 = unsafe { move_in_place(&up, at) };
        assert_eq!(ok1, bad.is_none());
        assert_eq!(ok1, ok2);
        let bits = |v: &[T]| v.iter().map(|t| t.to_f64().to_bits()).collect::<Vec<_>>();
        assert_eq!(bits(&x1), bits(&x2), "{rule:?} n {n} d {d} bad {bad:?}");
        assert_eq!(bits(&h1), bits(&h2), "{rule:?} n {n} d {d} bad {bad:?}");
        if ok1 {
            assert_eq!(bits(&f1), bits(&f2), "φ by particle");
        } else {
            assert_eq!(bits(&x1), bits(&x0));
            assert_eq!(bits(&h1), bits(&h0));
        }
    }
    /// `dst` row `s` ← `src` row `perm[s]` (the gather into slot order).
    fn scatter_rows_back<T: Float>(dst: &mut [T], src: &[T], perm: &[u32], d: usize) {
        for (s, &i) in perm.iter().enumerate() {
            let i = i as usize;
            dst[s * d..(s + 1) * d].copy_from_slice(&src[i * d..(i + 1) * d]);
        }
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

/// The force statistics' own loop at d = 1 takes every row once, in order, as the row loop
/// does (the arithmetic is `add`'s either way; the sum's bits depend on the order): the same
/// sum, maximum and count for values from subnormal to huge, of either sign, f64 and f32.
#[test]
fn force_stats_at_d1_equal_the_row_loop() {
    fn check<T: Float>(phi: &[T]) {
        let mut a = ForceStats::default();
        a.add_rows(phi, 1);
        let mut b = ForceStats::default();
        for row in phi.chunks(1) {
            b.add(row);
        }
        assert_eq!(a.sum.to_bits(), b.sum.to_bits());
        assert_eq!(a.max.to_bits(), b.max.to_bits());
        assert_eq!(a.count, b.count);
    }
    let mut rng = Rng::new(9, 0);
    let v: Vec<f64> = (0..1000)
        .map(|k| rng.normal() * 10f64.powi((k % 40) * 16 - 300))
        .chain([0.0, -0.0, 5e-324, -1e308])
        .collect();
    check::<f64>(&v);
    let w: Vec<f32> = v.iter().map(|&x| x as f32).collect();
    check::<f32>(&w);
}

/// A cancelled iteration restores the generator: the next one draws what the first would
/// have drawn.
#[test]
fn cancel_restores_the_generator() {
    let (n, d) = (12, 1);
    let cfg = SvgdConfig::new(3, KernelChoice::Gaussian { h: 0.6 }, StepRule::adagrad(0.1));
    let x0: Vec<f64> = (0..n).map(|i| i as f64 * 0.1).collect();
    let len = workspace_len::<f64, _>(n, d, &cfg);
    let (mut xa, mut wa, mut ia) = (x0.clone(), vec![0.0; len], vec![0u32; n]);
    let (mut xb, mut wb, mut ib) = (x0.clone(), vec![0.0; len], vec![0u32; n]);
    let mut a = SvgdCore::new(&cfg, d, &xa, &mut wa, &mut ia).unwrap();
    let mut b = SvgdCore::new(&cfg, d, &xb, &mut wb, &mut ib).unwrap();
    let pending = b.begin(&xb, &mut wb, &mut ib).unwrap();
    b.cancel(&pending);
    a.step(&mut xa, &mut wa, &mut ia, &mut Quadratic).unwrap();
    b.step(&mut xb, &mut wb, &mut ib, &mut Quadratic).unwrap();
    assert_eq!(xa, xb);
}
