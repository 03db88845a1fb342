function S = sgs_stats(X)
% SGS_STATS  Convergence diagnostics of MCMC draws: ESS, split-R-hat and MCSE per column.
%
%   S = sgs_stats(X)
%
%   X  n-by-d (one chain: n draws of d coordinates, one draw per row, as returned by
%      sgs_amagold, sgs_sghmc, sgs_sgld and c.run) or n-by-d-by-m (m chains of n draws each,
%      e.g. cat(3, s1, s2, s3, s4)); double or single, finite. One scalar chain is a COLUMN
%      (x(:)): a 1-by-n row is one draw of n coordinates (NaN ESS, no error).
%
%   S  struct with
%      ess        1-by-d  effective sample size of each coordinate over all chains together
%                         (within- and between-chain variance combined, as ArviZ's ESS); never
%                         above the raw estimate, 0 when the chains are too short against their
%                         autocorrelation time to tell
%      ess_flags  1-by-d  0 where ess is ArviZ's unsplit estimate on chains long against their
%                         autocorrelation time; else a lower-confidence value with the bits
%                         1 (the autocorrelation outlived the 128-lag window: Geyer over batch
%                         means) and/or 2 (short chains: fewer than 90 effective draws per
%                         chain, discounted, 0 at 20 or fewer); test with bitand(S.ess_flags, 2)
%      rhat       1-by-d  split-R-hat of each coordinate across the chains (also for one chain:
%                         its two halves); near 1 when the chains agree, > 1.01 is a warning
%      mcse       m-by-d  Monte Carlo standard error of each chain's mean, sqrt(variance/ESS)
%                         (Inf where the chain's ESS is 0)
%      mean       m-by-d  each chain's mean
%      variance   m-by-d  each chain's sample variance (n - 1 in the denominator)
%      chain_ess  m-by-d  each chain's own ESS
%      chain_ess_flags m-by-d  the flags of chain_ess
%      draws, chains      n and m
%
%   The numbers are those of the C library's streaming accumulators (sgs_stats_...): each chain's
%   draws are pushed in order, nothing is stored. ESS is Geyer's initial monotone sequence
%   estimate over a window of 128 lags (SGS_STATS_LAGS) (over 64 to 128 batch means when a
%   chain's autocorrelation lasts longer);
%   split-R-hat uses each chain's halves exactly when n is 16*2^j (otherwise the draws of the
%   incomplete last batches are left out of the halves). NaN below 4 draws.
%   Errors: sgsample:badArgument (not a real 2-D/3-D array), sgsample:zeroDimension (d = 0 or
%   no chain), sgsample:nonFinite (a NaN or Inf draw; the message names X(t, :, c)),
%   sgsample:outOfMemory.
%
%     [s1, ~] = sgs_amagold(@U, @dU, [0; 0], 'Samples', 4096, 'Stream', 0);
%     [s2, ~] = sgs_amagold(@U, @dU, [0; 0], 'Samples', 4096, 'Stream', 1);
%     S = sgs_stats(cat(3, s1, s2));   % S.ess, S.rhat, S.mcse
%
%   See also SGS_AMAGOLD, SGS_SGHMC, SGS_SGLD.
  if nargin ~= 1
    error('sgsample:badArguments', 'usage: S = sgs_stats(X)');
  end
  S = sgsample_mex('stats', X);
end
