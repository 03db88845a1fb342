//! RBM-SVGD over processes that each hold only their block of the particles, through the C ABI
//! (`sgs_svgd_shard_…`): the Rust [`SvgdShard`](crate::svgd::SvgdShard)'s four steps on a state
//! in caller memory, with the records exchanged by the caller (e.g. `MPI_Alltoallv`) between
//! them. One call at a time per state (each marks it busy); different states are independent.

use super::*;
use crate::svgd::{
    particle_range, shard_index_len, shard_workspace_len, slot_range, ShardCore, ShardRecords,
    SvgdShardPartial,
};

/// One process's summary of an iteration (`sgs_svgd_shard_finish`), to be given to every
/// process (e.g. `MPI_Allgather` of `sizeof(struct sgs_svgd_shard_partial)` bytes) for
/// `sgs_svgd_shard_commit`. 40 bytes, no padding.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct sgs_svgd_shard_partial {
    /// Sum of |φ_i| over the process's particles, in particle order.
    pub force_sum: f64,
    /// Largest |φ_i| among them (0 with none).
    pub force_max: f64,
    /// Its particles.
    pub moves: u64,
    /// Kernel evaluations of its batches.
    pub interactions: u64,
    /// 1 when every move of its particles is finite, else 0.
    pub finite: u64,
}

impl From<SvgdShardPartial> for sgs_svgd_shard_partial {
    fn from(p: SvgdShardPartial) -> Self {
        sgs_svgd_shard_partial {
            force_sum: p.force_sum,
            force_max: p.force_max,
            moves: p.moves,
            interactions: p.interactions,
            finite: p.finite,
        }
    }
}

const _: () = {
    assert!(size_of::<sgs_svgd_shard_partial>() == 40);
    assert!(size_of::<SvgdShardPartial>() == 40);
    assert!(align_of::<SvgdShardPartial>() == align_of::<sgs_svgd_shard_partial>());
};

/// One piece of the records a process receives, for `sgs_svgd_shard_forces_parts` and
/// `sgs_svgd_shard_finish_parts`: `idx_len` indices at `idx` and `rows_len` values at `rows`,
/// as some process's begin or forces wrote them for this one (`rows_len` = `idx_len`·d in
/// both steps). Lets a process read its records where the senders wrote them (threads of one
/// process, ranks sharing memory) instead of copying them into one buffer first.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct sgs_svgd_shard_records {
    /// The indices (slot and particle per record for forces, the particle for finish).
    pub idx: *const u32,
    /// Their number.
    pub idx_len: usize,
    /// The rows (position then gradient per record for forces, φ for finish).
    pub rows: *const f64,
    /// Their number of values.
    pub rows_len: usize,
}

/// `sgs_svgd_shard_records` for `float` coordinates.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct sgs_svgd_shard_records_f32 {
    /// The indices (slot and particle per record for forces, the particle for finish).
    pub idx: *const u32,
    /// Their number.
    pub idx_len: usize,
    /// The rows (position then gradient per record for forces, φ for finish).
    pub rows: *const f32,
    /// Their number of values.
    pub rows_len: usize,
}

/// A C piece of records of `T` values.
trait CRecords<T> {
    /// `(idx, idx_len, rows, rows_len)`.
    fn fields(&self) -> (*const u32, usize, *const T, usize);
}

impl CRecords<f64> for sgs_svgd_shard_records {
    fn fields(&self) -> (*const u32, usize, *const f64, usize) {
        (self.idx, self.idx_len, self.rows, self.rows_len)
    }
}

impl CRecords<f32> for sgs_svgd_shard_records_f32 {
    fn fields(&self) -> (*const u32, usize, *const f32, usize) {
        (self.idx, self.idx_len, self.rows, self.rows_len)
    }
}

/// One process's part of an RBM-SVGD system on `double` coordinates, in caller memory. Opaque:
/// fill it with `sgs_svgd_shard_init`; zero-initialise it first.
#[repr(C)]
pub struct sgs_svgd_shard {
    _opaque: [core::mem::MaybeUninit<u64>; 160],
}

/// One process's part of an RBM-SVGD system on `float` coordinates (see `sgs_svgd_shard`).
#[repr(C)]
pub struct sgs_svgd_shard_f32 {
    _opaque: [core::mem::MaybeUninit<u64>; 160],
}

/// The fixed part of a shard's state: what `init` recorded, checksummed.
#[repr(C)]
struct ShardFixed<T> {
    hdr: Header,
    particles: *mut T,
    n_coords: usize,
    ws: *mut T,
    ws_len: usize,
    idx: *mut u32,
    idx_len: usize,
    n: usize,
    d: usize,
    ranks: usize,
    rank: usize,
    gradient: Option<RawGradient<T>>,
    gradients: Option<RawGradients<T>>,
    user_data: *mut c_void,
}

impl<T> Clone for ShardFixed<T> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<T> Copy for ShardFixed<T> {}

impl<T> Fixed for ShardFixed<T> {
    fn header(&self) -> &Header {
        &self.hdr
    }
    fn header_mut(&mut self) -> &mut Header {
        &mut self.hdr
    }
    fn fields(&self, h: &mut Hasher) {
        h.word(self.particles as usize as u64);
        h.word(self.n_coords as u64);
        h.word(self.ws as usize as u64);
        h.word(self.ws_len as u64);
        h.word(self.idx as usize as u64);
        h.word(self.idx_len as u64);
        h.word(self.n as u64);
        h.word(self.d as u64);
        h.word(self.ranks as u64);
        h.word(self.rank as u64);
        h.word(self.gradient.map_or(0, |f| f as usize) as u64);
        h.word(self.gradients.map_or(0, |f| f as usize) as u64);
        h.word(self.user_data as usize as u64);
    }
    fn consistent(&self) -> bool {
        let own = particle_range(self.n, self.ranks, self.rank).len();
        self.n != 0
            && self.d != 0
            && self.rank < self.ranks
            && own.checked_mul(self.d) == Some(self.n_coords)
            && (self.gradient.is_some() || self.gradients.is_some())
            && check_array(self.particles, self.n_coords).is_ok()
            && check_array(self.ws, self.ws_len).is_ok()
            && check_array(self.idx, self.idx_len).is_ok()
    }
}

