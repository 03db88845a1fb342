//! Plain reference implementations (the `std` feature): `Vec`s, no workspaces, written straight
//! from docs/algorithms.md. They share only the random-number primitives ([`Rng`](crate::Rng)) with the
//! core; the tests require the core to reproduce them bit for bit.

pub mod amagold;
pub mod ksd;
pub mod sgld;
pub mod svgd;
pub mod warmup;
