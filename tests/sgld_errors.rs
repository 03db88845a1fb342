//! SGLD: invalid input gets its specific error and changes nothing; a callback's ABORT leaves the
//! chain, generator included, where it was; the preconditioner's setter refuses in its
//! documented order.

mod common;
use common::{Faulty, SENTINEL};
use sgsample::{Error, Mass, Sgld, SgldConfig, Stop};

#[test]
fn sgld_new_rejects_every_invalid_input() {
    let ok = SgldConfig::new(0.2);
    let check = |c: SgldConfig, theta: &[f64], n: usize, want: Error| {
        let mut ws = vec![SENTINEL; n];
        assert_eq!(Sgld::new(&c, theta, &mut ws).err(), Some(want), "{c:?}");
        assert!(ws.iter().all(|&x| x == SENTINEL));
    };
    check(ok, &[], 3, Error::ZeroDimension);
    check(ok, &[0.0, 1.0], 5, Error::WorkspaceTooSmall);
    for step_size in [0.0, -0.1, f64::NAN, f64::INFINITY] {
        let c = SgldConfig { step_size, ..ok };
        check(c, &[0.0], 3, Error::InvalidStepSize);
    }
    check(
        SgldConfig { steps: 0, ..ok },
        &[0.0],
        3,
        Error::InvalidSteps,
    );
    let dense = SgldConfig {
        mass: Mass::Dense,
        ..ok
    };
    check(dense, &[0.0], 5, Error::InvalidOption);
    check(ok, &[0.0, f64::NAN], 6, Error::InvalidPosition);
    check(ok, &[f64::INFINITY], 3, Error::InvalidPosition);
    // The workspace is checked before the hyperparameters, as for every chain.
    check(
        SgldConfig { steps: 0, ..ok },
        &[0.0],
        2,
        Error::WorkspaceTooSmall,
    );
}

/// An ABORT mid-trajectory returns `CallbackAborted` and rolls everything back: the next step
/// draws what an uninterrupted twin draws, bit for bit.
#[test]
fn sgld_abort_leaves_the_chain_and_its_generator_in_place() {
    let cfg = SgldConfig {
        steps: 4,
        ..SgldConfig::new(0.1)
    };
    let (mut wa, mut wb) = ([0.0; 3], [0.0; 3]);
    let mut a = Sgld::new(&cfg, &[0.3], &mut wa).unwrap();
    let mut b = Sgld::new(&cfg, &[0.3], &mut wb).unwrap();
    let (mut ma, mut mb) = (Faulty::new(), Faulty::new());
    a.step(&mut ma).unwrap();
    b.step(&mut mb).unwrap();
    let (theta, it) = (a.position()[0], a.iterations());
    ma.grad_calls = 0;
    ma.fail_grad_at = Some((3, Stop::Abort));
    assert_eq!(a.step(&mut ma).err(), Some(Error::CallbackAborted));
    assert_eq!((a.position()[0], a.iterations()), (theta, it));
    ma.fail_grad_at = None;
    for _ in 0..3 {
        a.step(&mut ma).unwrap();
        b.step(&mut mb).unwrap();
        assert_eq!(a.position()[0].to_bits(), b.position()[0].to_bits());
    }
}

/// The step size is checked in the chain's own coordinate type: 10⁴⁰ is fine in f64 and ∞ in f32.
#[test]
fn f32_chains_refuse_a_step_size_that_rounds_to_infinity() {
    let g = SgldConfig {
        step_size: 1e40,
        ..SgldConfig::new(0.2)
    };
    assert_eq!(g.validate_in::<f32>(), Err(Error::InvalidStepSize));
    assert_eq!(g.validate_in::<f64>(), Ok(()));
    let mut ws = [7.0f32; 3];
    assert_eq!(
        Sgld::new(&g, &[0.0f32], &mut ws).err(),
        Some(Error::InvalidStepSize)
    );
    assert!(ws.iter().all(|&x| x == 7.0));
    let tiny = SgldConfig {
        step_size: 1e-50,
        ..SgldConfig::new(0.2)
    };
    assert_eq!(tiny.validate_in::<f32>(), Err(Error::InvalidStepSize));
    assert_eq!(tiny.validate_in::<f64>(), Ok(()));
}

/// SGLD's fixed diagonal preconditioner (docs/algorithms.md §1.5): `Mass::Dense` is refused, a
/// diagonal chain needs its larger workspace, and `set_inverse_mass` refuses in the documented
/// order (length, values, the chain's mass setting) without writing anything.
#[test]
fn preconditioner_configuration_and_setter_statuses() {
    let d = 3;
    let theta0 = [0.1, -0.2, 0.3];
    let ldiag = SgldConfig {
        mass: Mass::Diagonal,
        ..SgldConfig::new(0.1)
    };
    assert_eq!(
        SgldConfig {
            mass: Mass::Dense,
            ..ldiag
        }
        .validate(),
        Err(Error::InvalidOption)
    );
    assert_eq!(
        Sgld::<f64>::workspace_len_for(&SgldConfig::new(0.1), d),
        3 * d
    );
    assert_eq!(Sgld::<f64>::workspace_len_for(&ldiag, d), 5 * d);
    let mut wl = vec![SENTINEL; 5 * d];
    assert_eq!(
        Sgld::new(&ldiag, &theta0, &mut wl[..5 * d - 1]).err(),
        Some(Error::WorkspaceTooSmall)
    );
    assert!(wl.iter().all(|&x| x == SENTINEL));
    let mut lchain = Sgld::new(&ldiag, &theta0, &mut wl).unwrap();
    let mut k = [0.0; 3];
    assert_eq!(lchain.inverse_mass(&mut k[..2]), Err(Error::OutputTooSmall));
    for (kv, want) in common::bad_inverse_masses() {
        assert_eq!(lchain.set_inverse_mass(kv), Err(want), "{kv:?}");
        lchain.inverse_mass(&mut k).unwrap();
        assert_eq!(k, [1.0; 3], "the identity until set");
        assert_eq!(lchain.position(), &theta0[..]);
    }
    let kv = [0.25, 16.0, 1e-6];
    lchain.set_inverse_mass(&kv).unwrap();
    lchain.inverse_mass(&mut k).unwrap();
    assert_eq!(k, kv);
    // A unit chain has no preconditioner.
    let mut wlu = [0.0; 9];
    let mut lunit = Sgld::new(&SgldConfig::new(0.1), &theta0, &mut wlu).unwrap();
    assert_eq!(lunit.set_inverse_mass(&kv), Err(Error::MassMismatch));
    assert_eq!(lunit.set_inverse_mass(&[0.0; 3]), Err(Error::InvalidMass));
}