impl<T> ShardFixed<T> {
    /// The state and every buffer it records, for overlap checks.
    fn spans<S>(&self, state: *const S) -> [Span; 4] {
        [
            Span::of(state, 1),
            Span::of(self.particles, self.n_coords),
            Span::of(self.ws, self.ws_len),
            Span::of(self.idx, self.idx_len),
        ]
    }
}

/// The Rust state in an `sgs_svgd_shard` / `…_f32`.
#[repr(C)]
struct ShardState<T: Float> {
    fx: ShardFixed<T>,
    core: ShardCore<KernelChoice, T>,
}

const _: () = {
    assert!(size_of::<ShardState<f64>>() <= size_of::<sgs_svgd_shard>());
    assert!(align_of::<ShardState<f64>>() <= align_of::<sgs_svgd_shard>());
    assert!(size_of::<ShardState<f32>>() <= size_of::<sgs_svgd_shard_f32>());
    assert!(align_of::<ShardState<f32>>() <= align_of::<sgs_svgd_shard_f32>());
};

const SHARD_F64: u64 = u64::from_le_bytes(*b"sgsSHD64");
const SHARD_F32: u64 = u64::from_le_bytes(*b"sgsSHD32");

/// What the core adds to the checksum: the shape it was made for.
fn shard_extra(core_shape: (usize, usize, usize, usize)) -> u64 {
    let mut h = Hasher(0);
    let (c, m, ranks, rank) = core_shape;
    for w in [c, m, ranks, rank] {
        h.word(w as u64);
    }
    h.0
}

/// The core of a tagged shard state.
///
/// # Safety
/// `state` tagged; no mutable reference to the core live.
unsafe fn shard_core<'a, T: Float, S>(state: *const S) -> &'a ShardCore<KernelChoice, T> {
    // SAFETY: contract of the caller.
    unsafe { &*core::ptr::addr_of!((*state.cast::<ShardState<T>>()).core) }
}

/// Validates a shard state: pointer, tag, busy flag, checksum, address, and that the core agrees
/// with the recorded shape and buffers.
///
/// # Safety
/// `state`, when non-null and aligned, must point to a readable `S`.
unsafe fn enter_shard<T: Float, S>(tag: u64, state: *const S) -> Result<ShardFixed<T>, Error> {
    // SAFETY: forwarded contract.
    let fx: ShardFixed<T> = unsafe { validate(state, tag)? };
    // SAFETY: tagged: an init stored a `ShardState` here.
    let core = unsafe { shard_core::<T, S>(state) };
    check_sealed(&fx, state, shard_extra(core.shape()), false)?;
    let (c, _, ranks, rank) = core.shape();
    if ranks != fx.ranks
        || rank != fx.rank
        || c.checked_mul(fx.d) != Some(fx.n_coords)
        || fx.ws_len < core.workspace_len()
        || fx.idx_len < core.index_len()
    {
        return Err(Error::StateCorrupted);
    }
    Ok(fx)
}

/// # Safety
/// The C contract of `sgs_svgd_shard_init`.
#[allow(clippy::too_many_arguments)]
unsafe fn shard_init<T: Float, S>(
    tag: u64,
    state: *mut S,
    config: *const sgs_svgd_config,
    n: usize,
    d: usize,
    ranks: usize,
    rank: usize,
    particles: *mut T,
    particles_len: usize,
    ws: *mut T,
    ws_len: usize,
    idx: *mut u32,
    idx_len: usize,
    gradient: Option<RawGradient<T>>,
    gradients: Option<RawGradients<T>>,
    user_data: *mut c_void,
) -> Result<(), Error> {
    check_ptr(state)?;
    check_ptr(config)?;
    check_ptr(particles)?;
    check_ptr(ws)?;
    check_ptr(idx)?;
    if gradient.is_none() && gradients.is_none() {
        return Err(Error::NullPointer);
    }
    check_array(particles, particles_len)?;
    check_array(ws, ws_len)?;
    check_array(idx, idx_len)?;
    let spans = [
        Span::of(state, 1),
        Span::of(particles, particles_len),
        Span::of(ws, ws_len),
        Span::of(idx, idx_len),
    ];
    if any_overlap(&spans) {
        return Err(Error::InvalidArgument);
    }
    // SAFETY: checked non-null and aligned.
    unsafe { refuse_if_busy(state, tag)? };
    // SAFETY: checked non-null and aligned; every bit pattern is a valid config.
    let cfg = config_from(unsafe { &config.read() })?;
    // SAFETY: checked above; the three buffers are pairwise disjoint.
    let (xs, ws_slice, idx_slice) = unsafe {
        (
            core::slice::from_raw_parts(particles, particles_len),
            workspace(ws, ws_len),
            core::slice::from_raw_parts(idx, idx_len),
        )
    };
    let core = ShardCore::new(&cfg, n, d, ranks, rank, xs, ws_slice, idx_slice)?;
    let mut fx = ShardFixed {
        hdr: Header {
            tag: 0,
            busy: 0,
            token: 0,
            home: 0,
        },
        particles,
        n_coords: particles_len,
        ws,
        ws_len,
        idx,
        idx_len,
        n,
        d,
        ranks,
        rank,
        gradient,
        gradients,
        user_data,
    };
    seal(&mut fx, tag, state as usize, shard_extra(core.shape()));
    // SAFETY: `state` is non-null, aligned, and large enough (compile-time assertions).
    unsafe { store(state, ShardState::<T> { fx, core }) };
    Ok(())
}

/// A caller's array (non-null, aligned, valid as a slice) and its bytes, for the overlap checks
/// of [`with_shard`].
fn array<T>(p: *const T, len: usize) -> Result<Span, Error> {
    check_array(p, len)?;
    Ok(Span::of(p, len))
}

