//! Status codes, their descriptions, and the library version.

use crate::Error;
use core::ffi::c_char;

/// Success.
pub const SGS_OK: i32 = 0;
/// A required pointer was null.
pub const SGS_ERR_NULL_POINTER: i32 = 1;
/// The dimension d is zero.
pub const SGS_ERR_ZERO_DIMENSION: i32 = 2;
/// The workspace is shorter than the size query says it must be.
pub const SGS_ERR_WORKSPACE_TOO_SMALL: i32 = 3;
/// A buffer's length does not match the dimension (or particle count) it must hold.
pub const SGS_ERR_LENGTH_MISMATCH: i32 = 4;
/// The step size is not finite and positive.
pub const SGS_ERR_INVALID_STEP_SIZE: i32 = 5;
/// The friction is negative or not finite (SGHMC: or step size × friction ≥ 1).
pub const SGS_ERR_INVALID_FRICTION: i32 = 6;
/// The momentum scale sigma is not finite and positive.
pub const SGS_ERR_INVALID_MOMENTUM_SCALE: i32 = 7;
/// The number of inner steps T is zero.
pub const SGS_ERR_INVALID_STEPS: i32 = 8;
/// The initial position contains a NaN or an infinity.
pub const SGS_ERR_INVALID_POSITION: i32 = 9;
/// The energy callback rejected the initial position or returned a non-finite energy there.
pub const SGS_ERR_INITIAL_ENERGY_REJECTED: i32 = 10;
/// A callback returned ABORT; the state is the one before the call.
pub const SGS_ERR_CALLBACK_ABORTED: i32 = 11;
/// The warm-up's target acceptance is not in (0, 1).
pub const SGS_ERR_INVALID_TARGET_ACCEPTANCE: i32 = 12;
/// The interaction batch size p is below 2 or above the number of particles.
pub const SGS_ERR_INVALID_BATCH_SIZE: i32 = 13;
/// The kernel bandwidth is not finite and positive.
pub const SGS_ERR_INVALID_BANDWIDTH: i32 = 14;
/// The number of particles is zero.
pub const SGS_ERR_ZERO_PARTICLES: i32 = 15;
/// A step-rule parameter is out of range.
pub const SGS_ERR_INVALID_STEP_RULE: i32 = 16;
/// The output buffer cannot hold the requested values.
pub const SGS_ERR_OUTPUT_TOO_SMALL: i32 = 17;
/// A kernel parameter is out of range.
pub const SGS_ERR_INVALID_KERNEL: i32 = 18;
/// An enumerated option (variant, kernel kind, step rule) has an unknown value.
pub const SGS_ERR_INVALID_OPTION: i32 = 19;
/// The requested minibatch is larger than the data set, or the data set is empty.
pub const SGS_ERR_INVALID_MINIBATCH: i32 = 20;
/// The sampler state has not been initialised (its tag is wrong).
pub const SGS_ERR_NOT_INITIALISED: i32 = 21;
/// A gradient or particle became non-finite; the particles are those from before the call.
pub const SGS_ERR_NON_FINITE: i32 = 22;
/// An argument is out of range: a misaligned or overlapping buffer, or a configuration value not
/// covered by a more specific code.
pub const SGS_ERR_INVALID_ARGUMENT: i32 = 23;

/// Major version of the library (also `SGS_VERSION_STRING`, `sgs_version()`).
pub const SGS_VERSION_MAJOR: u32 = 0;
/// Minor version of the library.
pub const SGS_VERSION_MINOR: u32 = 1;
/// Patch version of the library.
pub const SGS_VERSION_PATCH: u32 = 0;

/// The static description of every status, nul-terminated, indexed by code.
const MESSAGES: [&core::ffi::CStr; 24] = [
    c"success",
    c"a required pointer is null",
    c"the dimension d is zero",
    c"the workspace is smaller than the size query requires",
    c"a buffer length does not match the dimension",
    c"the step size is not finite and positive",
    c"the friction is negative, not finite, or too large",
    c"the momentum scale sigma is not finite and positive",
    c"the number of inner steps T is zero",
    c"the initial position is not finite",
    c"the energy callback rejected the initial position or returned a non-finite value",
    c"a callback aborted; the state is the one before the call",
    c"the target acceptance is not in (0, 1)",
    c"the batch size p is below 2 or above the particle count",
    c"the kernel bandwidth is not finite and positive",
    c"the number of particles is zero",
    c"a step-rule parameter is out of range",
    c"the output buffer is too small for the requested samples",
    c"a kernel parameter is out of range",
    c"an option has an unknown value",
    c"the minibatch is larger than the data set, or it is empty",
    c"the sampler has not been initialised",
    c"a gradient or particle became non-finite; particles unchanged",
    c"an argument is out of range",
];

