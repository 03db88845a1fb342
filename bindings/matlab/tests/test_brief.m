function t = test_brief(t, check, expect_error)
% TEST_BRIEF  Tests of the binding's safety and friction items (MATLAB/Octave), called by
%   test_sgsample with its check/expect_error: K chains per call, seed-derived noise, sgs.Svgd,
%   overflowing counts, read-only properties, stale handles, nothing lost on errors, warm-up kept
%   apart with per-draw statistics, AMAGOLD's fixed-step burn-in, fresh and reported seeds,
%   progress, save/load, help.
  t = batch_chains(t, check, expect_error);
  t = noise(t, check, expect_error);
  t = svgd_object(t, check, expect_error);
  t = counts_and_properties(t, check, expect_error);
  t = nothing_lost(t, check);
  t = warmup_apart(t, check);
  t = seeds_progress_help(t, check);
  t = save_load(t, check, expect_error);
  t = thinning(t, check, expect_error);
end

function z = seed_noise(seed)
  z = (double(bitshift(seed, -11)) / 9007199254740992 - 0.5) * 0.5;
end

% K chains per call: chain c of a batch is the chain of the scalar callbacks with Stream + c - 1,
% bit for bit (rows, per-draw statistics, kept warm-up, counts); starts per chain; the double
% well's moments over 16 chains; bad inputs.
function t = batch_chains(t, check, expect_error)
  E = @(x) 0.5 * (x(1) * x(1) + x(2) * x(2));
  G = @(x, seed) x + seed_noise(seed);
  EV = @(X) 0.5 * (X(:, 1) .* X(:, 1) + X(:, 2) .* X(:, 2));
  GV = @(X, seeds) X + seed_noise(seeds);
  opts = {'Seed', 7, 'Samples', 60, 'Warmup', 40, 'Mass', 'diagonal', 'JitterSteps', true, 'KeepWarmup', true};
  [S, info] = sgs_amagold(EV, GV, [1; -1], 'Chains', 4, 'Stream', 2, opts{:});
  ok = isequal(size(S), [60, 2, 4]) && isequal(size(info.stats.log_accept), [60, 4]) && ...
       isequal(size(info.warmup_samples), [40, 2, 4]);
  for c = 1:4
    [s1, i1] = sgs_amagold(E, G, [1; -1], 'Stream', 1 + c, opts{:});
    ok = ok && isequal(s1, S(:, :, c)) && isequal(i1.stats.log_accept, info.stats.log_accept(:, c)) && ...
         isequal(i1.stats.accepted, info.stats.accepted(:, c)) && isequal(i1.stats.energy, info.stats.energy(:, c)) && ...
         isequal(i1.warmup_samples, info.warmup_samples(:, :, c)) && i1.accepted == info.accepted(c) && ...
         i1.step_size == info.step_size(c);
  end
  t = check(t, 'chains: AMAGOLD Chains 4 (diagonal warm-up, jitter) = 4 scalar chains with streams 2..5, bit for bit', ok);
  starts = [1, -1; 2, 2; -3, 0.5];
  [S, ~] = sgs_sghmc(GV, starts, 'Chains', 3, 'Seed', 1, 'Samples', 20, 'Burnin', 5);
  [L, ~] = sgs_sgld(GV, [0; 1], 'Chains', 3, 'Seed', 2, 'Samples', 20);
  ok = true;
  for c = 1:3
    ok = ok && isequal(S(:, :, c), sgs_sghmc(G, starts(c, :)', 'Seed', 1, 'Stream', c - 1, 'Samples', 20, 'Burnin', 5)) && ...
         isequal(L(:, :, c), sgs_sgld(G, [0; 1], 'Seed', 2, 'Stream', c - 1, 'Samples', 20));
  end
  t = check(t, 'chains: SGHMC (a start per chain) and SGLD Chains 3 = scalar chains, bit for bit', ok);
  % d = 1 starts per chain as 1-by-1-by-K; a 2-vector with Chains 2 is one shared start of d = 2.
  G1 = @(X, seeds) X + seed_noise(seeds);
  D1 = sgs_sgld(G1, reshape([3, -3], 1, 1, 2), 'Chains', 2, 'Seed', 4, 'Samples', 5);
  D2 = sgs_sgld(G1, [3; -3], 'Chains', 2, 'Seed', 4, 'Samples', 5);
  t = check(t, 'chains: 1-by-1-by-K starts for d = 1; a vector is one shared start', isequal(size(D1), [5, 1, 2]) && ...
            isequal(D1(:, :, 2), sgs_sgld(@(x, s) x + seed_noise(s), -3, 'Seed', 4, 'Stream', 1, 'Samples', 5)) && ...
            isequal(size(D2), [5, 2, 2]));
  % The double well (docs/algorithms.md 1.3) over 16 chains with sgs_normal noise: the pooled
  % mean within 4.5 MCSE (sgs_stats' across-chain ESS) of the truth.
  U = @(x) (x + 4) .* (x + 1) .* (x - 1) .* (x - 3) / 14 + 0.5;
  dU = @(X, seeds) (4 * X .^ 3 + 3 * X .^ 2 - 26 * X - 1) / 14 + sgs_normal(seeds);
  [W, wi] = sgs_amagold(U, dU, 0, 'Chains', 16, 'StepSize', 0.25, 'Samples', 2500, 'Seed', 2024);
  st = sgs_stats(W);
  m = mean(W(:));
  se = std(W(:)) / sqrt(st.ess);
  t = check(t, 'chains: double well, 16 chains, E theta = -2.148 within 4.5 MCSE', abs(m + 2.148) < 4.5 * se + 5e-4 && ...
            st.rhat < 1.05 && all(abs(wi.acceptance - 0.724) < 0.05), sprintf('(%.4f +- %.4f, R-hat %.3f)', m, se, st.rhat));
  t = check(t, 'chains: one gradient call per inner step for all chains', wi.callback_calls < 2500 * 11 * 1.01 + 40, ...
            sprintf('(%d calls)', wi.callback_calls));
  t = expect_error(t, 'sgsample:badOption', @() sgs_sgld(GV, [0; 1], 'Chains', 0), 'chains: Chains 0');
  t = expect_error(t, 'sgsample:badArgument', @() sgs_sgld(GV, ones(2, 3), 'Chains', 3), 'chains: theta0 neither d-vector nor Chains-by-d');
  t = expect_error(t, 'sgsample:badCallbackOutput', @() sgs_sgld(@(X, s) X', [0; 1], 'Chains', 3), 'chains: vectorised gradient transposed');
  % (one value for the one row at init, then one short for a round's rows)
  t = expect_error(t, 'sgsample:badCallbackOutput', @() sgs_amagold(@(X) ones(max(1, size(X, 1) - 1), 1), GV, [0; 1], 'Chains', 3), ...
                   'chains: vectorised energy of the wrong length');
  t = expect_error(t, 'mymodel:boom', @() sgs_sgld(@(X, s) error('mymodel:boom', 'x'), [0; 1], 'Chains', 3), 'chains: callback error rethrown');
  t = expect_error(t, 'sgsample:badOption', @() sgs_sgld(GV, [0; 1], 'Chains', 3, 'Stream', intmax('uint64')), 'chains: Stream + Chains overflow');
end

% sgs_normal / sgs_uniform: shapes, prefixes, seeds as doubles, moments of many seeds' draws.
function t = noise(t, check, expect_error)
  z = sgs_normal(uint64(99), 7);
  t = check(t, 'noise: 1-by-n, a prefix of a longer fill, double seed = uint64 seed', isequal(size(z), [1, 7]) && ...
            isequal(z(1:3), sgs_normal(99, 3)) && isequal(sgs_normal([1; 2]), [sgs_normal(1); sgs_normal(2)]));
  n = 20000;
  Z = sgs_normal((1:n)', 2);
  Uu = sgs_uniform((1:n)', 1);
  % 5 standard errors: mean (1/sqrt(n)), variance (sqrt(2/n)); uniform mean (sqrt(1/12n)).
  t = check(t, 'noise: normals have mean 0 and variance 1, uniforms mean 1/2 in [0, 1)', ...
            all(abs(mean(Z)) < 5 / sqrt(n)) && all(abs(var(Z) - 1) < 5 * sqrt(2 / n)) && ...
            abs(mean(Uu) - 0.5) < 5 * sqrt(1 / (12 * n)) && all(Uu >= 0 & Uu < 1) && abs(corr(Z(:, 1), Z(:, 2))) < 5 / sqrt(n), ...
            sprintf('(%.4f %.4f, %.4f)', mean(Z), mean(Uu)));
  t = expect_error(t, 'sgsample:badArgument', @() sgs_normal(-1), 'noise: seed -1');
  t = expect_error(t, 'sgsample:badArgument', @() sgs_normal(1.5), 'noise: seed 1.5');
  t = expect_error(t, 'sgsample:badArgument', @() sgs_normal(int8(1)), 'noise: int8 seed');
  t = expect_error(t, 'sgsample:badArgument', @() sgs_uniform(1, -2), 'noise: n -2');
  t = expect_error(t, 'sgsample:outOfMemory', @() sgs_normal(1, 2^52), 'noise: n 2^52 (out of memory)');
end

% sgs.Svgd: the same particles as sgs_svgd for split runs (the C comparison is in bit_for_bit),
% BatchSize set/get, read-only properties, bad input, callback error keeps the particles.
function t = svgd_object(t, check, expect_error)
  g = @(X, seed) X + seed_noise(seed);
  X0 = [(0:9)' / 10 - 0.5, 1 - (0:9)' / 5];
  opts = {'BatchSize', 4, 'StepSize', 0.2, 'Bandwidth', 2, 'Seed', 13};
  o = sgs.Svgd(g, X0, opts{:});
  o.run(10);
  info = o.step();
  [X, i2] = o.run(19);
  t = check(t, 'svgd object: run(10), step(), run(19) = sgs_svgd 30 iterations, bit for bit', ...
            isequal(X, sgs_svgd(g, X0, opts{:}, 'Iterations', 30)) && isequal(o.Particles, X) && ...
            o.Iterations == 30 && info.iterations == 1 && i2.total_iterations == 30 && o.Seed == 13);
  o.BatchSize = 5;
  t = check(t, 'svgd object: BatchSize set and read', o.BatchSize == 5);
  Xa = sgs_svgd(g, X0, opts{:}, 'Iterations', 20, 'Anneal', 'hyperbolic', 'AnnealIterations', 10, 'AnnealPower', 2);
  Xc = sgs_svgd(g, X0, opts{:}, 'Iterations', 20, 'Anneal', 'cyclical', 'AnnealIterations', 10, 'AnnealCycles', 2);
  Xp = sgs_svgd(g, X0, opts{:}, 'Iterations', 20);
  t = check(t, 'svgd: annealed runs (hyperbolic, cyclical) differ from the plain one and from each other', ...
            isequal(size(Xa), size(Xp)) && ~isequal(Xa, Xp) && ~isequal(Xc, Xp) && ~isequal(Xa, Xc));
  t = expect_error(t, 'sgsample:invalidOption', @() sgs_svgd(g, X0, opts{:}, 'Anneal', 'cyclical'), 'svgd: cyclical annealing over 0 iterations');
  o.run(7, 'Schedule', struct('kind', 'doubling', 'start', 2, 'every', 3));
  t = check(t, 'svgd object: BatchSize after a doubling schedule of 7 from 2 every 3 is its last choice, 8', ...
            o.BatchSize == 8 && o.Iterations == 37);
  t = expect_error(t, 'sgsample:invalidBatchSize', @() set_prop(o, 'BatchSize', 11), 'svgd object: BatchSize > N');
  t = expect_error(t, 'sgsample:readOnly', @() set_prop(o, 'Particles', X0), 'svgd object: Particles is read-only');
  t = expect_error(t, 'sgsample:readOnly', @() set_prop(o, 'Iterations', 3), 'svgd object: Iterations is read-only');
  t = expect_error(t, 'sgsample:unknownOption', @() sgs.Svgd(g, X0, 'Iterations', 3), 'svgd object: Iterations is per run');
  t = expect_error(t, 'sgsample:badOption', @() o.ksd('Kind', 'half'), 'svgd object: ksd Kind half');
  calls = 0;
  function G = flaky(X, seed)
    calls = calls + 1;
    if calls == 4
      error('mymodel:svgd', 'boom');
    end
    G = g(X, seed);
  end
  f = sgs.Svgd(@flaky, X0, opts{:});
  try
    f.run(10);
  catch e %#ok<NASGU>
  end
  t = check(t, 'svgd object: a callback error leaves the particles of the last completed iteration', ...
            f.Iterations == 3 && isequal(f.Particles, sgs_svgd(g, X0, opts{:}, 'Iterations', 3)));
end

% Counts that overflow 64 bits, read-only properties, an object made inside a callback after
% clear mex (stale), and progress/KeepWarmup flags checked.
function t = counts_and_properties(t, check, expect_error)
  E = @(x) 0.5 * sum(x .^ 2);
  G = @(x, s) x;
  big = intmax('uint64');
  t = expect_error(t, 'sgsample:tooLarge', @() sgs_amagold(E, G, 0, 'Warmup', big, 'Samples', 1), 'overflow: AMAGOLD Warmup intmax + Samples 1');
  t = expect_error(t, 'sgsample:tooLarge', @() sgs_amagold(E, G, 0, 'Warmup', big - 5, 'Burnin', 3, 'Samples', 3), 'overflow: AMAGOLD Warmup + Burnin + Samples');
  t = expect_error(t, 'sgsample:tooLarge', @() sgs_sgld(G, 0, 'Burnin', big, 'Samples', 1), 'overflow: SGLD Burnin intmax + Samples 1');
  t = expect_error(t, 'sgsample:tooLarge', @() sgs_sghmc(G, 0, 'Burnin', big, 'Samples', 1, 'Chains', 2), 'overflow: SGHMC Chains Burnin intmax + Samples 1');
  t = expect_error(t, 'sgsample:tooLarge', @() sgs.Amagold(E, G, 0, 'Warmup', big, 'Burnin', 1), 'overflow: sgs.Amagold Warmup + Burnin');
  c = sgs.Sgld(G, [1; 2]);
  for p = {'Position', 'Iterations', 'Divergences', 'Seed', 'Stream', 'Partial'}
    t = expect_error(t, 'sgsample:readOnly', @() set_prop(c, p{1}, 1), sprintf('read-only: %s', p{1}));
  end
  t = expect_error(t, 'sgsample:badOption', @() set_prop(c, 'Progress', 'yes'), 'Progress a string');
  t = check(t, 'read-only: nothing changed', c.Iterations == 0 && isequal(c.Position, [1; 2]));
  % clear mex inside a callback: Octave unloads the file when the run returns, so the object
  % made in the callback belongs to the load that goes; it must not reach the next load's
  % objects (its id's epoch says so).
  global SGS_TEST_MADE
  SGS_TEST_MADE = [];
  function g = clearing(x, s) %#ok<INUSD>
    if isempty(SGS_TEST_MADE)
      if exist('OCTAVE_VERSION', 'builtin')
        clear sgsample_mex
      else
        clear mex
      end
      SGS_TEST_MADE = sgs.Sgld(@(y, s2) y, [0; 0], 'Seed', 4);
    end
    g = x;
  end
  r = sgs.Sgld(@clearing, [1; 2]);
  try
    r.run(3);
  catch e %#ok<NASGU>
  end
  fresh = sgs.Sgld(@(y, s2) y, [0; 0], 'Seed', 4);
  fresh.run(2);
  t = expect_error(t, 'sgsample:staleHandle', @() SGS_TEST_MADE.run(1), 'stale: an object made in a callback after clear mex');
  t = check(t, 'stale: its id is not the new load''s object', SGS_TEST_MADE.Id ~= fresh.Id && fresh.Iterations == 2);
  clear global SGS_TEST_MADE
end

% A callback error or Ctrl-C during c.run(n) keeps the rows of that call in c.Partial, with exact
% totals; the next run continues bit for bit (Ctrl-C: in test_sgsample's interrupts).
function t = nothing_lost(t, check)
  E = @(x) 0.5 * sum(x .^ 2);
  G = @(x, seed) x + seed_noise(seed);
  th = [1; 2];
  [ref, rinfo] = sgs_amagold(E, G, th, 'Seed', 3, 'Samples', 60, 'Warmup', 20, 'KeepWarmup', true);
  calls = 0;
  function g = flaky(x, seed)
    calls = calls + 1;
    if calls == 400
      error('mymodel:diverged', 'model blew up');
    end
    g = G(x, seed);
  end
  c = sgs.Amagold(E, @flaky, th, 'Seed', 3, 'Warmup', 20, 'KeepWarmup', true);
  t = check(t, 'partial: [] before any failed run', isempty(c.Partial));
  try
    c.run(80);
  catch e %#ok<NASGU>
  end
  p = c.Partial;
  m = c.Iterations;
  t = check(t, 'partial: a callback error keeps the rows of the call, exact totals', m > 20 && m < 80 && ...
            isequal(p.samples, ref(1:m - 20, :)) && isequal(p.info.warmup_samples, rinfo.warmup_samples) && ...
            p.info.iterations == m && p.info.samples == m - 20 && ...
            p.info.accepted == sum(rinfo.stats.accepted(1:m - 20)) && isequal(p.info.stats.log_accept, rinfo.stats.log_accept(1:m - 20)), ...
            sprintf('(%d iterations, %d rows)', m, size(p.samples, 1)));
  rest = c.run(80 - m);
  t = check(t, 'partial: resuming is bit-identical, and a completed run clears Partial', ...
            isequal([p.samples; rest], ref) && isempty(c.Partial));
  % One-shot runs: sgs_partial() after the error; the next run clears it.
  calls = 0;
  try
    sgs_amagold(E, @flaky, th, 'Seed', 3, 'Samples', 60, 'Warmup', 20, 'KeepWarmup', true);
  catch e %#ok<NASGU>
  end
  q = sgs_partial();
  n = q.info.iterations - 20;
  t = check(t, 'partial: a one-shot run''s rows and exact totals in sgs_partial()', n > 0 && n < 60 && ...
            isequal(q.samples, ref(1:n, :)) && q.info.samples == n && isequal(q.info.warmup_samples, rinfo.warmup_samples) && ...
            q.info.accepted == sum(rinfo.stats.accepted(1:n)), sprintf('(%d rows)', n));
  EV = @(X) 0.5 * sum(X .^ 2, 2);
  vcalls = 0;
  function G = vflaky(X, seeds)
    vcalls = vcalls + 1;
    if vcalls == 95
      error('mymodel:diverged', 'model blew up');
    end
    G = X + seed_noise(seeds);
  end
  [R, ri] = sgs_amagold(EV, @(X, s) X + seed_noise(s), th, 'Chains', 3, 'Seed', 3, 'Samples', 30);
  try
    sgs_amagold(EV, @vflaky, th, 'Chains', 3, 'Seed', 3, 'Samples', 30);
  catch e %#ok<NASGU>
  end
  q = sgs_partial();
  n = q.info.samples;
  t = check(t, 'partial: K chains, the iterations every chain completed', n > 0 && n < 30 && ...
            isequal(q.samples, R(1:n, :, :)) && isequal(q.info.stats.log_accept, ri.stats.log_accept(1:n, :)), sprintf('(%d rows)', n));
  sgs_sgld(@(x, s) x, th, 'Samples', 2);
  t = check(t, 'partial: the next one-shot run clears it', isempty(sgs_partial()));
end

% Draws after the warm-up by default, the warm-up rows only with KeepWarmup and apart; per-draw
% statistics; AMAGOLD's burn-in at the step size the warm-up reached, nothing adapting.
function t = warmup_apart(t, check)
  E = @(x) 0.5 * (x(1) * x(1) + x(2) * x(2));
  G = @(x, seed) x + seed_noise(seed);
  th = [1; -1];
  [s, info] = sgs_amagold(E, G, th, 'StepSize', 0.2, 'Seed', 5, 'Warmup', 50, 'Samples', 100);
  [sk, ik] = sgs_amagold(E, G, th, 'StepSize', 0.2, 'Seed', 5, 'Warmup', 50, 'Samples', 100, 'KeepWarmup', true);
  c = sgs.Amagold(E, G, th, 'StepSize', 0.2, 'Seed', 5, 'Warmup', 50, 'KeepWarmup', true);
  [s0, i0] = c.run(50);
  [s1, i1] = c.run(100);
  t = check(t, 'warm-up apart: draws after the warm-up by default, the warm-up only on request', ...
            isequal(size(s), [100, 2]) && isequal(size(info.warmup_samples), [0, 2]) && isequal(s, sk) && ...
            isequal(size(ik.warmup_samples), [50, 2]) && isempty(s0) && isequal(i0.warmup_samples, ik.warmup_samples) && ...
            isequal(s1, s) && isequal(size(i1.warmup_samples), [0, 2]));
  st = info.stats;
  energy_ok = true;
  for k = 1:100
    energy_ok = energy_ok && st.energy(k) == E(s(k, :)');
  end
  t = check(t, 'stats: per draw: diverging, accepted, log_accept, step_size, energy U(draw), inner_steps', ...
            islogical(st.diverging) && ~any(st.diverging) && sum(st.accepted) == info.accepted && ...
            all(st.step_size == info.step_size) && all(st.inner_steps == 10) && energy_ok && ...
            numel(unique(ik.warmup_stats.step_size)) > 10 && isequaln(i0.warmup_stats, ik.warmup_stats), ...
            sprintf('(%d accepted)', sum(st.accepted)));
  [b, bi] = sgs_amagold(E, G, th, 'StepSize', 0.2, 'Seed', 5, 'Warmup', 50, 'Burnin', 30, 'Samples', 70, 'KeepWarmup', true);
  w = bi.warmup_stats.step_size;
  t = check(t, 'burn-in at fixed step size: the warm-up''s last step size through the burn-in, nothing adapts; burn-in rows = the first rows of the run without', ...
            isequal(size(bi.warmup_samples), [80, 2]) && all(w(51:80) == bi.step_size) && bi.step_size == info.step_size && ...
            isequal(bi.warmup_samples(51:80, :), s(1:30, :)) && isequal(b, s(31:100, :)));
  [~, ni] = sgs_amagold(E, G, th, 'StepSize', 0.2, 'Seed', 5, 'Burnin', 10, 'Samples', 5, 'KeepWarmup', true);
  t = check(t, 'burn-in without a warm-up: the given step size', all(ni.warmup_stats.step_size == 0.2) && ni.step_size == 0.2);
  [~, li] = sgs_sgld(@(x, seed) x, th, 'StepSize', 0.05, 'Samples', 5);
  t = check(t, 'stats: SGLD per draw (no test: log_accept and energy NaN, step size as given)', ...
            all(isnan(li.stats.log_accept)) && all(isnan(li.stats.energy)) && all(li.stats.step_size == 0.05) && all(li.stats.accepted));
end

% A fresh seed per call unless given, always reported; progress off by default, on by option;
% every option in help with its default.
function t = seeds_progress_help(t, check)
  G = @(x, seed) x + seed_noise(seed);
  [a, ia] = sgs_sgld(G, [0; 0], 'Samples', 20);
  [b, ib] = sgs_sgld(G, [0; 0], 'Samples', 20);
  c = sgs_sgld(G, [0; 0], 'Samples', 20, 'Seed', ia.seed);
  o = sgs.Sgld(G, [0; 0]);
  r = o.run(20);
  t = check(t, 'seeds: fresh per call, reported (uint64), and repeatable', isa(ia.seed, 'uint64') && ia.seed ~= ib.seed && ...
            ~isequal(a, b) && isequal(a, c) && isequal(r, sgs_sgld(G, [0; 0], 'Samples', 20, 'Seed', o.Seed)));
  quiet = evalc('sgs_sgld(G, [0; 0], ''Samples'', 5, ''Seed'', 1);');
  loud = evalc('sgs_sgld(G, [0; 0], ''Samples'', 5, ''Seed'', 1, ''Progress'', true);');
  o.Progress = true;
  oloud = evalc('o.run(3);');
  t = check(t, 'progress: off by default, a line with the count by option (functions and objects)', isempty(quiet) && ...
            ~isempty(strfind(loud, '5 of 5 iterations')) && ~isempty(strfind(oloud, '3 of 3 iterations')), strtrim(loud));
  here = fileparts(fileparts(mfilename('fullpath')));
  spec = fileread(fullfile(here, 'private', 'sgs_options.m'));
  missing = {};
  for f = {'sgs_amagold', 'amagold'; 'sgs_sghmc', 'sghmc'; 'sgs_sgld', 'sgld'; 'sgs_tunamh', 'tunamh'; 'sgs_svgd', 'svgd'}'
    block = regexp(spec, ['case ''', f{2}, '''(.*?)(case|end\s*$)'], 'tokens', 'once');
    names = regexp(block{1}, '''([A-Za-z]+)'', ''[a-z_]+''', 'tokens');
    h = help(f{1});
    for k = 1:numel(names)
      if isempty(regexp(h, ['''', names{k}{1}, ''''], 'once'))
        missing{end + 1} = [f{1}, ':', names{k}{1}]; %#ok<AGROW>
      end
    end
  end
  t = check(t, 'help: every option of every function is in its help', isempty(missing), strjoin(missing, ', '));
end

% save to a .mat, clear, load, continue == uninterrupted, bit for bit (setters included), in the
% warm-up and after it; the load imports the C checkpoint (no iteration replayed: a gradient that
% throws is never called); damaged and foreign checkpoints refused; 0.4's replay records load.
function t = save_load(t, check, expect_error)
  E = @(x) 0.5 * (x(1) * x(1) + x(2) * x(2));
  % (self-contained: a saved handle to a subfunction of this file would not load elsewhere)
  G = @(x, seed) x + (double(bitshift(seed, -11)) / 9007199254740992 - 0.5) * 0.5;
  th = [1; -1];
  c = sgs.Amagold(E, G, th, 'Seed', 8, 'Warmup', 60, 'Mass', 'diagonal');
  c.run(70);
  c.StepSize = 0.3;
  c.run(20);
  f = [tempname(), '.mat'];
  if exist('OCTAVE_VERSION', 'builtin')
    % Octave 7 cannot save classdef objects: the struct saveobj returns is saved instead, and
    % loadobj remade explicitly (MATLAB's save/load call them themselves).
    s = saveobj(c); %#ok<NASGU>
    save(f, 's');
  else
    save(f, 'c');
  end
  ref = c.run(40);
  clear c
  S = load(f);
  delete(f);
  if exist('OCTAVE_VERSION', 'builtin')
    d = sgs.Chain.loadobj(S.s);
  else
    d = S.c;
  end
  t = check(t, 'save/load: save, clear, load, continue = uninterrupted, bit for bit', ...
            isa(d, 'sgs.Amagold') && d.Iterations == 90 && d.StepSize == 0.3 && isequal(d.run(40), ref));
  % In the warm-up (a dense mass being learnt), restored with a gradient that must not run.
  c = sgs.Amagold(E, G, th, 'Seed', 9, 'Warmup', 80, 'Mass', 'dense');
  c.run(45);
  s = saveobj(c);
  s.Gradient = @(x, seed) error('sgsample:test', 'an iteration was replayed');
  d = sgs.Chain.loadobj(s);
  ok = d.Iterations == 45 && isequal(d.Position, c.Position) && isa(s.Checkpoint, 'uint8');
  s.Gradient = G;
  d = sgs.Chain.loadobj(s);
  t = check(t, 'save/load: in the warm-up, no iteration replayed, continues bit for bit', ...
            ok && isequal(d.run(60), c.run(60)) && isequal(d.InverseMassDense, c.InverseMassDense));
  h = sgs.Sghmc(G, th, 'Seed', 3);
  h.run(12);
  hs = saveobj(h);
  bad = s;
  bad.Checkpoint(end - 9) = bitxor(bad.Checkpoint(end - 9), uint8(4));
  t = expect_error(t, 'sgsample:invalidCheckpoint', @() sgs.Chain.loadobj(bad), 'load: a flipped bit in the checkpoint');
  bad = s;
  bad.Checkpoint = hs.Checkpoint;
  t = expect_error(t, 'sgsample:checkpointMismatch', @() sgs.Chain.loadobj(bad), 'load: an SGHMC checkpoint as AMAGOLD''s');
  t = expect_error(t, 'sgsample:badArgument', @() sgsample_mex('import', h.Id, double(hs.Checkpoint)), 'import: not uint8');
  % A record saved by 0.4 (no Checkpoint: the setter calls and the iteration count) replays.
  c = sgs.Amagold(E, G, th, 'Seed', 8, 'Warmup', 60, 'Mass', 'diagonal');
  s = saveobj(c);
  s = rmfield(s, 'Checkpoint');
  s.Sets = {70, 'step_size', 0.3};
  s.Iterations = 90;
  d = sgs.Chain.loadobj(s);
  t = check(t, 'save/load: a 0.4 record (replayed) continues bit for bit', ...
            d.Iterations == 90 && d.StepSize == 0.3 && isequal(d.run(40), ref));
end

% Stein thinning: the far draw of a standard normal is never chosen; the indices are the greedy
% choice written out here from the Stein kernel's formula (docs/algorithms.md section 6), for the
% standardised draws with each preconditioner; bad input.
function t = thinning(t, check, expect_error)
  x = [0.1; -0.4; 0.8; -1.1; 0.3; 7.0];
  idx = sgs_stein_thin(x, x, 12, 'Standardize', false);
  t = check(t, 'stein_thin: 12 of 6 draws, the far one never', isequal(size(idx), [12, 1]) && ~any(idx == 6) && all(idx >= 1));
  X = [sin(1:80)', cos((1:80) * 0.7)' + 0.3 * sin((1:80) * 1.3)'];
  G = X * [2, -0.5; -0.5, 1];
  w = mean(abs(X - mean(X, 1)), 1);
  Xs = X ./ w;
  Gs = G .* w;
  ok = isequal(sgs_stein_thin(X, G, 15), greedy(Xs, Gs, 15, [1, 1]));
  ok = ok && isequal(sgs_stein_thin(X, G, 15, 'Preconditioner', [0.5, 3]), greedy(Xs, Gs, 15, [0.5, 3]));
  ok = ok && isequal(sgs_stein_thin(X, G, 15, 'Preconditioner', 4), greedy(Xs, Gs, 15, [0.25, 0.25]));
  t = check(t, 'stein_thin: the greedy choice of the formula (standardised; id, d values, a number)', ok);
  med = sgs_stein_thin(X, G, 10, 'Preconditioner', 'med');
  t = check(t, 'stein_thin: the median preconditioner runs', numel(med) == 10 && all(med >= 1 & med <= 80));
  t = expect_error(t, 'sgsample:badArgument', @() sgs_stein_thin(X, G(1:5, :), 3), 'stein_thin: G of another size');
  t = expect_error(t, 'sgsample:badArgument', @() sgs_stein_thin(X, G, 3, 'Preconditioner', 'half'), 'stein_thin: unknown preconditioner');
  t = expect_error(t, 'sgsample:invalidKernel', @() sgs_stein_thin(X, G, 3, 'Beta', 0), 'stein_thin: beta 0');
  Xn = X;
  Xn(3, 1) = NaN;
  t = expect_error(t, 'sgsample:nonFinite', @() sgs_stein_thin(Xn, G, 3), 'stein_thin: a NaN draw');
end

function idx = greedy(X, G, m, lam)
  n = size(X, 1);
  u = @(i, j) stein_pair(X(i, :), X(j, :), G(i, :), G(j, :), lam);
  o = zeros(n, 1);
  for i = 1:n
    o(i) = u(i, i);
  end
  idx = zeros(m, 1);
  [~, idx(1)] = min(o);
  for s = 2:m
    for i = 1:n
      o(i) = o(i) + 2 * u(i, idx(s - 1));
    end
    [~, idx(s)] = min(o);
  end
end

function v = stein_pair(x, y, gx, gy, lam)
  z = x - y;
  q = 1 + sum(lam .* z .* z);
  v = q^-0.5 * sum(gx .* gy) - q^-1.5 * sum(lam .* (gx - gy) .* z) + sum(lam) * q^-1.5 ...
      - 3 * q^-2.5 * sum(lam .* lam .* z .* z);
end