/// Runs `f` on a validated shard's core and buffers, marked busy: every pointer in `arrays`
/// (inputs and outputs of the call) checked before, none overlapping another or the state's.
///
/// # Safety
/// `state` as for [`enter_shard`]; the arrays valid for their lengths.
unsafe fn with_shard<T: Float, S, R>(
    tag: u64,
    state: *mut S,
    arrays: &[Span],
    reads: impl Iterator<Item = Span>,
    f: impl FnOnce(&mut ShardCore<KernelChoice, T>, &mut [T], &mut [T], &mut [u32], SvgdModel<T>) -> R,
) -> Result<R, Error> {
    // SAFETY: contract of the caller.
    let fx: ShardFixed<T> = unsafe { enter_shard(tag, state)? };
    let own = fx.spans(state);
    for (k, a) in arrays.iter().enumerate() {
        if own
            .iter()
            .chain(&arrays[k + 1..])
            .any(|o| Span::overlaps(a, o))
        {
            return Err(Error::InvalidArgument);
        }
    }
    // Read-only pieces may overlap one another, not what the call writes or the state's own.
    for r in reads {
        if own.iter().chain(arrays).any(|o| Span::overlaps(&r, o)) {
            return Err(Error::InvalidArgument);
        }
    }
    let model = SvgdModel {
        gradient: fx.gradient,
        gradients: fx.gradients,
        user_data: fx.user_data,
    };
    // SAFETY: validated; the guard clears the flag on every return.
    let _busy = unsafe { BusyGuard::new(state) };
    // SAFETY: checked at init, pairwise disjoint and disjoint from the call's arrays; alive by
    // the caller's contract; only the core of the state is borrowed.
    let (core, xs, ws, idx) = unsafe {
        (
            &mut *core::ptr::addr_of_mut!((*state.cast::<ShardState<T>>()).core),
            core::slice::from_raw_parts_mut(fx.particles, fx.n_coords),
            workspace(fx.ws, fx.ws_len),
            core::slice::from_raw_parts_mut(fx.idx, fx.idx_len),
        )
    };
    Ok(f(core, xs, ws, idx, model))
}

/// # Safety
/// The C contract of `sgs_svgd_shard_begin`.
#[allow(clippy::too_many_arguments)]
unsafe fn shard_begin<T: Float, S>(
    tag: u64,
    state: *mut S,
    out_idx: *mut u32,
    out_idx_len: usize,
    out_rows: *mut T,
    out_rows_len: usize,
    counts: *mut usize,
    counts_len: usize,
) -> Result<(), Error> {
    let arrays = [
        array(out_idx, out_idx_len)?,
        array(out_rows, out_rows_len)?,
        array(counts, counts_len)?,
    ];
    // SAFETY: forwarded contract; the arrays checked (and against the state's by `with_shard`).
    unsafe {
        with_shard::<T, S, _>(
            tag,
            state,
            &arrays,
            core::iter::empty(),
            |sc, xs, ws, idx, mut model| {
                let (oi, or, oc) = (
                    core::slice::from_raw_parts_mut(out_idx, out_idx_len),
                    core::slice::from_raw_parts_mut(out_rows, out_rows_len),
                    core::slice::from_raw_parts_mut(counts, counts_len),
                );
                sc.begin((xs, ws, idx), &mut model, oi, or, oc)
            },
        )?
    }
}

/// Forces of the records `parts` yields (read lazily, inside the call, after every check):
/// `ins` the spans of the call's inputs, checked with the outputs as its arrays (pairwise
/// disjoint and clear of the state's), `reads` further read-only spans that must only stay
/// clear of the outputs and the state's buffers (the pieces, which may overlap one another).
///
/// # Safety
/// The C contract of `sgs_svgd_shard_forces`; `parts`' slices valid for reads once `ins` and
/// `reads` are checked, and not written during the call.
#[allow(clippy::too_many_arguments)]
unsafe fn forces_with<'p, T: Float + 'p, S>(
    tag: u64,
    state: *mut S,
    ins: [Span; 2],
    reads: impl Iterator<Item = Span>,
    parts: impl Iterator<Item = ShardRecords<'p, T>> + Clone,
    out_idx: *mut u32,
    out_idx_len: usize,
    out_rows: *mut T,
    out_rows_len: usize,
    counts: *mut usize,
    counts_len: usize,
) -> Result<(), Error> {
    let arrays = [
        ins[0],
        ins[1],
        array(out_idx, out_idx_len)?,
        array(out_rows, out_rows_len)?,
        array(counts, counts_len)?,
    ];
    // SAFETY: forwarded contract; the arrays checked, pairwise disjoint, the reads clear of the
    // outputs and the state's buffers.
    unsafe {
        with_shard::<T, S, _>(tag, state, &arrays, reads, |sc, _, ws, idx, _| {
            sc.forces(
                (ws, idx),
                parts,
                core::slice::from_raw_parts_mut(out_idx, out_idx_len),
                core::slice::from_raw_parts_mut(out_rows, out_rows_len),
                core::slice::from_raw_parts_mut(counts, counts_len),
            )
        })?
    }
}

/// Finish of the records `parts` yields, as [`forces_with`]: `arrays` the call's inputs and
/// its partial (checked by the caller, in its order), `reads` the pieces.
///
/// # Safety
/// The C contract of `sgs_svgd_shard_finish`; `parts` as for [`forces_with`].
unsafe fn finish_with<'p, T: Float + 'p, S>(
    tag: u64,
    state: *mut S,
    arrays: [Span; 3],
    reads: impl Iterator<Item = Span>,
    parts: impl Iterator<Item = ShardRecords<'p, T>> + Clone,
    partial: *mut sgs_svgd_shard_partial,
) -> Result<(), Error> {
    // SAFETY: forwarded contract; the arrays checked, pairwise disjoint.
    let p = unsafe {
        with_shard::<T, S, _>(tag, state, &arrays, reads, |sc, xs, ws, idx, _| {
            sc.finish((xs, ws, idx), parts)
        })??
    };
    // SAFETY: checked non-null, aligned, disjoint from the state and its buffers.
    unsafe { partial.write(p.into()) };
    Ok(())
}

