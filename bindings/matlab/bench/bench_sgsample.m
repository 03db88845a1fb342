% BENCH_SGSAMPLE  Cost per callback call through the MEX gateway, and the AMAGOLD run of
%   bench_c.c from Octave/MATLAB (see ../BENCHMARKS.md). Not a test.
here = fileparts(mfilename('fullpath'));
addpath(fileparts(here));
N = 20000;
E = @(x) 0.5 * (x(1) * x(1) + x(2) * x(2));
G = @(x, seed) x + (double(bitshift(seed, -11)) / 9007199254740992 - 0.5) * 0.5;
best = Inf;
for rep = 1:3
  tic;
  [s, info] = sgs_amagold(E, G, [1; -1], 'StepSize', 0.3, 'Seed', 7, 'Samples', N);
  best = min(best, toc);
end
fprintf('gateway: AMAGOLD d=2, T=10, %d samples (%d callback calls): %.0f ms (best of 3), %.1f us per callback call\n', ...
        N, info.callback_calls, 1e3 * best, 1e6 * best / info.callback_calls);
% The same callbacks called in a plain loop (the interpreter's share of the cost).
x = [1; -1];
seed = uint64(12345678901234);
tic;
for k = 1:N
  g = G(x, seed);
  e = E(x);
end
tl = toc;
fprintf('plain loop: %.1f us per callback call (gradient and energy alternately)\n', 1e6 * tl / (2 * N));
% Trivial callback: the fixed cost of one call through the gateway.
tic;
[s, info] = sgs_sgld(@(x, seed) x, 0, 'Samples', N);
t0 = toc;
fprintf('gateway, trivial gradient @(x, seed) x: %.1f us per call\n', 1e6 * t0 / info.callback_calls);
% Vectorised SVGD: one call per iteration whatever N.
for Np = [100, 1000]
  tic;
  [X, info] = sgs_svgd(@(X, seed) X, randn(Np, 1), 'BatchSize', 8, 'Iterations', 200);
  t = toc;
  fprintf('svgd N=%d p=8: %.2f ms per iteration (%d calls)\n', Np, 1e3 * t / 200, info.callback_calls);
end
