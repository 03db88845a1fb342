function Z = sgs_uniform(seeds, n)
% SGS_UNIFORM  Uniforms in [0, 1) from minibatch seeds, by the library's own generator.
%
%   Z = sgs_uniform(seeds, n)
%
%   seeds  the seeds (uint64, or doubles that are integers up to 2^53): a callback's
%          minibatch seed, or the k seeds a vectorised callback gets ('Chains', K)
%   n      values per seed (default 1)
%   Z      numel(seeds)-by-n: row i holds n uniforms in [0, 1) (53 bits) that are a pure function of
%          (seeds(i), n) (sgs_uniform of the C API: docs/algorithms.md, "Seed-derived noise");
%          a prefix of a longer row is the shorter row.
%
%   For a callback that needs uniforms (an accept test of its own, a random sub-sample):
%     u = sgs_uniform(seed, 3);   % 1-by-3, the same for the same seed
%
%   Errors: sgsample:badArgument (a seed that is negative, fractional, above 2^53 as a double,
%   complex; n not a non-negative integer), sgsample:tooLarge.
%
%   See also SGS_NORMAL, SGS_MINIBATCH.
  if nargin < 2
    n = 1;
  end
  Z = sgsample_mex('uniform', seeds, n);
end
