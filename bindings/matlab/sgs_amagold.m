function [samples, info] = sgs_amagold(energy, gradient, theta0, varargin)
% SGS_AMAGOLD  Exact stochastic-gradient HMC (AMAGOLD, Zhang, Cooper & De Sa 2020).
%
%   [samples, info] = sgs_amagold(@energy, @gradient, theta0, Name, Value, ...)
%
%   energy(theta)         full-data energy U(theta) = -log pi(theta) + const, a scalar;
%                         return [] when theta is outside the domain (the proposal is rejected).
%   gradient(theta, seed) stochastic gradient of U at theta (a d-vector) on the minibatch chosen
%                         by SEED (a uint64; use sgs_minibatch(seed, n, B)); [] = outside the domain.
%   theta0                starting point, a d-vector (real double).
%   Callback outputs must be real double too (single, integer or logical outputs are refused:
%   sgsample:badCallbackOutput).
%
%   Options (defaults are the C library's, sgs_amagold_config_default):
%     'StepSize'     0.1    step size epsilon (the initial one when Warmup > 0)
%     'Steps'        10     inner leapfrog steps T per sample
%     'Friction'     0.25   friction beta >= 0
%     'MomentumSD'   1      momentum standard deviation sigma
%     'Samples'      1000   rows of SAMPLES: draws after the warm-up and the burn-in
%     'Warmup'       0      iterations before the samples that adapt the step size (not draws)
%     'Burnin'       0      iterations after the warm-up at the step size (and mass matrix) it
%                           reached, nothing adapting (not draws): an exact chain's burn-in
%     'KeepWarmup'   false  true: also return the warm-up and burn-in rows, apart, in
%                           info.warmup_samples and info.warmup_stats
%     'Progress'     false  true: a line of text a second (iterations done of the total)
%     'Chains'       1      K chains per call, in lockstep (sgs_amagold_run_batch): the
%                           callbacks are vectorised, energy(X) with X k-by-d (a row per chain
%                           of the call, k <= K) returns k energies, gradient(X, seeds) with
%                           seeds k-by-1 uint64 returns k-by-d; [] rejects every row of the call.
%                           Chain c is the chain of Stream + c - 1, bit for bit the scalar run
%                           when each row is computed as the scalar callbacks would. theta0 is
%                           a d-vector (every chain starts there), K-by-d (not a vector), or
%                           1-by-d-by-K (any d; so for d = 1: reshape(starts, 1, 1, K)); SAMPLES is
%                           Samples-by-d-by-K (as SGS_STATS and SGS_DIAGNOSE take it); info's
%                           counts are K-by-1, its per-draw stats Samples-by-K.
%     'TargetAccept' 0.65   warm-up target acceptance
%     'Mass'         'unit' | 'diagonal' | 'dense': the mass matrix, estimated during the warm-up
%                           (Stan's windows; a Warmup of 1 to 19 is error sgsample:invalidWarmup):
%                           'diagonal' for coordinates of very different scales, 'dense' (d^2
%                           per inner step) for a correlated posterior of moderate d
%     'Approach'     true   the warm-up starts with an optimiser that brings a far start in, then
%                           takes the curvature there as the first mass matrix
%     'JitterSteps'  false  draw each iteration's number of inner steps from ceil(T/2)..floor(3T/2)
%     'AdaptMass'    false  alias: true is 'Mass', 'diagonal' (kept for earlier code)
%     'Variant'      'reversible' | 'nonreversible'
%     'Seed'         fresh  generator seed (double integer <= 2^53, or uint64); without it a
%                           fresh seed per call, reported in info.seed to repeat the run
%     'Stream'       0      stream id (same seed, other stream: an independent chain)
%     'LogAccept'    false  also return info.log_accept (Samples-by-1)
%
%   samples  Samples-by-d, one row per outer iteration after the warm-up.
%   info     struct: iterations, samples, accepted, acceptance, divergences, out_of_domain,
%            step_size (after the warm-up), callback_calls, seed, stream (uint64), stats (per
%            draw, Samples-by-1 each: diverging and accepted (logical), log_accept, step_size,
%            energy (U at the draw), inner_steps), warmup_samples and warmup_stats (with
%            KeepWarmup; else 0-by-d and []), warmup_acceptance, inverse_mass
%            (d-by-1: per coordinate, MomentumSD^2 times the variance the warm-up estimated;
%            ones with Mass 'unit'), inverse_mass_dense (d-by-d with Mass 'dense', else []),
%            warmup_report (a struct: verdict 'none' | 'running' | 'ok' | 'suspect', reasons, a
%            cell of 'energy_trend', 'acceptance', 'divergences', 'low_bfmi',
%            'metric', 'chains_disagree' (from SGS_WARMUP_COMPARE only),
%            reason_flags, and the C report's fields: step_size, accept_rate, energy_trend_z,
%            energy_mean, bfmi, condition_number, iterations, ...), phase (of the last
%            iteration: 'sampling', 'approach', 'fast', 'slow', 'final'), [log_accept].
%            A SUSPECT verdict says the warm-up may not have reached the typical set: do not
%            trust the samples unseen.
%
%   Errors have identifiers 'sgsample:...' and the library's status text (sgsample:badArgument
%   for a theta0 that is not a real double vector, sgsample:outOfMemory when Samples-by-d cannot
%   be allocated, sgsample:tooLarge when it overflows; README.md lists them all). An error inside
%   ENERGY or GRADIENT stops the sampler cleanly and is rethrown unchanged. Ctrl-C stops the run
%   cleanly, then reaches the prompt as the usual interrupt (MATLAB: error sgsample:interrupted);
%   see README.md. Nothing is lost: SGS_PARTIAL() returns the rows and info of the iterations a
%   run that stopped had completed (SGS.AMAGOLD's Partial property likewise, for a chain to go on).
%
%   A reproducible gradient draws its noise from its seed: sgs_normal(seed, d)' (SGS_NORMAL).
%
%   See also SGS.AMAGOLD (step by step), SGS_WARMUP_COMPARE, SGS_STATS, SGS_SGHMC, SGS_SGLD,
%   SGS_SVGD, SGS_MINIBATCH, SGS_NORMAL.
  if nargin < 3
    error('sgsample:badArguments', 'usage: [samples, info] = sgs_amagold(@energy, @gradient, theta0, Name, Value, ...)');
  end
  sgs_check_handle('sgs_amagold', energy, 'energy');
  sgs_check_handle('sgs_amagold', gradient, 'gradient');
  opts = sgs_parse('sgs_amagold', sgs_options('amagold'), varargin);
  cmd = 'amagold';
  if isfield(opts, 'chains')
    cmd = 'amagold_batch';
  end
  [samples, info] = sgsample_mex(cmd, energy, gradient, theta0, opts, sgs_trampoline());
end
