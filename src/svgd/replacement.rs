//! The iteration with replacement (Algorithm 2, module docs of [`super`]): `⌊N/p⌋` sub-steps on
//! working copies of the particles and the history, written back when all succeeded.

use super::config::SvgdInfo;
use super::core::{refusal, SvgdCore};
use super::force_stats::ForceStats;
use super::kernel::Kernel;
use super::layout::split;
use super::moves::move_checked;
use super::pairs::{finish_force, pair_sums, Weights};
use super::permutation::shuffle_prefix;
use super::rows::{row, row_mut, rows, rows_mut};
use super::scale;
use super::step_rule::Update;
use crate::error::Error;
use crate::float::{all_finite, copy, Float};
use crate::model::Gradient;

impl<K> SvgdCore<K> {
    /// Algorithm 2 (with replacement). On `Err` nothing changed, the generator included.
    #[inline(never)]
    pub(super) fn step_with_replacement<T: Float, M: Gradient<T> + ?Sized>(
        &mut self,
        particles: &mut [T],
        ws: &mut [T],
        idx: &mut [u32],
        model: &mut M,
    ) -> Result<SvgdInfo, Error>
    where
        K: Kernel<T>,
    {
        let saved = self.rng.checkpoint();
        let mut stats = ForceStats::default();
        match self.with_replacement_inner(particles, ws, idx, model, &mut stats) {
            Ok((ref prepared, interactions)) => {
                let parts = split(ws, &self.lay);
                copy(particles, parts.xwork);
                copy(parts.hist, parts.hwork);
                Ok(self.info(prepared, self.iterations + 1, &stats, interactions))
            }
            Err(e) => {
                self.rng.restore(saved);
                Err(e)
            }
        }
    }

    /// The iteration of [`step_with_replacement`](Self::step_with_replacement) on the working
    /// copies: returns the prepared kernel and the kernel evaluations.
    pub(super) fn with_replacement_inner<T: Float, M: Gradient<T> + ?Sized>(
        &mut self,
        particles: &[T],
        ws: &mut [T],
        idx: &mut [u32],
        model: &mut M,
        stats: &mut ForceStats,
    ) -> Result<(K::Prepared, u64), Error>
    where
        K: Kernel<T>,
    {
        let (n, d, p) = (self.n, self.d, self.cfg.batch_size);
        let seed = self.rng.next_u64();
        let parts = split(ws, &self.lay);
        // With the scale option on: the iteration's centre and scale, and the kernel prepared
        // from the standardised positions (in the working particles' rows until the copy below).
        let prepared = if self.cfg.scale.on() {
            scale::begin(self.cfg.scale, particles, d, parts.scale, parts.xwork);
            self.cfg.kernel.prepare(parts.xwork, d, parts.scratch)?
        } else {
            self.cfg.kernel.prepare(particles, d, parts.scratch)?
        };
        let weights = self.weights(&prepared);
        copy(parts.xwork, particles);
        copy(parts.hwork, parts.hist);
        let perm = idx.get_mut(..n).ok_or(Error::WorkspaceTooSmall)?;
        for (t, v) in perm.iter_mut().enumerate() {
            *v = t as u32;
        }
        let mut interactions = 0;
        for _ in 0..self.batches() {
            // One sub-step in three functions, so that no frame holds the locals of another
            // phase: draw and gather the batch and evaluate its gradients; its pair sums; its φ
            // and its move in the working copies.
            self.draw_batch(seed, ws, perm, model)?;
            let parts = split(ws, &self.lay);
            let (x, g) = (parts.xbatch, parts.grads);
            pair_sums(&self.cfg.kernel, &prepared, x, g, parts.force, d, p);
            interactions += self.move_batch(&weights, ws, perm, stats)?;
        }
        Ok((prepared, interactions))
    }

    /// The start of a sub-step with replacement: draws its batch (`perm[0..p]`), gathers the
    /// batch's working positions (rows in draw order) and evaluates their gradients.
    #[inline(never)]
    pub(super) fn draw_batch<T: Float, M: Gradient<T> + ?Sized>(
        &mut self,
        seed: u64,
        ws: &mut [T],
        perm: &mut [u32],
        model: &mut M,
    ) -> Result<(), Error>
    where
        K: Kernel<T>,
    {
        let (n, d, p) = (self.n, self.d, self.cfg.batch_size);
        shuffle_prefix(&mut self.rng, perm, p.min(n - 1));
        let parts = split(ws, &self.lay);
        for (xb, &i) in rows_mut(parts.xbatch, d).zip(perm.iter()) {
            copy(xb, row(parts.xwork, i as usize, d));
        }
        model
            .gradients(parts.xbatch, d, seed, parts.grads)
            .map_err(refusal)?;
        if !all_finite(parts.grads) {
            return Err(Error::NonFinite);
        }
        if self.cfg.scale.on() && !scale::standardise(parts.scale, parts.xbatch, parts.grads, d) {
            return Err(Error::NonFinite);
        }
        if self.cfg.anneal.on() {
            super::core::anneal_rows(parts.grads, self.anneal_factor());
        }
        Ok(())
    }

    /// The end of a sub-step with replacement: φ of the batch from its pair sums, then the move
    /// of its particles (`perm[0..p]`) in the working copies. Returns the kernel evaluations.
    /// The step constants are recomputed here for every sub-step: the same values every time
    /// (a pure function of the configuration and the iteration), so the same bits.
    #[inline(never)]
    pub(super) fn move_batch<T: Float>(
        &self,
        weights: &Weights<T>,
        ws: &mut [T],
        perm: &[u32],
        stats: &mut ForceStats,
    ) -> Result<u64, Error>
    where
        K: Kernel<T>,
    {
        let (n, d, p) = (self.n, self.d, self.cfg.batch_size);
        let parts = split(ws, &self.lay);
        let interactions = finish_force(parts.grads, parts.force, d, n, p, weights);
        let up = Update::<T>::new(&self.cfg.step_rule, self.iterations + 1);
        let history = self.cfg.step_rule.has_history();
        for (phi, &i) in rows(parts.force, d).zip(perm.iter()) {
            let i = i as usize;
            stats.add(phi);
            let x = row_mut(parts.xwork, i, d);
            let h = if history {
                Some(row_mut(parts.hwork, i, d))
            } else {
                None
            };
            let moved = if self.cfg.scale.on() {
                scale::move_checked(&up, parts.scale, x, h, phi, d)
            } else {
                move_checked(&up, x, h, phi)
            };
            if !moved {
                return Err(Error::NonFinite);
            }
        }
        Ok(interactions)
    }
}
