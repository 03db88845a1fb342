function idx = sgs_minibatch(seed, n, B)
% SGS_MINIBATCH  The data indices of the minibatch a gradient callback was given.
%
%   idx = sgs_minibatch(seed, n, B)
%
%   B distinct indices out of 1:n (1-based, a B-by-1 double), uniformly, in random order, as a
%   pure function of (seed, n, B): the same as the C library's sgs_minibatch plus one. SEED is the
%   uint64 the sampler passed to the callback (a double integer up to 2^53 is accepted too).
%   Error sgsample:invalidMinibatch when B > n or n = 0.
  if nargin ~= 3
    error('sgsample:badArguments', 'usage: idx = sgs_minibatch(seed, n, B)');
  end
  idx = sgsample_mex('minibatch', seed, n, B);
end
