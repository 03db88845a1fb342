function [w, ess] = sgs_particle_weights(X, V, varargin)
% SGS_PARTICLE_WEIGHTS  Importance weights for SVGD particles: how much of the target each
%   particle stands for (the C library's sgs_particle_weights; docs/algorithms.md section 2.9).
%
%   [w, ess] = sgs_particle_weights(X, V, Name, Value, ...)
%
%   X      n-by-d particles (one per row), real, full double, e.g. the X of sgs_svgd
%   V      their n energies, V(i) = -log pi(X(i, :)) + const (any constant, the same for all:
%          the energy callbacks' convention), a column or a row; +Inf gives weight 0
%   w      n-by-1 self-normalised weights, w(i) proportional to exp(-V(i)) / s(i) with
%          s(i) = sum_j exp(-|X(i, :) - X(j, :)|^2 / (2h)) (the particles' own kernel density),
%          summing to 1: sum(w .* f(X)) estimates E_pi f
%   ess    their effective sample size 1/sum(w.^2), between 1 and n
%
%   The weights correct how many particles each region holds: a mode that SVGD (or annealed
%   SVGD) left with too many particles has them down-weighted, one with too few up-weighted.
%   They cannot add mass where there are no particles: a mode no particle reached stays at 0.
%
%   Options (defaults):
%     'Bandwidth'  [] (default): the median heuristic h = med^2/(2 log n), med the median
%                  pairwise distance of the particles (sgs_median_bandwidth: the bits of
%                  sgs_svgd's 'Kernel', 'median' for these particles); or h > 0, the bandwidth
%                  of the Gaussian kernel exp(-r^2/(2h)) (sgs_svgd's 'Bandwidth' convention).
%                  It must span a mode's particles and not reach across modes.
%
%   O(n^2*d) in C; nothing random. Errors: sgsample:badArgument (X not a real, full double
%   matrix, V not n real doubles), the library's statuses (sgsample:nonFinite for a NaN or Inf
%   coordinate, a NaN or -Inf energy or every energy +Inf; sgsample:invalidBandwidth,
%   sgsample:zeroParticles, sgsample:zeroDimension).
%
%   Example (three particles at 0, one at 10, the same density at both: half the mass each):
%     w = sgs_particle_weights([0; 0; 0; 10], zeros(4, 1), 'Bandwidth', 1)   % 1/6 1/6 1/6 1/2
%
%   See also SGS_MEDIAN_BANDWIDTH, SGS_SVGD, SGS_STEIN_THIN.
  if nargin < 2
    error('sgsample:badArguments', 'usage: [w, ess] = sgs_particle_weights(X, V, Name, Value, ...)');
  end
  h = sgs_bandwidth_option('sgs_particle_weights', X, varargin);
  [w, ess] = sgsample_mex('particle_weights', X, V, h);
end
