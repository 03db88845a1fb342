//! SGHMC: invalid input gets its specific error and changes nothing; a callback's ABORT or
//! REJECT leaves the chain where it was.

mod common;
use common::{Faulty, SENTINEL};
use sgsample::{Error, Outcome, Sghmc, SghmcConfig, Stop};

#[test]
fn sghmc_new_rejects_every_invalid_input() {
    let ok = SghmcConfig::new(0.2);
    let check = |c: SghmcConfig, theta: &[f64], n: usize, want: Error| {
        let mut ws = vec![SENTINEL; n];
        assert_eq!(Sghmc::new(&c, theta, &mut ws).err(), Some(want));
        assert!(ws.iter().all(|&x| x == SENTINEL));
    };
    check(ok, &[], 5, Error::ZeroDimension);
    check(ok, &[0.0], 4, Error::WorkspaceTooSmall);
    check(
        SghmcConfig {
            step_size: 0.0,
            ..ok
        },
        &[0.0],
        5,
        Error::InvalidStepSize,
    );
    check(
        SghmcConfig {
            friction: -1.0,
            ..ok
        },
        &[0.0],
        5,
        Error::InvalidFriction,
    );
    // ε·β ≥ 1 makes the momentum update unstable.
    check(
        SghmcConfig {
            friction: 5.0,
            ..ok
        },
        &[0.0],
        5,
        Error::InvalidFriction,
    );
    check(
        SghmcConfig {
            momentum_sd: f64::NAN,
            ..ok
        },
        &[0.0],
        5,
        Error::InvalidMomentumScale,
    );
    check(
        SghmcConfig { steps: 0, ..ok },
        &[0.0],
        5,
        Error::InvalidSteps,
    );
    check(ok, &[f64::NAN], 5, Error::InvalidPosition);
}

#[test]
fn sghmc_abort_and_reject_leave_the_chain_in_place() {
    let cfg = SghmcConfig {
        resample_momentum: false,
        ..SghmcConfig::new(0.1)
    };
    let mut m = Faulty::new();
    let mut ws = [0.0; 5];
    let mut chain = Sghmc::new(&cfg, &[0.3], &mut ws).unwrap();
    chain.step(&mut m).unwrap();
    let (theta, r, it) = (chain.position()[0], chain.momentum()[0], chain.iterations());
    m.grad_calls = 0;
    m.fail_grad_at = Some((5, Stop::Abort));
    assert_eq!(chain.step(&mut m), Err(Error::CallbackAborted));
    assert_eq!(
        (chain.position()[0], chain.momentum()[0], chain.iterations()),
        (theta, r, it)
    );
    m.grad_calls = 0;
    m.fail_grad_at = Some((5, Stop::Reject));
    let info = chain.step(&mut m).unwrap();
    assert_eq!(info.outcome, Outcome::OutOfDomain);
    assert_eq!((chain.position()[0], chain.momentum()[0]), (theta, r));
}

/// The positive hyperparameters are checked in the chain's own coordinate type: fine in f64,
/// 0 or ∞ after rounding to f32 (a chain that would never move, or move to ∞), refused in f32
/// only. The same holds for AMAGOLD and SGLD (`validate_in`).
#[test]
fn f32_chains_refuse_parameters_that_round_to_zero_or_infinity() {
    use sgsample::{AmagoldConfig, SgldConfig};
    let tiny = SghmcConfig {
        step_size: 1e-50,
        ..SghmcConfig::new(0.2)
    };
    let huge_sd = SghmcConfig {
        momentum_sd: 1e50,
        ..SghmcConfig::new(0.2)
    };
    assert_eq!(tiny.validate_in::<f64>(), Ok(()));
    assert_eq!(tiny.validate_in::<f32>(), Err(Error::InvalidStepSize));
    assert_eq!(
        huge_sd.validate_in::<f32>(),
        Err(Error::InvalidMomentumScale)
    );
    let mut ws = [7.0f32; 5];
    assert_eq!(
        Sghmc::new(&tiny, &[0.0f32], &mut ws).err(),
        Some(Error::InvalidStepSize)
    );
    assert!(ws.iter().all(|&x| x == 7.0));
    let mut ws64 = [0.0f64; 5];
    assert!(Sghmc::new(&tiny, &[0.0f64], &mut ws64).is_ok());
    let a = AmagoldConfig {
        momentum_sd: 1e-50,
        ..AmagoldConfig::new(0.2)
    };
    assert_eq!(a.validate_in::<f32>(), Err(Error::InvalidMomentumScale));
    let g = SgldConfig {
        step_size: 1e40,
        ..SgldConfig::new(0.2)
    };
    assert_eq!(g.validate_in::<f32>(), Err(Error::InvalidStepSize));
    assert_eq!(g.validate_in::<f64>(), Ok(()));
}
