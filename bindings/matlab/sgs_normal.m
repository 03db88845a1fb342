function Z = sgs_normal(seeds, n)
% SGS_NORMAL  Standard normals from minibatch seeds, by the library's own generator.
%
%   Z = sgs_normal(seeds, n)
%
%   seeds  the seeds (uint64, or doubles that are integers up to 2^53): a callback's
%          minibatch seed, or the k seeds a vectorised callback gets ('Chains', K)
%   n      values per seed (default 1)
%   Z      numel(seeds)-by-n: row i holds n standard normals that are a pure function of
%          (seeds(i), n) (sgs_normal of the C API: docs/algorithms.md, "Seed-derived noise");
%          a prefix of a longer row is the shorter row.
%
%   A gradient that needs noise draws it from its seed, so that a rerun with the same 'Seed'
%   reproduces the chain bit for bit, at the speed of randn:
%     grad = @(x, seed) x + sgs_normal(seed, numel(x))';      % d-by-1 x
%     gradv = @(X, seeds) X + sgs_normal(seeds, size(X, 2));  % vectorised, k-by-d X
%
%   Errors: sgsample:badArgument (a seed that is negative, fractional, above 2^53 as a double,
%   complex; n not a non-negative integer), sgsample:tooLarge.
%
%   See also SGS_UNIFORM, SGS_MINIBATCH.
  if nargin < 2
    n = 1;
  end
  Z = sgsample_mex('normal', seeds, n);
end
