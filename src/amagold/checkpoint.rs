//! The checkpoint encoding of an AMAGOLD core (src/wire.rs), in a file of its own so that the
//! private fields are reached from a child module rather than by widening them.

use super::{AmagoldConfig, AmagoldCore, Mass, Variant};
use crate::wire::{wire_enum, wire_struct};

wire_enum!(Variant {
    Reversible,
    NonReversible
});
wire_enum!(Mass {
    Unit,
    Diagonal,
    Dense
});
wire_struct!(AmagoldConfig {
    step_size,
    friction,
    momentum_sd,
    steps,
    variant,
    warmup,
    target_accept,
    mass,
    approach,
    jitter_steps,
    seed,
    stream,
});
wire_struct!(AmagoldCore {
    d,
    cfg,
    eps,
    u,
    rng,
    warm,
    report,
    iterations,
    counted,
    accepted,
    divergences,
});
