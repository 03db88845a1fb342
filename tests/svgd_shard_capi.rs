//! The sharded RBM-SVGD through the C API (`sgs_svgd_shard_…`): processes simulated in one, each
//! with its state and buffers, the records copied between them as `MPI_Alltoallv` would.
//! Against `sgs_svgd_step` on the whole system, bit for bit (positions; the info but its mean
//! force), `double` and `float`; the ranges query; and bad input: every refused call leaves the
//! state's bytes and the particles as they were (null and misaligned pointers, arrays
//! overlapping the state's buffers or each other, lengths, calls out of order, a state moved
//! byte-wise, a state of the other float type, a callback calling back into its own shard).
//! `…_forces_parts` and `…_finish_parts` read the records in pieces where the senders wrote
//! them (no copy): the same bits; bad pieces (NULL or misaligned, over an output or the state's
//! workspace, the descriptors themselves inside an output, records split or short) are refused
//! with the state as it was.
#![cfg(feature = "ffi")]

use core::ffi::c_void;
use sgsample::ffi::*;

const N: usize = 203;
const D: usize = 2;
const P: usize = 4;

/// ∇V(x) = x − 1 + 0.3·sin(3x) plus a seed-dependent shift; with `user_data` set to a shard
/// state, it calls back into it first (which must be refused as busy) and records the status.
unsafe extern "C" fn grad(ud: *mut c_void, x: *const f64, d: usize, seed: u64, g: *mut f64) -> i32 {
    // SAFETY: the C contract of the callback: `x` and `g` hold `d` values.
    let (x, g) = unsafe {
        (
            core::slice::from_raw_parts(x, d),
            core::slice::from_raw_parts_mut(g, d),
        )
    };
    if !ud.is_null() {
        // SAFETY: the test passes a `Reentry` as user data.
        let r = unsafe { &mut *ud.cast::<Reentry>() };
        // SAFETY: a valid (busy) state.
        r.status = Some(unsafe { sgs_svgd_shard_cancel(r.state) });
    }
    for (gl, &xl) in g.iter_mut().zip(x) {
        *gl = xl - 1.0 + 0.3 * (3.0 * xl).sin() + 1e-3 * (seed % 7) as f64;
    }
    SGS_CB_OK
}

unsafe extern "C" fn grad32(
    _: *mut c_void,
    x: *const f32,
    d: usize,
    seed: u64,
    g: *mut f32,
) -> i32 {
    // SAFETY: the C contract of the callback.
    let (x, g) = unsafe {
        (
            core::slice::from_raw_parts(x, d),
            core::slice::from_raw_parts_mut(g, d),
        )
    };
    for (gl, &xl) in g.iter_mut().zip(x) {
        let v = xl as f64;
        *gl = (v - 1.0 + 0.3 * (3.0 * v).sin() + 1e-3 * (seed % 7) as f64) as f32;
    }
    SGS_CB_OK
}

struct Reentry {
    state: *mut sgs_svgd_shard,
    status: Option<sgs_status>,
}

fn ok(s: sgs_status) {
    assert_eq!(s, sgs_status::SGS_OK);
}

fn config() -> sgs_svgd_config {
    let mut c = sgs_svgd_config_default(P as u64, 0.05);
    c.bandwidth = 0.7;
    c.permutation = SGS_PERMUTATION_FEISTEL;
    c
}

fn start() -> Vec<f64> {
    (0..N * D).map(|k| 2.0 * (0.37 * k as f64).sin()).collect()
}

/// One process: its state (boxed, so its address is stable) and buffers.
struct Proc<T, S> {
    st: Box<S>,
    x: Vec<T>,
    ws: Vec<T>,
    idx: Vec<u32>,
    c: usize,
    m: usize,
}

