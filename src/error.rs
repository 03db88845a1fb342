//! Errors and callback outcomes.
//!
//! Every error has a stable integer code (the C API's status values) and a static description.
//! Codes are never renumbered; new ones are appended.

use core::fmt;

/// Why a call failed. The sampler's state is unchanged when any of these is returned, except
/// where a variant says otherwise.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(i32)]
#[non_exhaustive]
pub enum Error {
    /// A required pointer was null (C API only).
    NullPointer = 1,
    /// The dimension `d` is zero.
    ZeroDimension = 2,
    /// The workspace is shorter than the size query says it must be.
    WorkspaceTooSmall = 3,
    /// A buffer's length does not match the dimension (or particle count) it must hold.
    LengthMismatch = 4,
    /// The step size ε (or learning rate η) is not finite and positive.
    InvalidStepSize = 5,
    /// The friction β is negative or not finite (for SGHMC also: `ε·β ≥ 1`).
    InvalidFriction = 6,
    /// The momentum scale σ is not finite and positive.
    InvalidMomentumScale = 7,
    /// The number of inner steps T is zero.
    InvalidSteps = 8,
    /// The initial position contains a NaN or an infinity.
    InvalidPosition = 9,
    /// The energy callback rejected the initial position or returned a non-finite energy there.
    InitialEnergyRejected = 10,
    /// A callback returned ABORT. The state is the one before the call: nothing was lost.
    CallbackAborted = 11,
    /// The warm-up's target acceptance δ is not in (0, 1).
    InvalidTargetAcceptance = 12,
    /// The interaction batch size p is below 2 or above the number of particles.
    InvalidBatchSize = 13,
    /// The kernel bandwidth h is not finite and positive.
    InvalidBandwidth = 14,
    /// The number of particles is zero.
    ZeroParticles = 15,
    /// A step-rule parameter is out of range (e.g. AdaGrad's α not in [0, 1)).
    InvalidStepRule = 16,
    /// The output buffer cannot hold the requested samples.
    OutputTooSmall = 17,
    /// A kernel parameter is out of range.
    InvalidKernel = 18,
    /// An enumerated option (variant, kernel kind, step rule kind) has an unknown value.
    InvalidOption = 19,
    /// The requested minibatch is larger than the data set, or the data set is empty.
    InvalidMinibatch = 20,
    /// The sampler has not been initialised (C API only: the state's tag is wrong).
    NotInitialised = 21,
    /// A particle's gradient or a particle position became non-finite. The particles are those
    /// from before the iteration.
    NonFinite = 22,
    /// A configuration has an out-of-range value not covered by a more specific code.
    InvalidArgument = 23,
}

impl Error {
    /// The stable status code (the C API's `SGS_ERR_…` value).
    pub const fn code(self) -> i32 {
        self as i32
    }

    /// A static, human-readable description.
    pub const fn message(self) -> &'static str {
        match self {
            Error::NullPointer => "a required pointer is null",
            Error::ZeroDimension => "the dimension d is zero",
            Error::WorkspaceTooSmall => "the workspace is smaller than the size query requires",
            Error::LengthMismatch => "a buffer length does not match the dimension",
            Error::InvalidStepSize => "the step size is not finite and positive",
            Error::InvalidFriction => "the friction is negative, not finite, or too large",
            Error::InvalidMomentumScale => "the momentum scale sigma is not finite and positive",
            Error::InvalidSteps => "the number of inner steps T is zero",
            Error::InvalidPosition => "the initial position is not finite",
            Error::InitialEnergyRejected => {
                "the energy callback rejected the initial position or returned a non-finite value"
            }
            Error::CallbackAborted => "a callback aborted; the state is the one before the call",
            Error::InvalidTargetAcceptance => "the target acceptance is not in (0, 1)",
            Error::InvalidBatchSize => "the batch size p is below 2 or above the particle count",
            Error::InvalidBandwidth => "the kernel bandwidth is not finite and positive",
            Error::ZeroParticles => "the number of particles is zero",
            Error::InvalidStepRule => "a step-rule parameter is out of range",
            Error::OutputTooSmall => "the output buffer is too small for the requested samples",
            Error::InvalidKernel => "a kernel parameter is out of range",
            Error::InvalidOption => "an option has an unknown value",
            Error::InvalidMinibatch => "the minibatch is larger than the data set, or it is empty",
            Error::NotInitialised => "the sampler has not been initialised",
            Error::NonFinite => "a gradient or particle became non-finite; particles unchanged",
            Error::InvalidArgument => "an argument is out of range",
        }
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
