//! ESS per gradient evaluation of AMAGOLD with and without the mass-matrix warm-up on the badly
//! scaled regression of tests/common/regression.rs (docs/benchmarks.md, "Mass-matrix warm-up").
//!
//!   cargo run --release --features std --example mass_warmup [warmup draws chains]

#[path = "../tests/common/regression.rs"]
mod regression;

use regression::{Regression, D};
use sgsample::stats::{ess, split_rhat, Series};

fn main() {
    let args: Vec<u64> = std::env::args()
        .skip(1)
        .map(|a| a.parse().expect("warmup draws chains"))
        .collect();
    let warmup = args.first().copied().unwrap_or(3000);
    let draws = args.get(1).copied().unwrap_or(20_000) as usize;
    let chains = args.get(2).copied().unwrap_or(4) as usize;
    let truth = Regression::new();
    println!(
        "Bayesian linear regression, {} observations, predictors on scales 0.05, 0.5, 5; AMAGOLD \
         T = 10, β = 0.25, ε₀ = 1e-3, dual averaging δ = 0.65; {warmup} warm-up + {draws} draws × \
         {chains} chains",
        regression::N
    );
    println!("posterior sd: {:?}", truth.var.map(f64::sqrt));
    for mass in [
        sgsample::Mass::Unit,
        sgsample::Mass::Diagonal,
        sgsample::Mass::Dense,
    ] {
        let adapt_mass = mass != sgsample::Mass::Unit;
        let runs: Vec<regression::ChainRun> = (0..chains as u64)
            .map(|c| regression::run_chain(mass, warmup, draws, c))
            .collect();
        let grads_warm: u64 = runs.iter().map(|r| r.gradients_warmup).sum();
        let grads_draw: u64 = runs.iter().map(|r| r.gradients_draws).sum();
        let eps: Vec<f64> = runs.iter().map(|r| r.step_size).collect();
        println!(
            "\nmass matrix {}: final step sizes {:?}",
            match mass {
                sgsample::Mass::Unit => "off (σ = 1)",
                sgsample::Mass::Diagonal => "diagonal, adapted",
                sgsample::Mass::Dense => "dense, adapted",
            },
            eps
        );
        if adapt_mass {
            println!(
                "inverse mass diagonal (chain 0): {:?}",
                runs[0].inverse_mass
            );
        }
        println!(
            "coord  mean (truth)           R-hat       ESS  ESS/1000 gradients (sampling; incl. warm-up)"
        );
        for j in 0..D {
            let cs: Vec<&Series<128>> = runs.iter().map(|r| &r.series[j]).collect();
            let n_eff = ess(&cs).unwrap();
            let mean = cs.iter().map(|s| s.mean()).sum::<f64>() / chains as f64;
            let rhat = split_rhat(&cs).unwrap();
            println!(
                "w{j}     {mean:+.5} ({:+.5})  {rhat:6.3}  {n_eff:8.0}  {:8.3} ({:.3})",
                truth.mean[j],
                1000.0 * n_eff / grads_draw as f64,
                1000.0 * n_eff / (grads_draw + grads_warm) as f64
            );
        }
    }
}
