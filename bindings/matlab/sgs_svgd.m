function [X, info] = sgs_svgd(gradients, X0, varargin)
% SGS_SVGD  Stein variational gradient descent with random batches (RBM-SVGD, Li et al. 2020);
%   BatchSize = N is full SVGD (docs/algorithms.md §2).
%
%   [X, info] = sgs_svgd(@gradients, X0, Name, Value, ...)
%
%   gradients(X, seed)  the gradients of V = -log pi at all points at once: X is N-by-d (one
%                       particle per row, MATLAB's usual layout), the result N-by-d likewise, so
%                       that a model can vectorise. SEED (uint64) selects a data minibatch.
%                       (The C library stores particles row by row; the gateway transposes.)
%                       The result must be real double. Returning [] (outside the domain)
%                       stops the run with error sgsample:gradientRejected: SVGD has no
%                       proposal to reject (a NaN/Inf gradient gives sgsample:nonFinite).
%   X0                  N-by-d starting particles, real double.
%
%   Options (defaults: sgs_svgd_config_default):
%     'BatchSize'      min(N, 8)  interaction batch size p, 2 <= p <= N
%     'Iterations'     100
%     'StepSize'       0.2       eta
%     'StepRule'       'adagrad' | 'constant' | 'decaying'
%     'AdaGradAlpha'   0.9
%     'Kernel'         'gaussian' (fixed Bandwidth) | 'median' | 'imq'
%     'Bandwidth'      1         h of the Gaussian kernel exp(-|x-y|^2/(2h))
%     'IMQc' 1, 'IMQbeta' 0.5   the inverse multiquadric (c^2 + |x-y|^2)^(-beta)
%     'Batching'       'without' (Algorithm 3) | 'with' (replacement, Algorithm 2)
%     'Seed'           fresh (info.seed reports it), 'Stream' 0
%     'Progress'       false: true prints a line of text a second
%     'KSD'            'off' | 'batch' | 'full': the kernelized Stein discrepancy of the last
%                      iteration's starting particles (IMQ base kernel, c = 1, beta = -1/2;
%                      docs/algorithms.md §2.5); 'batch' costs O(p N d), 'full' O(N^2 d)
%     'Scale'          'none' | 'particles': SVGD in coordinates standardised by the particles'
%                      mean and sd (recomputed every iteration), so that Bandwidth and StepSize
%                      are relative to the particles' spread in each coordinate; for problems
%                      whose coordinates are on different scales (docs/algorithms.md §2.7)
%     'Anneal'         'off' | 'cyclical' | 'hyperbolic': annealed SVGD, the driving term
%                      scaled by gamma(t) rising to 1 over 'AnnealIterations' (then 1), with
%                      'AnnealCycles' ramps (cyclical; 1) and exponent 'AnnealPower' (1)
%                      (docs/algorithms.md §2.8)
%     'Permutation'    'shuffle' (Fisher-Yates) | 'feistel': the batches from a keyed bijection
%                      that any range can evaluate for its own slots (without replacement only)
%
%   info: iterations, interactions, bandwidth, step_size, mean_force, max_force, ksd_squared
%   (last iteration; NaN when KSD is 'off'), callback_calls, seed, stream.
%
%   SGS.SVGD runs the same system step by step (schedules, the KSD of the particles).
%
%   See also SGS.SVGD, SGS_AMAGOLD, SGS_MINIBATCH, SGS_NORMAL.
  if nargin < 2
    error('sgsample:badArguments', 'usage: [X, info] = sgs_svgd(@gradients, X0, Name, Value, ...)');
  end
  sgs_check_handle('sgs_svgd', gradients, 'gradients');
  opts = sgs_parse('sgs_svgd', sgs_options('svgd'), varargin);
  [X, info] = sgsample_mex('svgd', gradients, X0, opts, sgs_trampoline());
end
