//! Errors and callback outcomes.
//!
//! Every error has a stable integer code (the C API's status values) and a static description.
//! Codes are never renumbered; new ones are appended. The table below is the **only** place a
//! status is defined: the Rust [`Error`] enum, its codes and messages, the C status enum
//! `sgs_status` with its `SGS_ERR_…` names, the C strings of `sgs_status_str`, and the README's
//! status table (checked by `tests/status_table.rs`) all come from it.

use core::fmt;

/// Defines [`Error`] and, with the `ffi` feature, the C status enum, from one table of
/// `Variant = code, SGS_NAME, "message";` rows.
macro_rules! statuses {
    ($($(#[doc = $doc:literal])* $name:ident = $code:literal, $cname:ident, $msg:literal;)*) => {
        /// Why a call failed. The sampler's state is unchanged when any of these is returned,
        /// except where a variant says otherwise.
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        #[repr(i32)]
        #[non_exhaustive]
        pub enum Error {
            $($(#[doc = $doc])* $name = $code,)*
        }

        impl Error {
            /// Every error, in code order.
            pub const ALL: &'static [Error] = &[$(Error::$name),*];

            /// The static description, with a trailing nul for C.
            const fn message_nul(self) -> &'static str {
                match self {
                    $(Error::$name => concat!($msg, "\0"),)*
                }
            }

            /// The name of the C status constant (`SGS_ERR_…`).
            pub const fn c_name(self) -> &'static str {
                match self {
                    $(Error::$name => stringify!($cname),)*
                }
            }
        }

        /// A status returned by every fallible C function: `SGS_OK` (0) or an `SGS_ERR_…`
        /// code, stable across versions. In C it is an `int32_t` (a typedef, never an `enum`
        /// of compiler-chosen size), so it may be stored in any `int32_t`.
        #[cfg(feature = "ffi")]
        #[allow(non_camel_case_types, clippy::upper_case_acronyms)]
        #[derive(Clone, Copy, Debug, PartialEq, Eq)]
        #[repr(i32)]
        pub enum sgs_status {
            /// Success.
            SGS_OK = 0,
            $($(#[doc = $doc])* $cname = $code,)*
        }

        #[cfg(feature = "ffi")]
        impl From<Error> for sgs_status {
            fn from(e: Error) -> sgs_status {
                match e {
                    $(Error::$name => sgs_status::$cname,)*
                }
            }
        }
    };
}

statuses! {
    /// A required pointer was null (C API only).
    NullPointer = 1, SGS_ERR_NULL_POINTER, "a required pointer is null";
    /// The dimension `d` is zero.
    ZeroDimension = 2, SGS_ERR_ZERO_DIMENSION, "the dimension d is zero";
    /// The workspace (or SVGD index) is shorter than the size query says it must be.
    WorkspaceTooSmall = 3, SGS_ERR_WORKSPACE_TOO_SMALL,
        "the workspace is smaller than the size query requires";
    /// A buffer's length does not match the dimension (or particle count) it must hold.
    LengthMismatch = 4, SGS_ERR_LENGTH_MISMATCH, "a buffer length does not match the dimension";
    /// The step size ε (or learning rate η) is not finite and positive.
    InvalidStepSize = 5, SGS_ERR_INVALID_STEP_SIZE, "the step size is not finite and positive";
    /// The friction β is negative or not finite (for SGHMC also: `ε·β ≥ 1`).
    InvalidFriction = 6, SGS_ERR_INVALID_FRICTION,
        "the friction is negative, not finite, or too large";
    /// The momentum scale σ is not finite and positive.
    InvalidMomentumScale = 7, SGS_ERR_INVALID_MOMENTUM_SCALE,
        "the momentum scale sigma is not finite and positive";
    /// The number of inner steps T is zero.
    InvalidSteps = 8, SGS_ERR_INVALID_STEPS, "the number of inner steps T is zero";
    /// The initial position contains a NaN or an infinity.
    InvalidPosition = 9, SGS_ERR_INVALID_POSITION, "the initial position is not finite";
    /// The energy callback rejected the initial position or returned a non-finite energy there.
    InitialEnergyRejected = 10, SGS_ERR_INITIAL_ENERGY_REJECTED,
        "the energy callback rejected the initial position or returned a non-finite value";
    /// A callback returned ABORT. The state is the one before the call: nothing was lost.
    CallbackAborted = 11, SGS_ERR_CALLBACK_ABORTED,
        "a callback aborted; the state is the one before the call";
    /// The warm-up's target acceptance δ is not in (0, 1).
    InvalidTargetAcceptance = 12, SGS_ERR_INVALID_TARGET_ACCEPTANCE,
        "the target acceptance is not in (0, 1)";
    /// The interaction batch size p is below 2 or above the number of particles.
    InvalidBatchSize = 13, SGS_ERR_INVALID_BATCH_SIZE,
        "the batch size p is below 2 or above the particle count";
    /// The kernel bandwidth h is not finite and positive.
    InvalidBandwidth = 14, SGS_ERR_INVALID_BANDWIDTH,
        "the kernel bandwidth is not finite and positive";
    /// The number of particles is zero.
    ZeroParticles = 15, SGS_ERR_ZERO_PARTICLES, "the number of particles is zero";
    /// A step-rule parameter is out of range (e.g. AdaGrad's α not in [0, 1)).
    InvalidStepRule = 16, SGS_ERR_INVALID_STEP_RULE, "a step-rule parameter is out of range";
    /// The output buffer cannot hold the requested values.
    OutputTooSmall = 17, SGS_ERR_OUTPUT_TOO_SMALL,
        "the output buffer is too small for the requested samples";
    /// A kernel parameter is out of range.
    InvalidKernel = 18, SGS_ERR_INVALID_KERNEL, "a kernel parameter is out of range";
    /// An enumerated option (variant, kernel kind, step rule kind, flag) has an unknown value.
    InvalidOption = 19, SGS_ERR_INVALID_OPTION, "an option has an unknown value";
    /// The requested minibatch is larger than the data set, or the data set is empty.
    InvalidMinibatch = 20, SGS_ERR_INVALID_MINIBATCH,
        "the minibatch is larger than the data set, or it is empty";
    /// The sampler has not been initialised (C API only: the state's tag is wrong, or the state
    /// belongs to another sampler or float type).
    NotInitialised = 21, SGS_ERR_NOT_INITIALISED, "the sampler has not been initialised";
    /// A particle's gradient, force or new position is not finite (SVGD). The particles are
    /// those from before the iteration.
    NonFinite = 22, SGS_ERR_NON_FINITE,
        "a gradient or particle became non-finite; particles unchanged";
    /// An argument is out of range: a misaligned or overlapping buffer, a size that overflows,
    /// or a configuration value not covered by a more specific code.
    InvalidArgument = 23, SGS_ERR_INVALID_ARGUMENT, "an argument is out of range";
    /// The gradient callback returned REJECT during an SVGD iteration. SVGD has no proposal to
    /// reject, so the iteration cannot be completed; the particles, history and generator are as
    /// before it.
    GradientRejected = 24, SGS_ERR_GRADIENT_REJECTED,
        "the gradient callback rejected a particle; particles unchanged";
    /// The sampler state is tagged as initialised but its fields fail their consistency check
    /// (C API only): it was overwritten, is a stale copy of an earlier `init`'s bytes, or its
    /// dimension, lengths, buffers or callbacks no longer match what `init` recorded.
    StateCorrupted = 25, SGS_ERR_STATE_CORRUPTED,
        "the sampler state is corrupted (overwritten or stale)";
    /// The sampler state was moved or copied byte-wise (`memcpy`, `realloc`, struct assignment)
    /// from where `init` put it (C API only). Make independent copies, or re-home a moved state,
    /// with the sampler's `copy` function.
    StateMoved = 26, SGS_ERR_STATE_MOVED,
        "the sampler state was moved or copied byte-wise; use the copy function";
    /// The sampler is in the middle of a call on this state (C API only): a callback called back
    /// into the sampler that called it.
    Busy = 27, SGS_ERR_BUSY,
        "the sampler is busy: a callback called back into its own sampler";
    /// A phase of an SVGD iteration (a range, forces in or out, finish, cancel) was called with no
    /// iteration begun (C API: `sgs_svgd_begin` first).
    IterationNotBegun = 28, SGS_ERR_ITERATION_NOT_BEGUN,
        "no SVGD iteration is under way: call begin first";
    /// A call that needs the whole SVGD system (`begin`, `step`, `run`, `run_scheduled`,
    /// `set_batch_size`, `force`, `init` or `copy` into it, `copy` from it, `clear`) was made
    /// while its iteration in phases is under way (C API): finish or cancel it first.
    IterationInProgress = 29, SGS_ERR_ITERATION_IN_PROGRESS,
        "an SVGD iteration is under way: finish or cancel it first";
    /// A range `[first, end)` of rows or batches has `first > end`.
    InvalidRange = 30, SGS_ERR_INVALID_RANGE,
        "a range's start is after its end";
    /// A range extends past the last row (N) or the last batch (`⌊N/p⌋`).
    RangeOutOfBounds = 31, SGS_ERR_RANGE_OUT_OF_BOUNDS,
        "a range extends past the last row or batch";
    /// A range overlaps rows or batches that another call of this iteration already took (the same
    /// range twice, or two overlapping ranges; in Rust, a second `SvgdIteration::pieces` of one
    /// iteration). Nothing was computed for the refused range.
    RangeOverlap = 32, SGS_ERR_RANGE_OVERLAP,
        "a range overlaps rows already taken in this iteration";
    /// The forces of a batch were requested before the gradients of all its rows were computed
    /// (phases out of order).
    GradientsNotReady = 33, SGS_ERR_GRADIENTS_NOT_READY,
        "a batch's gradients have not all been computed yet";
    /// `finish` was called before the forces of every batch were computed or supplied (or while a
    /// range call is still running). The iteration stays open: complete it or cancel it.
    IterationIncomplete = 34, SGS_ERR_ITERATION_INCOMPLETE,
        "finish called before every batch's forces were computed or supplied";
    /// AMAGOLD with a mass matrix (`mass` diagonal or dense) was given a warm-up of 1 to 19
    /// iterations (its first slow window would hold too few draws to estimate a variance).
    InvalidWarmup = 35, SGS_ERR_INVALID_WARMUP,
        "the warm-up is too short for the mass-matrix adaptation (needs 20 or more iterations)";
    /// A stored draw given to the diagnostics of `sgsample::draws` (`sgs_draws_…`) is NaN or
    /// infinite. Nothing was computed or written.
    NonFiniteDraws = 36, SGS_ERR_NON_FINITE_DRAWS, "a stored draw is NaN or infinite";
    /// Fewer than 4 draws per chain were given to the diagnostics of `sgsample::draws`
    /// (`sgs_draws_…`): a split chain would hold fewer than 2 draws, and neither its variance nor
    /// its lag-1 autocovariance exists. Nothing was computed or written.
    TooFewDraws = 37, SGS_ERR_TOO_FEW_DRAWS,
        "fewer than 4 draws per chain (2 per split chain)";
    /// An inverse mass matrix given to a chain is not symmetric positive definite with finite
    /// entries (a diagonal one: an entry not finite and positive).
    InvalidMass = 38, SGS_ERR_INVALID_MASS,
        "the inverse mass matrix is not symmetric positive definite with finite entries";
    /// A mass matrix was given to or asked of a chain configured for another kind (unit,
    /// diagonal or dense): a unit-mass chain has none, a diagonal one takes no dense matrix.
    MassMismatch = 39, SGS_ERR_MASS_MISMATCH,
        "the mass matrix does not match the chain's mass setting (unit, diagonal or dense)";
    /// A checkpoint given to a chain's `import` is not one its `export` wrote (C API only): wrong
    /// magic, truncated or with bytes past its end, a checksum mismatch, or a field no chain
    /// holds (an unknown enumerated value, a configuration `init` would refuse). Nothing changed.
    InvalidCheckpoint = 40, SGS_ERR_INVALID_CHECKPOINT,
        "the checkpoint is truncated, corrupted or not a checkpoint";
    /// A well-formed checkpoint of another sampler, coordinate type (`double`/`float`) or
    /// checkpoint format version was given to a chain's `import` (C API only). Nothing changed.
    CheckpointMismatch = 41, SGS_ERR_CHECKPOINT_MISMATCH,
        "the checkpoint is of another sampler, float type or format version";
    /// A TunaMH term's energy difference `Uᵢ(θ′) − Uᵢ(θ)` exceeded the bound the chain was
    /// configured with (`bound·‖θ′ − θ‖₂`, past a relative rounding slack of 10⁻⁹): the
    /// sampler's exactness rests on that bound, so the step is refused instead of run biased.
    /// Nothing changed (the chain stays where it was, its generator too).
    BoundExceeded = 42, SGS_ERR_BOUND_EXCEEDED,
        "a term's energy difference exceeds the bound it was declared to have";
    /// A TunaMH hyperparameter is out of range: the per-term bound c or the batch constant χ is
    /// not finite and positive, or the number of terms N is zero.
    InvalidBound = 43, SGS_ERR_INVALID_BOUND,
        "the per-term bound, the batch constant or the number of terms is out of range";
}

impl Error {
    /// The stable status code (the C API's `SGS_ERR_…` value).
    pub const fn code(self) -> i32 {
        self as i32
    }

    /// A static, human-readable description.
    pub fn message(self) -> &'static str {
        let s = self.message_nul();
        s.strip_suffix('\0').unwrap_or(s)
    }

    /// The description as a nul-terminated C string (for `sgs_status_str`).
    #[cfg(feature = "ffi")]
    pub(crate) fn message_c(self) -> &'static core::ffi::CStr {
        // The macro appends exactly one nul and the messages contain none.
        core::ffi::CStr::from_bytes_with_nul(self.message_nul().as_bytes()).unwrap_or(c"")
    }

    /// The error with this code, if there is one.
    pub fn from_code(code: i32) -> Option<Error> {
        Error::ALL.iter().copied().find(|e| e.code() == code)
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.message())
    }
}

#[cfg(feature = "std")]
impl std::error::Error for Error {}

/// What a callback returns instead of a value.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Stop {
    /// The point is outside the target's domain (or the value cannot be computed there): the
    /// proposal is rejected, as an ordinary Metropolis–Hastings rejection would reject it.
    Reject,
    /// Stop now: the call returns [`Error::CallbackAborted`] and the sampler keeps the state it
    /// had before the call.
    Abort,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn codes_are_dense_and_messages_plain() {
        for (i, e) in Error::ALL.iter().enumerate() {
            assert_eq!(e.code(), i as i32 + 1, "{e:?}");
            assert_eq!(Error::from_code(e.code()), Some(*e));
            assert!(!e.message().is_empty() && !e.message().contains('\0'));
            assert!(e.c_name().starts_with("SGS_ERR_"));
        }
        assert_eq!(Error::from_code(0), None);
    }
}
