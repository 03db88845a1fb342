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
/// only. The same holds for AMAGOLD (here) and SGLD (tests/sgld_errors.rs).
#[test]
fn f32_chains_refuse_parameters_that_round_to_zero_or_infinity() {
    use sgsample::AmagoldConfig;
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
}

/// SGHMC's fixed diagonal preconditioner (docs/algorithms.md §1.5): `Mass::Dense`
/// is refused, a diagonal chain needs its larger workspace, and `set_inverse_mass` refuses in
/// the documented order (length, values, the chain's mass setting) without writing anything.
#[test]
fn preconditioner_configuration_and_setter_statuses() {
    use sgsample::Mass;
    let d = 3;
    let diag = SghmcConfig {
        mass: Mass::Diagonal,
        resample_momentum: false,
        ..SghmcConfig::new(0.1)
    };
    let dense = SghmcConfig {
        mass: Mass::Dense,
        ..diag
    };
    assert_eq!(dense.validate(), Err(Error::InvalidOption));
    assert_eq!(
        Sghmc::<f64>::workspace_len_for(&SghmcConfig::new(0.1), d),
        5 * d
    );
    assert_eq!(Sghmc::<f64>::workspace_len_for(&diag, d), 7 * d);
    assert_eq!(
        Sghmc::<f64>::workspace_len_for(&diag, usize::MAX),
        usize::MAX
    );
    let theta0 = [0.1, -0.2, 0.3];
    let mut ws = vec![SENTINEL; 7 * d];
    assert_eq!(
        Sghmc::new(&dense, &theta0, &mut ws).err(),
        Some(Error::InvalidOption)
    );
    assert_eq!(
        Sghmc::new(&diag, &theta0, &mut ws[..7 * d - 1]).err(),
        Some(Error::WorkspaceTooSmall)
    );
    assert!(ws.iter().all(|&x| x == SENTINEL));

    let mut chain = Sghmc::new(&diag, &theta0, &mut ws).unwrap();
    let mut k = [0.0; 3];
    chain.inverse_mass(&mut k).unwrap();
    assert_eq!(k, [1.0; 3], "the identity until set");
    assert_eq!(chain.inverse_mass(&mut k[..2]), Err(Error::OutputTooSmall));
    let r0 = chain.momentum().to_vec();
    let refusals = common::bad_inverse_masses();
    for (kv, want) in refusals {
        assert_eq!(chain.set_inverse_mass(kv), Err(want), "{kv:?}");
        chain.inverse_mass(&mut k).unwrap();
        assert_eq!(k, [1.0; 3]);
        assert_eq!(chain.momentum(), &r0[..]);
    }
    // Accepted: k read back; the persistent momentum rescaled by m_new/m_old = 1/√k.
    let kv = [0.25, 16.0, 1e-6];
    chain.set_inverse_mass(&kv).unwrap();
    chain.inverse_mass(&mut k).unwrap();
    assert_eq!(k, kv);
    for i in 0..d {
        assert_eq!(chain.momentum()[i], r0[i] * (1.0 / kv[i].sqrt()), "r[{i}]");
    }
    // A second set rescales from the first: r·(m₂/m₁).
    let k2 = [1.0, 4.0, 1e-4];
    chain.set_inverse_mass(&k2).unwrap();
    for i in 0..d {
        let m1 = 1.0 / kv[i].sqrt();
        let want = (r0[i] * m1) * ((1.0 / k2[i].sqrt()) / m1);
        assert_eq!(chain.momentum()[i], want, "r[{i}] after the second set");
    }

    // A unit chain has no preconditioner.
    let mut wu = [0.0; 15];
    let mut unit = Sghmc::new(&SghmcConfig::new(0.1), &theta0, &mut wu).unwrap();
    assert_eq!(unit.set_inverse_mass(&[1.0; 3]), Err(Error::MassMismatch));
    assert_eq!(unit.set_inverse_mass(&[0.0; 3]), Err(Error::InvalidMass));
    unit.inverse_mass(&mut k).unwrap();
    assert_eq!(k, [1.0; 3]);

    // f32: the smallest positive float is a valid k (1/√k ≈ 2.6e22 is a float); ∞ is not.
    let mut wf = [0.0f32; 7];
    let mut f = Sghmc::new(&diag, &[0.5f32], &mut wf).unwrap();
    assert_eq!(
        f.set_inverse_mass(&[f32::INFINITY]),
        Err(Error::InvalidMass)
    );
    assert_eq!(f.set_inverse_mass(&[f32::from_bits(1)]), Ok(()));
}