/// The status an [`Error`] is reported as.
pub(crate) const fn status(e: Error) -> i32 {
    e.code()
}

/// A static, nul-terminated description of a status code ("unknown status" for a value that is
/// not one). Never returns NULL; the string must not be freed.
#[no_mangle]
pub extern "C" fn sgs_status_str(status: i32) -> *const c_char {
    match usize::try_from(status) {
        Ok(i) if i < MESSAGES.len() => MESSAGES[i].as_ptr(),
        _ => c"unknown status".as_ptr(),
    }
}

/// The library version as a static, nul-terminated string "MAJOR.MINOR.PATCH", equal to
/// `SGS_VERSION_STRING` of the header the program was compiled against when the two match.
#[no_mangle]
pub extern "C" fn sgs_version() -> *const c_char {
    const V: &str = concat!(env!("CARGO_PKG_VERSION"), "\0");
    V.as_ptr().cast()
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: [Error; 23] = [
        Error::NullPointer,
        Error::ZeroDimension,
        Error::WorkspaceTooSmall,
        Error::LengthMismatch,
        Error::InvalidStepSize,
        Error::InvalidFriction,
        Error::InvalidMomentumScale,
        Error::InvalidSteps,
        Error::InvalidPosition,
        Error::InitialEnergyRejected,
        Error::CallbackAborted,
        Error::InvalidTargetAcceptance,
        Error::InvalidBatchSize,
        Error::InvalidBandwidth,
        Error::ZeroParticles,
        Error::InvalidStepRule,
        Error::OutputTooSmall,
        Error::InvalidKernel,
        Error::InvalidOption,
        Error::InvalidMinibatch,
        Error::NotInitialised,
        Error::NonFinite,
        Error::InvalidArgument,
    ];

    #[test]
    fn constants_are_the_error_codes() {
        let consts = [
            SGS_ERR_NULL_POINTER,
            SGS_ERR_ZERO_DIMENSION,
            SGS_ERR_WORKSPACE_TOO_SMALL,
            SGS_ERR_LENGTH_MISMATCH,
            SGS_ERR_INVALID_STEP_SIZE,
            SGS_ERR_INVALID_FRICTION,
            SGS_ERR_INVALID_MOMENTUM_SCALE,
            SGS_ERR_INVALID_STEPS,
            SGS_ERR_INVALID_POSITION,
            SGS_ERR_INITIAL_ENERGY_REJECTED,
            SGS_ERR_CALLBACK_ABORTED,
            SGS_ERR_INVALID_TARGET_ACCEPTANCE,
            SGS_ERR_INVALID_BATCH_SIZE,
            SGS_ERR_INVALID_BANDWIDTH,
            SGS_ERR_ZERO_PARTICLES,
            SGS_ERR_INVALID_STEP_RULE,
            SGS_ERR_OUTPUT_TOO_SMALL,
            SGS_ERR_INVALID_KERNEL,
            SGS_ERR_INVALID_OPTION,
            SGS_ERR_INVALID_MINIBATCH,
            SGS_ERR_NOT_INITIALISED,
            SGS_ERR_NON_FINITE,
            SGS_ERR_INVALID_ARGUMENT,
        ];
        for (c, e) in consts.iter().zip(ALL) {
            assert_eq!(*c, e.code(), "{e:?}");
        }
        assert_eq!(SGS_OK, 0);
    }

    #[test]
    fn messages_match_the_rust_ones() {
        for e in ALL {
            let s = unsafe { core::ffi::CStr::from_ptr(sgs_status_str(e.code())) };
            assert_eq!(s.to_str().unwrap(), e.message());
        }
        let s = unsafe { core::ffi::CStr::from_ptr(sgs_status_str(SGS_OK)) };
        assert_eq!(s.to_str().unwrap(), "success");
        for bad in [-1, 24, i32::MIN, i32::MAX] {
            let s = unsafe { core::ffi::CStr::from_ptr(sgs_status_str(bad)) };
            assert_eq!(s.to_str().unwrap(), "unknown status");
        }
    }

    #[test]
    fn version_matches_cargo_toml() {
        let want = |s: &str| s.parse::<u32>().unwrap();
        assert_eq!(SGS_VERSION_MAJOR, want(env!("CARGO_PKG_VERSION_MAJOR")));
        assert_eq!(SGS_VERSION_MINOR, want(env!("CARGO_PKG_VERSION_MINOR")));
        assert_eq!(SGS_VERSION_PATCH, want(env!("CARGO_PKG_VERSION_PATCH")));
        let s = unsafe { core::ffi::CStr::from_ptr(sgs_version()) };
        assert_eq!(s.to_str().unwrap(), env!("CARGO_PKG_VERSION"));
    }
}
