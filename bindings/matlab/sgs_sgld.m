function [samples, info] = sgs_sgld(gradient, theta0, varargin)
% SGS_SGLD  Stochastic gradient Langevin dynamics (Welling & Teh 2011), no correction:
%   theta <- theta - (eps/2)*grad + sqrt(eps)*z (docs/algorithms.md §1.4).
%
%   [samples, info] = sgs_sgld(@gradient, theta0, Name, Value, ...)
%
%   gradient(theta, seed) and theta0 as for SGS_AMAGOLD (real double; errors likewise).
%
%   Options (defaults: sgs_sgld_config_default): 'StepSize' 0.1, 'Steps' 1 (updates per
%   sample), 'Samples' 1000, 'Burnin' 0, 'KeepWarmup' false, 'Progress' false, 'Seed' fresh
%   (info.seed reports it), 'Stream' 0, 'Chains' 1 (see SGS_AMAGOLD).
%
%   info as for SGS_SGHMC.
%
%   See also SGS_SGHMC, SGS_AMAGOLD.
  if nargin < 2
    error('sgsample:badArguments', 'usage: [samples, info] = sgs_sgld(@gradient, theta0, Name, Value, ...)');
  end
  sgs_check_handle('sgs_sgld', gradient, 'gradient');
  opts = sgs_parse('sgs_sgld', sgs_options('sgld'), varargin);
  cmd = 'sgld';
  if isfield(opts, 'chains')
    cmd = 'sgld_batch';
  end
  [samples, info] = sgsample_mex(cmd, gradient, theta0, opts, sgs_trampoline());
end
