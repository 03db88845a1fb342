//! The status type and its descriptions (defined once, in `src/error.rs`), and the library
//! version.

use crate::Error;
use core::ffi::c_char;

pub use crate::error::sgs_status;

/// Major version of the library (also `SGS_VERSION_STRING`, `sgs_version()`).
pub const SGS_VERSION_MAJOR: u32 = 0;
/// Minor version of the library.
pub const SGS_VERSION_MINOR: u32 = 7;
/// Patch version of the library.
pub const SGS_VERSION_PATCH: u32 = 0;

/// A static, nul-terminated description of a status code ("unknown status" for a value that is
/// not one). Never returns NULL; the string must not be freed.
#[no_mangle]
pub extern "C" fn sgs_status_str(status: i32) -> *const c_char {
    match Error::from_code(status) {
        Some(e) => e.message_c().as_ptr(),
        None if status == 0 => c"success".as_ptr(),
        None => c"unknown status".as_ptr(),
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

    #[test]
    fn statuses_are_the_error_codes_with_their_messages() {
        for &e in Error::ALL {
            assert_eq!(sgs_status::from(e) as i32, e.code(), "{e:?}");
            // SAFETY: sgs_status_str returns a static nul-terminated string.
            let s = unsafe { core::ffi::CStr::from_ptr(sgs_status_str(e.code())) };
            assert_eq!(s.to_str().unwrap(), e.message());
        }
        assert_eq!(sgs_status::SGS_OK as i32, 0);
        // SAFETY: as above.
        let s = unsafe { core::ffi::CStr::from_ptr(sgs_status_str(0)) };
        assert_eq!(s.to_str().unwrap(), "success");
        // Past the largest code (not the count: codes may have a gap while another branch
        // holds the numbers between, as 36 and 37 in 0.4's development).
        let past = Error::ALL.iter().map(|e| e.code()).max().unwrap_or(0) + 1;
        for bad in [-1, past, i32::MIN, i32::MAX] {
            // SAFETY: as above.
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
        // SAFETY: sgs_version returns a static str ending in a nul.
        let s = unsafe { core::ffi::CStr::from_ptr(sgs_version()) };
        assert_eq!(s.to_str().unwrap(), env!("CARGO_PKG_VERSION"));
    }
}
