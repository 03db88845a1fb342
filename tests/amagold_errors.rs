//! Invalid input gets its specific error and changes nothing; a callback's ABORT loses nothing.

mod common;
use common::{Faulty, SENTINEL};
use sgsample::{Amagold, AmagoldConfig, Error, Outcome, Stop, Variant};

fn try_new(cfg: AmagoldConfig, theta0: &[f64], ws_len: usize, model: &mut Faulty) -> Error {
    let mut ws = vec![SENTINEL; ws_len];
    let r = Amagold::new(&cfg, theta0, &mut ws, model).err();
    assert!(
        ws.iter().all(|&x| x == SENTINEL),
        "a failed new() wrote the workspace"
    );
    r.expect("new() should have failed")
}

#[test]
fn amagold_new_rejects_every_invalid_input() {
    let ok = AmagoldConfig::new(0.2);
    let m = &mut Faulty::new();
    let with = |f: &dyn Fn(&mut AmagoldConfig)| {
        let mut c = ok;
        f(&mut c);
        c
    };
    assert_eq!(try_new(ok, &[], 6, m), Error::ZeroDimension);
    assert_eq!(try_new(ok, &[0.0], 5, m), Error::WorkspaceTooSmall);
    assert_eq!(try_new(ok, &[0.0, 1.0], 11, m), Error::WorkspaceTooSmall);
    for eps in [0.0, -0.1, f64::NAN, f64::INFINITY] {
        let c = with(&|c| c.step_size = eps);
        assert_eq!(
            try_new(c, &[0.0], 6, m),
            Error::InvalidStepSize,
            "ε = {eps}"
        );
    }
    for beta in [-0.1, f64::NAN, f64::INFINITY] {
        let c = with(&|c| c.friction = beta);
        assert_eq!(
            try_new(c, &[0.0], 6, m),
            Error::InvalidFriction,
            "β = {beta}"
        );
    }
    for s in [0.0, -1.0, f64::NAN, f64::INFINITY] {
        let c = with(&|c| c.momentum_sd = s);
        assert_eq!(
            try_new(c, &[0.0], 6, m),
            Error::InvalidMomentumScale,
            "σ = {s}"
        );
    }
    assert_eq!(
        try_new(with(&|c| c.steps = 0), &[0.0], 6, m),
        Error::InvalidSteps
    );
    for delta in [0.0, 1.0, 1.5, f64::NAN] {
        let c = with(&|c| {
            c.warmup = 10;
            c.target_accept = delta
        });
        assert_eq!(
            try_new(c, &[0.0], Amagold::<f64>::workspace_len_for(&c, 1), m),
            Error::InvalidTargetAcceptance,
            "δ = {delta}"
        );
    }
    // δ is ignored without warm-up.
    let mut ws = [0.0; 6];
    let c = with(&|c| c.target_accept = f64::NAN);
    assert!(Amagold::new(&c, &[0.0], &mut ws, m).is_ok());

    for bad in [f64::NAN, f64::INFINITY, f64::NEG_INFINITY] {
        assert_eq!(try_new(ok, &[0.0, bad], 12, m), Error::InvalidPosition);
    }
    for stop in [Stop::Reject, Stop::Abort] {
        let mut f = Faulty::new();
        f.fail_energy_at = Some((1, stop));
        let want = if stop == Stop::Abort {
            Error::CallbackAborted
        } else {
            Error::InitialEnergyRejected
        };
        assert_eq!(try_new(ok, &[0.0], 6, &mut f), want);
    }
    for v in [f64::NAN, f64::INFINITY] {
        let mut f = Faulty::new();
        f.energy_value = Some(v);
        assert_eq!(try_new(ok, &[0.0], 6, &mut f), Error::InitialEnergyRejected);
    }
}

/// Snapshot of everything observable about a chain.
fn snapshot(c: &Amagold<'_, f64>) -> (Vec<u64>, Vec<u64>, u64, u64, u64, u64) {
    (
        c.position().iter().map(|x| x.to_bits()).collect(),
        c.momentum().iter().map(|x| x.to_bits()).collect(),
        c.energy().to_bits(),
        c.iterations(),
        c.divergences(),
        c.step_size().to_bits(),
    )
}

