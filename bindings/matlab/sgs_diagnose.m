function S = sgs_diagnose(X, varargin)
% SGS_DIAGNOSE  Rank-normalised convergence diagnostics of stored draws, and a one-call verdict.
%
%   S = sgs_diagnose(X)
%   S = sgs_diagnose(X, 'Divergences', k)
%
%   X  n-by-d-by-m: m chains of n draws of d coordinates (one draw per row, as returned by
%      sgs_amagold, sgs_sghmc, sgs_sgld and c.run; e.g. cat(3, s1, s2, s3, s4)), or n-by-d for
%      one chain; double or single (single is widened exactly), finite, n >= 4.
%   'Divergences'  the number of divergent transitions after warm-up you counted (e.g. the sum
%      of info.divergences of the runs); default 0.
%
%   S  struct with one 1-by-d field per statistic of the C library's sgs_draws_summary (ArviZ's
%      estimators, docs/algorithms.md section 4.6), each chain split into its two halves:
%      mean, sd                 of all m*n draws (sd with n - 1 ... m*n - 1 in the denominator)
%      mcse_mean, mcse_sd       their Monte Carlo standard errors
%      q5, q50, q95             quantiles (linear interpolation, numpy's default)
%      mcse_q5, mcse_q50, mcse_q95   their Monte Carlo standard errors
%      ess_bulk, ess_tail       bulk-ESS (normal scores of the ranks) and tail-ESS (5 % and 95 %)
%      ess_mean                 ESS of the mean
%      rhat                     rank-normalised split-R-hat, max(rhat_bulk, rhat_folded);
%                               NaN for one chain (R-hat needs two)
%      rhat_bulk, rhat_folded   its two parts; rhat_split: the classic split-R-hat
%      flags                    each coordinate's share of the verdict (bits below)
%      draws, chains            n and m
%      verdict                  struct: ok (true only if every rhat < 1.01, every ess_bulk and
%                               ess_tail >= 100*m, and no divergence), flags (bits: 1 R-hat,
%                               2 bulk ESS, 4 tail ESS, 8 divergences, 16 not computable),
%                               reasons (their names, a cell), worst_rhat and its coordinate
%                               worst_rhat_coord (1-based), min_ess_bulk, min_ess_bulk_coord,
%                               min_ess_tail, min_ess_tail_coord, ess_threshold (100*m),
%                               not_computable (how many coordinates have a NaN), its first
%                               coordinate first_not_computable (NaN when none), divergences.
%
%   The numbers are the C library's, bit for bit. Errors: sgsample:badArgument (not a real
%   2-D/3-D array), sgsample:zeroDimension (d = 0 or no chain), sgsample:tooFewDraws (n < 4),
%   sgsample:nonFiniteDraws (a NaN or Inf draw; the message names X(t, j, c)),
%   sgsample:badOption, sgsample:unknownOption, sgsample:outOfMemory.
%
%     [s1, i1] = sgs_amagold(@U, @dU, [0; 0], 'Samples', 4000, 'Stream', 0);
%     [s2, i2] = sgs_amagold(@U, @dU, [0; 0], 'Samples', 4000, 'Stream', 1);
%     S = sgs_diagnose(cat(3, s1, s2), 'Divergences', i1.divergences + i2.divergences);
%     S.verdict.ok, S.rhat, S.ess_bulk
%
%   See also SGS_STATS (streaming ESS and split-R-hat, no stored draws).
  if nargin < 1
    error('sgsample:badArguments', 'usage: S = sgs_diagnose(X, ''Divergences'', k)');
  end
  opts = sgs_parse('sgs_diagnose', {'Divergences', 'divergences', 'count'}, varargin);
  S = sgsample_mex('draws', X, opts);
end