/// The shape-dependent calls, for `double` and `float`.
trait Api: Copy + Default + PartialEq + core::fmt::Debug {
    type S;
    fn from(v: f64) -> Self;
    fn bits(self) -> u64;
    unsafe fn ws_len(n: usize, d: usize, r: usize, q: usize, c: &sgs_svgd_config) -> usize;
    unsafe fn ix_len(n: usize, r: usize, q: usize, c: &sgs_svgd_config) -> usize;
    #[allow(clippy::too_many_arguments)]
    unsafe fn init(
        p: &mut Proc<Self, Self::S>,
        c: &sgs_svgd_config,
        r: usize,
        q: usize,
    ) -> sgs_status;
    unsafe fn begin(s: *mut Self::S, i: &mut [u32], r: &mut [Self], k: &mut [usize]) -> sgs_status;
    unsafe fn forces(
        s: *mut Self::S,
        ii: &[u32],
        ir: &[Self],
        oi: &mut [u32],
        or: &mut [Self],
        k: &mut [usize],
    ) -> sgs_status;
    unsafe fn finish(
        s: *mut Self::S,
        ii: &[u32],
        ir: &[Self],
        p: &mut sgs_svgd_shard_partial,
    ) -> sgs_status;
    unsafe fn commit(
        s: *mut Self::S,
        ps: &[sgs_svgd_shard_partial],
        info: &mut sgs_svgd_info,
    ) -> sgs_status;
    unsafe fn forces_parts(
        s: *mut Self::S,
        ps: &[(&[u32], &[Self])],
        oi: &mut [u32],
        or: &mut [Self],
        k: &mut [usize],
    ) -> sgs_status;
    unsafe fn finish_parts(
        s: *mut Self::S,
        ps: &[(&[u32], &[Self])],
        p: &mut sgs_svgd_shard_partial,
    ) -> sgs_status;
}

macro_rules! api {
    ($T:ty, $S:ty, $g:expr, $ws:ident, $ix:ident, $init:ident, $begin:ident, $forces:ident, $finish:ident, $commit:ident,
     $R:ident, $fp:ident, $hp:ident) => {
        impl Api for $T {
            type S = $S;
            fn from(v: f64) -> Self {
                v as $T
            }
            fn bits(self) -> u64 {
                (self as f64).to_bits()
            }
            unsafe fn ws_len(n: usize, d: usize, r: usize, q: usize, c: &sgs_svgd_config) -> usize {
                // SAFETY: the C contract: valid states and arrays of the stated lengths.
                unsafe { $ws(n, d, r, q, c) }
            }
            unsafe fn ix_len(n: usize, r: usize, q: usize, c: &sgs_svgd_config) -> usize {
                // SAFETY: the C contract: valid states and arrays of the stated lengths.
                unsafe { $ix(n, r, q, c) }
            }
            unsafe fn init(
                p: &mut Proc<Self, $S>,
                c: &sgs_svgd_config,
                r: usize,
                q: usize,
            ) -> sgs_status {
                // SAFETY: the C contract: valid states and arrays of the stated lengths.
                unsafe {
                    $init(
                        &mut *p.st,
                        c,
                        N,
                        D,
                        r,
                        q,
                        p.x.as_mut_ptr(),
                        p.x.len(),
                        p.ws.as_mut_ptr(),
                        p.ws.len(),
                        p.idx.as_mut_ptr(),
                        p.idx.len(),
                        Some($g),
                        None,
                        core::ptr::null_mut(),
                    )
                }
            }
            unsafe fn begin(
                s: *mut $S,
                i: &mut [u32],
                r: &mut [Self],
                k: &mut [usize],
            ) -> sgs_status {
                // SAFETY: the C contract: valid states and arrays of the stated lengths.
                unsafe {
                    $begin(
                        s,
                        i.as_mut_ptr(),
                        i.len(),
                        r.as_mut_ptr(),
                        r.len(),
                        k.as_mut_ptr(),
                        k.len(),
                    )
                }
            }
            unsafe fn forces(
                s: *mut $S,
                ii: &[u32],
                ir: &[Self],
                oi: &mut [u32],
                or: &mut [Self],
                k: &mut [usize],
            ) -> sgs_status {
                // SAFETY: the C contract: valid states and arrays of the stated lengths.
                unsafe {
                    $forces(
                        s,
                        ii.as_ptr(),
                        ii.len(),
                        ir.as_ptr(),
                        ir.len(),
                        oi.as_mut_ptr(),
                        oi.len(),
                        or.as_mut_ptr(),
                        or.len(),
                        k.as_mut_ptr(),
                        k.len(),
                    )
                }
            }
            unsafe fn finish(
                s: *mut $S,
                ii: &[u32],
                ir: &[Self],
                p: &mut sgs_svgd_shard_partial,
            ) -> sgs_status {
                // SAFETY: the C contract: valid states and arrays of the stated lengths.
                unsafe { $finish(s, ii.as_ptr(), ii.len(), ir.as_ptr(), ir.len(), p) }
            }
            unsafe fn commit(
                s: *mut $S,
                ps: &[sgs_svgd_shard_partial],
                info: &mut sgs_svgd_info,
            ) -> sgs_status {
                // SAFETY: the C contract: valid states and arrays of the stated lengths.
                unsafe { $commit(s, ps.as_ptr(), ps.len(), info) }
            }
            unsafe fn forces_parts(
                s: *mut $S,
                ps: &[(&[u32], &[Self])],
                oi: &mut [u32],
                or: &mut [Self],
                k: &mut [usize],
            ) -> sgs_status {
                let rs: Vec<$R> = ps
                    .iter()
                    .map(|(i, r)| $R {
                        idx: i.as_ptr(),
                        idx_len: i.len(),
                        rows: r.as_ptr(),
                        rows_len: r.len(),
                    })
                    .collect();
                // SAFETY: the C contract: valid states and arrays of the stated lengths.
                unsafe {
                    $fp(
                        s,
                        rs.as_ptr(),
                        rs.len(),
                        oi.as_mut_ptr(),
                        oi.len(),
                        or.as_mut_ptr(),
                        or.len(),
                        k.as_mut_ptr(),
                        k.len(),
                    )
                }
            }
            unsafe fn finish_parts(
                s: *mut $S,
                ps: &[(&[u32], &[Self])],
                p: &mut sgs_svgd_shard_partial,
            ) -> sgs_status {
                let rs: Vec<$R> = ps
                    .iter()
                    .map(|(i, r)| $R {
                        idx: i.as_ptr(),
                        idx_len: i.len(),
                        rows: r.as_ptr(),
                        rows_len: r.len(),
                    })
                    .collect();
                // SAFETY: the C contract: valid states and arrays of the stated lengths.
                unsafe { $hp(s, rs.as_ptr(), rs.len(), p) }
            }
        }
    };
}

