function h = sgs_median_bandwidth(X)
% SGS_MEDIAN_BANDWIDTH  The median-heuristic bandwidth of particles (the C library's
%   sgs_median_bandwidth; docs/algorithms.md sections 2.1 and 2.9).
%
%   h = sgs_median_bandwidth(X)
%
%   X  n-by-d particles (one per row), real, full double
%   h  med^2/(2 log n), med the median pairwise distance: the bandwidth of the Gaussian kernel
%      exp(-r^2/(2h)) that sgs_svgd's 'Kernel', 'median' would use for an iteration starting
%      from X, bit for bit (1 for one particle or a zero median); sgs_particle_weights' default
%
%   Needs n(n-1)/2 doubles of scratch. Errors: sgsample:badArgument, sgsample:tooLarge,
%   sgsample:outOfMemory, the library's statuses (sgsample:nonFinite, sgsample:zeroParticles,
%   sgsample:zeroDimension).
%
%   See also SGS_PARTICLE_WEIGHTS, SGS_SVGD.
  h = sgsample_mex('median_bandwidth', X);
end