/// One buffer of records as the only piece, its slices made when the core reads it.
///
/// # Safety
/// `idx` and `rows` valid for their lengths once checked, not written during the call.
unsafe fn one_piece<'p, T: 'p>(
    idx: *const u32,
    idx_len: usize,
    rows: *const T,
    rows_len: usize,
) -> impl Iterator<Item = ShardRecords<'p, T>> + Clone {
    core::iter::once(()).map(move |()| {
        // SAFETY: read inside the call, after `array` checked both (non-null, aligned, sized)
        // and the overlap checks kept them clear of everything the call writes.
        unsafe {
            ShardRecords {
                idx: core::slice::from_raw_parts(idx, idx_len),
                rows: core::slice::from_raw_parts(rows, rows_len),
            }
        }
    })
}

/// # Safety
/// The C contract of `sgs_svgd_shard_forces`.
#[allow(clippy::too_many_arguments)]
unsafe fn shard_forces<T: Float, S>(
    tag: u64,
    state: *mut S,
    in_idx: *const u32,
    in_idx_len: usize,
    in_rows: *const T,
    in_rows_len: usize,
    out_idx: *mut u32,
    out_idx_len: usize,
    out_rows: *mut T,
    out_rows_len: usize,
    counts: *mut usize,
    counts_len: usize,
) -> Result<(), Error> {
    let ins = [array(in_idx, in_idx_len)?, array(in_rows, in_rows_len)?];
    // SAFETY: forwarded contract; the inputs checked (with the outputs) before they are read.
    unsafe {
        let whole = one_piece(in_idx, in_idx_len, in_rows, in_rows_len);
        forces_with::<T, S>(
            tag,
            state,
            ins,
            core::iter::empty(),
            whole,
            out_idx,
            out_idx_len,
            out_rows,
            out_rows_len,
            counts,
            counts_len,
        )
    }
}

/// # Safety
/// The C contract of `sgs_svgd_shard_finish`.
unsafe fn shard_finish<T: Float, S>(
    tag: u64,
    state: *mut S,
    in_idx: *const u32,
    in_idx_len: usize,
    in_rows: *const T,
    in_rows_len: usize,
    partial: *mut sgs_svgd_shard_partial,
) -> Result<(), Error> {
    check_ptr(partial)?;
    let arrays = [
        array(in_idx, in_idx_len)?,
        array(in_rows, in_rows_len)?,
        Span::of(partial, 1),
    ];
    // SAFETY: forwarded contract; the inputs checked before they are read.
    unsafe {
        let whole = one_piece(in_idx, in_idx_len, in_rows, in_rows_len);
        finish_with::<T, S>(tag, state, arrays, core::iter::empty(), whole, partial)
    }
}

/// Checks the pieces' descriptors and arrays (non-null, aligned, sized) and returns the
/// descriptors' span.
///
/// # Safety
/// `parts` valid for `parts_len` reads once checked.
unsafe fn check_parts<T, P: CRecords<T>>(parts: *const P, parts_len: usize) -> Result<Span, Error> {
    let span = array(parts, parts_len)?;
    // SAFETY: checked non-null, aligned and sized; valid for reads by the contract.
    for p in unsafe { core::slice::from_raw_parts(parts, parts_len) } {
        let (i, il, r, rl) = p.fields();
        check_array(i, il)?;
        check_array(r, rl)?;
    }
    Ok(span)
}

/// The pieces' arrays, for the overlap checks.
fn part_spans<T, P: CRecords<T>>(parts: &[P]) -> impl Iterator<Item = Span> + '_ {
    parts.iter().flat_map(|p| {
        let (i, il, r, rl) = p.fields();
        [Span::of(i, il), Span::of(r, rl)]
    })
}

/// The pieces as the core reads them.
///
/// # Safety
/// As for [`check_parts`], after it succeeded; the arrays not written during `'p`.
unsafe fn part_slices<'p, T: 'p, P: CRecords<T>>(
    parts: &'p [P],
) -> impl Iterator<Item = ShardRecords<'p, T>> + Clone + 'p {
    parts.iter().map(|p| {
        let (i, il, r, rl) = p.fields();
        // SAFETY: checked by `check_parts` (non-null, aligned, sized), valid for reads and not
        // written by the call (disjoint from its outputs and the state's buffers).
        unsafe {
            ShardRecords {
                idx: core::slice::from_raw_parts(i, il),
                rows: core::slice::from_raw_parts(r, rl),
            }
        }
    })
}

/// # Safety
/// The C contract of `sgs_svgd_shard_forces_parts`.
#[allow(clippy::too_many_arguments)]
unsafe fn shard_forces_parts<T: Float, S, P: CRecords<T>>(
    tag: u64,
    state: *mut S,
    parts: *const P,
    parts_len: usize,
    out_idx: *mut u32,
    out_idx_len: usize,
    out_rows: *mut T,
    out_rows_len: usize,
    counts: *mut usize,
    counts_len: usize,
) -> Result<(), Error> {
    // SAFETY: forwarded contract.
    let descs = unsafe { check_parts(parts, parts_len)? };
    // SAFETY: checked by `check_parts`.
    let ps = unsafe { core::slice::from_raw_parts(parts, parts_len) };
    // SAFETY: forwarded contract; the pieces checked, read only after the overlap checks.
    unsafe {
        forces_with::<T, S>(
            tag,
            state,
            [descs, Span::of(core::ptr::null::<u8>(), 0)],
            part_spans(ps),
            part_slices(ps),
            out_idx,
            out_idx_len,
            out_rows,
            out_rows_len,
            counts,
            counts_len,
        )
    }
}

