//! Random numbers for a callback and for the samplers' own sweeps, from the library's one
//! generator ([`Rng`], PCG64-DXSM) and its exact Ziggurat normal.
//!
//! [`normal_from_seed`] and [`uniform_from_seed`] turn the minibatch seed a gradient callback
//! receives into reproducible noise (for a model whose gradient is itself random, e.g. a
//! simulated likelihood): a pure function of `(seed, n)`, the same bits in Rust, in C
//! (`sgs_normal`, `sgs_uniform`) and in every binding, at native speed. Each has its own stream
//! ([`NORMAL_STREAM`], [`UNIFORM_STREAM`]), apart from [`minibatch`](crate::minibatch())'s
//! ([`MINIBATCH_STREAM`](crate::MINIBATCH_STREAM)), so that one seed can give a callback its
//! data indices, its normals and its uniforms without correlating them.
//!
//! The per-coordinate update with friction noise that AMAGOLD, SGHMC and SGLD share
//! (crate-internal `sweep`): for each coordinate in index order, the next normal `z` of the
//! stream (or no draw at all when the sampler has no noise), then the sampler's own update of
//! that coordinate. Written once so that the loop stays lean in every sampler: the "noise or
//! not" choice is made once per sweep, not per coordinate; the coordinates' slices are walked
//! together by iterators (no bounds checks); and the generator is copied into a local for the
//! sweep, so that its state stays in registers instead of going through memory (the sampler's
//! state) on every draw. Only the Ziggurat's rare wedge/tail branch remains inside, out of line.

use crate::float::Float;
use crate::rng::Rng;

/// `update(item, z)` for each item in order, with `z = Some(the next normal)` (drawn by
/// [`Rng::normal_as`], in index order) when `noisy`, and `z = None` (nothing drawn) otherwise.
#[inline]
pub(crate) fn sweep<T: Float, I: Iterator>(
    rng: &mut Rng,
    noisy: bool,
    items: I,
    mut update: impl FnMut(I::Item, Option<T>),
) {
    if noisy {
        let mut local = rng.clone();
        for item in items {
            update(item, Some(local.normal_as::<T>()));
        }
        *rng = local;
    } else {
        for item in items {
            update(item, None);
        }
    }
}

/// Stream id of [`normal_from_seed`]'s generator: `b"gaussian"` as a big-endian integer.
pub const NORMAL_STREAM: u64 = 0x6761_7573_7369_616e;
/// Stream id of [`uniform_from_seed`]'s generator: `b"uniforms"` as a big-endian integer.
pub const UNIFORM_STREAM: u64 = 0x756e_6966_6f72_6d73;

/// Fills `out` with standard normals as a pure function of `(seed, out.len())`: the generator
/// [`Rng::new`]`(seed, `[`NORMAL_STREAM`]`)`, then `out[0]`, `out[1]`, … in index order, each
/// [`Rng::normal`] (the exact 128-layer Ziggurat the chains draw their noise with; one word per
/// draw but for its rare wedge and tail, which take more) rounded once to `T`. A prefix of a
/// longer fill is the shorter fill, and the `f32` values are the `f64` ones rounded.
///
/// ```
/// use sgsample::noise::normal_from_seed;
/// let mut z = [0.0f64; 3];
/// normal_from_seed(42, &mut z);
/// let mut again = [0.0f64; 2];
/// normal_from_seed(42, &mut again);
/// assert_eq!(z[..2], again);
/// ```
pub fn normal_from_seed<T: Float>(seed: u64, out: &mut [T]) {
    let mut rng = Rng::new(seed, NORMAL_STREAM);
    for v in out.iter_mut() {
        *v = rng.normal_as::<T>();
    }
}

/// Fills `out` with uniforms in `[0, 1)` as a pure function of `(seed, out.len())`: the
/// generator [`Rng::new`]`(seed, `[`UNIFORM_STREAM`]`)`, then one 64-bit word per value in index
/// order, whose top 53 bits (`f64`: [`Rng::uniform_f64`]) or top 24 bits (`f32`:
/// [`Rng::uniform_f32`]) scaled by 2⁻⁵³ or 2⁻²⁴ give the value: every value exact in `T`, 1
/// never reached, and the `f32` values the `f64` ones truncated to 24 bits.
///
/// ```
/// use sgsample::noise::uniform_from_seed;
/// let mut u = [0.0f32; 4];
/// uniform_from_seed(7, &mut u);
/// assert!(u.iter().all(|&x| (0.0..1.0).contains(&x)));
/// ```
pub fn uniform_from_seed<T: Float>(seed: u64, out: &mut [T]) {
    let mut rng = Rng::new(seed, UNIFORM_STREAM);
    let single = T::EPSILON == f64::from(f32::EPSILON);
    for v in out.iter_mut() {
        *v = if single {
            T::from_f64(f64::from(rng.uniform_f32()))
        } else {
            T::from_f64(rng.uniform_f64())
        };
    }
}
