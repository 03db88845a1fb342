function bench_batch()
% BENCH_BATCH  K chains per interpreter call and seed-derived noise on
%   the paper's double well, against a pure M-code AMAGOLD; see ../BENCHMARKS.md. Not a test.
%
%   octave-cli --no-gui --no-history --quiet --eval "addpath('bindings/matlab/bench'); bench_batch"
%
%   The reference, mcode_amagold below, is AMAGOLD written for this benchmark as a plain M-code
%   loop over Algorithm 2 (docs/algorithms.md §1): one scalar gradient per inner step with randn
%   noise, one energy per iteration, the test; what a direct M implementation such as the
%   authors' costs per iteration (their script is not in this repository). Times are the best of
%   3 runs (2 shared cores).
here = fileparts(mfilename('fullpath'));
addpath(fileparts(here));
U = @(x) (x + 4) .* (x + 1) .* (x - 1) .* (x - 3) / 14 + 0.5;
dU = @(x) (4 * x .^ 3 + 3 * x .^ 2 - 26 * x - 1) / 14;
N = 4000;       % iterations of the reference
K = 16;         % chains per call
M = 1000;       % iterations of each batched chain
best = @(f) min([f(), f(), f()]);

ref = best(@() timed(@() mcode_amagold(U, dU, N)));
fprintf('pure M-code AMAGOLD (randn noise):           %7.2f us per iteration\n', 1e6 * ref / N);

Gs = @(x, seed) dU(x) + sgs_normal(seed);
t1 = best(@() timed(@() sgs_amagold(U, Gs, 0, 'StepSize', 0.25, 'Samples', N / 4, 'Seed', 1)));
fprintf('sgs_amagold, 1 chain, sgs_normal(seed):      %7.2f us per iteration (%.2fx)\n', 4e6 * t1 / N, 4 * t1 / ref);

Gv = @(X, seeds) dU(X) + sgs_normal(seeds);
for k = [4, 16, 64]
  tk = best(@() timed(@() sgs_amagold(U, Gv, 0, 'Chains', k, 'StepSize', 0.25, 'Samples', M, 'Seed', 1)));
  fprintf('sgs_amagold, Chains %2d, vectorised, sgs_normal: %7.2f us per chain-iteration (%.3fx)\n', ...
          k, 1e6 * tk / (k * M), tk / (k * M) / (ref / N));
end
Gr = @(X, seeds) dU(X) + randn(size(X));
tr = best(@() timed(@() sgs_amagold(U, Gr, 0, 'Chains', K, 'StepSize', 0.25, 'Samples', M, 'Seed', 1)));
fprintf('sgs_amagold, Chains %2d, vectorised, randn:     %7.2f us per chain-iteration (%.3fx; not reproducible)\n', ...
        K, 1e6 * tr / (K * M), tr / (K * M) / (ref / N));

% The noise alone: one normal from a seed, M code (Box-Muller on the seed's halves, the old
% contract's way) against sgs_normal and randn.
seeds = uint64(1:2000) * uint64(2654435761);
bm = @(seed) sqrt(-2 * log((double(bitshift(seed, -32)) + 0.5) / 2^32)) * cos(2 * pi * double(bitand(seed, uint64(4294967295))) / 2^32);
tb = best(@() timed(@() arrayfun(bm, seeds)));
ts = best(@() timed(@() arrayfun(@(s) sgs_normal(s), seeds)));
tn = best(@() timed(@() arrayfun(@(s) randn(), seeds)));
fprintf('one normal per call: M-code from the seed %.1f us, sgs_normal %.1f us, randn %.1f us\n', ...
        1e6 * tb / 2000, 1e6 * ts / 2000, 1e6 * tn / 2000);
tv = best(@() timed(@() sgs_normal(seeds(1:K)')));
fprintf('sgs_normal of %d seeds at once: %.1f us\n', K, 1e6 * tv);
end

function t = timed(f)
  tic;
  f();
  t = toc;
end

% AMAGOLD (reversible, T = 10, eps = 0.25, beta = 0.25, sigma = 1) on a scalar target, plain M.
function x = mcode_amagold(U, dU, n)
  T = 10; e = 0.25; b = 0.25;
  x = 0; u = U(x); acc = 0;
  for it = 1:n
    r = randn; r0 = r; rho = 0;
    y = x + e / 2 * r;
    for t = 1:T
      if t > 1
        y = y + e * r;
      end
      g = dU(y) + randn;
      rn = ((1 - e * b) * r - e * g + sqrt(4 * e * b) * randn) / (1 + e * b);
      rho = rho + e / 2 * g * (r + rn);
      r = rn;
    end
    y = y + e / 2 * r;
    uy = U(y);
    if log(rand) < u - uy + rho
      x = y; u = uy; acc = acc + 1;
    else
      r = -r0; %#ok<NASGU>
    end
  end
end
