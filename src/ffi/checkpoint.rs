//! Checkpoints of the chain samplers in C: `sgs_<chain>_export_len`, `…_export` and `…_import`
//! (and their `_f32` twins), generic over the core like the rest of `chain.rs`, so every chain
//! writes the same format and makes the same checks. The format is docs/design.md's
//! "Checkpoints": a fixed header, the core field by field ([`Wire`]), the used part of the
//! workspace, a checksum; little-endian fixed-width words throughout.

use super::chain::{core_mut, core_ref, enter, spans_of, tag, workspace_of, CChain, CFloat};
use super::common::*;
use crate::error::Error;
use crate::wire::{checksum, Reader, Wire, Writer};
use core::ffi::c_void;

/// The first 8 bytes of every checkpoint.
pub(crate) const MAGIC: [u8; 8] = *b"SGSCHKPT";

/// The checkpoint format version: bumped whenever what follows the header changes (a field
/// added to a core, an encoding changed), so that an old library refuses a newer file
/// (`SGS_ERR_CHECKPOINT_MISMATCH`) rather than misreading it.
pub(crate) const FORMAT_VERSION: u32 = 1;

/// Bytes before the core: magic, format version, library major and minor, sampler tag, total
/// length, d, workspace length.
pub(crate) const HEADER_LEN: usize = 8 + 4 + 2 + 2 + 8 + 8 + 8 + 8;

/// Bytes of the header up to and including the total length (what `decode` reads before the
/// checksum is known to be right).
const PREFIX_LEN: usize = HEADER_LEN - 16;

/// The checksum's bytes at the end.
const CHECKSUM_LEN: usize = 8;

/// A decimal version component at compile time.
const fn version_part(s: &str) -> u16 {
    let b = s.as_bytes();
    let mut v: u16 = 0;
    let mut i = 0;
    while i < b.len() {
        v = v * 10 + (b[i] - b'0') as u16;
        i += 1;
    }
    v
}

/// The library's major and minor version, recorded in every checkpoint (for the reader's
/// diagnosis; whether a file loads is the format version's decision).
const LIBRARY: [u16; 2] = [
    version_part(env!("CARGO_PKG_VERSION_MAJOR")),
    version_part(env!("CARGO_PKG_VERSION_MINOR")),
];

/// Writes the checkpoint of `core` over `ws` (its used part) whose total length is `len` (or,
/// with an empty `out`, just counts): everything but the checksum.
fn encode<T: CFloat + Wire, C: CChain>(core: &C, ws: &[T], len: u64, out: &mut [u8]) -> usize {
    let mut w = Writer::new(out);
    w.bytes(&MAGIC);
    w.u32(FORMAT_VERSION);
    w.bytes(&LIBRARY[0].to_le_bytes());
    w.bytes(&LIBRARY[1].to_le_bytes());
    w.u64(tag::<T, C>());
    w.u64(len);
    core.dim().put(&mut w);
    ws.len().put(&mut w);
    core.put(&mut w);
    for v in ws {
        v.put(&mut w);
    }
    w.len()
}

/// The checkpoint's length in bytes, checksum included.
fn encoded_len<T: CFloat + Wire, C: CChain>(core: &C, ws: &[T]) -> usize {
    encode::<T, C>(core, ws, 0, &mut []).saturating_add(CHECKSUM_LEN)
}

/// `sgs_…_export_len`.
///
/// # Safety
/// The C contract of `export_len`.
pub(crate) unsafe fn export_len<T: CFloat + Wire, C: CChain, S>(
    state: *const S,
    len: *mut usize,
) -> Result<(), Error> {
    check_ptr(len)?;
    // SAFETY: contract of the caller.
    let (fx, _) = unsafe { enter::<T, C, S>(state, false)? };
    // SAFETY: validated; read only, no other reference live.
    let (core, ws) = unsafe { (core_ref::<T, C, S>(state), workspace_of::<T, S>(state)) };
    let ws = ws
        .get(..core.workspace_need())
        .ok_or(Error::StateCorrupted)?;
    let n = encoded_len::<T, C>(core, ws);
    // SAFETY: checked non-null and aligned.
    unsafe { write_out(len, &spans_of(state, &fx), n) }
}

