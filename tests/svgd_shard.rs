//! RBM-SVGD over shards (`SvgdShard`): every process holding only its block of the particles,
//! the records exchanged between them (`shard_iteration` copies them, as a message-passing run
//! sends them). Against the whole system's `Svgd::step` with the same configuration, bit for
//! bit: positions after every iteration and the info (but the mean force, whose sums are added
//! in rank order), for 1–9 processes (more than there are batches too; up to 8 find owners by
//! comparisons, more by division), d = 1 and 3, f64 and f32, AdaGrad, constant and decaying
//! steps, annealing, the IMQ kernel, N not a multiple of p; shards with fewer slots than their
//! moves need for staging (more processes than batches) compute them in `commit` instead.
//! Then the failures: a non-finite move on one process cancels the iteration on all (nothing
//! moves, as the whole step refuses it), a callback's abort on one process likewise, malformed
//! records are refused with the iteration left where it was, calls out of order, a commit
//! given partials that contradict its own `finish`, and the configurations a shard cannot run.
//! After each failure the next iterations equal the whole system's. `forces_parts` and
//! `finish_parts`, reading the records in pieces where the senders wrote them (split further,
//! with empty pieces, in either order), equal the copying run bit for bit; pieces that break a
//! record, or do not add up, are refused.
#![cfg(feature = "std")]

use sgsample::svgd::{
    shard_iteration, Anneal, Permutation, ShardRecords, SvgdShard, SvgdShardPartial,
};
use sgsample::{Error, Float, Gradient, KernelChoice, StepRule, Stop, Svgd, SvgdConfig, SvgdInfo};

/// ∇V(x) = x − 1 + 0.3·sin(3x) plus a seed-dependent shift, per coordinate; a coordinate above
/// `poison_above` gets 1e300 (finite, but its batch's forces are not); `abort_above` refuses
/// rows whose first coordinate is above it.
#[derive(Default)]
struct Model {
    poison_above: Option<f64>,
    abort_above: Option<f64>,
}

impl<T: Float> Gradient<T> for Model {
    fn gradient(&mut self, x: &[T], seed: u64, g: &mut [T]) -> Result<(), Stop> {
        if let Some(a) = self.abort_above {
            if x[0].to_f64() > a {
                return Err(Stop::Abort);
            }
        }
        for (gl, xl) in g.iter_mut().zip(x) {
            let v = xl.to_f64();
            *gl = T::from_f64(if self.poison_above.is_some_and(|a| v > a) {
                1e300
            } else {
                v - 1.0 + 0.3 * (3.0 * v).sin() + 1e-3 * (seed % 7) as f64
            });
        }
        Ok(())
    }
}

fn start(n: usize, d: usize) -> Vec<f64> {
    (0..n * d)
        .map(|k| -2.0 + 4.0 * ((k * 7919) % 1000) as f64 / 1000.0)
        .collect()
}

/// The shards of `x` (owned buffers), leaked for the test's lifetime so the shards can borrow.
fn shards<T: Float>(
    cfg: &SvgdConfig<KernelChoice>,
    x: &[T],
    d: usize,
    ranks: usize,
) -> Vec<SvgdShard<'static, T>> {
    let n = x.len() / d;
    (0..ranks)
        .map(|r| {
            let own = SvgdShard::<T>::particle_range(n, ranks, r);
            let p = Box::leak(x[own.start * d..own.end * d].to_vec().into_boxed_slice());
            let w = Box::leak(
                vec![T::ZERO; SvgdShard::<T>::workspace_len(n, d, ranks, r, cfg)]
                    .into_boxed_slice(),
            );
            let i = Box::leak(
                vec![0u32; SvgdShard::<T>::index_len(n, ranks, r, cfg)].into_boxed_slice(),
            );
            SvgdShard::new(cfg, n, d, ranks, r, p, w, i).unwrap()
        })
        .collect()
}

