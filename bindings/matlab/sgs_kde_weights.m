function [w, ess] = sgs_kde_weights(X, Y, V, varargin)
% SGS_KDE_WEIGHTS  Importance weights of draws from the particles' kernel density estimate (the
%   C library's sgs_kde_weights; docs/algorithms.md section 2.9): importance sampling with the
%   particles as the proposal, which recovers the target's mode masses where the particles
%   hold the modes in the wrong proportions (as SVGD and annealed SVGD leave them).
%
%   [w, ess] = sgs_kde_weights(X, Y, V, Name, Value, ...)
%
%   X      n-by-d particles, those SGS_KDE_DRAWS drew Y from
%   Y      m-by-d draws (SGS_KDE_DRAWS)
%   V      their m energies, V(k) = -log pi(Y(k, :)) + const (any constant, the same for all),
%          a column or a row; +Inf gives weight 0
%   w      m-by-1 weights summing to 1, w(k) proportional to exp(-V(k)) / q(k) with
%          q(k) = sum_i exp(-|Y(k, :) - X(i, :)|^2 / (2h)): sum(w .* f(Y)) estimates E_pi f
%   ess    their effective sample size 1/sum(w.^2), between 1 and m
%
%   Options (defaults):
%     'Bandwidth'  [] (default): the median heuristic of the particles, as SGS_KDE_DRAWS; give
%                  both the same h.
%
%   O(m*n*d) in C; nothing random. Errors: sgsample:badArgument (X or Y not a real, full double
%   matrix, Y's columns not X's, V not m real doubles), the library's statuses
%   (sgsample:nonFinite, sgsample:invalidBandwidth, sgsample:zeroParticles,
%   sgsample:zeroDimension).
%
%   Example (pi = 0.3 N(-3, 1) + 0.7 N(3, 1); three quarters of the particles on the left):
%     X = [linspace(-3.5, -2.5, 30)'; linspace(2, 3, 10)'];
%     Y = sgs_kde_draws(X, 4000, 1, 'Bandwidth', 1);
%     V = -log(0.3 * exp(-0.5 * (Y + 3).^2) + 0.7 * exp(-0.5 * (Y - 3).^2));
%     w = sgs_kde_weights(X, Y, V, 'Bandwidth', 1);
%     sum(w(Y > 0))    % about 0.7 (the particles' share: 0.25)
%
%   See also SGS_KDE_DRAWS, SGS_PARTICLE_WEIGHTS, SGS_MEDIAN_BANDWIDTH, SGS_SVGD.
  if nargin < 3
    error('sgsample:badArguments', 'usage: [w, ess] = sgs_kde_weights(X, Y, V, Name, Value, ...)');
  end
  h = sgs_bandwidth_option('sgs_kde_weights', X, varargin);
  [w, ess] = sgsample_mex('kde_weights', X, Y, V, h);
end