api!(
    f64,
    sgs_svgd_shard,
    grad,
    sgs_svgd_shard_workspace_len,
    sgs_svgd_shard_index_len,
    sgs_svgd_shard_init,
    sgs_svgd_shard_begin,
    sgs_svgd_shard_forces,
    sgs_svgd_shard_finish,
    sgs_svgd_shard_commit,
    sgs_svgd_shard_records,
    sgs_svgd_shard_forces_parts,
    sgs_svgd_shard_finish_parts
);
api!(
    f32,
    sgs_svgd_shard_f32,
    grad32,
    sgs_svgd_shard_workspace_len_f32,
    sgs_svgd_shard_index_len_f32,
    sgs_svgd_shard_init_f32,
    sgs_svgd_shard_begin_f32,
    sgs_svgd_shard_forces_f32,
    sgs_svgd_shard_finish_f32,
    sgs_svgd_shard_commit_f32,
    sgs_svgd_shard_records_f32,
    sgs_svgd_shard_forces_parts_f32,
    sgs_svgd_shard_finish_parts_f32
);

fn procs<T: Api>(ranks: usize) -> Vec<Proc<T, T::S>> {
    let c = config();
    let x0 = start();
    (0..ranks)
        .map(|q| {
            let (mut pf, mut pc, mut sf, mut sc) = (0, 0, 0, 0);
            // SAFETY: outputs on the stack.
            ok(unsafe {
                sgs_svgd_shard_ranges(N, P, ranks, q, &mut pf, &mut pc, &mut sf, &mut sc)
            });
            // SAFETY: plain arguments; the buffers live in the same struct as the boxed state.
            unsafe {
                let mut p = Proc {
                    st: Box::new(core::mem::zeroed()),
                    x: x0[pf * D..(pf + pc) * D]
                        .iter()
                        .map(|&v| T::from(v))
                        .collect(),
                    ws: vec![T::default(); T::ws_len(N, D, ranks, q, &c)],
                    idx: vec![0; T::ix_len(N, ranks, q, &c)],
                    c: pc,
                    m: sc,
                };
                ok(T::init(&mut p, &c, ranks, q));
                p
            }
        })
        .collect()
}

type Out<T> = (Vec<u32>, Vec<T>, Vec<usize>);

/// The records for process `to` out of every process's output.
fn deliver<T: Api>(out: &[Out<T>], to: usize, iw: usize, w: usize) -> (Vec<u32>, Vec<T>) {
    let (mut i, mut r) = (Vec::new(), Vec::new());
    for (oi, or, k) in out {
        let at: usize = k[..to].iter().sum();
        i.extend_from_slice(&oi[at * iw..(at + k[to]) * iw]);
        r.extend_from_slice(&or[at * w..(at + k[to]) * w]);
    }
    (i, r)
}