fn joined<T: Float>(shards: &[SvgdShard<'_, T>]) -> Vec<T> {
    shards.iter().flat_map(|s| s.particles().to_vec()).collect()
}

fn bits<T: Float>(x: &[T]) -> Vec<u64> {
    x.iter().map(|v| v.to_f64().to_bits()).collect()
}

/// Every field but the mean force bit for bit; the mean force to rounding (and exactly on one
/// process).
fn same_info(a: &SvgdInfo, b: &SvgdInfo, ranks: usize) {
    assert_eq!(a.iteration, b.iteration);
    assert_eq!(a.bandwidth.to_bits(), b.bandwidth.to_bits());
    assert_eq!(a.step_size.to_bits(), b.step_size.to_bits());
    assert_eq!(a.max_force.to_bits(), b.max_force.to_bits());
    assert_eq!(a.interactions, b.interactions);
    assert!(a.ksd_squared.is_nan() && b.ksd_squared.is_nan());
    if ranks == 1 {
        assert_eq!(a.mean_force.to_bits(), b.mean_force.to_bits());
    } else {
        assert!((a.mean_force - b.mean_force).abs() <= 1e-12 * b.mean_force.abs());
    }
}

fn config(p: usize, rule: StepRule, kernel: KernelChoice) -> SvgdConfig<KernelChoice> {
    let mut c = SvgdConfig::new(p, kernel, rule);
    c.permutation = Permutation::Feistel;
    c.seed = 0x5eed;
    c
}

/// `iterations` iterations on the shards and on the whole system: the same bits throughout.
fn compare<T: Float>(
    cfg: &SvgdConfig<KernelChoice>,
    n: usize,
    d: usize,
    ranks: usize,
    iterations: usize,
) {
    let x0: Vec<T> = start(n, d).iter().map(|&v| T::from_f64(v)).collect();
    let mut sh = shards(cfg, &x0, d, ranks);
    let mut all = x0.clone();
    let mut w = vec![T::ZERO; Svgd::<T>::workspace_len(n, d, cfg)];
    let mut i = vec![0u32; Svgd::<T>::index_len(n)];
    let mut svgd = Svgd::new(cfg, d, &mut all, &mut w, &mut i).unwrap();
    for it in 0..iterations {
        let a = shard_iteration(&mut sh, &mut Model::default()).unwrap();
        let b = svgd.step(&mut Model::default()).unwrap();
        same_info(&a, &b, ranks);
        assert_eq!(
            bits(&joined(&sh)),
            bits(svgd.particles()),
            "n {n} d {d} ranks {ranks} iteration {it}"
        );
    }
}

#[test]
fn equals_the_whole_system() {
    let imq = KernelChoice::InverseMultiquadric { c: 1.0, beta: 0.5 };
    let gauss = KernelChoice::Gaussian { h: 0.7 };
    for (n, p) in [(37, 13), (300, 8), (1001, 2), (203, 4)] {
        for ranks in [1, 2, 3, 7, 9] {
            compare::<f64>(&config(p, StepRule::adagrad(0.05), gauss), n, 1, ranks, 4);
        }
    }
    for ranks in [1, 2, 5] {
        compare::<f64>(
            &config(8, StepRule::Constant { eta: 0.02 }, gauss),
            203,
            3,
            ranks,
            4,
        );
        compare::<f32>(&config(8, StepRule::adagrad(0.05), gauss), 203, 3, ranks, 4);
        compare::<f32>(
            &config(4, StepRule::Decaying { eta: 0.05 }, imq),
            150,
            1,
            ranks,
            4,
        );
        let mut c = config(6, StepRule::adagrad(0.05), imq);
        c.anneal = Anneal::Hyperbolic {
            iterations: 3,
            power: 1.0,
        };
        compare::<f64>(&c, 100, 2, ranks, 5);
    }
}

#[test]
fn failures_change_nothing_and_the_run_goes_on() {
    let (n, d, ranks) = (203, 1, 7);
    let cfg = config(
        4,
        StepRule::adagrad(0.05),
        KernelChoice::Gaussian { h: 0.7 },
    );
    let x0 = start(n, d);
    let mut sh = shards(&cfg, &x0, d, ranks);
    let mut all = x0.clone();
    let mut w = vec![0.0; Svgd::<f64>::workspace_len(n, d, &cfg)];
    let mut i = vec![0u32; Svgd::<f64>::index_len(n)];
    let mut svgd = Svgd::new(&cfg, d, &mut all, &mut w, &mut i).unwrap();
    let mut good = Model::default();
    let agree = |sh: &[SvgdShard<'_, f64>], svgd: &Svgd<'_, f64>| {
        assert_eq!(bits(&joined(sh)), bits(svgd.particles()));
        for s in sh {
            assert_eq!(s.iterations(), svgd.iterations());
        }
    };
    shard_iteration(&mut sh, &mut good).unwrap();
    svgd.step(&mut good).unwrap();
    // A non-finite move (the batch of the particle furthest right: its members' processes
    // see it, the others' moves are finite): every process cancels, as the whole step refuses
    // it.
    let top = svgd.particles().iter().cloned().fold(f64::MIN, f64::max);
    let mut poisoned = Model {
        poison_above: Some(top - 1e-9),
        ..Model::default()
    };
    assert_eq!(
        shard_iteration(&mut sh, &mut poisoned),
        Err(Error::NonFinite)
    );
    assert_eq!(svgd.step(&mut poisoned), Err(Error::NonFinite));
    agree(&sh, &svgd);
    // A callback's abort on the process holding the largest position only.
    let mut aborting = Model {
        abort_above: Some(top - 1e-9),
        ..Model::default()
    };
    assert_eq!(
        shard_iteration(&mut sh, &mut aborting),
        Err(Error::CallbackAborted)
    );
    agree(&sh, &svgd);
    for _ in 0..3 {
        shard_iteration(&mut sh, &mut good).unwrap();
        svgd.step(&mut good).unwrap();
        agree(&sh, &svgd);
    }
}

/// Malformed records and calls out of order, on two processes, then cancels: the run goes on.
#[test]
fn malformed_records_and_calls_out_of_order() {
    let (n, d, ranks) = (64, 1, 2);
    let cfg = config(
        4,
        StepRule::adagrad(0.05),
        KernelChoice::Gaussian { h: 0.7 },
    );
    let x0 = start(n, d);
    let mut sh = shards(&cfg, &x0, d, ranks);
    let mut model = Model::default();
    let (c0, m0) = (sh[0].own_particles().len(), sh[0].own_slots().len());
    let (mut oi, mut or, mut oc) = (vec![0u32; m0], vec![0.0; m0 * d], vec![0usize; ranks]);
    assert!(c0 > 1 && m0 > 4);
    // Out of order before begin.
    assert_eq!(
        sh[0].forces(&[], &[], &mut oi, &mut or, &mut oc),
        Err(Error::IterationNotBegun)
    );
    assert_eq!(sh[0].finish(&[], &[]), Err(Error::IterationNotBegun));
    assert_eq!(sh[0].commit(&[]), Err(Error::IterationNotBegun));
    // Begin on both, then gather process 0's records by hand.
    let mut sent = Vec::new();
    for s in sh.iter_mut() {
        let c = s.own_particles().len();
        let (mut i, mut r, mut k) = (vec![0u32; 2 * c], vec![0.0; 2 * c * d], vec![0usize; ranks]);
        assert_eq!(
            s.begin(&mut model, &mut i[..c], &mut r, &mut k),
            Err(Error::LengthMismatch)
        );
        s.begin(&mut model, &mut i, &mut r, &mut k).unwrap();
        assert_eq!(k.iter().sum::<usize>(), c);
        assert_eq!(
            s.begin(&mut model, &mut i, &mut r, &mut k),
            Err(Error::IterationInProgress)
        );
        sent.push((i, r, k));
    }
    // The records for process `to` from every process's output.
    let gather = |out: &[(Vec<u32>, Vec<f64>, Vec<usize>)], to: usize, iw: usize, w: usize| {
        let (mut idx, mut rows) = (Vec::new(), Vec::new());
        for (i, r, k) in out {
            let at: usize = k[..to].iter().sum();
            idx.extend_from_slice(&i[at * iw..(at + k[to]) * iw]);
            rows.extend_from_slice(&r[at * w..(at + k[to]) * w]);
        }
        (idx, rows)
    };
    let (idx, rows) = gather(&sent, 0, 2, 2 * d);
    assert_eq!(idx.len(), 2 * m0);
    let s0 = sh[0].own_slots();
    // Records (slot, particle): a slot not process 0's, a slot twice, a particle past N.
    let mut bad = idx.clone();
    bad[6] = s0.end as u32;
    assert_eq!(
        sh[0].forces(&bad, &rows, &mut oi, &mut or, &mut oc),
        Err(Error::RangeOutOfBounds)
    );
    bad[6] = bad[8];
    assert_eq!(
        sh[0].forces(&bad, &rows, &mut oi, &mut or, &mut oc),
        Err(Error::RangeOverlap)
    );
    let mut bad = idx.clone();
    bad[7] = n as u32;
    assert_eq!(
        sh[0].forces(&bad, &rows, &mut oi, &mut or, &mut oc),
        Err(Error::RangeOutOfBounds)
    );
    assert_eq!(
        sh[0].forces(&idx[2..], &rows[2 * d..], &mut oi, &mut or, &mut oc),
        Err(Error::LengthMismatch)
    );
    assert_eq!(sh[0].finish(&[], &[]), Err(Error::IterationNotBegun));
    // Still after begin: the good records go through, on both.
    let mut back = Vec::new();
    for (q, s) in sh.iter_mut().enumerate() {
        let (idx, rows) = gather(&sent, q, 2, 2 * d);
        let m = s.own_slots().len();
        let (mut i, mut r, mut k) = (vec![0u32; m], vec![0.0; m * d], vec![0usize; ranks]);
        s.forces(&idx, &rows, &mut i, &mut r, &mut k).unwrap();
        assert_eq!(k.iter().sum::<usize>(), m);
        back.push((i, r, k));
    }
    let (fi, fr) = gather(&back, 0, 1, d);
    assert_eq!(fi.len(), c0);
    let mut wrong = fi.clone();
    wrong[0] = c0 as u32;
    assert_eq!(sh[0].finish(&wrong, &fr), Err(Error::RangeOutOfBounds));
    wrong[0] = wrong[1];
    assert_eq!(sh[0].finish(&wrong, &fr), Err(Error::RangeOverlap));
    assert_eq!(sh[0].finish(&fi, &fr[1..]), Err(Error::LengthMismatch));
    assert_eq!(sh[0].commit(&[]), Err(Error::IterationNotBegun));
    let part = sh[0].finish(&fi, &fr).unwrap();
    assert_eq!((part.moves, part.finite), (c0 as u64, 1));
    assert_eq!(sh[0].commit(&[part]), Err(Error::LengthMismatch));
    let odd = SvgdShardPartial { finite: 2, ..part };
    assert_eq!(sh[0].commit(&[part, odd]), Err(Error::InvalidArgument));
    for s in sh.iter_mut() {
        s.cancel();
    }
    assert_eq!(
        sh[0].commit(&[SvgdShardPartial::default(); 2]),
        Err(Error::IterationNotBegun)
    );
    // After the cancels the run equals the whole system's.
    let mut all = x0.clone();
    let mut w = vec![0.0; Svgd::<f64>::workspace_len(n, d, &cfg)];
    let mut i = vec![0u32; Svgd::<f64>::index_len(n)];
    let mut svgd = Svgd::new(&cfg, d, &mut all, &mut w, &mut i).unwrap();
    for _ in 0..2 {
        shard_iteration(&mut sh, &mut model).unwrap();
        svgd.step(&mut model).unwrap();
    }
    assert_eq!(bits(&joined(&sh)), bits(svgd.particles()));
}

#[test]
fn refused_configurations() {
    let gauss = KernelChoice::Gaussian { h: 0.7 };
    let n = 40;
    let mut x = vec![0.0f64; 20];
    let mut w = vec![0.0f64; 1000];
    let mut i = vec![0u32; 100];
    let mut shuffle = config(4, StepRule::adagrad(0.1), gauss);
    shuffle.permutation = Permutation::Shuffle;
    let median = config(4, StepRule::adagrad(0.1), KernelChoice::GaussianMedian);
    let fine = config(4, StepRule::adagrad(0.1), gauss);
    let mut new = |cfg: &SvgdConfig<KernelChoice>,
                   n: usize,
                   d: usize,
                   ranks: usize,
                   rank: usize,
                   len: usize| {
        SvgdShard::new(cfg, n, d, ranks, rank, &mut x[..len], &mut w, &mut i).err()
    };
    assert_eq!(new(&shuffle, n, 1, 2, 0, 20), Some(Error::InvalidOption));
    assert_eq!(new(&median, n, 1, 2, 0, 20), Some(Error::InvalidOption));
    assert_eq!(new(&fine, n, 1, 2, 2, 20), Some(Error::InvalidArgument));
    assert_eq!(new(&fine, n, 0, 2, 0, 20), Some(Error::ZeroDimension));
    assert_eq!(new(&fine, 0, 1, 2, 0, 20), Some(Error::ZeroParticles));
    assert_eq!(new(&fine, n, 1, 2, 0, 19), Some(Error::LengthMismatch));
    assert_eq!(new(&fine, n, 1, 2, 0, 20), None);
    let mut small = vec![0.0f64; 10];
    assert_eq!(
        SvgdShard::new(&fine, n, 1, 2, 0, &mut x, &mut small, &mut i).err(),
        Some(Error::WorkspaceTooSmall)
    );
    x[3] = f64::NAN;
    assert_eq!(
        SvgdShard::new(&fine, n, 1, 2, 0, &mut x, &mut w, &mut i).err(),
        Some(Error::InvalidPosition)
    );
}

/// A commit trusts no partial over its own `finish`: with every partial claiming finite moves
/// where this process's were not, it refuses (`NonFinite`) and nothing moves; the moves staged
/// in `finish` are never copied. One process, whose records go to itself.
#[test]
fn commit_keeps_its_own_decision() {
    let (n, d) = (40, 1);
    let cfg = config(
        4,
        StepRule::adagrad(0.05),
        KernelChoice::Gaussian { h: 0.7 },
    );
    let x0 = start(n, d);
    let mut sh = shards(&cfg, &x0, d, 1);
    let top = x0.iter().cloned().fold(f64::MIN, f64::max);
    let mut poisoned = Model {
        poison_above: Some(top - 1e-9),
        ..Model::default()
    };
    let s = &mut sh[0];
    let (mut i, mut r, mut k) = (vec![0u32; 2 * n], vec![0.0; 2 * n * d], vec![0usize; 1]);
    s.begin(&mut poisoned, &mut i, &mut r, &mut k).unwrap();
    let (mut fi, mut fr) = (vec![0u32; n], vec![0.0; n * d]);
    s.forces(&i, &r, &mut fi, &mut fr, &mut k).unwrap();
    let partial = s.finish(&fi, &fr).unwrap();
    assert_eq!(partial.finite, 0);
    let lying = SvgdShardPartial {
        finite: 1,
        ..partial
    };
    assert_eq!(s.commit(&[lying]), Err(Error::NonFinite));
    assert_eq!(bits(s.particles()), bits(&x0));
    assert_eq!(s.iterations(), 0);
}

/// One sender's output: indices, rows, records per destination.
type Out = (Vec<u32>, Vec<f64>, Vec<usize>);

/// Process `to`'s pieces of every sender's output (`iw` indices and `w` values per record),
/// each sender's further split at `cut` records (when it has more) and an empty piece between,
/// in rank order or reversed.
fn pieces(
    out: &[Out],
    to: usize,
    iw: usize,
    w: usize,
    cut: usize,
    rev: bool,
) -> Vec<ShardRecords<'_, f64>> {
    let mut ps = Vec::new();
    for (i, r, k) in out {
        let at: usize = k[..to].iter().sum();
        let (a, b) = (at, at + k[to]);
        let mid = (a + cut).min(b);
        for (x, y) in [(a, mid), (mid, mid), (mid, b)] {
            ps.push(piece(&i[x * iw..y * iw], &r[x * w..y * w]));
        }
    }
    if rev {
        ps.reverse();
    }
    ps
}

fn piece<'a>(idx: &'a [u32], rows: &'a [f64]) -> ShardRecords<'a, f64> {
    ShardRecords { idx, rows }
}

/// The pieces' records in one buffer.
fn joined_records(ps: &[ShardRecords<'_, f64>]) -> (Vec<u32>, Vec<f64>) {
    (
        ps.iter().flat_map(|p| p.idx.to_vec()).collect(),
        ps.iter().flat_map(|p| p.rows.to_vec()).collect(),
    )
}

/// Every process's `begin`: its output.
fn begin_all(sh: &mut [SvgdShard<'_, f64>], d: usize, model: &mut Model) -> Vec<Out> {
    let ranks = sh.len();
    let mut sent = Vec::new();
    for s in sh.iter_mut() {
        let c = s.own_particles().len();
        let (mut i, mut r, mut k) = (vec![0u32; 2 * c], vec![0.0; 2 * c * d], vec![0; ranks]);
        s.begin(model, &mut i, &mut r, &mut k).unwrap();
        sent.push((i, r, k));
    }
    sent
}

/// Every process's `forces_parts` of its pieces of `sent` (`cut`, `rev` as for [`pieces`]):
/// its output.
fn forces_all(
    sh: &mut [SvgdShard<'_, f64>],
    d: usize,
    sent: &[Out],
    cut: usize,
    rev: bool,
) -> Vec<Out> {
    let ranks = sh.len();
    let mut back = Vec::new();
    for (q, s) in sh.iter_mut().enumerate() {
        let m = s.own_slots().len();
        let (mut i, mut r, mut k) = (vec![0u32; m], vec![0.0; m * d], vec![0; ranks]);
        let ps = pieces(sent, q, 2, 2 * d, cut, rev);
        s.forces_parts(&ps, &mut i, &mut r, &mut k).unwrap();
        back.push((i, r, k));
    }
    back
}

#[test]
fn records_in_pieces_equal_one_buffer() {
    let gauss = KernelChoice::Gaussian { h: 0.7 };
    for (n, d, ranks, p) in [(203, 1, 3, 4), (150, 2, 2, 8), (37, 1, 5, 13)] {
        let cfg = config(p, StepRule::adagrad(0.05), gauss);
        let x0 = start(n, d);
        let (mut a, mut b) = (shards(&cfg, &x0, d, ranks), shards(&cfg, &x0, d, ranks));
        let mut model = Model::default();
        for it in 0..4 {
            let want = shard_iteration(&mut b, &mut model).unwrap();
            let sent = begin_all(&mut a, d, &mut model);
            let back = forces_all(&mut a, d, &sent, it + 1, it % 2 == 1);
            let mut parts = Vec::new();
            for (q, s) in a.iter_mut().enumerate() {
                let ps = pieces(&back, q, 1, d, 2 * it + 1, it % 2 == 0);
                parts.push(s.finish_parts(&ps).unwrap());
            }
            for s in a.iter_mut() {
                let got = s.commit(&parts).unwrap();
                same_info(&got, &want, 1);
            }
            assert_eq!(
                bits(&joined(&a)),
                bits(&joined(&b)),
                "n {n} ranks {ranks} iteration {it}"
            );
        }
    }
}

#[test]
fn pieces_that_break_records_are_refused() {
    let (n, d, ranks) = (64, 2, 2);
    let gauss = KernelChoice::Gaussian { h: 0.7 };
    let cfg = config(4, StepRule::adagrad(0.05), gauss);
    let mut sh = shards(&cfg, &start(n, d), d, ranks);
    let sent = begin_all(&mut sh, d, &mut Model::default());
    let m0 = sh[0].own_slots().len();
    let (mut oi, mut or, mut oc) = (vec![0u32; m0], vec![0.0; m0 * d], vec![0; ranks]);
    let whole = pieces(&sent, 0, 2, 2 * d, 0, false);
    let (idx, rows) = joined_records(&whole);
    let (e, f) = (idx.len(), rows.len());
    let refused = [
        // A record split between two pieces (the indices odd), with the rows d per index.
        (
            vec![
                piece(&idx[..3], &rows[..3 * d]),
                piece(&idx[3..], &rows[3 * d..]),
            ],
            Error::LengthMismatch,
        ),
        // Rows not d per index in one piece, the total right.
        (
            vec![
                piece(&idx[..4], &rows[..4 * d - 1]),
                piece(&idx[4..], &rows[4 * d - 1..]),
            ],
            Error::LengthMismatch,
        ),
        // A record missing; none; a record twice in two pieces.
        (
            vec![piece(&idx[2..], &rows[2 * d..])],
            Error::LengthMismatch,
        ),
        (vec![], Error::LengthMismatch),
        (
            vec![
                piece(&idx[..2], &rows[..2 * d]),
                piece(&idx[..e - 2], &rows[..f - 2 * d]),
            ],
            Error::RangeOverlap,
        ),
    ];
    for (ps, want) in refused {
        assert_eq!(
            sh[0].forces_parts(&ps, &mut oi, &mut or, &mut oc),
            Err(want)
        );
    }
    // Still after begin: the pieces go through, and finish checks its pieces alike.
    let back = forces_all(&mut sh, d, &sent, 0, false);
    let fin = pieces(&back, 1, 1, d, 0, false);
    let (fi, fr) = joined_records(&fin);
    let c1 = sh[1].own_particles().len();
    assert_eq!(fi.len(), c1);
    let refused = [
        (
            vec![piece(&fi[..1], &fr[..d + 1]), piece(&fi[1..], &fr[d + 1..])],
            Error::LengthMismatch,
        ),
        (vec![piece(&fi[1..], &fr[d..])], Error::LengthMismatch),
        (
            vec![
                piece(&fi[..1], &fr[..d]),
                piece(&fi[..c1 - 1], &fr[..(c1 - 1) * d]),
            ],
            Error::RangeOverlap,
        ),
    ];
    for (ps, want) in refused {
        assert_eq!(sh[1].finish_parts(&ps), Err(want));
    }
    let part = sh[1].finish_parts(&fin).unwrap();
    assert_eq!((part.moves, part.finite), (c1 as u64, 1));
}

#[test]
fn a_particle_past_the_block_is_refused() {
    // c = 35 on process 0: its marks are two 32-bit words, so indices 35..63 fall inside them.
    let (n, d, ranks) = (70, 1, 2);
    let cfg = config(
        4,
        StepRule::adagrad(0.05),
        KernelChoice::Gaussian { h: 0.7 },
    );
    let mut sh = shards(&cfg, &start(n, d), d, ranks);
    let sent = begin_all(&mut sh, d, &mut Model::default());
    let back = forces_all(&mut sh, d, &sent, 0, false);
    let (fi, fr) = joined_records(&pieces(&back, 0, 1, d, 0, false));
    let c0 = sh[0].own_particles().len();
    assert_eq!((c0, fi.len()), (35, 35));
    for past in [c0, 63, 64, n] {
        let mut wrong = fi.clone();
        wrong[3] = past as u32;
        assert_eq!(
            sh[0].finish(&wrong, &fr),
            Err(Error::RangeOutOfBounds),
            "index {past}"
        );
    }
    let part = sh[0].finish(&fi, &fr).unwrap();
    assert_eq!((part.moves, part.finite), (c0 as u64, 1));
}
