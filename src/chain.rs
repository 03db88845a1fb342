//! One shape for every Markov-chain sampler: AMAGOLD, SGHMC and SGLD are the same kind of
//! object, and so is the next one (plain HMC, SGNHT, …).
//!
//! A chain sampler is two parts:
//!
//! * its **core**, plain data (configuration, generator, counters) that implements
//!   [`ChainKind`] and [`ChainStep`]: `start` checks everything and fills the workspace, `step`
//!   runs one outer iteration over the workspace and is all-or-nothing on error;
//! * its **workspace**, one caller slice of [`ChainKind::workspace_len`]`(d)` coordinates whose
//!   first `d` values are always the current position.
//!
//! [`Chain`] pairs the two for Rust callers ([`Amagold`](crate::Amagold),
//! [`Sghmc`](crate::Sghmc) and [`Sgld`](crate::Sgld) are `Chain`s), and the C layer
//! (`src/ffi/chain.rs`) pairs the same core with caller memory. Both run through one loop
//! ([`crate::run`]), so `run` means the same in Rust and in C. Adding a sampler is a core file
//! that implements these two traits, plus a short C mapping.

use crate::error::{Error, Stop};
use crate::float::{all_finite, copy, Float};
use crate::model::Gradient;
use crate::rng::Rng;
use crate::run::{run_rows, Outcome, RunError, RunSummary, StepInfo};

mod sealed {
    pub trait Sealed {}
}
pub(crate) use sealed::Sealed;

/// What a chain sampler's core is, independent of coordinate type and model. Sealed: implemented
/// by the library's samplers only.
pub trait ChainKind: Sized + Sealed {
    /// The hyperparameters.
    type Config: Copy;
    /// What one outer iteration reports.
    type Info: StepInfo;
    /// Workspace coordinates for dimension `d` (saturating; the position is the first `d`).
    fn workspace_len(d: usize) -> usize;
    /// Workspace coordinates this started chain uses: `workspace_len(dim)` unless its
    /// configuration asks for more (a mass matrix or preconditioner, AMAGOLD's warm-up). What a
    /// copy of the chain must copy and what a stored C state is checked against.
    fn workspace_need(&self) -> usize {
        Self::workspace_len(self.dim())
    }
    /// Workspace coordinates a chain of dimension `d` started with `config` needs:
    /// `workspace_len(d)` unless the configuration asks for more (a mass matrix or
    /// preconditioner, AMAGOLD's warm-up). What a caller that starts chains for any
    /// configuration should allocate.
    fn workspace_len_for(config: &Self::Config, d: usize) -> usize;
    /// The dimension d.
    fn dim(&self) -> usize;
    /// Outer iterations done since `start`.
    fn iterations(&self) -> u64;
    /// Divergent iterations since `start`.
    fn divergences(&self) -> u64;
    /// The configuration the chain was started with.
    fn config(&self) -> &Self::Config;
}

/// Starting and stepping a chain on coordinates `T` with the model `M` (a
/// [`Gradient`], or for AMAGOLD a [`Potential`](crate::Potential)).
pub trait ChainStep<T: Float, M: ?Sized>: ChainKind {
    /// Checks the configuration and the buffers, then (only then) writes the workspace. The
    /// dimension is `theta0.len()`.
    fn start(
        config: &Self::Config,
        theta0: &[T],
        workspace: &mut [T],
        model: &mut M,
    ) -> Result<Self, Error>;

    /// One outer iteration. On `Err` the chain is exactly as before the call, its generator
    /// included, so a retry repeats the same draws.
    fn step(&mut self, workspace: &mut [T], model: &mut M) -> Result<Self::Info, Error>;
}

/// What one outer iteration of a chain without an accept test (SGHMC, SGLD) did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ChainInfo {
    /// [`Outcome::Accepted`]: the trajectory was kept. [`Outcome::OutOfDomain`]: the gradient
    /// callback returned REJECT and the iteration was discarded (the chain stayed where it was;
    /// the generator moved on). [`Outcome::Divergent`]: a gradient or an update was not finite;
    /// discarded likewise and counted.
    pub outcome: Outcome,
    /// Outer iterations done since `new`, this one included.
    pub iteration: u64,
    /// Divergent iterations since `new`.
    pub divergences: u64,
}

impl StepInfo for ChainInfo {
    fn outcome(&self) -> Outcome {
        self.outcome
    }
}

