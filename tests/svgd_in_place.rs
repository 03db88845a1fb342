//! RBM-SVGD in phases with the Feistel permutation through the C API, where each range
//! evaluates its own slots and moves its own particles in place (docs/design.md, "Phases"):
//! against `sgs_svgd_step` on a twin, bit for bit, for any split of the ranges, in d = 1 and 3,
//! with AdaGrad and a constant step; the moves shared between two "ranks" (two states, each
//! computing half the slots and putting in the other half's moves or forces); and the rollbacks:
//! a range whose moves are not finite makes `finish` fail with every particle and history as
//! before `begin`, and `cancel` after some ranges moved puts them back too (also after a gradient
//! range refused a particle made non-finite, which `begin` no longer checks). After each failure
//! the next iteration equals the twin's. (Threads: ffi-tests/phases_threads.c, under
//! ThreadSanitizer.)
#![cfg(feature = "ffi")]

use core::ffi::c_void;
use sgsample::ffi::*;

/// ∇V(x) = x − 1 + 0.3·sin(3x) plus a seed-dependent shift; a coordinate above 50 gets a
/// gradient of 1e300 (finite, but its AdaGrad history overflows): the non-finite move.
unsafe extern "C" fn grad(
    _ud: *mut c_void,
    x: *const f64,
    d: usize,
    seed: u64,
    g: *mut f64,
) -> i32 {
    // SAFETY: the C contract of the callback: `x` and `g` hold `d` values.
    let (x, g) = unsafe {
        (
            core::slice::from_raw_parts(x, d),
            core::slice::from_raw_parts_mut(g, d),
        )
    };
    for (gl, &xl) in g.iter_mut().zip(x) {
        *gl = if xl > 50.0 {
            1e300
        } else {
            xl - 1.0 + 0.3 * (3.0 * xl).sin() + 1e-3 * (seed % 7) as f64
        };
    }
    SGS_CB_OK
}

const N: usize = 203;
const P: usize = 4;

/// A system and its buffers (boxed, so the state's pointers stay valid when it moves).
struct Sys {
    st: Box<sgs_svgd>,
    x: Vec<f64>,
    ws: Vec<f64>,
    _idx: Vec<u32>,
}

fn ok(s: sgs_status) {
    assert_eq!(s, sgs_status::SGS_OK);
}

fn config(adagrad: bool) -> sgs_svgd_config {
    let mut c = sgs_svgd_config_default(P as u64, 0.05);
    c.bandwidth = 0.7;
    c.permutation = SGS_PERMUTATION_FEISTEL;
    if !adagrad {
        c.step_rule = SGS_STEP_RULE_CONSTANT;
    }
    c
}

fn system(d: usize, adagrad: bool) -> Sys {
    let c = config(adagrad);
    let x: Vec<f64> = (0..N * d).map(|k| 2.0 * (0.37 * k as f64).sin()).collect();
    // SAFETY: plain arguments; the buffers outlive the state (same struct, boxed state).
    unsafe {
        let mut s = Sys {
            st: Box::new(core::mem::zeroed()),
            ws: vec![0.0; sgs_svgd_workspace_len(N, d, &c)],
            _idx: vec![0; N],
            x,
        };
        ok(sgs_svgd_init(
            &mut *s.st,
            &c,
            s.x.as_mut_ptr(),
            N,
            d,
            s.ws.as_mut_ptr(),
            s.ws.len(),
            s._idx.as_mut_ptr(),
            N,
            Some(grad),
            None,
            core::ptr::null_mut(),
        ));
        s
    }
}

/// Slots of batches `a..b`.
fn slots(s: &Sys, a: usize, b: usize) -> (usize, usize) {
    let (mut f, mut e, mut g, mut h) = (0, 0, 0, 0);
    // SAFETY: valid state, outputs on the stack.
    unsafe {
        ok(sgs_svgd_batch_rows(&*s.st, a, &mut f, &mut e));
        ok(sgs_svgd_batch_rows(&*s.st, b - 1, &mut g, &mut h));
    }
    (f, h)
}

/// The batches cut into pieces of `per` batches, each run as a gradient range then a batch
/// range, the pieces in `order`.
fn run_pieces(s: &Sys, per: usize, reverse: bool) {
    let nb = N / P;
    let mut pieces: Vec<(usize, usize)> = (0..nb)
        .step_by(per)
        .map(|a| (a, (a + per).min(nb)))
        .collect();
    if reverse {
        pieces.reverse();
    }
    for (a, b) in pieces {
        let (f, e) = slots(s, a, b);
        // SAFETY: valid state.
        unsafe {
            ok(sgs_svgd_gradients_range(&*s.st, f, e));
            ok(sgs_svgd_batches_range(&*s.st, a, b));
        }
    }
}

