function Y = sgs_kde_draws(X, m, seed, varargin)
% SGS_KDE_DRAWS  Draws from the particles' Gaussian kernel density estimate (the C library's
%   sgs_kde_draws; docs/algorithms.md section 2.9), to be weighted by SGS_KDE_WEIGHTS.
%
%   Y = sgs_kde_draws(X, m, seed, Name, Value, ...)
%
%   X      n-by-d particles (one per row), real, full double, e.g. the X of sgs_svgd
%   m      the number of draws, a positive integer
%   seed   a non-negative integer (a double up to 2^53 or a uint64): the same (X, h, seed), the
%          same draws, bit for bit with the C library and every binding
%   Y      m-by-d draws: each a row of X chosen uniformly plus sqrt(h) times a standard normal
%          row (the particle index first, then the d normals, from the generator seeded with
%          (seed, stream "kdedraws"))
%
%   Options (defaults):
%     'Bandwidth'  [] (default): the median heuristic h = med^2/(2 log n) of the particles
%                  (sgs_median_bandwidth); or h > 0, the kernel exp(-r^2/(2h)), covariance h*I.
%                  Give SGS_KDE_WEIGHTS the same h.
%
%   Errors: sgsample:badArgument (X not a real, full double matrix, m or seed not a
%   non-negative integer), the library's statuses (sgsample:nonFinite, sgsample:invalidBandwidth,
%   sgsample:zeroParticles for no particles or m = 0, sgsample:zeroDimension).
%
%   Example (mode masses from particles in the wrong proportions; see SGS_KDE_WEIGHTS):
%     X = [linspace(-3.5, -2.5, 30)'; linspace(2, 3, 10)'];
%     Y = sgs_kde_draws(X, 4000, 1, 'Bandwidth', 1);
%
%   See also SGS_KDE_WEIGHTS, SGS_PARTICLE_WEIGHTS, SGS_MEDIAN_BANDWIDTH, SGS_SVGD.
  if nargin < 3
    error('sgsample:badArguments', 'usage: Y = sgs_kde_draws(X, m, seed, Name, Value, ...)');
  end
  h = sgs_bandwidth_option('sgs_kde_draws', X, varargin);
  Y = sgsample_mex('kde_draws', X, m, seed, h);
end

