//! Plain reference implementations: `Vec`s, no workspaces, written straight from
//! docs/algorithms.md. They share only the random-number primitives ([`Rng`](sgsample::Rng)) and
//! the coordinate type ([`Float`](sgsample::Float)) with the library; the tests require the
//! library to reproduce them bit for bit.
//!
//! A crate of its own (not a module of `sgsample` behind a feature) so that the oracle is not
//! part of the library's public API and a plain `cargo test` builds it.
#![deny(missing_docs)]

pub mod amagold;
pub mod ksd;
pub mod model;
pub mod sghmc;
pub mod sgld;
pub mod svgd;
pub mod tunamh;
pub mod warmup;

pub use model::Model;