fn info_bits(i: &sgs_svgd_info) -> [u64; 4] {
    [
        i.iteration,
        i.mean_force.to_bits(),
        i.max_force.to_bits(),
        i.interactions,
    ]
}

/// Iterations in phases, split several ways, equal a twin's steps bit for bit.
#[test]
fn phases_equal_the_step_for_any_split() {
    for (d, adagrad) in [(1, true), (3, true), (1, false), (3, false)] {
        let (mut s, mut twin) = (system(d, adagrad), system(d, adagrad));
        for (it, (per, reverse)) in [(1, false), (7, true), (N / P, false), (3, true)]
            .into_iter()
            .enumerate()
        {
            // SAFETY: valid states.
            unsafe {
                let (mut a, mut b) = (core::mem::zeroed(), core::mem::zeroed());
                ok(sgs_svgd_begin(&mut *s.st));
                run_pieces(&s, per, reverse);
                ok(sgs_svgd_finish(&mut *s.st, &mut a));
                ok(sgs_svgd_step(&mut *twin.st, &mut b));
                assert_eq!(
                    info_bits(&a),
                    info_bits(&b),
                    "d {d} adagrad {adagrad} iteration {it}"
                );
            }
            assert_eq!(s.x, twin.x, "d {d} adagrad {adagrad} iteration {it}");
            // The history and φ by particle too (the workspace but for the slot rows' scratch).
            assert_eq!(
                s.ws[..2 * N * d],
                twin.ws[..2 * N * d],
                "d {d} iteration {it}"
            );
        }
    }
}

/// Two states as two ranks: each computes half the slots, takes the other half's moved rows
/// (or forces) from the other; both equal the twin's step.
#[test]
fn moves_and_forces_shared_between_ranks() {
    for (d, forces) in [(1, false), (3, false), (1, true), (3, true)] {
        let (mut r0, mut r1, mut twin) = (system(d, true), system(d, true), system(d, true));
        let nb = N / P;
        let half = nb / 2;
        for it in 0..3 {
            // SAFETY: valid states; buffers sized by `sgs_svgd_move_width`.
            unsafe {
                ok(sgs_svgd_begin(&mut *r0.st));
                ok(sgs_svgd_begin(&mut *r1.st));
                let mine = [(0, half), (half, nb)];
                for (r, &(a, b)) in [&r0, &r1].into_iter().zip(&mine) {
                    let (f, e) = slots(r, a, b);
                    ok(sgs_svgd_gradients_range(&*r.st, f, e));
                    ok(sgs_svgd_batches_range(&*r.st, a, b));
                }
                let mut w = 0;
                ok(sgs_svgd_move_width(&*r0.st, &mut w));
                for (from, to, &(a, b)) in [(&r0, &r1, &mine[0]), (&r1, &r0, &mine[1])] {
                    let (f, e) = slots(from, a, b);
                    if forces {
                        let mut buf = vec![0.0; (e - f) * d];
                        ok(sgs_svgd_forces_get(
                            &*from.st,
                            f,
                            e,
                            buf.as_mut_ptr(),
                            buf.len(),
                        ));
                        ok(sgs_svgd_forces_put(&*to.st, f, e, buf.as_ptr(), buf.len()));
                    } else {
                        let mut buf = vec![0.0; (e - f) * w];
                        ok(sgs_svgd_moves_get(
                            &*from.st,
                            f,
                            e,
                            buf.as_mut_ptr(),
                            buf.len(),
                        ));
                        ok(sgs_svgd_moves_put(&*to.st, f, e, buf.as_ptr(), buf.len()));
                    }
                }
                let (mut a0, mut a1, mut b) = (
                    core::mem::zeroed(),
                    core::mem::zeroed(),
                    core::mem::zeroed(),
                );
                ok(sgs_svgd_finish(&mut *r0.st, &mut a0));
                ok(sgs_svgd_finish(&mut *r1.st, &mut a1));
                ok(sgs_svgd_step(&mut *twin.st, &mut b));
                assert_eq!(
                    info_bits(&a0),
                    info_bits(&b),
                    "d {d} forces {forces} iteration {it}"
                );
                assert_eq!(
                    info_bits(&a1),
                    info_bits(&b),
                    "d {d} forces {forces} iteration {it}"
                );
            }
            assert_eq!(r0.x, twin.x, "d {d} forces {forces} iteration {it}");
            assert_eq!(r1.x, twin.x, "d {d} forces {forces} iteration {it}");
            assert_eq!(r0.ws[..3 * N * d], twin.ws[..3 * N * d]);
            assert_eq!(r1.ws[..3 * N * d], twin.ws[..3 * N * d]);
        }
    }
}

