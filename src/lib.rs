//! # sgsample
//!
//! Exact stochastic-gradient sampling without a heap: **AMAGOLD** (SG-HMC with an amortised
//! Metropolis–Hastings step, plus the SGHMC and SGLD baselines) and **RBM-SVGD** (Stein variational
//! gradient descent with random-batch interactions, plus full SVGD), over caller-supplied
//! buffers and gradient callbacks, with a C API.
//!
//! ## Memory model
//!
//! The crate is `#![no_std]` and never allocates (the `std` feature links std for
//! `std::error::Error` and the `parallel` feature). Every sampler borrows one workspace slice from the
//! caller, sized by an associated `workspace_len` function, and keeps a few hundred bytes of plain
//! data of its own. Nothing is global: any number of samplers may run on any number of threads.
//!
//! ## Errors
//!
//! Constructors check every length and hyperparameter and return a specific [`Error`]; a
//! sampler's state is never touched by a failing call. Callbacks return [`Stop::Reject`] (the
//! proposal is rejected) or [`Stop::Abort`] (the step returns [`Error::CallbackAborted`] and the
//! sampler, generator included, is exactly as before the step).
//!
//! ## Reproducibility
//!
//! Same seed, stream and callback outputs ⇒ the same samples bit for bit on every target and in
//! every build: one generator ([`Rng`]) consumed in the documented order of each sampler,
//! transcendental functions through `libm` or the branch-free [`fastexp`], sums in index order,
//! no fused multiply-add.
// Unit tests link std (their scratch buffers are `Vec`s); the library itself is no_std without
// the `std` feature.
#![cfg_attr(not(any(feature = "std", test)), no_std)]
#![deny(missing_docs)]
#![forbid(unsafe_op_in_unsafe_fn)]

mod adapt;
pub mod amagold;
mod approach;
mod arch;
pub mod chain;
mod dense;
#[cfg(feature = "draws")]
pub mod draws;
mod error;
pub mod fastexp;
#[cfg(feature = "ffi")]
pub mod ffi;
mod float;
mod mass;
mod minibatch;
mod model;
pub mod noise;
#[cfg(feature = "parallel")]
pub mod parallel;
mod poisson;
pub mod rng;
pub mod run;
pub mod sghmc;
pub mod sgld;
pub mod stats;
#[cfg(feature = "ffi")]
mod suspend;
pub mod svgd;
pub mod thin;
pub mod tunamh;
pub mod warmup;
#[cfg(feature = "ffi")]
mod wire;
mod ziggurat;

pub use amagold::{
    compare_warmups, Amagold, AmagoldConfig, AmagoldCore, AmagoldInfo, Mass, Variant,
};
pub use chain::{Chain, ChainInfo, ChainKind, ChainStep};
pub use error::{Error, Stop};
pub use float::Float;
pub use minibatch::{minibatch, MINIBATCH_STREAM};
pub use model::{FnPotential, Gradient, Potential};
pub use rng::Rng;
pub use run::{Outcome, RunError, RunSummary, StepInfo};
pub use sghmc::{Sghmc, SghmcConfig, SghmcCore, SghmcInfo};
pub use sgld::{Sgld, SgldConfig, SgldCore, SgldInfo};
pub use svgd::{Batching, Kernel, KernelChoice, StepRule, Svgd, SvgdConfig, SvgdInfo};
pub use tunamh::{Terms, Tunamh, TunamhConfig, TunamhCore, TunamhInfo};
pub use warmup::{Phase, Verdict, WarmupReport};

/// The README's Rust examples, compiled and run as doc tests.
#[cfg(doctest)]
#[doc = include_str!("../README.md")]
struct ReadmeDoctests;
