//! The C API (feature `ffi`): the `extern "C"` functions, types and constants behind
//! `include/sgsample.h`. The header is generated from this module by `tools/gen-header`
//! (cbindgen); the documentation below is carried over into it.
//!
//! # Conventions
//!
//! * Every symbol starts with `sgs_` (types, functions) or `SGS_` (constants). Functions on
//!   `double` coordinates have plain names; their `float` twins end in `_f32` and are generated
//!   from the same Rust source. Energies are `double` in both.
//! * Every fallible function returns an [`sgs_status`] (an `int32_t` in C): `SGS_OK` or one of the
//!   `SGS_ERR_…` codes (the stable numbers of the Rust [`Error`](crate::Error), defined once in
//!   `src/error.rs`). [`sgs_status_str`] maps a status to a static string. Enumerated options
//!   (variant, outcome, …) are `uint32_t` fields with
//!   `SGS_…` constants, never C `enum` types (their size differs between compilers).
//! * Arguments are checked in this order before anything is written: null pointers
//!   (`SGS_ERR_NULL_POINTER`), alignment and overlap of caller buffers (`SGS_ERR_INVALID_ARGUMENT`),
//!   use before `init` (`SGS_ERR_NOT_INITIALISED`), sizes, then hyperparameters. A failing call leaves
//!   the sampler state and the caller's buffers unchanged.
//! * The caller owns all memory. A sampler state (`sgs_amagold`, …) is a fixed-size, opaque struct
//!   the caller declares (on the stack, statically, anywhere); `init` fills it. It remembers the
//!   workspace (whose length in coordinates the `…_workspace_len` query returns), the callbacks
//!   and the `user_data` pointer, which must all stay valid until the state is no longer used.
//!   Zero-initialise a state before its first use (`sgs_amagold s = {{0}};`) so that using it before
//!   `init` is reported as `SGS_ERR_NOT_INITIALISED`. A state records its own address: a
//!   byte-wise copy (`memcpy`, `realloc`) is refused with `SGS_ERR_STATE_MOVED`; the `…_copy`
//!   functions make independent copies (and re-home a moved state), `…_clear` invalidates one.
//!   Every call validates the state (tag, busy flag, checksum of the recorded buffers, sizes and
//!   callbacks: `SGS_ERR_STATE_CORRUPTED`) before anything is written.
//! * No global state: any number of samplers on any number of threads, one thread per sampler.
//! * Callbacks are plain function pointers whose first argument is the `user_data` given to
//!   `init`. They return [`SGS_CB_OK`], [`SGS_CB_REJECT`] (the point is outside the target's
//!   domain: the proposal is rejected) or [`SGS_CB_ABORT`] (any other value also aborts: the call
//!   returns `SGS_ERR_CALLBACK_ABORTED` and the chain stays at its last accepted state, its random
//!   generator included). A non-finite energy counts as a divergence (a rejection), never as an
//!   error. Callbacks must not unwind (C++ exceptions) or `longjmp` through the library; a
//!   callback that calls back into the sampler that called it (same state) gets `SGS_ERR_BUSY`.
//! * Nothing here can panic: every index is checked before use, and the tests check that no panic
//!   path is linked into the C library (whose panic handler would abort, never hang).
//!
//! # Reproducibility
//!
//! The C functions run the same Rust code as the Rust API, so for the same seed, stream and
//! callback outputs they give the same bits as the Rust samplers and the std reference build.

#![allow(non_camel_case_types)]

mod amagold;
pub(crate) mod batch;
pub(crate) mod chain;
pub(crate) mod checkpoint;
pub(crate) mod common;
#[cfg(feature = "draws")]
mod draws;
mod ksd;
mod minibatch;
mod noise;
mod sghmc;
mod sgld;
mod stats;
mod status;
mod svgd;
mod thin;
mod tunamh;
mod weights;

pub use amagold::*;
pub use batch::*;
pub use chain::{
    sgs_chain_info, sgs_chain_run_summary, SGS_OUTCOME_ACCEPTED, SGS_OUTCOME_DIVERGENT,
    SGS_OUTCOME_OUT_OF_DOMAIN, SGS_OUTCOME_REJECTED,
};
pub use common::{
    sgs_energy_fn, sgs_energy_fn_f32, sgs_gradient_fn, sgs_gradient_fn_f32, sgs_gradients_fn,
    sgs_gradients_fn_f32, SGS_CB_ABORT, SGS_CB_OK, SGS_CB_REJECT,
};
#[cfg(feature = "draws")]
pub use draws::*;
pub use ksd::*;
pub use minibatch::*;
pub use noise::*;
pub use sghmc::*;
pub use sgld::*;
pub use stats::*;
pub use status::*;
pub use svgd::*;
pub use thin::*;
pub use tunamh::*;
pub use weights::*;