/// The checks every chain's `start` makes, in this order: d ≠ 0, a workspace of `per_d·d`
/// coordinates, the configuration, a finite θ₀. Returns d.
pub(crate) fn check_start<T: Float>(
    theta0: &[T],
    ws_len: usize,
    per_d: usize,
    config: Result<(), Error>,
) -> Result<usize, Error> {
    let d = theta0.len();
    if d == 0 {
        return Err(Error::ZeroDimension);
    }
    match d.checked_mul(per_d) {
        Some(n) if ws_len >= n => {}
        _ => return Err(Error::WorkspaceTooSmall),
    }
    config?;
    if !all_finite(theta0) {
        return Err(Error::InvalidPosition);
    }
    Ok(d)
}

/// The counters of a chain without an accept test, and how one of its trajectories ends: a
/// REJECT discards it (out of domain), a non-finite end discards it as a divergence (NaN and ∞
/// propagate through the updates, so the end shows a bad value anywhere along it), else `keep`
/// copies it into the chain.
#[derive(Clone, Debug, Default)]
pub(crate) struct Counters {
    pub(crate) iterations: u64,
    pub(crate) divergences: u64,
}

#[cfg(feature = "ffi")]
crate::wire::wire_struct!(Counters {
    iterations,
    divergences
});

impl Counters {
    pub(crate) fn finish(
        &mut self,
        rejected: bool,
        finite: bool,
        keep: impl FnOnce(),
    ) -> ChainInfo {
        let outcome = if rejected {
            Outcome::OutOfDomain
        } else if !finite {
            Outcome::Divergent
        } else {
            keep();
            Outcome::Accepted
        };
        self.iterations += 1;
        self.divergences += (outcome == Outcome::Divergent) as u64;
        ChainInfo {
            outcome,
            iteration: self.iterations,
            divergences: self.divergences,
        }
    }
}

/// `ChainKind` for a core with fields `d`, `cfg` and methods `iterations()`, `divergences()`;
/// with `need = f`, `workspace_need` is `f(&core)`.
macro_rules! chain_kind {
    ($Core:ty, $Config:ty, $Info:ty, $ws_len:path) => {
        $crate::chain::chain_kind!(
            $Core,
            $Config,
            $Info,
            $ws_len,
            need = |c: &$Core| { $ws_len(c.d) }
        );
    };
    ($Core:ty, $Config:ty, $Info:ty, $ws_len:path, need = $need:expr) => {
        $crate::chain::chain_kind!(
            $Core,
            $Config,
            $Info,
            $ws_len,
            need = $need,
            len_for = |_: &$Config, d: usize| { $ws_len(d) }
        );
    };
    ($Core:ty, $Config:ty, $Info:ty, $ws_len:path, need = $need:expr, len_for = $len_for:expr) => {
        impl $crate::chain::Sealed for $Core {}

        impl $crate::chain::ChainKind for $Core {
            type Config = $Config;
            type Info = $Info;
            fn workspace_len(d: usize) -> usize {
                $ws_len(d)
            }
            fn workspace_need(&self) -> usize {
                ($need)(self)
            }
            fn workspace_len_for(config: &$Config, d: usize) -> usize {
                ($len_for)(config, d)
            }
            fn dim(&self) -> usize {
                self.d
            }
            fn iterations(&self) -> u64 {
                <$Core>::iterations(self)
            }
            fn divergences(&self) -> u64 {
                <$Core>::divergences(self)
            }
            fn config(&self) -> &$Config {
                &self.cfg
            }
        }
    };
}
pub(crate) use chain_kind;

/// What a chain that needs only a gradient (SGHMC, SGLD) adds to its core's inherent `new` and
/// `step`: the `ChainStep` impl (the model is not asked at start) and, on its `Chain` alias, the
/// `const fn workspace_len` and `new`. `gradient_chain!(Core, Config, per_d)`.
macro_rules! gradient_chain {
    ($Core:ident, $Config:ty, $per_d:literal) => {
        impl<T: Float, G: Gradient<T> + ?Sized> $crate::chain::ChainStep<T, G> for $Core {
            fn start(cfg: &$Config, theta0: &[T], ws: &mut [T], _model: &mut G) -> Result<Self, Error> {
                $Core::new(cfg, theta0, ws)
            }
            fn step(&mut self, ws: &mut [T], model: &mut G) -> Result<ChainInfo, Error> {
                $Core::step(self, ws, model)
            }
        }

        impl<'a, T: Float> Chain<'a, T, $Core> {
            #[doc = concat!(" Workspace length for dimension `d`: `", stringify!($per_d), "·d`, what the default")]
            /// configuration needs (a diagonal preconditioner needs more:
            /// `workspace_len_for`).
            pub const fn workspace_len(d: usize) -> usize {
                d.saturating_mul($per_d)
            }

            #[doc = concat!(" Validates and starts the chain at θ₀ (dimension `theta0.len()`; the workspace needs `", stringify!($per_d), "·d`")]
            /// coordinates, or `workspace_len_for(config, d)` with a diagonal preconditioner; it
            /// may be longer). Draws what the sampler's module docs say it draws at the start.
            pub fn new(config: &$Config, theta0: &[T], workspace: &'a mut [T]) -> Result<Self, Error> {
                let core = $Core::new(config, theta0, workspace)?;
                Ok(Chain { core, ws: workspace })
            }
        }
    };
}
pub(crate) use gradient_chain;