/// # Safety
/// The C contract of `sgs_svgd_shard_finish_parts`.
unsafe fn shard_finish_parts<T: Float, S, P: CRecords<T>>(
    tag: u64,
    state: *mut S,
    parts: *const P,
    parts_len: usize,
    partial: *mut sgs_svgd_shard_partial,
) -> Result<(), Error> {
    // SAFETY: forwarded contract.
    let descs = unsafe { check_parts(parts, parts_len)? };
    check_ptr(partial)?;
    let arrays = [
        descs,
        Span::of(core::ptr::null::<u8>(), 0),
        Span::of(partial, 1),
    ];
    // SAFETY: checked by `check_parts`.
    let ps = unsafe { core::slice::from_raw_parts(parts, parts_len) };
    // SAFETY: forwarded contract; the pieces checked, read only after the overlap checks.
    unsafe { finish_with::<T, S>(tag, state, arrays, part_spans(ps), part_slices(ps), partial) }
}

/// # Safety
/// The C contract of `sgs_svgd_shard_commit`.
unsafe fn shard_commit<T: Float, S>(
    tag: u64,
    state: *mut S,
    partials: *const sgs_svgd_shard_partial,
    partials_len: usize,
    info: *mut sgs_svgd_info,
) -> Result<(), Error> {
    check_opt(info)?;
    let arrays = [array(partials, partials_len)?, Span::of(info, 1)];
    // SAFETY: forwarded contract; the arrays checked, pairwise disjoint. The two partial types
    // have the same fields, layout and size (compile-time assertions above).
    let i = unsafe {
        with_shard::<T, S, _>(
            tag,
            state,
            &arrays,
            core::iter::empty(),
            |sc, xs, ws, _, _| {
                let ps =
                    core::slice::from_raw_parts(partials.cast::<SvgdShardPartial>(), partials_len);
                sc.commit(xs, ws, ps)
            },
        )??
    };
    // SAFETY: checked aligned and disjoint from the state and its buffers; NULL skips.
    unsafe { put(info, info_from(&i)) };
    Ok(())
}