/// `sgs_…_export`: writes exactly `export_len` bytes at the start of `out`.
///
/// # Safety
/// The C contract of `export`.
pub(crate) unsafe fn export<T: CFloat + Wire, C: CChain, S>(
    state: *const S,
    out: *mut c_void,
    out_len: usize,
) -> Result<(), Error> {
    let out = out.cast::<u8>();
    check_ptr(out)?;
    // SAFETY: contract of the caller.
    let (fx, _) = unsafe { enter::<T, C, S>(state, false)? };
    // SAFETY: validated; read only, no other reference live.
    let (core, ws) = unsafe { (core_ref::<T, C, S>(state), workspace_of::<T, S>(state)) };
    let ws = ws
        .get(..core.workspace_need())
        .ok_or(Error::StateCorrupted)?;
    let n = encoded_len::<T, C>(core, ws);
    check_output(&spans_of(state, &fx), out, out_len, n)?;
    // SAFETY: a valid array of `out_len ≥ n` bytes, disjoint from the state and the workspace.
    let out = unsafe { core::slice::from_raw_parts_mut(out, n) };
    let body = encode::<T, C>(core, ws, n as u64, out);
    // Checked splits and element-wise copies: no panic path in the C library.
    let (body, sum) = out
        .split_at_mut_checked(body)
        .ok_or(Error::InvalidArgument)?;
    for (d, v) in sum.iter_mut().zip(checksum(body).to_le_bytes()) {
        *d = v;
    }
    Ok(())
}

/// A checkpoint read and judged, not applied yet.
struct Decoded<'a, C> {
    core: C,
    /// The workspace values still encoded (their count is the core's `workspace_need`).
    ws: Reader<'a>,
}

/// Every check of `import` on the bytes, for a state of dimension `d` with `ws_len` workspace
/// elements; nothing is written.
fn decode<T: CFloat + Wire, C: CChain>(
    bytes: &[u8],
    d: usize,
    ws_len: usize,
) -> Result<Decoded<'_, C>, Error> {
    let mut r = Reader::new(bytes);
    if r.array::<8>()? != MAGIC {
        return Err(Error::InvalidCheckpoint);
    }
    // The version first: a later format may change everything after it, checksum included.
    if r.u32()? != FORMAT_VERSION {
        return Err(Error::CheckpointMismatch);
    }
    let _library = r.u32()?;
    let sampler = r.u64()?;
    if r.u64()? != bytes.len() as u64 || bytes.len() < HEADER_LEN + CHECKSUM_LEN {
        return Err(Error::InvalidCheckpoint);
    }
    let (body, sum) = bytes
        .split_at_checked(bytes.len() - CHECKSUM_LEN)
        .ok_or(Error::InvalidCheckpoint)?;
    if checksum(body).to_le_bytes() != sum {
        return Err(Error::InvalidCheckpoint);
    }
    if sampler != tag::<T, C>() {
        return Err(Error::CheckpointMismatch);
    }
    let mut r = Reader::new(body);
    r.array::<PREFIX_LEN>()?;
    if usize::get(&mut r)? != d {
        return Err(Error::LengthMismatch);
    }
    let n = usize::get(&mut r)?;
    let core = C::get(&mut r)?;
    if core.dim() != d
        || n != core.workspace_need()
        || C::validate_config::<T>(core.config()).is_err()
    {
        return Err(Error::InvalidCheckpoint);
    }
    if n > ws_len {
        return Err(Error::WorkspaceTooSmall);
    }
    // A coordinate's encoding is its bits: `size_of::<T>()` bytes.
    if n.checked_mul(core::mem::size_of::<T>()) != Some(r.remaining()) {
        return Err(Error::InvalidCheckpoint);
    }
    Ok(Decoded { core, ws: r })
}

/// `sgs_…_import`: validates everything, then replaces the core and the used part of the
/// workspace; the fixed part (callbacks, `user_data`, workspace) stays the target's.
///
/// # Safety
/// The C contract of `import`.
pub(crate) unsafe fn import<T: CFloat + Wire, C: CChain, S>(
    state: *mut S,
    input: *const c_void,
    input_len: usize,
) -> Result<(), Error> {
    let input = input.cast::<u8>();
    check_ptr(input)?;
    check_array(input, input_len)?;
    // SAFETY: contract of the caller.
    let (fx, d) = unsafe { enter::<T, C, S>(state, false)? };
    let i = Span::of(input, input_len);
    if spans_of(state, &fx).iter().any(|s| Span::overlaps(&i, s)) {
        return Err(Error::InvalidArgument);
    }
    // SAFETY: checked: a valid array of `input_len` bytes, disjoint from the state and workspace.
    let bytes = unsafe { core::slice::from_raw_parts(input, input_len) };
    // SAFETY: validated; no other reference to the workspace live.
    let ws = unsafe { workspace_of::<T, S>(state) };
    let Decoded { core, ws: mut r } = decode::<T, C>(bytes, d, ws.len())?;
    // From here nothing can fail: `decode` checked the exact number of bytes left.
    let used = ws
        .get_mut(..core.workspace_need())
        .ok_or(Error::WorkspaceTooSmall)?;
    for v in used.iter_mut() {
        *v = T::get(&mut r)?;
    }
    // SAFETY: validated; the workspace slice is not a reference into the state.
    unsafe { *core_mut::<T, C, S>(state) = core };
    Ok(())
}