/// Calls the gradient of one inner step: `Ok(true)` when computed, `Ok(false)` on REJECT; on
/// ABORT the generator goes back to `saved` (the iteration's start) and the error is returned.
pub(crate) fn gradient_or_rollback<T: Float, G: Gradient<T> + ?Sized>(
    model: &mut G,
    x: &[T],
    seed: u64,
    g: &mut [T],
    rng: &mut Rng,
    saved: &Rng,
) -> Result<bool, Error> {
    match model.gradient(x, seed, g) {
        Ok(()) => Ok(true),
        Err(Stop::Reject) => Ok(false),
        Err(Stop::Abort) => {
            *rng = saved.clone();
            Err(Error::CallbackAborted)
        }
    }
}

/// The one run loop of every chain: `out.len() / d` steps, the position after each copied into
/// the next row of `out`.
pub(crate) fn run_chain<T: Float, M: ?Sized, C: ChainStep<T, M>>(
    core: &mut C,
    ws: &mut [T],
    model: &mut M,
    out: &mut [T],
) -> Result<RunSummary<C::Info>, RunError<C::Info>> {
    run_rows(core.dim(), out, |row| {
        let info = core.step(ws, model)?;
        copy(row, ws);
        Ok(info)
    })
}

/// A chain sampler over a caller-supplied workspace: the core `C` of one of the library's
/// samplers paired with its workspace. Each sampler adds its own `new` and a `const fn
/// workspace_len(d)` (usable in a `static` array length). Use it through its aliases
/// [`Amagold`](crate::Amagold), [`Sghmc`](crate::Sghmc), [`Sgld`](crate::Sgld).
pub struct Chain<'a, T: Float, C> {
    pub(crate) core: C,
    pub(crate) ws: &'a mut [T],
}

impl<'a, T: Float, C: ChainKind> Chain<'a, T, C> {
    /// Starts the chain at `theta0` (see each sampler's `new`, which calls this).
    pub(crate) fn start<M: ?Sized>(
        config: &C::Config,
        theta0: &[T],
        workspace: &'a mut [T],
        model: &mut M,
    ) -> Result<Self, Error>
    where
        C: ChainStep<T, M>,
    {
        let core = C::start(config, theta0, workspace, model)?;
        Ok(Chain {
            core,
            ws: workspace,
        })
    }

    /// One outer iteration. On `Err` the chain is exactly as before the call, its generator
    /// included, so retrying repeats the same draws.
    pub fn step<M: ?Sized>(&mut self, model: &mut M) -> Result<C::Info, Error>
    where
        C: ChainStep<T, M>,
    {
        self.core.step(self.ws, model)
    }

    /// Fills `out` (length a multiple of d) with `out.len() / d` successive positions, row by
    /// row. On error, [`RunError::partial`] has the totals of the rows written before it; the
    /// failed iteration changed nothing.
    pub fn run<M: ?Sized>(
        &mut self,
        model: &mut M,
        out: &mut [T],
    ) -> Result<RunSummary<C::Info>, RunError<C::Info>>
    where
        C: ChainStep<T, M>,
    {
        run_chain(&mut self.core, self.ws, model, out)
    }

    /// The current position θ (d values).
    pub fn position(&self) -> &[T] {
        self.ws.get(..self.core.dim()).unwrap_or(&[])
    }

    /// The dimension d.
    pub fn dim(&self) -> usize {
        self.core.dim()
    }

    /// Outer iterations done.
    pub fn iterations(&self) -> u64 {
        self.core.iterations()
    }

    /// Divergent iterations so far.
    pub fn divergences(&self) -> u64 {
        self.core.divergences()
    }

    /// The configuration the chain was started with.
    pub fn config(&self) -> &C::Config {
        self.core.config()
    }

    /// Block `k` (of `d` values) of the workspace: 0 is the position; what the others hold is
    /// each sampler's business.
    pub(crate) fn block(&self, k: usize) -> &[T] {
        let d = self.core.dim();
        self.ws
            .get(k.saturating_mul(d)..k.saturating_add(1).saturating_mul(d))
            .unwrap_or(&[])
    }
}