macro_rules! shard_api {
    (
        float = $T:ty, ctype = $ctype:literal, state = $S:ident, tag = $tag:expr,
        gradient_fn = $G:ident, gradients_fn = $GS:ident, workspace_len = $ws_len:ident,
        index_len = $index_len:ident, state_size = $size:ident, state_align = $align:ident,
        init = $init:ident, begin = $begin:ident, forces = $forces:ident, finish = $finish:ident,
        commit = $commit:ident, cancel = $cancel:ident, iterations = $iterations:ident,
        clear = $clear:ident, records = $P:ident, forces_parts = $forces_parts:ident,
        finish_parts = $finish_parts:ident,
    ) => {
        #[doc = concat!(" Workspace length, in `", $ctype, "` elements, of process `rank` of `ranks` in a")]
        /// sharded system of `n` particles in dimension `d` under `*config`: (2c + 3m)·d with
        /// AdaGrad, (c + 3m)·d otherwise, c its particles and m its slots
        /// (`sgs_svgd_shard_ranges`). SIZE_MAX when the size overflows; 0 when `config` is NULL,
        /// misaligned or has an unknown option (init then names the problem).
        ///
        /// # Safety
        /// `config`, when non-null, must point to a readable config.
        #[no_mangle]
        pub unsafe extern "C" fn $ws_len(
            n: usize,
            d: usize,
            ranks: usize,
            rank: usize,
            config: *const sgs_svgd_config,
        ) -> usize {
            // SAFETY: forwarded C contract.
            unsafe { with_config(config, |c| shard_workspace_len(n, d, ranks, rank, c)) }
        }

        /// Length of the index buffer (`uint32_t` elements) of process `rank`: c + m, SIZE_MAX
        /// when that overflows; 0 when `config` is NULL, misaligned or has an unknown option.
        ///
        /// # Safety
        /// `config`, when non-null, must point to a readable config.
        #[no_mangle]
        pub unsafe extern "C" fn $index_len(
            n: usize,
            ranks: usize,
            rank: usize,
            config: *const sgs_svgd_config,
        ) -> usize {
            // SAFETY: forwarded C contract.
            unsafe { with_config(config, |c| shard_index_len(n, ranks, rank, c)) }
        }

        /// `sizeof` of the state struct, for bindings that allocate it themselves.
        #[no_mangle]
        pub extern "C" fn $size() -> usize {
            size_of::<$S>()
        }

        /// The alignment the state struct needs.
        #[no_mangle]
        pub extern "C" fn $align() -> usize {
            align_of::<$S>()
        }

        #[doc = concat!(" Starts process `rank`'s part (of `ranks`) of an RBM-SVGD system of `n` particles of dimension `d` (`", $ctype, "`).")]
        ///
        /// Every process calls it with the same `config` (seed included), `n`, `d` and
        /// `ranks`. The configuration must use `SGS_PERMUTATION_FEISTEL` without replacement,
        /// no KSD, no scale option and a kernel that needs no particles to prepare (not the
        /// median heuristic). `particles` holds the process's particles
        /// (`sgs_svgd_shard_ranges`: `particle_count·d` values, row by row, `particles_len`
        /// of them) and is the state: commits move them in place, and the caller may read them
        /// between iterations. `workspace` (`…_workspace_len`) keeps the AdaGrad history of the
        /// process's particles between iterations and is scratch otherwise; `index`
        /// (`…_index_len`) is scratch. The three buffers must not overlap each other or `state`, and must stay
        /// alive (with the callbacks and `user_data`) while the state is used. Give `gradient`
        /// (called once per particle) or `gradients` (once per iteration with the process's
        /// particles; used when both are given).
        ///
        /// Returns `SGS_OK`; `SGS_ERR_NULL_POINTER` (a buffer, or both callbacks),
        /// `SGS_ERR_INVALID_ARGUMENT` (misaligned or overlapping buffers, `rank ≥ ranks`,
        /// N ≥ 2³²), `SGS_ERR_ZERO_DIMENSION`, `SGS_ERR_ZERO_PARTICLES`, `SGS_ERR_BUSY` (called from the gradient callback of the
        /// shard in `*state`), the configuration's statuses as for `sgs_svgd_init`,
        /// `SGS_ERR_INVALID_OPTION` (as above), `SGS_ERR_LENGTH_MISMATCH` (`particles_len`),
        /// `SGS_ERR_WORKSPACE_TOO_SMALL`, `SGS_ERR_INVALID_POSITION`. On error `*state` and the
        /// buffers are not modified. The state records its own address (a byte-wise copy is
        /// refused with `SGS_ERR_STATE_MOVED`).
        ///
        /// # Safety
        /// Pointers must be valid for the stated lengths; callbacks must follow their contract.
        #[no_mangle]
        pub unsafe extern "C" fn $init(
            state: *mut $S,
            config: *const sgs_svgd_config,
            n: usize,
            d: usize,
            ranks: usize,
            rank: usize,
            particles: *mut $T,
            particles_len: usize,
            workspace: *mut $T,
            workspace_len: usize,
            index: *mut u32,
            index_len: usize,
            gradient: $G,
            gradients: $GS,
            user_data: *mut c_void,
        ) -> sgs_status {
            // SAFETY: forwarded C contract.
            to_status(unsafe {
                shard_init::<$T, $S>(
                    $tag, state, config, n, d, ranks, rank, particles, particles_len, workspace,
                    workspace_len, index, index_len, gradient, gradients, user_data,
                )
            })
        }

        /// Step 1 of an iteration: draws the iteration's seed and permutation key (the same on
        /// every process), computes the gradients of the process's particles, and writes one
        /// record per particle, grouped by the process that holds its slot's batch, in rank
        /// order: `out_idx[2k]` the slot and `out_idx[2k + 1]` the particle, `out_rows` `2d`
        /// values per record (position, then gradient), `counts[q]` the records for process
        /// `q`. Lengths: `out_idx_len` = 2c,
        /// `out_rows_len` = 2c·d, `counts_len` = `ranks`. Send process `q` its records (e.g.
        /// `MPI_Alltoallv`; every process receives m records).
        ///
        /// Returns `SGS_OK`, `SGS_ERR_NULL_POINTER`, `SGS_ERR_INVALID_ARGUMENT` (misaligned, or
        /// an array overlapping another or the state or its buffers), the state's validation
        /// statuses (`SGS_ERR_NOT_INITIALISED`, `SGS_ERR_BUSY`, `SGS_ERR_STATE_CORRUPTED`,
        /// `SGS_ERR_STATE_MOVED`), `SGS_ERR_ITERATION_IN_PROGRESS`, `SGS_ERR_LENGTH_MISMATCH`,
        /// `SGS_ERR_INVALID_POSITION`, `SGS_ERR_CALLBACK_ABORTED`, `SGS_ERR_GRADIENT_REJECTED`,
        /// `SGS_ERR_NON_FINITE` (a gradient). On error no iteration is under way and nothing
        /// changed. Every call's status is the process's own: agree on it (e.g. `MPI_Allreduce`
        /// with `MPI_MAX`) before exchanging, and cancel everywhere if one failed.
        ///
        /// # Safety
        /// `state` valid with its buffers and callbacks alive; the arrays valid for their
        /// lengths.
        #[no_mangle]
        pub unsafe extern "C" fn $begin(
            state: *mut $S,
            out_idx: *mut u32,
            out_idx_len: usize,
            out_rows: *mut $T,
            out_rows_len: usize,
            counts: *mut usize,
            counts_len: usize,
        ) -> sgs_status {
            // SAFETY: forwarded C contract.
            to_status(unsafe {
                shard_begin::<$T, $S>(
                    $tag, state, out_idx, out_idx_len, out_rows, out_rows_len, counts, counts_len,
                )
            })
        }

        /// Step 2: takes the m records every process sent this one (`in_idx` slot and
        /// particle, `in_rows` `2d` values each, in any order, as begin wrote them), computes
        /// the forces φ of the process's batches, and writes one record per slot, grouped by
        /// the process that holds the slot's particle: `out_idx[k]` the particle, `out_rows`
        /// its φ (`d` values), `counts[q]` the records for process `q`. Lengths: `in_idx_len`
        /// = 2m, `out_idx_len` = m, `in_rows_len` = 2m·d, `out_rows_len` = m·d, `counts_len`
        /// = `ranks`.
        ///
        /// Returns `SGS_OK`, the pointer and validation statuses as for begin,
        /// `SGS_ERR_ITERATION_NOT_BEGUN` (not after begin), `SGS_ERR_LENGTH_MISMATCH`,
        /// `SGS_ERR_RANGE_OUT_OF_BOUNDS` (a slot not this process's, or a particle ≥ N),
        /// `SGS_ERR_RANGE_OVERLAP` (a slot twice). On error the iteration stays after begin.
        ///
        /// # Safety
        /// As for begin.
        #[no_mangle]
        pub unsafe extern "C" fn $forces(
            state: *mut $S,
            in_idx: *const u32,
            in_idx_len: usize,
            in_rows: *const $T,
            in_rows_len: usize,
            out_idx: *mut u32,
            out_idx_len: usize,
            out_rows: *mut $T,
            out_rows_len: usize,
            counts: *mut usize,
            counts_len: usize,
        ) -> sgs_status {
            // SAFETY: forwarded C contract.
            to_status(unsafe {
                shard_forces::<$T, $S>(
                    $tag, state, in_idx, in_idx_len, in_rows, in_rows_len, out_idx, out_idx_len,
                    out_rows, out_rows_len, counts, counts_len,
                )
            })
        }

        /// Step 3: takes the c records of the process's particles (`in_idx` the particles,
        /// `in_rows` their φ, `d` values each, in any order), checks their moves (nothing
        /// moves yet) and writes the process's summary to `*partial`, which every process needs
        /// for commit. Lengths: `in_idx_len` = c, `in_rows_len` = c·d.
        ///
        /// Returns `SGS_OK`, the pointer and validation statuses as for begin,
        /// `SGS_ERR_ITERATION_NOT_BEGUN` (not after forces), `SGS_ERR_LENGTH_MISMATCH`,
        /// `SGS_ERR_RANGE_OUT_OF_BOUNDS`, `SGS_ERR_RANGE_OVERLAP`. On error the iteration stays
        /// after forces.
        ///
        /// # Safety
        /// As for begin; `partial` valid for a write.
        #[no_mangle]
        pub unsafe extern "C" fn $finish(
            state: *mut $S,
            in_idx: *const u32,
            in_idx_len: usize,
            in_rows: *const $T,
            in_rows_len: usize,
            partial: *mut sgs_svgd_shard_partial,
        ) -> sgs_status {
            // SAFETY: forwarded C contract.
            to_status(unsafe {
                shard_finish::<$T, $S>($tag, state, in_idx, in_idx_len, in_rows, in_rows_len, partial)
            })
        }

        #[doc = concat!(" `", stringify!($forces), "` with the m records in pieces: `parts[k]` for k <")]
        /// `parts_len`, e.g. one per sender, read where the senders' begin wrote them; the same
        /// result as with the pieces one after another in one buffer. Each piece holds whole
        /// records (`idx_len` even, `rows_len` = `idx_len`·d; empty pieces allowed), 2m indices
        /// in all. The pieces may overlap one another but not the outputs or the state's
        /// buffers. Saves the copy into one buffer where the records can be read in place
        /// (threads of one process: `examples-c/openmp_shard.c`; ranks of one node through an
        /// MPI-3 shared-memory window: `examples-c/mpi/svgd_shard_mpi.c --shared`).
        ///
        #[doc = concat!(" Returns what `", stringify!($forces), "` returns; NULL `parts` or a piece's")]
        /// NULL pointer (even for an empty piece, as for every array of the API) is
        /// `SGS_ERR_NULL_POINTER`, a misaligned one or a piece overlapping an output or the
        /// state's buffers `SGS_ERR_INVALID_ARGUMENT`, pieces of broken records or the wrong
        /// total `SGS_ERR_LENGTH_MISMATCH`. On error the iteration stays after begin.
        ///
        /// # Safety
        /// As for begin; `parts` valid for `parts_len` reads and each piece's arrays for their
        /// lengths, none of them written during the call.
        #[no_mangle]
        pub unsafe extern "C" fn $forces_parts(
            state: *mut $S,
            parts: *const $P,
            parts_len: usize,
            out_idx: *mut u32,
            out_idx_len: usize,
            out_rows: *mut $T,
            out_rows_len: usize,
            counts: *mut usize,
            counts_len: usize,
        ) -> sgs_status {
            // SAFETY: forwarded C contract.
            to_status(unsafe {
                shard_forces_parts::<$T, $S, $P>(
                    $tag, state, parts, parts_len, out_idx, out_idx_len, out_rows, out_rows_len,
                    counts, counts_len,
                )
            })
        }

        #[doc = concat!(" `", stringify!($finish), "` with the c records in pieces, as for")]
        #[doc = concat!(" `", stringify!($forces_parts), "`: each piece `rows_len` = `idx_len`·d, c indices")]
        /// in all.
        ///
        #[doc = concat!(" Returns what `", stringify!($finish), "` returns, and the pieces' statuses of")]
        #[doc = concat!(" `", stringify!($forces_parts), "`. On error the iteration stays after forces.")]
        ///
        /// # Safety
        /// As for begin; `parts` as for forces_parts (read, none written during the call);
        /// `partial` valid for a write.
        #[no_mangle]
        pub unsafe extern "C" fn $finish_parts(
            state: *mut $S,
            parts: *const $P,
            parts_len: usize,
            partial: *mut sgs_svgd_shard_partial,
        ) -> sgs_status {
            // SAFETY: forwarded C contract.
            to_status(unsafe {
                shard_finish_parts::<$T, $S, $P>($tag, state, parts, parts_len, partial)
            })
        }

        /// Step 4: with every process's summary (`partials[q]` process `q`'s, `partials_len` =
        /// `ranks`), moves the process's particles if every process's moves were finite and
        /// writes the iteration's record to `*info` (unless NULL): the same as `sgs_svgd_step`
        /// of the whole system but `mean_force`, whose sums are added in rank order.
        ///
        /// Returns `SGS_OK`, the pointer and validation statuses as for begin,
        /// `SGS_ERR_ITERATION_NOT_BEGUN` (not after finish), `SGS_ERR_LENGTH_MISMATCH` and
        /// `SGS_ERR_INVALID_ARGUMENT` (a `finite` neither 0 nor 1; both leave the iteration after
        /// finish), `SGS_ERR_NON_FINITE` (some process's moves were not finite: the iteration is
        /// cancelled, on every process alike, and nothing moved).
        ///
        /// # Safety
        /// As for begin; `partials` valid for `partials_len` reads.
        #[no_mangle]
        pub unsafe extern "C" fn $commit(
            state: *mut $S,
            partials: *const sgs_svgd_shard_partial,
            partials_len: usize,
            info: *mut sgs_svgd_info,
        ) -> sgs_status {
            // SAFETY: forwarded C contract.
            to_status(unsafe { shard_commit::<$T, $S>($tag, state, partials, partials_len, info) })
        }

        /// Abandons the iteration under way, if any: the generator is restored and nothing
        /// moved. Returns `SGS_OK` or the validation statuses.
        ///
        /// # Safety
        /// `state` valid with its buffers alive.
        #[no_mangle]
        pub unsafe extern "C" fn $cancel(state: *mut $S) -> sgs_status {
            // SAFETY: forwarded C contract.
            to_status(unsafe {
                with_shard::<$T, $S, _>($tag, state, &[], core::iter::empty(), |sc, _, _, _, _| {
                    sc.cancel()
                })
            })
        }

        /// Writes the number of iterations committed to `*iterations`. Returns `SGS_OK`,
        /// `SGS_ERR_NULL_POINTER`, `SGS_ERR_INVALID_ARGUMENT` (misaligned, or inside the state
        /// or one of its buffers) or the validation statuses.
        ///
        /// # Safety
        /// `state` valid; `iterations` valid for a write.
        #[no_mangle]
        pub unsafe extern "C" fn $iterations(state: *const $S, iterations: *mut u64) -> sgs_status {
            // SAFETY: forwarded C contract.
            to_status(unsafe { shard_iterations::<$T, $S>($tag, state, iterations) })
        }

        /// Invalidates a shard state: zeroes `*state` (later calls but init return
        /// `SGS_ERR_NOT_INITIALISED`); the buffers are not touched. Returns `SGS_OK`,
        /// `SGS_ERR_NULL_POINTER`, `SGS_ERR_INVALID_ARGUMENT` (misaligned) or `SGS_ERR_BUSY`.
        ///
        /// # Safety
        /// `state` valid for writes of the whole struct.
        #[no_mangle]
        pub unsafe extern "C" fn $clear(state: *mut $S) -> sgs_status {
            // SAFETY: forwarded C contract.
            to_status(unsafe { clear(state, $tag) })
        }
    };
}

