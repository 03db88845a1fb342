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
