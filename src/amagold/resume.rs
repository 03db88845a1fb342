//! AMAGOLD's sampling iteration cut at its callbacks (see `crate::suspend`): the trajectory's
//! pieces (`launch`, `drift`, `kick`, `land`), the test (`judge`), the move (`decide`) and the
//! bookkeeping (`finish`) that `step` runs, driven one callback at a time. The warm-up's
//! approach, curvature and metric steps are not cut (they are replayed).

use super::{
    drift, drift_dense, land, AmagoldCore, AmagoldInfo, Coefficients, MassFactors, Proposal, View,
};
use crate::dense::add_mul_lower;
use crate::error::{Error, Stop};
use crate::float::{all_finite, Float};
use crate::rng::Rng;
use crate::suspend::{Answer, Ask, Suspend, Suspended};

impl AmagoldCore {
    /// From inner step `s.t` on: its drift and seed (a gradient to ask for), or after the last
    /// one the final drift and the energy to ask for (in `s.waiting`); `false` when θ' is not
    /// finite (the step ends there, divergent).
    fn advance<T: Float>(
        &mut self,
        v: &mut View<'_, T>,
        f: &MassFactors<'_, T>,
        s: &mut Suspended,
        c: Coefficients<T>,
    ) -> bool {
        if s.t < s.steps {
            match f {
                MassFactors::Diagonal(_, kf) => drift(v, *kf, c, s.t),
                MassFactors::Dense(_, l) => drift_dense(v, l, c, s.t),
            }
            s.seed = self.rng.next_u64();
            s.waiting = Suspended::GRADIENT;
            return true;
        }
        match f {
            MassFactors::Diagonal(_, kf) => land(v, *kf, c),
            MassFactors::Dense(_, l) => add_mul_lower(v.prop, c.half, l, v.rw),
        }
        if !all_finite(v.prop) {
            return false;
        }
        s.waiting = Suspended::ENERGY;
        true
    }

    /// [`advance`](Self::advance)'s request, or the end of a divergent step.
    fn ask_or_end<T: Float>(
        &mut self,
        ws: &mut [T],
        s: &mut Suspended,
        asks: bool,
    ) -> Result<Ask<AmagoldInfo>, Error> {
        match (asks, s.waiting) {
            (true, Suspended::ENERGY) => Ok(Ask::Energy),
            (true, _) => Ok(Ask::Gradient),
            (false, _) => self.conclude(ws, s, Proposal::divergent(s.rho)),
        }
    }

    /// The test's uniform, the move and the bookkeeping, as `step` ends.
    fn conclude<T: Float>(
        &mut self,
        ws: &mut [T],
        s: &Suspended,
        prop: Proposal,
    ) -> Result<Ask<AmagoldInfo>, Error> {
        let outcome = {
            let (mut v, _) = self.trajectory_parts(ws)?;
            self.decide(&mut v, &prop)
        };
        Ok(Ask::Done(
            self.finish(outcome, prop.log_a, prop.rho, s.steps, ws),
        ))
    }
}

impl<T: Float> Suspend<T> for AmagoldCore {
    fn can_suspend(&self) -> bool {
        self.warm
            .as_ref()
            .is_none_or(|w| w.approach.done && w.windows.is_some() && w.pending_update == 0)
    }

    fn begin(&mut self, ws: &mut [T]) -> Result<(Suspended, Ask<AmagoldInfo>), Error> {
        let saved = self.rng.checkpoint();
        let c = Coefficients::new(self.eps, &self.cfg);
        // Split before drawing, so that a short workspace leaves the generator alone.
        self.trajectory_parts(ws)?;
        let steps = self.draw_steps();
        let mut s = Suspended {
            t: 0,
            steps,
            rho: 0.0,
            running: saved,
            waiting: 0,
            seed: 0,
        };
        let next = {
            let (mut v, f) = self.trajectory_parts(ws)?;
            match f {
                MassFactors::Diagonal(mf, kf) => self.launch(&mut v, mf, kf, c),
                MassFactors::Dense(_, l) => self.launch_dense(&mut v, l, c),
            }
            self.advance(&mut v, &f, &mut s, c)
        };
        let ask = self.ask_or_end(ws, &mut s, next);
        let ask = self.pause(saved, &mut s, ask)?;
        Ok((s, ask))
    }

    fn pending_point<'w>(&self, ws: &'w [T]) -> &'w [T] {
        let d = self.d;
        ws.get(d..d.saturating_mul(2)).unwrap_or(&[])
    }

    fn resume(
        &mut self,
        ws: &mut [T],
        s: &mut Suspended,
        answer: Answer<'_, T>,
    ) -> Result<Ask<AmagoldInfo>, Error> {
        let saved = self.rng.checkpoint();
        self.rng.restore(s.running);
        let c = Coefficients::new(self.eps, &self.cfg);
        let ask = match answer {
            Answer::Gradient(Err(Stop::Abort), _) | Answer::Energy(Err(Stop::Abort)) => {
                Err(Error::CallbackAborted)
            }
            Answer::Gradient(Err(Stop::Reject), _) => {
                self.conclude(ws, s, Proposal::out_of_domain())
            }
            Answer::Gradient(Ok(()), g) => {
                let next = self.trajectory_parts(ws).map(|(mut v, mut f)| {
                    crate::float::copy(v.g, g);
                    s.rho += match &mut f {
                        MassFactors::Diagonal(mf, kf) => {
                            self.kick(&mut v, *mf, *kf, c, s.t, s.steps)
                        }
                        MassFactors::Dense(gw, l) => self.kick_dense(&mut v, gw, l, c),
                    };
                    s.t += 1;
                    self.advance(&mut v, &f, s, c)
                });
                next.and_then(|n| self.ask_or_end(ws, s, n))
            }
            Answer::Energy(e) => {
                let prop = self.judge(s.rho, e, &Rng::resume(saved, self.rng.stream()));
                prop.and_then(|p| self.conclude(ws, s, p))
            }
        };
        self.pause(saved, s, ask)
    }
}

impl AmagoldCore {
    /// Between callbacks the chain's generator stays at `saved`, where the step began, and the
    /// step's own position is kept in `s`; a finished step keeps its draws, a failed one none.
    fn pause(
        &mut self,
        saved: crate::rng::Checkpoint,
        s: &mut Suspended,
        ask: Result<Ask<AmagoldInfo>, Error>,
    ) -> Result<Ask<AmagoldInfo>, Error> {
        match ask {
            Ok(Ask::Done(info)) => Ok(Ask::Done(info)),
            Ok(ask) => {
                s.running = self.rng.checkpoint();
                self.rng.restore(saved);
                Ok(ask)
            }
            Err(e) => {
                self.rng.restore(saved);
                Err(e)
            }
        }
    }
}