/// A particle far out gives a non-finite move in one range while the others move theirs: the
/// finish fails, every particle and history is as before, and (the particle brought back) the
/// next iteration equals the twin's. Likewise a cancel after some ranges moved.
#[test]
fn failures_and_cancels_put_every_particle_back() {
    for d in [1, 3] {
        let (mut s, mut twin) = (system(d, true), system(d, true));
        // SAFETY: valid states.
        unsafe {
            ok(sgs_svgd_step(&mut *s.st, core::ptr::null_mut()));
            ok(sgs_svgd_step(&mut *twin.st, core::ptr::null_mut()));
        }
        // The workspace holds φ by particle, the forces by slot, then the history.
        let (x0, h0) = (s.x.clone(), s.ws[2 * N * d..3 * N * d].to_vec());
        let far = 17 * d;
        s.x[far] = 100.0;
        // SAFETY: valid state.
        unsafe {
            ok(sgs_svgd_begin(&mut *s.st));
            run_pieces(&s, 5, false);
            assert_eq!(
                sgs_svgd_finish(&mut *s.st, core::ptr::null_mut()),
                sgs_status::SGS_ERR_NON_FINITE
            );
        }
        s.x[far] = x0[far];
        assert_eq!(s.x, x0, "d {d}: the particles after the failed finish");
        assert_eq!(s.ws[2 * N * d..3 * N * d], h0[..], "d {d}: the history");
        // Some ranges run, then cancelled.
        // SAFETY: valid state.
        unsafe {
            ok(sgs_svgd_begin(&mut *s.st));
            let (f, e) = slots(&s, 0, 10);
            ok(sgs_svgd_gradients_range(&*s.st, f, e));
            ok(sgs_svgd_batches_range(&*s.st, 0, 10));
            let (f, e) = slots(&s, 20, 22);
            ok(sgs_svgd_gradients_range(&*s.st, f, e));
            ok(sgs_svgd_cancel(&mut *s.st));
        }
        assert_eq!(s.x, x0, "d {d}: the particles after the cancel");
        assert_eq!(
            s.ws[2 * N * d..3 * N * d],
            h0[..],
            "d {d}: the history after the cancel"
        );
        // A particle made NaN: begin does not read the particles here; the gradient range that
        // holds it refuses, the others run (and a batch range moves), the cancel puts all back.
        s.x[far] = f64::NAN;
        // SAFETY: valid state.
        unsafe {
            ok(sgs_svgd_begin(&mut *s.st));
            let mut refused = 0;
            for b in 0..N / P {
                let (f, e) = slots(&s, b, b + 1);
                match sgs_svgd_gradients_range(&*s.st, f, e) {
                    sgs_status::SGS_OK => ok(sgs_svgd_batches_range(&*s.st, b, b + 1)),
                    st => {
                        assert_eq!(st, sgs_status::SGS_ERR_INVALID_POSITION);
                        refused += 1;
                    }
                }
            }
            assert_eq!(refused, 1, "d {d}: the one range with the NaN particle");
            ok(sgs_svgd_cancel(&mut *s.st));
        }
        s.x[far] = x0[far];
        assert_eq!(s.x, x0, "d {d}: the particles after the NaN and the cancel");
        assert_eq!(s.ws[2 * N * d..3 * N * d], h0[..], "d {d}");
        // SAFETY: valid states.
        unsafe {
            let (mut a, mut b) = (core::mem::zeroed(), core::mem::zeroed());
            ok(sgs_svgd_begin(&mut *s.st));
            run_pieces(&s, 4, true);
            ok(sgs_svgd_finish(&mut *s.st, &mut a));
            ok(sgs_svgd_step(&mut *twin.st, &mut b));
            assert_eq!(info_bits(&a), info_bits(&b), "d {d}");
        }
        assert_eq!(s.x, twin.x, "d {d}: after the failures, the next iteration");
    }
}
