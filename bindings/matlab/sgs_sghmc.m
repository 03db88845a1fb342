function [samples, info] = sgs_sghmc(gradient, theta0, varargin)
% SGS_SGHMC  Stochastic gradient HMC (Chen, Fox & Guestrin 2014), no correction: biased at finite
%   step size (docs/algorithms.md §1.1); the baseline AMAGOLD is compared against.
%
%   [samples, info] = sgs_sghmc(@gradient, theta0, Name, Value, ...)
%
%   gradient(theta, seed) and theta0 as for SGS_AMAGOLD (real double; errors likewise).
%
%   Options (defaults: sgs_sghmc_config_default):
%     'StepSize' 0.1, 'Steps' 10, 'Friction' 0.25 (StepSize*Friction < 1), 'MomentumSD' 1,
%     'ResampleMomentum' true, 'Samples' 1000, 'Burnin' 0 (iterations discarded first),
%     'KeepWarmup' false (true: the burn-in rows in info.warmup_samples), 'Progress' false,
%     'Seed' fresh (info.seed reports it), 'Stream' 0, 'Chains' 1 (K chains per call through
%     vectorised callbacks: see SGS_AMAGOLD).
%
%   info: iterations, samples, accepted, acceptance, divergences, out_of_domain, step_size,
%   callback_calls, seed, stream, stats (per draw; log_accept and energy NaN), warmup_samples,
%   warmup_stats (as for SGS_AMAGOLD).
%
%   See also SGS_AMAGOLD, SGS_SGLD.
  if nargin < 2
    error('sgsample:badArguments', 'usage: [samples, info] = sgs_sghmc(@gradient, theta0, Name, Value, ...)');
  end
  sgs_check_handle('sgs_sghmc', gradient, 'gradient');
  opts = sgs_parse('sgs_sghmc', sgs_options('sghmc'), varargin);
  cmd = 'sghmc';
  if isfield(opts, 'chains')
    cmd = 'sghmc_batch';
  end
  [samples, info] = sgsample_mex(cmd, gradient, theta0, opts, sgs_trampoline());
end