#[test]
fn abort_anywhere_in_a_trajectory_loses_nothing() {
    for variant in [Variant::Reversible, Variant::NonReversible] {
        // Abort at the 1st, 4th and 10th gradient of an iteration, and at its energy call.
        for (grad_at, energy_at) in [
            (Some(1), None),
            (Some(4), None),
            (Some(10), None),
            (None, Some(1)),
        ] {
            let cfg = AmagoldConfig {
                variant,
                warmup: 30,
                seed: 9,
                ..AmagoldConfig::new(0.25)
            };
            let mut m = Faulty::new();
            let mut twin_m = Faulty::new();
            let mut ws = vec![0.0; Amagold::<f64>::workspace_len_for(&cfg, 1)];
            let mut twin_ws = ws.clone();
            let mut chain = Amagold::new(&cfg, &[0.3], &mut ws, &mut m).unwrap();
            let mut twin = Amagold::new(&cfg, &[0.3], &mut twin_ws, &mut twin_m).unwrap();
            for _ in 0..7 {
                chain.step(&mut m).unwrap();
                twin.step(&mut twin_m).unwrap();
            }
            let before = snapshot(&chain);
            let mut failing = m.clone();
            failing.grad_calls = 0;
            failing.energy_calls = 0;
            failing.fail_grad_at = grad_at.map(|n| (n, Stop::Abort));
            failing.fail_energy_at = energy_at.map(|n| (n, Stop::Abort));
            assert_eq!(chain.step(&mut failing), Err(Error::CallbackAborted));
            assert_eq!(
                snapshot(&chain),
                before,
                "{variant:?} {grad_at:?} {energy_at:?}"
            );
            // The generator was rolled back too: the retried step is the twin's step.
            for _ in 0..5 {
                let a = chain.step(&mut m).unwrap();
                let b = twin.step(&mut twin_m).unwrap();
                // Compared through `Debug` (exact for floats), not `==`: a divergent step's
                // log_accept and ρ are NaN, which `==` never equates.
                assert_eq!(format!("{a:?}"), format!("{b:?}"));
                assert_eq!(snapshot(&chain), snapshot(&twin));
            }
        }
    }
}

#[test]
fn a_rejected_gradient_is_an_out_of_domain_rejection() {
    let cfg = AmagoldConfig {
        variant: Variant::NonReversible,
        ..AmagoldConfig::new(0.25)
    };
    let mut m = Faulty::new();
    let mut ws = [0.0; 6];
    let mut chain = Amagold::new(&cfg, &[0.3], &mut ws, &mut m).unwrap();
    chain.step(&mut m).unwrap();
    let theta = chain.position()[0];
    let r0 = chain.momentum()[0];
    let u = chain.energy();
    m.grad_calls = 0;
    m.energy_calls = 0;
    m.fail_grad_at = Some((3, Stop::Reject));
    let info = chain.step(&mut m).unwrap();
    assert_eq!(info.outcome, Outcome::OutOfDomain);
    assert!(!info.accepted && info.rho.is_nan());
    assert_eq!(m.grad_calls, 3, "the trajectory stops at the rejection");
    assert_eq!(m.energy_calls, 0, "no energy for an abandoned trajectory");
    assert_eq!(chain.position()[0], theta);
    assert_eq!(chain.energy(), u);
    assert_eq!(chain.momentum()[0], -r0, "rejection flips the momentum");

    // An energy callback's REJECT is the same kind of rejection.
    m.fail_grad_at = None;
    m.energy_calls = 0;
    m.fail_energy_at = Some((1, Stop::Reject));
    let info = chain.step(&mut m).unwrap();
    assert_eq!(info.outcome, Outcome::OutOfDomain);
    assert_eq!(chain.position()[0], theta);

    // A NaN energy is a divergence.
    m.fail_energy_at = None;
    m.energy_value = Some(f64::NAN);
    let info = chain.step(&mut m).unwrap();
    assert_eq!(info.outcome, Outcome::Divergent);
    assert_eq!(info.divergences, 1);
    assert_eq!(chain.position()[0], theta);
    assert_eq!(chain.energy(), u);
}

#[test]
fn run_checks_its_output_and_reports_progress_on_abort() {
    let cfg = AmagoldConfig::new(0.25);
    let mut m = Faulty::new();
    let mut ws = [0.0; 12];
    let mut chain = Amagold::new(&cfg, &[0.3, 0.1], &mut ws, &mut m).unwrap();
    let before = snapshot(&chain);
    let mut out = [0.0; 7];
    let e = chain.run(&mut m, &mut out).unwrap_err();
    assert_eq!(e.error, Error::LengthMismatch);
    assert_eq!(e.completed(), 0);
    assert_eq!(snapshot(&chain), before);

    // Abort during the 4th iteration (T = 10 gradients each): three samples are complete.
    m.grad_calls = 0;
    m.fail_grad_at = Some((35, Stop::Abort));
    let mut out = [SENTINEL; 20];
    let e = chain.run(&mut m, &mut out).unwrap_err();
    assert_eq!(e.error, Error::CallbackAborted);
    assert_eq!(e.completed(), 3);
    assert!(out[..6].iter().all(|&x| x != SENTINEL));
    assert!(out[6..].iter().all(|&x| x == SENTINEL));
    assert_eq!(chain.iterations(), 3);
    assert_eq!(chain.position(), &out[4..6]);
}
