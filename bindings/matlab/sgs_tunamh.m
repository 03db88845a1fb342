function [samples, info] = sgs_tunamh(differences, theta0, varargin)
% SGS_TUNAMH  TunaMH, exact minibatch Metropolis-Hastings (Zhang, Cooper & De Sa 2020): a
%   random-walk chain for pi(theta) ~ exp(-U0(theta) - sum_i U_i(theta)), i = 1..N, that looks
%   at a random Poisson batch of terms per step and is still exact (docs/algorithms.md §7).
%
%   [samples, info] = sgs_tunamh(@differences, theta0, 'Terms', N, 'Bound', c, Name, Value, ...)
%
%   differences(theta, proposal, idx)
%                 U_i(proposal) - U_i(theta) for each term index i in IDX: a vector of
%                 numel(idx) real doubles. IDX is a column of at most 32 indices, 1-BASED
%                 (1..N, as SGS_MINIBATCH gives them; doubles), with repeats possible; THETA
%                 and PROPOSAL are d-by-1. Return [] to reject the proposal (outside the
%                 domain). Every difference must stay within Bound*norm(proposal - theta): one
%                 past it is error sgsample:boundExceeded (the chain stays where it was); a NaN
%                 or Inf one makes the iteration a divergence (info.stats.diverging).
%   theta0        starting point, a d-vector (real double).
%
%   Options (defaults: sgs_tunamh_config_default):
%     'Terms'      (required) the number of terms N >= 1 (at most 2^53)
%     'Bound'      (required) the per-term bound c > 0: |U_i(theta') - U_i(theta)| <= c *
%                  norm(theta' - theta) for every term and pair of points (e.g. 1 for terms
%                  |y_i - theta|, max norm(x_i) for a logistic regression's terms)
%     'Exact'      []     exact(theta, proposal) = U0(proposal) - U0(theta), a real double scalar:
%                         the part of the energy evaluated in full at every step (a prior);
%                         [] = none. It may also return [] to reject the proposal.
%     'StepSize'   0.1    the random-walk proposal's standard deviation sigma
%     'Chi'        1      the batch constant chi > 0: a step asks for Poisson(chi*L^2 + L)
%                         term differences, L = c*N*norm(theta' - theta), or all N (a full pass)
%                         when that mean reaches N; larger Chi, bigger batches and an acceptance
%                         closer to full-data Metropolis-Hastings
%     'Samples'    1000   rows of SAMPLES: draws after the burn-in
%     'Burnin'     0      iterations discarded first (not draws)
%     'KeepWarmup' false  true: also return the burn-in rows, apart, in info.warmup_samples
%                         and info.warmup_stats
%     'Progress'   false  true: a line of text a second
%     'Seed'       fresh  generator seed (double integer <= 2^53, or uint64); without it a fresh
%                         seed per call, reported in info.seed to repeat the run
%     'Stream'     0      stream id (same seed, other stream: an independent chain)
%   There is no 'Chains' (the C library has no batch TunaMH): run K chains with K streams.
%
%   samples  Samples-by-d, one row per iteration after the burn-in.
%   info     struct: iterations, samples, accepted, acceptance, divergences, out_of_domain,
%            step_size, callback_calls, seed, stream (uint64), evaluations (term differences
%            asked for since the chain started: its data cost), stats (per draw, Samples-by-1
%            each: diverging, accepted and full_pass (logical), log_accept (TunaMH's log
%            acceptance ratio; NaN when the iteration ended early), evaluations (terms asked
%            for: the Poisson batch size, or N in a full pass), kept (of those, the ones in the
%            ratio), step_size; energy and inner_steps NaN), warmup_samples, warmup_stats (with
%            KeepWarmup; else 0-by-d and []).
%
%   Errors: sgsample:invalidBound (Bound, Chi not finite and positive, Terms 0),
%   sgsample:boundExceeded, sgsample:invalidStepSize, sgsample:badArguments (Terms or Bound
%   missing), sgsample:badCallbackOutput (a differences result of the wrong size or class, an
%   Exact result that is not a real double scalar), sgsample:notFunctionHandle, and the others
%   of SGS_AMAGOLD. An error inside DIFFERENCES or EXACT stops the run cleanly and is rethrown
%   unchanged; SGS_PARTIAL() returns what the run had produced.
%
%     y = randn(40, 1) + 1;                                 % N = 40 Laplace terms |y_i - theta|
%     dU = @(th, pr, idx) abs(y(idx) - pr) - abs(y(idx) - th);
%     [s, info] = sgs_tunamh(dU, 0, 'Terms', 40, 'Bound', 1, 'StepSize', 0.1, ...
%                            'Exact', @(th, pr) (pr^2 - th^2) / 2, 'Samples', 5000);
%
%   See also SGS.TUNAMH (step by step), SGS_MINIBATCH, SGS_STATS, SGS_AMAGOLD.
  if nargin < 2
    error('sgsample:badArguments', 'usage: [samples, info] = sgs_tunamh(@differences, theta0, ''Terms'', N, ''Bound'', c, Name, Value, ...)');
  end
  sgs_check_handle('sgs_tunamh', differences, 'differences');
  [exact, args] = sgs_take_option('sgs_tunamh', varargin, 'Exact');
  opts = sgs_parse('sgs_tunamh', sgs_options('tunamh'), args);
  [samples, info] = sgsample_mex('tunamh', exact, differences, theta0, opts, sgs_trampoline());
end
