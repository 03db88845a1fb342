//! ESS per gradient evaluation of AMAGOLD with and without the mass-matrix warm-up on the badly
//! scaled regression of tests/common/regression.rs (docs/benchmarks.md, "Mass-matrix warm-up").
//!
//!   cargo run --release --features std --example mass_warmup [warmup draws chains]

#[path = "../tests/common/regression.rs"]
mod regression;

use regression::{Regression, D};
use sgsample::stats::{ess, push_all, split_rhat, Series};
use sgsample::{Amagold, AmagoldConfig};

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
        "Bayesian linear regression, {} observations, predictors on scales 1, 10, 100; AMAGOLD \
         T = 10, β = 0.25, ε₀ = 1e-3, dual averaging δ = 0.65; {warmup} warm-up + {draws} draws × \
         {chains} chains",
        regression::N
    );
    println!("posterior sd: {:?}", truth.var.map(f64::sqrt));
    for adapt_mass in [false, true] {
        let mut series: Vec<[Series<128>; D]> = Vec::new();
        let (mut grads_warm, mut grads_draw) = (0u64, 0u64);
        let mut eps = Vec::new();
        let mut kk = Vec::new();
        for c in 0..chains {
            let mut model = Regression::new();
            let cfg = AmagoldConfig {
                warmup,
                adapt_mass,
                seed: 9,
                stream: c as u64,
                ..AmagoldConfig::new(1e-3)
            };
            let mut ws = vec![0.0; Amagold::<f64>::workspace_len_mass(D)];
            let mut chain = Amagold::new(&cfg, &[0.0; D], &mut ws, &mut model).unwrap();
            for _ in 0..warmup {
                chain.step(&mut model).unwrap();
            }
            grads_warm += model.gradients;
            model.gradients = 0;
            let mut s: [Series<128>; D] = core::array::from_fn(|_| Series::new());
            for _ in 0..draws {
                chain.step(&mut model).unwrap();
                push_all(&mut s, chain.position()).unwrap();
            }
            grads_draw += model.gradients;
            eps.push(chain.step_size());
            kk.push(chain.inverse_mass().map(|k| k.to_vec()).unwrap_or_default());
            series.push(s);
        }
        println!(
            "\nmass matrix {}: final step sizes {:?}",
            if adapt_mass {
                "adapted"
            } else {
                "off (σ = 1)"
            },
            eps
        );
        if adapt_mass {
            println!("inverse mass (chain 0): {:?}", kk[0]);
        }
        println!(
            "coord  mean (truth)           R-hat       ESS  ESS/1000 gradients (sampling; incl. warm-up)"
        );
        for j in 0..D {
            let cs: Vec<&Series<128>> = series.iter().map(|s| &s[j]).collect();
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