/// `f(config)` for a readable config with known options, else 0.
///
/// # Safety
/// `config`, when non-null and aligned, must be readable.
unsafe fn with_config(
    config: *const sgs_svgd_config,
    f: impl FnOnce(&SvgdConfig<KernelChoice>) -> usize,
) -> usize {
    if check_ptr(config).is_err() {
        return 0;
    }
    // SAFETY: checked non-null and aligned; every bit pattern is a valid config.
    match config_from(unsafe { &config.read() }) {
        Ok(c) => f(&c),
        Err(_) => 0,
    }
}

/// # Safety
/// The C contract of the iterations getter.
unsafe fn shard_iterations<T: Float, S>(
    tag: u64,
    state: *const S,
    out: *mut u64,
) -> Result<(), Error> {
    check_ptr(out)?;
    // SAFETY: contract of the caller.
    let fx: ShardFixed<T> = unsafe { enter_shard(tag, state)? };
    // SAFETY: validated.
    let v = unsafe { shard_core::<T, S>(state) }.iterations();
    // SAFETY: checked non-null and aligned.
    unsafe { write_out(out, &fx.spans(state), v) }
}

/// Writes the particles and slots of process `rank` of `ranks` in a sharded system of `n`
/// particles in batches of `batch_size`: `*particle_first`, `*particle_count` (its block of the
/// particles, ⌊rank·n/ranks⌋ to ⌊(rank + 1)·n/ranks⌋) and `*slot_first`, `*slot_count` (the
/// slots of its block of the ⌊n/p⌋ batches; the last batch also holds the n mod p left over).
/// Returns `SGS_OK`, `SGS_ERR_NULL_POINTER`, `SGS_ERR_INVALID_ARGUMENT` (misaligned or
/// overlapping outputs, `rank ≥ ranks`), `SGS_ERR_ZERO_PARTICLES`, `SGS_ERR_INVALID_BATCH_SIZE`
/// (p < 2 or p > n). Nothing is written on error.
///
/// # Safety
/// The four pointers valid for a write.
#[no_mangle]
pub unsafe extern "C" fn sgs_svgd_shard_ranges(
    n: usize,
    batch_size: usize,
    ranks: usize,
    rank: usize,
    particle_first: *mut usize,
    particle_count: *mut usize,
    slot_first: *mut usize,
    slot_count: *mut usize,
) -> sgs_status {
    let outs = [particle_first, particle_count, slot_first, slot_count];
    let check = || -> Result<(), Error> {
        for p in outs {
            check_ptr(p)?;
        }
        if any_overlap(&outs.map(|p| Span::of(p, 1))) || rank >= ranks {
            return Err(Error::InvalidArgument);
        }
        if n == 0 {
            return Err(Error::ZeroParticles);
        }
        if batch_size < 2 || batch_size > n {
            return Err(Error::InvalidBatchSize);
        }
        Ok(())
    };
    if let Err(e) = check() {
        return e.into();
    }
    let own = particle_range(n, ranks, rank);
    let slots = slot_range(n, batch_size, ranks, rank);
    for (p, v) in outs
        .into_iter()
        .zip([own.start, own.len(), slots.start, slots.len()])
    {
        // SAFETY: checked non-null, aligned and disjoint.
        unsafe { p.write(v) };
    }
    sgs_status::SGS_OK
}