/// Process `to`'s pieces of every process's output, read in place: one per sender, and an
/// empty one after each.
fn pieces<T: Api>(out: &[Out<T>], to: usize, iw: usize, w: usize) -> Vec<(&[u32], &[T])> {
    let mut ps = Vec::new();
    for (oi, or, k) in out {
        let at: usize = k[..to].iter().sum();
        let e = at + k[to];
        ps.push((&oi[at * iw..e * iw], &or[at * w..e * w]));
        ps.push((&oi[e * iw..e * iw], &or[e * w..e * w]));
    }
    ps
}

/// One iteration over all processes, the records copied; the info of the last.
fn iteration<T: Api>(ps: &mut [Proc<T, T::S>]) -> sgs_svgd_info {
    iteration_with(ps, false)
}

/// One iteration over all processes, the records copied into one buffer or (`in_place`) read
/// in pieces where they were written; the info of the last.
fn iteration_with<T: Api>(ps: &mut [Proc<T, T::S>], in_place: bool) -> sgs_svgd_info {
    let r = ps.len();
    let mut sent = Vec::new();
    for p in ps.iter_mut() {
        let (mut i, mut w, mut k) = (
            vec![0; 2 * p.c],
            vec![T::default(); 2 * p.c * D],
            vec![0; r],
        );
        // SAFETY: valid state and arrays.
        ok(unsafe { T::begin(&mut *p.st, &mut i, &mut w, &mut k) });
        sent.push((i, w, k));
    }
    let mut back = Vec::new();
    for (q, p) in ps.iter_mut().enumerate() {
        let (ii, ir) = deliver(&sent, q, 2, 2 * D);
        let (mut i, mut w, mut k) = (vec![0; p.m], vec![T::default(); p.m * D], vec![0; r]);
        // SAFETY: valid state and arrays.
        ok(unsafe {
            if in_place {
                T::forces_parts(
                    &mut *p.st,
                    &pieces(&sent, q, 2, 2 * D),
                    &mut i,
                    &mut w,
                    &mut k,
                )
            } else {
                T::forces(&mut *p.st, &ii, &ir, &mut i, &mut w, &mut k)
            }
        });
        back.push((i, w, k));
    }
    let mut parts = Vec::new();
    for (q, p) in ps.iter_mut().enumerate() {
        let (ii, ir) = deliver(&back, q, 1, D);
        let mut part = sgs_svgd_shard_partial::default();
        // SAFETY: valid state and arrays.
        ok(unsafe {
            if in_place {
                T::finish_parts(&mut *p.st, &pieces(&back, q, 1, D), &mut part)
            } else {
                T::finish(&mut *p.st, &ii, &ir, &mut part)
            }
        });
        parts.push(part);
    }
    // SAFETY: plain data, all-zero bytes valid.
    let mut info = unsafe { core::mem::zeroed::<sgs_svgd_info>() };
    for p in ps.iter_mut() {
        // SAFETY: valid state and arrays.
        ok(unsafe { T::commit(&mut *p.st, &parts, &mut info) });
    }
    info
}

/// The whole system's particles after `iterations` steps, and the last info.
fn whole(iterations: usize) -> (Vec<f64>, Vec<sgs_svgd_info>) {
    let c = config();
    let mut x = start();
    // SAFETY: plain arguments; the buffers outlive the state.
    unsafe {
        let mut st: Box<sgs_svgd> = Box::new(core::mem::zeroed());
        let mut ws = vec![0.0; sgs_svgd_workspace_len(N, D, &c)];
        let mut idx = vec![0u32; N];
        ok(sgs_svgd_init(
            &mut *st,
            &c,
            x.as_mut_ptr(),
            N,
            D,
            ws.as_mut_ptr(),
            ws.len(),
            idx.as_mut_ptr(),
            N,
            Some(grad),
            None,
            core::ptr::null_mut(),
        ));
        let mut infos = Vec::new();
        for _ in 0..iterations {
            // SAFETY: the C contract: valid states and arrays of the stated lengths.
            let mut i = core::mem::zeroed::<sgs_svgd_info>();
            ok(sgs_svgd_step(&mut *st, &mut i));
            infos.push(i);
        }
        ok(sgs_svgd_clear(&mut *st));
        (x, infos)
    }
}