/// Generates `export_len`, `export` and `import` of one chain sampler for one coordinate type:
/// `checkpoint_api!(Core, T, "ctype", "Name", State, export_len export import)`.
macro_rules! checkpoint_api {
    ($Core:ty, $T:ty, $ctype:literal, $name:literal, $S:ident,
     $export_len:ident $export:ident $import:ident) => {
        #[doc = concat!(" Writes to `*len` the size in bytes of the checkpoint of the ", $name)]
        /// chain `*state` now (what `…_export` writes). It depends on d, the configuration and
        /// the warm-up's phase (it changes when the windows begin and when the warm-up ends):
        /// ask for it before each export. Returns `SGS_OK`,
        /// `SGS_ERR_NULL_POINTER`, `SGS_ERR_INVALID_ARGUMENT` (misaligned, or inside the state or
        /// the workspace), or the state's validation statuses (as for the position getter).
        ///
        /// # Safety
        /// `state` valid; `len` valid for a write.
        #[no_mangle]
        pub unsafe extern "C" fn $export_len(state: *const $S, len: *mut usize) -> $crate::ffi::sgs_status {
            // SAFETY: forwarded C contract.
            $crate::ffi::common::to_status(unsafe {
                $crate::ffi::checkpoint::export_len::<$T, $Core, $S>(state, len)
            })
        }

        #[doc = concat!(" Writes a checkpoint of the ", $name, " chain `*state` on `", $ctype, "`")]
        /// coordinates to `out`: exactly `…_export_len` bytes at its start (the rest of
        /// `out_len` is not touched). The checkpoint holds the whole chain (configuration,
        /// generator, counters, the warm-up's state, the used part of the workspace), in a
        /// portable format (docs/design.md, "Checkpoints": little-endian fixed-width words, so it
        /// loads on any platform), but not the callbacks, `user_data` or the workspace's address:
        /// `…_import` puts it into a state `init`ed with those. Returns `SGS_OK`,
        /// `SGS_ERR_NULL_POINTER`, `SGS_ERR_INVALID_ARGUMENT` (`out` overlapping the state or the
        /// workspace), `SGS_ERR_OUTPUT_TOO_SMALL` (`out_len` below `…_export_len`; nothing
        /// written), or the state's validation statuses (as for the position getter).
        ///
        /// # Safety
        /// `state` valid; `out` valid for `out_len` bytes.
        #[no_mangle]
        pub unsafe extern "C" fn $export(
            state: *const $S,
            out: *mut core::ffi::c_void,
            out_len: usize,
        ) -> $crate::ffi::sgs_status {
            // SAFETY: forwarded C contract.
            $crate::ffi::common::to_status(unsafe {
                $crate::ffi::checkpoint::export::<$T, $Core, $S>(state, out, out_len)
            })
        }

        #[doc = concat!(" Makes the ", $name, " chain `*state` continue from the checkpoint `input`")]
        #[doc = concat!(" (`input_len` bytes, exactly as `…_export` wrote them; `", $ctype, "` chains only):")]
        /// the next draws are bit for bit those the exported chain would have made. `*state` must
        /// have been `init`ed (with any configuration and start) for the same d; it keeps its
        /// callbacks, `user_data` and workspace, whose length must suffice for the checkpoint's
        /// configuration (`…_workspace_len_for`); its configuration, position, generator,
        /// counters, warm-up and workspace contents are replaced.
        ///
        /// Returns `SGS_OK`, `SGS_ERR_NULL_POINTER`, `SGS_ERR_INVALID_ARGUMENT` (`input` overlapping
        /// the state or the workspace), the state's validation statuses (as for the position
        /// getter; `SGS_ERR_BUSY` from inside the chain's callbacks),
        /// `SGS_ERR_CHECKPOINT_MISMATCH` (another checkpoint format version, sampler or float
        /// type), `SGS_ERR_INVALID_CHECKPOINT` (wrong magic, a length other than the one
        /// recorded, a checksum mismatch, a field no chain holds, a configuration `init` would
        /// refuse), `SGS_ERR_LENGTH_MISMATCH` (another d), `SGS_ERR_WORKSPACE_TOO_SMALL`.
        /// Everything is checked before anything is written: on an error the state and its
        /// workspace are unchanged.
        ///
        /// # Safety
        /// `state` valid; `input` valid for `input_len` bytes.
        #[no_mangle]
        pub unsafe extern "C" fn $import(
            state: *mut $S,
            input: *const core::ffi::c_void,
            input_len: usize,
        ) -> $crate::ffi::sgs_status {
            // SAFETY: forwarded C contract.
            $crate::ffi::common::to_status(unsafe {
                $crate::ffi::checkpoint::import::<$T, $Core, $S>(state, input, input_len)
            })
        }
    };
}
pub(crate) use checkpoint_api;
