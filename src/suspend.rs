//! A step cut at its callbacks, for batch runs (`sgs_…_run_batch`): instead of calling its model,
//! a suspended step hands back what it needs next (a gradient at a point of its workspace, or the
//! energy there) and is resumed with the answer. The same pieces of arithmetic run in the same
//! order as in the sampler's own `step` (they are the functions `step` calls), so a suspended
//! step gives the same bits; what it saves over replaying the step (`ffi::batch`) is the
//! recomputation of the step's prefix at each call.
//!
//! The cut is not part of the public API: only the batch engine drives it, with the step's
//! position kept in the batch's scratch ([`Suspended::to_words`]).

use crate::chain::ChainKind;
use crate::error::{Error, Stop};
use crate::float::Float;
use crate::rng::Checkpoint;

/// What a suspended step waits for, or its result.
pub(crate) enum Ask<I> {
    /// The stochastic gradient at the step's pending point, with the minibatch seed
    /// [`Suspended::seed`].
    Gradient,
    /// The energy at the step's pending point.
    Energy,
    /// The step is over.
    Done(I),
}

/// The answer a suspended step is resumed with.
pub(crate) enum Answer<'a, T> {
    /// The gradient callback's verdict and, when `Ok`, the gradient (d values).
    Gradient(Result<(), Stop>, &'a [T]),
    /// The energy callback's verdict and value.
    Energy(Result<f64, Stop>),
}

/// Where a suspended step is: its inner step, the inner steps it runs, ρ so far, where the
/// step's draws have brought the generator, and what it waits for. The trajectory's vectors are
/// in the workspace, as in an uncut step. The chain's own generator stays where the step began
/// until the step is done, so a chain whose suspended step is dropped (an abort, a corrupted
/// scratch) is exactly as before the step.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Suspended {
    pub(crate) t: u32,
    pub(crate) steps: u32,
    pub(crate) rho: f64,
    pub(crate) running: Checkpoint,
    /// [`Suspended::GRADIENT`] or [`Suspended::ENERGY`].
    pub(crate) waiting: u32,
    /// The seed of a pending gradient.
    pub(crate) seed: u64,
}

impl Suspended {
    /// Words of [`Suspended::to_words`].
    pub(crate) const WORDS: usize = 7;
    /// Waits for a gradient.
    pub(crate) const GRADIENT: u32 = 1;
    /// Waits for an energy.
    pub(crate) const ENERGY: u32 = 2;
    /// Where [`Suspended::to_words`] puts what the step waits for and the seed.
    pub(crate) const WAITING_AT: usize = 4;
    /// See [`Suspended::WAITING_AT`].
    pub(crate) const SEED_AT: usize = 5;

    /// As plain words, for the batch's scratch; the last is a check of the others (the scratch
    /// is the caller's memory, next to the rows its callbacks write).
    pub(crate) fn to_words(self) -> [u64; Self::WORDS] {
        let [lo, hi] = self.running.to_words();
        let w = [
            u64::from(self.t) | (u64::from(self.steps) << 32),
            self.rho.to_bits(),
            lo,
            hi,
            u64::from(self.waiting),
            self.seed,
        ];
        let [a, b, c, d, e, f] = w;
        [a, b, c, d, e, f, check(&w)]
    }

    /// Back from [`Suspended::to_words`]; `None` when the check word does not match.
    pub(crate) fn from_words(w: &[u64; Self::WORDS]) -> Option<Self> {
        let [ts, rho, lo, hi, waiting, seed, chk] = *w;
        if chk != check(&[ts, rho, lo, hi, waiting, seed]) {
            return None;
        }
        Some(Suspended {
            t: ts as u32,
            steps: (ts >> 32) as u32,
            rho: f64::from_bits(rho),
            running: Checkpoint::from_words([lo, hi]),
            waiting: waiting as u32,
            seed,
        })
    }
}

/// The check word of a suspended step's words: each folded in by a bijective mix (so a change
/// of any one word always changes the check; more than one is missed with odds 2⁻⁶⁴). One
/// multiply per word: the check is made twice per callback of every chain.
fn check(w: &[u64]) -> u64 {
    w.iter().fold(0x5375_7370_656e_6465, |h, &x| {
        let h = (h ^ x).wrapping_mul(0x9e37_79b9_7f4a_7c15);
        h ^ (h >> 32)
    })
}

/// A chain core whose step can be cut at its callbacks. A sampler whose steps are not cut keeps
/// the defaults: `can_suspend` is false, and the batch engine then never calls the others (they
/// refuse, as for a state that does not match).
pub(crate) trait Suspend<T: Float>: ChainKind {
    /// Whether the next step can be cut (else the batch engine replays it).
    fn can_suspend(&self) -> bool {
        false
    }
    /// Starts the next step: up to its first callback, or to its end.
    fn begin(&mut self, _ws: &mut [T]) -> Result<(Suspended, Ask<Self::Info>), Error> {
        Err(Error::StateCorrupted)
    }
    /// The point a suspended step's pending request is at.
    fn pending_point<'w>(&self, _ws: &'w [T]) -> &'w [T] {
        &[]
    }
    /// Goes on with `answer` to the next callback or the end. On `Err` the chain is as before
    /// the step.
    fn resume(
        &mut self,
        _ws: &mut [T],
        _s: &mut Suspended,
        _answer: Answer<'_, T>,
    ) -> Result<Ask<Self::Info>, Error> {
        Err(Error::StateCorrupted)
    }
}

impl<T: Float> Suspend<T> for crate::SghmcCore {}
impl<T: Float> Suspend<T> for crate::SgldCore {}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn words_round_trip_and_any_changed_bit_is_caught() {
        let s = Suspended {
            t: 3,
            steps: 11,
            rho: -0.25,
            running: Checkpoint::from_words([7, 9]),
            waiting: Suspended::ENERGY,
            seed: 0xdead_beef,
        };
        let w = s.to_words();
        assert_eq!(w[Suspended::WAITING_AT], u64::from(Suspended::ENERGY));
        assert_eq!(w[Suspended::SEED_AT], 0xdead_beef);
        let b = Suspended::from_words(&w).expect("intact words pass");
        assert_eq!(b.to_words(), w);
        for i in 0..Suspended::WORDS {
            for bit in 0..64 {
                let mut x = w;
                x[i] ^= 1 << bit;
                assert!(Suspended::from_words(&x).is_none(), "word {i} bit {bit}");
            }
        }
    }
}