#[test]
fn equals_sgs_svgd_step() {
    let (x, infos) = whole(4);
    for (ranks, in_place) in [
        (1, false),
        (2, false),
        (3, false),
        (5, false),
        (2, true),
        (3, true),
    ] {
        let mut ps = procs::<f64>(ranks);
        for want in &infos {
            let got = iteration_with(&mut ps, in_place);
            assert_eq!(
                (
                    got.iteration,
                    got.interactions,
                    got.max_force.to_bits(),
                    got.step_size.to_bits()
                ),
                (
                    want.iteration,
                    want.interactions,
                    want.max_force.to_bits(),
                    want.step_size.to_bits()
                )
            );
            assert!((got.mean_force - want.mean_force).abs() <= 1e-12 * want.mean_force);
        }
        let joined: Vec<u64> = ps
            .iter()
            .flat_map(|p| p.x.iter().map(|v| v.to_bits()))
            .collect();
        assert_eq!(
            joined,
            x.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
            "ranks {ranks}"
        );
        // The f32 shards agree with each other for any number of processes.
        let mut one = procs::<f32>(1);
        let mut many = procs::<f32>(ranks);
        for _ in 0..3 {
            iteration(&mut one);
            iteration_with(&mut many, in_place);
        }
        let a: Vec<u64> = one
            .iter()
            .flat_map(|p| p.x.iter().map(|v| v.bits()))
            .collect();
        let b: Vec<u64> = many
            .iter()
            .flat_map(|p| p.x.iter().map(|v| v.bits()))
            .collect();
        assert_eq!(a, b);
    }
}

#[test]
fn ranges() {
    let (mut a, mut b, mut c, mut d) = (9, 9, 9, 9);
    // SAFETY: outputs on the stack (or null, refused).
    unsafe {
        ok(sgs_svgd_shard_ranges(
            10, 3, 2, 1, &mut a, &mut b, &mut c, &mut d,
        ));
        // Particles 5..10; of the 3 batches, the second process has batch 1.. (slots 3..10).
        assert_eq!((a, b, c, d), (5, 5, 3, 7));
        let e = |s: sgs_status| s;
        assert_eq!(
            e(sgs_svgd_shard_ranges(
                10, 3, 2, 2, &mut a, &mut b, &mut c, &mut d
            )),
            sgs_status::SGS_ERR_INVALID_ARGUMENT
        );
        assert_eq!(
            e(sgs_svgd_shard_ranges(
                10, 11, 2, 1, &mut a, &mut b, &mut c, &mut d
            )),
            sgs_status::SGS_ERR_INVALID_BATCH_SIZE
        );
        assert_eq!(
            e(sgs_svgd_shard_ranges(
                0, 2, 2, 1, &mut a, &mut b, &mut c, &mut d
            )),
            sgs_status::SGS_ERR_ZERO_PARTICLES
        );
        assert_eq!(
            e(sgs_svgd_shard_ranges(
                10,
                3,
                2,
                1,
                &mut a,
                core::ptr::null_mut(),
                &mut c,
                &mut d
            )),
            sgs_status::SGS_ERR_NULL_POINTER
        );
        assert_eq!(
            e(sgs_svgd_shard_ranges(
                10, 3, 2, 1, &mut a, &mut a, &mut c, &mut d
            )),
            sgs_status::SGS_ERR_INVALID_ARGUMENT
        );
        assert_eq!((a, b, c, d), (5, 5, 3, 7));
    }
}

fn bytes<S>(s: &S) -> Vec<u8> {
    // SAFETY: reading the state's bytes (it is `MaybeUninit` words, written whole by init).
    unsafe {
        core::slice::from_raw_parts((s as *const S).cast::<u8>(), core::mem::size_of::<S>())
            .to_vec()
    }
}