shard_api! {
    float = f64, ctype = "double", state = sgs_svgd_shard, tag = SHARD_F64,
    gradient_fn = sgs_gradient_fn, gradients_fn = sgs_gradients_fn,
    workspace_len = sgs_svgd_shard_workspace_len, index_len = sgs_svgd_shard_index_len,
    state_size = sgs_svgd_shard_state_size, state_align = sgs_svgd_shard_state_align,
    init = sgs_svgd_shard_init, begin = sgs_svgd_shard_begin, forces = sgs_svgd_shard_forces,
    finish = sgs_svgd_shard_finish, commit = sgs_svgd_shard_commit,
    cancel = sgs_svgd_shard_cancel, iterations = sgs_svgd_shard_iterations,
    clear = sgs_svgd_shard_clear, records = sgs_svgd_shard_records,
    forces_parts = sgs_svgd_shard_forces_parts, finish_parts = sgs_svgd_shard_finish_parts,
}

shard_api! {
    float = f32, ctype = "float", state = sgs_svgd_shard_f32, tag = SHARD_F32,
    gradient_fn = sgs_gradient_fn_f32, gradients_fn = sgs_gradients_fn_f32,
    workspace_len = sgs_svgd_shard_workspace_len_f32, index_len = sgs_svgd_shard_index_len_f32,
    state_size = sgs_svgd_shard_state_size_f32, state_align = sgs_svgd_shard_state_align_f32,
    init = sgs_svgd_shard_init_f32, begin = sgs_svgd_shard_begin_f32,
    forces = sgs_svgd_shard_forces_f32, finish = sgs_svgd_shard_finish_f32,
    commit = sgs_svgd_shard_commit_f32, cancel = sgs_svgd_shard_cancel_f32,
    iterations = sgs_svgd_shard_iterations_f32, clear = sgs_svgd_shard_clear_f32,
    records = sgs_svgd_shard_records_f32, forces_parts = sgs_svgd_shard_forces_parts_f32,
    finish_parts = sgs_svgd_shard_finish_parts_f32,
}