#[test]
fn bad_input_changes_nothing() {
    use sgs_status::*;
    let mut ps = procs::<f64>(2);
    iteration(&mut ps);
    let (c, m) = (ps[0].c, ps[0].m);
    let before = (bytes(&*ps[0].st), ps[0].x.clone());
    let st: *mut sgs_svgd_shard = &mut *ps[0].st;
    let (mut i, mut w, mut k) = (vec![0u32; 2 * c], vec![0.0; 2 * c * D], vec![0usize; 2]);
    let mut part = sgs_svgd_shard_partial::default();
    let cfg = config();
    // SAFETY: every call below gets a valid state or a deliberately bad argument it must refuse.
    unsafe {
        let x = ps[0].x.as_mut_ptr();
        let checks: Vec<(sgs_status, sgs_status)> = vec![
            (
                sgs_svgd_shard_begin(
                    st,
                    core::ptr::null_mut(),
                    2 * c,
                    w.as_mut_ptr(),
                    w.len(),
                    k.as_mut_ptr(),
                    2,
                ),
                SGS_ERR_NULL_POINTER,
            ),
            (
                sgs_svgd_shard_begin(
                    st,
                    i.as_mut_ptr(),
                    2 * c,
                    w.as_mut_ptr().cast::<u8>().add(1).cast(),
                    w.len() - 1,
                    k.as_mut_ptr(),
                    2,
                ),
                SGS_ERR_INVALID_ARGUMENT,
            ),
            // Rows over the particles; counts inside the rows.
            (
                sgs_svgd_shard_begin(st, i.as_mut_ptr(), 2 * c, x, w.len(), k.as_mut_ptr(), 2),
                SGS_ERR_INVALID_ARGUMENT,
            ),
            (
                sgs_svgd_shard_begin(
                    st,
                    i.as_mut_ptr(),
                    2 * c,
                    w.as_mut_ptr(),
                    w.len(),
                    w.as_mut_ptr().cast(),
                    2,
                ),
                SGS_ERR_INVALID_ARGUMENT,
            ),
            (
                sgs_svgd_shard_begin(
                    st,
                    i.as_mut_ptr(),
                    2 * c - 1,
                    w.as_mut_ptr(),
                    w.len(),
                    k.as_mut_ptr(),
                    2,
                ),
                SGS_ERR_LENGTH_MISMATCH,
            ),
            (
                sgs_svgd_shard_begin(
                    st,
                    i.as_mut_ptr(),
                    2 * c,
                    w.as_mut_ptr(),
                    w.len(),
                    k.as_mut_ptr(),
                    3,
                ),
                SGS_ERR_LENGTH_MISMATCH,
            ),
            (
                sgs_svgd_shard_forces(
                    st,
                    i.as_ptr(),
                    m,
                    w.as_ptr(),
                    2 * m * D,
                    i.as_mut_ptr(),
                    m,
                    w.as_mut_ptr(),
                    m * D,
                    k.as_mut_ptr(),
                    2,
                ),
                SGS_ERR_INVALID_ARGUMENT,
            ),
            (
                sgs_svgd_shard_finish(st, i.as_ptr(), c, w.as_ptr(), c * D, &mut part),
                SGS_ERR_ITERATION_NOT_BEGUN,
            ),
            (
                sgs_svgd_shard_commit(st, &part, 1, core::ptr::null_mut()),
                SGS_ERR_ITERATION_NOT_BEGUN,
            ),
            (
                sgs_svgd_shard_begin_f32(
                    st.cast(),
                    i.as_mut_ptr(),
                    2 * c,
                    w.as_mut_ptr().cast(),
                    w.len(),
                    k.as_mut_ptr(),
                    2,
                ),
                SGS_ERR_NOT_INITIALISED,
            ),
            (
                sgs_svgd_shard_init(
                    st,
                    &cfg,
                    N,
                    D,
                    2,
                    0,
                    x,
                    c * D,
                    ps[0].ws.as_mut_ptr(),
                    1,
                    ps[0].idx.as_mut_ptr(),
                    ps[0].idx.len(),
                    Some(grad),
                    None,
                    core::ptr::null_mut(),
                ),
                SGS_ERR_WORKSPACE_TOO_SMALL,
            ),
        ];
        for (k, (got, want)) in checks.into_iter().enumerate() {
            assert_eq!(got, want, "case {k}");
            assert_eq!((bytes(&*ps[0].st), ps[0].x.clone()), before, "case {k}");
        }
        // A byte-wise copy of the state is refused.
        let mut moved: Box<sgs_svgd_shard> = Box::new(core::mem::zeroed());
        core::ptr::copy_nonoverlapping(st, &mut *moved, 1);
        assert_eq!(sgs_svgd_shard_cancel(&mut *moved), SGS_ERR_STATE_MOVED);
        // A callback calling back into its own shard gets BUSY; the iteration goes on.
        let mut re = Reentry {
            state: core::ptr::null_mut(),
            status: None,
        };
        let mut st2: Box<sgs_svgd_shard> = Box::new(core::mem::zeroed());
        re.state = &mut *st2;
        let mut x2 = start()[..N / 2 * D].to_vec();
        let mut ws2 = vec![0.0; sgs_svgd_shard_workspace_len(N, D, 2, 0, &cfg)];
        let mut ix2 = vec![0u32; sgs_svgd_shard_index_len(N, 2, 0, &cfg)];
        ok(sgs_svgd_shard_init(
            &mut *st2,
            &cfg,
            N,
            D,
            2,
            0,
            x2.as_mut_ptr(),
            x2.len(),
            ws2.as_mut_ptr(),
            ws2.len(),
            ix2.as_mut_ptr(),
            ix2.len(),
            Some(grad),
            None,
            (&mut re as *mut Reentry).cast(),
        ));
        let c2 = N / 2;
        let (mut i2, mut w2) = (vec![0u32; 2 * c2], vec![0.0; 2 * c2 * D]);
        ok(sgs_svgd_shard_begin(
            &mut *st2,
            i2.as_mut_ptr(),
            2 * c2,
            w2.as_mut_ptr(),
            w2.len(),
            k.as_mut_ptr(),
            2,
        ));
        assert_eq!(re.status, Some(SGS_ERR_BUSY));
        assert_eq!(
            sgs_svgd_shard_begin(
                &mut *st2,
                i2.as_mut_ptr(),
                2 * c2,
                w2.as_mut_ptr(),
                w2.len(),
                k.as_mut_ptr(),
                2
            ),
            SGS_ERR_ITERATION_IN_PROGRESS
        );
        ok(sgs_svgd_shard_cancel(&mut *st2));
        let mut its = 7;
        ok(sgs_svgd_shard_iterations(&*st2, &mut its));
        assert_eq!(its, 0);
        ok(sgs_svgd_shard_clear(&mut *st2));
        assert_eq!(
            sgs_svgd_shard_iterations(&*st2, &mut its),
            SGS_ERR_NOT_INITIALISED
        );
    }
    // The refused calls left the run where it was: it goes on as the whole system's.
    iteration(&mut ps);
    let (x, _) = whole(2);
    let joined: Vec<f64> = ps.iter().flat_map(|p| p.x.clone()).collect();
    assert_eq!(joined, x);
}

#[test]
fn bad_pieces_change_nothing() {
    use sgs_status::*;
    let mut ps = procs::<f64>(2);
    iteration_with(&mut ps, true);
    let mut sent = Vec::new();
    for p in ps.iter_mut() {
        let (mut i, mut w, mut k) = (vec![0; 2 * p.c], vec![0.0; 2 * p.c * D], vec![0; 2]);
        // SAFETY: valid state and arrays.
        ok(unsafe { f64::begin(&mut *p.st, &mut i, &mut w, &mut k) });
        sent.push((i, w, k));
    }
    let (c, m) = (ps[0].c, ps[0].m);
    let good = pieces(&sent, 0, 2, 2 * D);
    let rec = |(i, r): (&[u32], &[f64])| sgs_svgd_shard_records {
        idx: i.as_ptr(),
        idx_len: i.len(),
        rows: r.as_ptr(),
        rows_len: r.len(),
    };
    let recs: Vec<sgs_svgd_shard_records> = good.iter().map(|&p| rec(p)).collect();
    let (mut oi, mut or, mut k) = (vec![0u32; m], vec![0.0; m * D + 8], vec![0usize; 2]);
    let st: *mut sgs_svgd_shard = &mut *ps[0].st;
    let before = (bytes(&*ps[0].st), ps[0].x.clone(), ps[0].ws.clone());
    // The pieces' variants, each refused.
    let mut null_idx = recs.clone();
    null_idx[0].idx = core::ptr::null();
    let mut odd = recs.clone();
    odd[0].idx_len -= 1;
    odd[0].rows_len -= D;
    odd[2].idx = odd[2].idx.wrapping_sub(1);
    odd[2].idx_len += 1;
    odd[2].rows = odd[2].rows.wrapping_sub(D);
    odd[2].rows_len += D;
    let mut skew = recs.clone();
    skew[0].rows_len -= 1;
    skew[2].rows_len += 1;
    let mut short = recs.clone();
    short[0].idx_len -= 2;
    short[0].rows_len -= 2 * D;
    // A read of the out rows; of the state's workspace.
    let mut over_out = recs.clone();
    (over_out[1].rows, over_out[1].rows_len) = (or.as_ptr(), 2);
    let mut over_ws = recs.clone();
    (over_ws[1].rows, over_ws[1].rows_len) = (ps[0].ws.as_ptr(), 2);
    let (oi_ptr, or_ptr, k_ptr, or_len) = (oi.as_mut_ptr(), or.as_mut_ptr(), k.as_mut_ptr(), m * D);
    let call = |r: *const sgs_svgd_shard_records, n: usize| {
        // SAFETY: a valid state after begin; the outputs valid; `r` valid for `n` reads or one
        // of the bad arguments below.
        unsafe { sgs_svgd_shard_forces_parts(st, r, n, oi_ptr, m, or_ptr, or_len, k_ptr, 2) }
    };
    // The descriptors themselves inside the out rows. SAFETY: one descriptor (4 words) from
    // the out rows' third value on fits: `or` has 8 spare values past its m·D.
    let inside_out = unsafe {
        core::ptr::copy_nonoverlapping(recs.as_ptr(), or_ptr.add(2).cast(), 1);
        or_ptr.add(2).cast::<sgs_svgd_shard_records>().cast_const()
    };
    let misaligned = recs.as_ptr().cast::<u8>().wrapping_add(1).cast();
    let cases = [
        (core::ptr::null(), 1, SGS_ERR_NULL_POINTER),
        (null_idx.as_ptr(), 4, SGS_ERR_NULL_POINTER),
        (misaligned, 1, SGS_ERR_INVALID_ARGUMENT),
        (odd.as_ptr(), 4, SGS_ERR_LENGTH_MISMATCH),
        (skew.as_ptr(), 4, SGS_ERR_LENGTH_MISMATCH),
        (short.as_ptr(), 4, SGS_ERR_LENGTH_MISMATCH),
        (recs.as_ptr(), 2, SGS_ERR_LENGTH_MISMATCH), // process 1's records left out
        (over_out.as_ptr(), 4, SGS_ERR_INVALID_ARGUMENT),
        (over_ws.as_ptr(), 4, SGS_ERR_INVALID_ARGUMENT),
        (inside_out, 1, SGS_ERR_INVALID_ARGUMENT),
    ];
    for (n, (r, len, want)) in cases.into_iter().enumerate() {
        assert_eq!(call(r, len), want, "case {n}");
        assert!(bytes(&*ps[0].st) == before.0, "case {n}: the state");
        assert!(ps[0].x == before.1, "case {n}: the particles");
        assert!(ps[0].ws == before.2, "case {n}: the workspace");
    }
    // SAFETY: valid state and arrays; the iteration is after begin, not forces.
    let early = unsafe {
        sgs_svgd_shard_finish_parts(st, recs.as_ptr(), 4, &mut sgs_svgd_shard_partial::default())
    };
    assert_eq!(early, SGS_ERR_ITERATION_NOT_BEGUN);
    // SAFETY: the remaining calls get valid states and arrays, or the bad ones named.
    unsafe {
        // The pieces as they are go through, with one more, empty, inside another.
        let mut more = recs.clone();
        more.push(sgs_svgd_shard_records {
            idx_len: 0,
            rows_len: 0,
            ..recs[0]
        });
        ok(call(more.as_ptr(), 5));
        // Process 1 likewise; then process 0's finish refuses bad pieces alike.
        let p1 = &mut ps[1];
        let (mut i1, mut r1, mut k1) = (vec![0u32; p1.m], vec![0.0; p1.m * D], vec![0; 2]);
        ok(f64::forces_parts(
            &mut *p1.st,
            &pieces(&sent, 1, 2, 2 * D),
            &mut i1,
            &mut r1,
            &mut k1,
        ));
        or.truncate(m * D);
        let back = [(oi, or, k), (i1, r1, k1)];
        let fin: Vec<sgs_svgd_shard_records> =
            pieces(&back, 0, 1, D).into_iter().map(rec).collect();
        assert_eq!(fin.iter().map(|r| r.idx_len).sum::<usize>(), c);
        let before = bytes(&*ps[0].st);
        let mut part = sgs_svgd_shard_partial::default();
        let mut null_rows = fin.clone();
        null_rows[2].rows = core::ptr::null();
        let mut on_part = fin.clone();
        on_part[1].rows = (&raw const part).cast();
        on_part[1].rows_len = 1;
        let mut odd = fin.clone();
        odd[0].rows_len += 1;
        odd[2].rows_len -= 1;
        let finish = |r: &[sgs_svgd_shard_records], part: *mut sgs_svgd_shard_partial| {
            sgs_svgd_shard_finish_parts(st, r.as_ptr(), r.len(), part)
        };
        for (n, (r, want)) in [
            (&null_rows, SGS_ERR_NULL_POINTER),
            (&on_part, SGS_ERR_INVALID_ARGUMENT),
            (&odd, SGS_ERR_LENGTH_MISMATCH),
        ]
        .into_iter()
        .enumerate()
        {
            assert_eq!(finish(r, &raw mut part), want, "finish case {n}");
            assert!(bytes(&*ps[0].st) == before, "finish case {n}: the state");
        }
        assert_eq!(finish(&fin, core::ptr::null_mut()), SGS_ERR_NULL_POINTER);
        ok(finish(&fin, &raw mut part));
        assert_eq!((part.moves, part.finite), (c as u64, 1));
    }
}
