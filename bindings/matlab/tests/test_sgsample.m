function failed = test_sgsample(c_bits_file)
% TEST_SGSAMPLE  Tests of the MATLAB/Octave binding (run by scripts/test-matlab.sh):
%   statistics against exact truths (tolerances from batch-means standard errors), RBM-SVGD on the
%   1-D mixture, the minibatch helper, bit-for-bit equality with the C library (C_BITS_FILE,
%   written by tests/bitexact.c), bad inputs with their identifiers, callback errors, the
%   step-wise objects (+sgs), the mass-matrix warm-up, the diagnostics (sgs_stats, sgs_diagnose),
%   TunaMH (tests/test_tunamh.m) and Ctrl-C
%   (Octave: a child Octave interrupts itself).
%   Prints one line per test and 'octave: N passed, M failed'; returns M.
  here = fileparts(mfilename('fullpath'));
  addpath(fileparts(here));
  if nargin < 1
    c_bits_file = fullfile(fileparts(here), 'build', 'bitexact_c.txt');
  end
  t = struct('passed', 0, 'failed', 0);
  t = standard_normal(t);
  t = double_well(t);
  t = svgd_mixture(t);
  t = svgd_scale(t);
  t = minibatch(t);
  t = bit_for_bit(t, c_bits_file);
  t = bad_inputs(t);
  t = callback_errors(t);
  t = objects(t);
  t = object_errors(t);
  t = warmup_api(t);
  t = mass_warmup(t);
  t = diagnostics(t);
  t = draws_diagnostics(t);
  t = particle_weights(t);
  t = kde(t);
  t = interrupts(t);
  t = test_brief(t, @check, @expect_error);
  t = test_tunamh(t, @check, @expect_error, c_bits_file);
  t = fuzz(t);
  printf_('octave: %d passed, %d failed\n', t.passed, t.failed);
  failed = t.failed;
end

function printf_(varargin)
  fprintf(varargin{:});
end

function t = check(t, name, ok, detail)
  if nargin < 4
    detail = '';
  end
  if ok
    t.passed = t.passed + 1;
    fprintf('ok   %s %s\n', name, detail);
  else
    t.failed = t.failed + 1;
    fprintf('FAIL %s %s\n', name, detail);
  end
end

% N(0, 1) from a minibatch seed: Box-Muller on its two 32-bit halves (the seed is 64 random bits).
function z = seed_normal(seed)
  hi = double(bitshift(seed, -32));
  lo = double(bitand(seed, uint64(4294967295)));
  z = sqrt(-2 * log((hi + 0.5) / 2^32)) * cos(2 * pi * lo / 2^32);
end

function t = standard_normal(t)
  d = 2;
  [s, info] = sgs_amagold(@(x) 0.5 * sum(x .^ 2), @(x, seed) x + seed_normal(seed), [3; -3], ...
                          'StepSize', 0.3, 'Samples', 10000, 'Seed', 42, 'LogAccept', true);
  t = check(t, 'normal: samples are Samples-by-d', isequal(size(s), [10000, d]));
  worst = 0;
  for j = 1:d
    [m, se] = batch_means(s(:, j), 50);
    [v, sev] = batch_means((s(:, j) - m) .^ 2, 50);
    worst = max([worst, abs(m) / se, abs(v - 1) / sev]);
  end
  % 4 statistics: 4 standard errors.
  t = check(t, 'normal: AMAGOLD mean 0, variance 1', worst < 4, sprintf('(worst %.2f SE)', worst));
  t = check(t, 'normal: info fields', info.samples == 10000 && info.iterations == 10000 && ...
            info.acceptance > 0.5 && info.acceptance < 1 && info.divergences == 0 && ...
            isequal(size(info.log_accept), [10000, 1]) && info.callback_calls == 1 + 10000 * 11);
  acc = mean(min(1, exp(info.log_accept)));
  t = check(t, 'normal: mean min(1, e^log a) ~ acceptance', abs(acc - info.acceptance) < 0.03, ...
            sprintf('(%.3f vs %.3f)', acc, info.acceptance));
end

function t = double_well(t)
  U = @(x) (x + 4) * (x + 1) * (x - 1) * (x - 3) / 14 + 0.5;
  dU = @(x, seed) (4 * x^3 + 3 * x^2 - 26 * x - 1) / 14 + seed_normal(seed);
  n = 40000;
  [s, info] = sgs_amagold(U, dU, 0, 'StepSize', 0.25, 'Steps', 10, 'Friction', 0.25, ...
                          'Samples', n, 'Seed', 2024);
  [m, sem] = batch_means(s, 50);
  [v, sev] = batch_means((s - m) .^ 2, 50);
  [p, sep] = batch_means(double(s > 0), 50);
  % Truth (docs/algorithms.md §1.3) to the digits given; 4.5 SE plus the rounding of the truth.
  t = check(t, 'double well: E theta = -2.148', abs(m + 2.148) < 4.5 * sem + 5e-4, sprintf('(%.4f ± %.4f)', m, sem));
  t = check(t, 'double well: Var theta = 2.862', abs(v - 2.862) < 4.5 * sev + 5e-4, sprintf('(%.4f ± %.4f)', v, sev));
  t = check(t, 'double well: P(theta > 0) = 0.1288', abs(p - 0.1288) < 4.5 * sep + 5e-5, sprintf('(%.4f ± %.4f)', p, sep));
  t = check(t, 'double well: acceptance 0.724 ± 0.02', abs(info.acceptance - 0.724) < 0.02, sprintf('(%.3f)', info.acceptance));
end

function t = svgd_mixture(t)
  % docs/algorithms.md §2.4: pi = N(-2,1)/3 + 2N(2,1)/3, particles from N(-10, 1) (deterministic
  % quantiles), N = 256, p = 8, h = 2, AdaGrad eta = 0.2, 500 iterations. Tolerances of
  % tests/svgd_mixture.rs for p = 8 (spread over 100 initialisations): x 0.20, x^2 0.39.
  N = 256;
  X0 = -10 + sqrt(2) * erfinv(2 * ((1:N)' - 0.5) / N - 1);
  grads = @(X, seed) X - 2 + 4 ./ (2 * exp(4 * X) + 1);
  [X, info] = sgs_svgd(grads, X0, 'BatchSize', 8, 'Kernel', 'gaussian', 'Bandwidth', 2, ...
                       'StepRule', 'adagrad', 'StepSize', 0.2, 'Iterations', 500, 'Seed', 1);
  t = check(t, 'svgd: X is N-by-d, one call per iteration', isequal(size(X), [N, 1]) && info.callback_calls == 500);
  t = check(t, 'svgd: E x = 2/3', abs(mean(X) - 2 / 3) < 0.20, sprintf('(%.4f)', mean(X)));
  t = check(t, 'svgd: E x^2 = 5', abs(mean(X .^ 2) - 5) < 0.39, sprintf('(%.4f)', mean(X .^ 2)));
  % The KSD: NaN when off; with 'full' the particles are the same and the KSD^2 is at the level of
  % exact samples of the same size (1.74/N; tests/svgd_ksd.rs requires < 4/N).
  [Xk, infok] = sgs_svgd(grads, X0, 'BatchSize', 8, 'Kernel', 'gaussian', 'Bandwidth', 2, ...
                         'StepRule', 'adagrad', 'StepSize', 0.2, 'Iterations', 500, 'Seed', 1, 'KSD', 'full');
  t = check(t, 'svgd: KSD off by default, same particles with it on', isnan(info.ksd_squared) && isequal(X, Xk));
  t = check(t, 'svgd: final KSD^2 < 4/N', infok.ksd_squared > 0 && infok.ksd_squared < 4 / N, sprintf('(%.5f)', infok.ksd_squared));
  % Column-major N-by-d both ways: N(1, 1) x N(-3, 4); a transposition would mix the columns.
  g2 = @(X, seed) [X(:, 1) - 1, (X(:, 2) + 3) / 4];
  [Y, info2] = sgs_svgd(g2, [zeros(64, 1), zeros(64, 1)] + 0.1 * [(1:64)' / 64, -(1:64)' / 64], ...
                        'BatchSize', 64, 'Iterations', 300, 'Bandwidth', 1);
  t = check(t, 'svgd: 2-D columns stay columns', abs(mean(Y(:, 1)) - 1) < 0.3 && abs(mean(Y(:, 2)) + 3) < 0.5 && var(Y(:, 2)) > 2 * var(Y(:, 1)), ...
            sprintf('(means %.3f, %.3f)', mean(Y(:, 1)), mean(Y(:, 2))));
end

function t = svgd_scale(t)
  % docs/algorithms.md §2.7: a raw-scale Gaussian (sds 1e-3, 0.1, 10, means far from 0), N = 128,
  % p = 8, h = 1, AdaGrad eta = 0.1, 1500 iterations from N(0, I) (deterministic quantiles): with
  % 'Scale', 'particles' every coordinate's mean within 0.2 sd and variance within [0.7, 1.3] of
  % the truth (tests/svgd_scale.rs: 0.01 sd and 0.9-0.95 for RBM-SVGD p = 8, here one final
  % iteration instead of an average); without it, far off.
  N = 128;
  sd = [1e-3, 0.1, 10];
  mu = [0.37, 4.6, -120];
  q = sqrt(2) * erfinv(2 * ((1:N)' - 0.5) / N - 1);
  X0 = [q, q(end:-1:1), q([2:2:N, 1:2:N])];
  grads = @(X, seed) (X - mu) ./ sd .^ 2;
  opts = {'BatchSize', 8, 'Bandwidth', 1, 'StepSize', 0.1, 'Iterations', 1500, 'Seed', 5};
  X = sgs_svgd(grads, X0, opts{:}, 'Scale', 'particles');
  z = (mean(X) - mu) ./ sd;
  v = var(X, 1) ./ sd .^ 2;
  t = check(t, 'svgd scale: means within 0.2 sd', all(abs(z) < 0.2), sprintf('(%s)', num2str(z, 3)));
  t = check(t, 'svgd scale: variances within [0.7, 1.3]', all(v > 0.7 & v < 1.3), sprintf('(%s)', num2str(v, 3)));
  Xn = sgs_svgd(grads, X0, opts{:});
  zn = (mean(Xn) - mu) ./ sd;
  vn = var(Xn, 1) ./ sd .^ 2;
  t = check(t, 'svgd scale: without it, far off', max(abs(zn)) > 3 || max(abs(log(vn))) > log(2), ...
            sprintf('(%s / %s)', num2str(zn, 3), num2str(vn, 3)));
end

function t = minibatch(t)
  idx = sgs_minibatch(uint64(123456789), 1000, 20);
  t = check(t, 'minibatch: 20x1, distinct, in 1..1000', isequal(size(idx), [20, 1]) && ...
            numel(unique(idx)) == 20 && all(idx >= 1 & idx <= 1000 & idx == round(idx)));
  t = check(t, 'minibatch: pure function of (seed, n, B); double seed = uint64 seed', ...
            isequal(idx, sgs_minibatch(123456789, 1000, 20)));
  t = check(t, 'minibatch: B = n is a permutation of 1..n', isequal(sort(sgs_minibatch(uint64(3), 50, 50)), (1:50)'));
  t = check(t, 'minibatch: B = 0 is empty', isempty(sgs_minibatch(1, 5, 0)));
  t = expect_error(t, 'sgsample:badArgument', @() sgs_minibatch(true, 5, 2), 'minibatch: logical seed');
  big = sgs_minibatch(intmax('uint64'), 10, 3);
  t = check(t, 'minibatch: the whole uint64 seed range', numel(big) == 3);
  % Uniformity: each index of 1..10 appears ~ 1000 times in 3000 seeds x B = 3 (6 sigma).
  counts = zeros(10, 1);
  for k = 1:3000
    j = sgs_minibatch(uint64(k), 10, 3);
    counts(j) = counts(j) + 1;
  end
  t = check(t, 'minibatch: indices uniform', all(abs(counts - 900) < 6 * sqrt(900 * 0.9)), sprintf('(%d..%d)', min(counts), max(counts)));
end

function z = seed_noise(seed)
  % The same operations as tests/bitexact.c: ((seed >> 11) * 2^-53 - 0.5) * 0.5.
  z = (double(bitshift(seed, -11)) / 9007199254740992 - 0.5) * 0.5;
end

function t = bit_for_bit(t, file)
  fid = fopen(file, 'r');
  if fid < 0
    t = check(t, 'bit-for-bit: C output present', false, file);
    return;
  end
  c_lines = {};
  line = fgetl(fid);
  while ischar(line)
    c_lines{end + 1} = line; %#ok<AGROW>
    line = fgetl(fid);
  end
  fclose(fid);
  E = @(x) 0.5 * (x(1) * x(1) + x(2) * x(2));
  G = @(x, seed) x + seed_noise(seed);
  th = [1; -1];
  runs = { ...
    'amagold', @() sgs_amagold(E, G, th, 'StepSize', 0.3, 'Seed', 7, 'Samples', 200); ...
    'amagold_nr', @() sgs_amagold(E, G, th, 'StepSize', 0.2, 'Seed', 11, 'Stream', 3, 'Steps', 5, ...
                                  'Warmup', 50, 'Variant', 'nonreversible', 'Samples', 200); ...
    'sghmc', @() sgs_sghmc(G, th, 'StepSize', 0.1, 'Seed', 5, 'Samples', 200); ...
    'sgld', @() sgs_sgld(G, th, 'StepSize', 0.05, 'Seed', 9, 'Steps', 3, 'Samples', 200); ...
    'svgd', @() sgs_svgd(@(X, seed) X + seed_noise(seed), [(0:9)' / 10 - 0.5, 1 - (0:9)' / 5], ...
                         'BatchSize', 4, 'StepSize', 0.2, 'Bandwidth', 2, 'Iterations', 30, 'Seed', 13); ...
    'amagold_mass', @() mass_run(E, G, th); ...
    'amagold_mass_k', @() mass_k(E, G, th); ...
    'amagold_dense', @() dense_part(E, G, 'samples'); ...
    'amagold_dense_k', @() dense_part(E, G, 'k'); ...
    'amagold_dense_report', @() dense_part(E, G, 'report'); ...
    'amagold_dense_counts', @() dense_part(E, G, 'counts'); ...
    'amagold_handoff', @() handoff_run(E, G, th); ...
    'stats_ess', @() stats_field(runs_pair(E, G, th), 'ess'); ...
    'stats_rhat', @() stats_field(runs_pair(E, G, th), 'rhat'); ...
    'stats_mcse', @() stats_field(runs_pair(E, G, th), 'mcse'); ...
    'stats_chain_ess', @() stats_field(runs_pair(E, G, th), 'chain_ess'); ...
    'stats_ess_flags', @() stats_field(runs_pair(E, G, th), 'ess_flags'); ...
    'stats_chain_ess_flags', @() stats_field(runs_pair(E, G, th), 'chain_ess_flags'); ...
    'svgd_obj', @() svgd_obj_run('particles'); ...
    'svgd_obj_ksd', @() svgd_obj_run('ksd'); ...
    'normal', @() [sgs_normal(uint64([1; 2; 123456789]), 5); sgs_normal(intmax('uint64'), 5)]; ...
    'uniform', @() sgs_uniform([uint64(1); 2; 123456789; intmax('uint64')], 5)};
  for r = 1:size(runs, 1)
    tag = runs{r, 1};
    mine = hex_rows(tag, runs{r, 2}());
    theirs = c_lines(strncmp(c_lines, [tag, ' '], numel(tag) + 1));
    t = check(t, sprintf('bit-for-bit: %s = C library', tag), ~isempty(theirs) && isequal(mine, theirs), ...
              sprintf('(%d rows)', numel(theirs)));
  end
  % sgs_diagnose on the same two runs as two chains, double and single: every field.
  X = runs_pair(E, G, th);
  fields = {'mean', 'sd', 'mcse_mean', 'mcse_sd', 'q5', 'q50', 'q95', 'mcse_q5', 'mcse_q50', ...
            'mcse_q95', 'ess_bulk', 'ess_tail', 'ess_mean', 'rhat', 'rhat_bulk', 'rhat_folded', ...
            'rhat_split', 'flags'};
  kinds = {'draws', sgs_diagnose(X); 'draws32', sgs_diagnose(single(X))};
  for k = 1:size(kinds, 1)
    for f = 1:numel(fields)
      tag = [kinds{k, 1}, '_', fields{f}];
      mine = hex_rows(tag, kinds{k, 2}.(fields{f}));
      theirs = c_lines(strncmp(c_lines, [tag, ' '], numel(tag) + 1));
      t = check(t, sprintf('bit-for-bit: sgs_diagnose %s = C library', tag), ~isempty(theirs) && isequal(mine, theirs));
    end
  end
  mb = c_lines(strncmp(c_lines, 'minibatch ', 10));
  c_idx = sscanf(mb{1}(11:end), '%d');
  t = check(t, 'bit-for-bit: sgs_minibatch = C + 1', isequal(sgs_minibatch(uint64(123456789), 1000, 20), c_idx + 1));
end

% The sgs.Svgd run of tests/bitexact.c: 10 iterations, then 40 with a batch size doubling from 2
% every 10; the particles, or the full and batch KSD^2 with the gradients of seed 5.
function v = svgd_obj_run(what)
  o = sgs.Svgd(@(X, seed) X + seed_noise(seed), [(0:9)' / 10 - 0.5, 1 - (0:9)' / 5], ...
               'BatchSize', 4, 'StepSize', 0.2, 'Bandwidth', 2, 'Seed', 13);
  o.run(10);
  o.run(40, 'Schedule', struct('kind', 'doubling', 'start', 2, 'every', 10));
  if strcmp(what, 'particles')
    v = o.Particles;
  else
    v = [o.ksd('Seed', 5), o.ksd('Kind', 'batch', 'BatchSize', 4, 'Seed', 5)];
  end
end

% The mass-matrix run of tests/bitexact.c: seed 21, step 0.05, warm-up 60 with AdaptMass.
function s = mass_run(E, G, th)
  s = sgs_amagold(E, G, th, 'StepSize', 0.05, 'Seed', 21, 'Warmup', 60, 'AdaptMass', true, 'Samples', 200);
end

function k = mass_k(E, G, th)
  [~, info] = sgs_amagold(E, G, th, 'StepSize', 0.05, 'Seed', 21, 'Warmup', 60, 'AdaptMass', true, 'Samples', 200);
  k = info.inverse_mass';
end

% The warm-up API runs of tests/bitexact.c: a dense mass matrix learnt from (30, -30) with
% jittered T (seed 23, step 0.05, warm-up 300), 200 samples, its matrix, its report's doubles and
% counts (verdict and reasons as their numbers), in the C struct's order.
function v = dense_part(E, G, what)
  [s, info] = sgs_amagold(E, G, [30; -30], 'StepSize', 0.05, 'Seed', 23, 'Warmup', 300, ...
                          'Mass', 'dense', 'JitterSteps', true, 'Samples', 200);
  r = info.warmup_report;
  switch what
    case 'samples'
      v = s;
    case 'k'
      v = info.inverse_mass_dense;
    case 'report'
      v = [r.step_size, r.target_accept, r.accept_rate, r.energy_trend_z, r.energy_mean, ...
           r.energy_sd, r.bfmi, r.condition_number, r.approach_energy_start, r.approach_energy_end];
    case 'counts'
      verdict = find(strcmp(r.verdict, {'none', 'running', 'ok', 'suspect'})) - 1;
      v = [r.iterations, r.approach_iterations, r.divergences, r.window_iterations, ...
           r.window_divergences, verdict, r.reason_flags, r.metric_updates, r.restarts, ...
           r.energy_trend_falling, r.energy_trend_rising];
  end
end

% A chain without a warm-up handed a step size and a dense matrix by the setters (seed 29).
function s = handoff_run(E, G, th)
  f = sgs.Amagold(E, G, th, 'StepSize', 0.1, 'Seed', 29, 'Mass', 'dense');
  f.StepSize = 0.37;
  f.InverseMassDense = [2, 0.5; 0.5, 1];
  s = f.run(200);
end

% The first two AMAGOLD runs of the bit-for-bit test as two chains (n-by-d-by-2).
function X = runs_pair(E, G, th)
  X = cat(3, sgs_amagold(E, G, th, 'StepSize', 0.3, 'Seed', 7, 'Samples', 200), ...
          sgs_amagold(E, G, th, 'StepSize', 0.2, 'Seed', 11, 'Stream', 3, 'Steps', 5, ...
                      'Warmup', 50, 'Variant', 'nonreversible', 'Samples', 200));
end

function v = stats_field(X, name)
  S = sgs_stats(X);
  v = S.(name);
end

function t = expect_error(t, id, f, what)
  try
    f();
    t = check(t, ['bad input: ', what], false, '(no error)');
  catch e
    t = check(t, ['bad input: ', what], strcmp(e.identifier, id), sprintf('-> %s: %s', e.identifier, e.message));
  end
end

function t = bad_inputs(t)
  E = @(x) 0.5 * sum(x .^ 2);
  G = @(x, s) x;
  GS = @(X, s) X;
  X0 = randn(10, 1);
  cases = { ...
    'sgsample:invalidStepSize', @() sgs_amagold(E, G, 0, 'StepSize', 0), 'StepSize 0'; ...
    'sgsample:invalidStepSize', @() sgs_sgld(G, 0, 'StepSize', NaN), 'SGLD StepSize NaN'; ...
    'sgsample:invalidFriction', @() sgs_amagold(E, G, 0, 'Friction', -1), 'Friction -1'; ...
    'sgsample:invalidFriction', @() sgs_sghmc(G, 0, 'StepSize', 0.5, 'Friction', 2), 'SGHMC StepSize*Friction >= 1'; ...
    'sgsample:invalidMomentumScale', @() sgs_amagold(E, G, 0, 'MomentumSD', 0), 'MomentumSD 0'; ...
    'sgsample:invalidSteps', @() sgs_amagold(E, G, 0, 'Steps', 0), 'Steps 0'; ...
    'sgsample:invalidTargetAcceptance', @() sgs_amagold(E, G, 0, 'Warmup', 10, 'TargetAccept', 1.5), 'TargetAccept 1.5'; ...
    'sgsample:invalidPosition', @() sgs_amagold(E, G, [0; NaN]), 'theta0 with a NaN'; ...
    'sgsample:zeroDimension', @() sgs_amagold(E, G, []), 'empty theta0'; ...
    'sgsample:initialEnergyRejected', @() sgs_amagold(@(x) Inf, G, 0), 'energy Inf at theta0'; ...
    'sgsample:initialEnergyRejected', @() sgs_amagold(@(x) [], G, 0), 'energy [] (outside the domain) at theta0'; ...
    'sgsample:invalidOption', @() sgs_amagold(E, G, 0, 'Variant', 'sideways'), 'Variant sideways'; ...
    'sgsample:invalidWarmup', @() sgs_amagold(E, G, 0, 'AdaptMass', true, 'Warmup', 19), 'AdaptMass with Warmup 19'; ...
    'sgsample:invalidWarmup', @() sgs.Amagold(E, G, 0, 'Mass', 'dense', 'Warmup', 5), 'sgs.Amagold dense mass with Warmup 5'; ...
    'sgsample:badOption', @() sgs_amagold(E, G, 0, 'AdaptMass', 2, 'Warmup', 50), 'AdaptMass 2'; ...
    'sgsample:nonFinite', @() sgs_stats([1; 2; NaN]), 'sgs_stats with a NaN draw'; ...
    'sgsample:zeroDimension', @() sgs_stats(zeros(10, 0)), 'sgs_stats with no coordinate'; ...
    'sgsample:zeroDimension', @() sgs_stats(zeros(10, 2, 0)), 'sgs_stats with no chain'; ...
    'sgsample:badArgument', @() sgs_stats([1; 2i]), 'sgs_stats complex'; ...
    'sgsample:badArgument', @() sgs_stats(int8([1; 2])), 'sgs_stats integers'; ...
    'sgsample:badArgument', @() sgs_stats(zeros(4, 2, 2, 2)), 'sgs_stats 4-D'; ...
    'sgsample:nonFiniteDraws', @() sgs_diagnose([1; 2; NaN; 4; 5]), 'sgs_diagnose with a NaN draw'; ...
    'sgsample:nonFiniteDraws', @() sgs_diagnose(single([1; -Inf; 3; 4])), 'sgs_diagnose with a -Inf single draw'; ...
    'sgsample:tooFewDraws', @() sgs_diagnose(zeros(3, 2, 4)), 'sgs_diagnose with 3 draws per chain'; ...
    'sgsample:tooFewDraws', @() sgs_diagnose(zeros(0, 2, 4)), 'sgs_diagnose with no draw'; ...
    'sgsample:zeroDimension', @() sgs_diagnose(zeros(10, 0)), 'sgs_diagnose with no coordinate'; ...
    'sgsample:zeroDimension', @() sgs_diagnose(zeros(10, 2, 0)), 'sgs_diagnose with no chain'; ...
    'sgsample:badArgument', @() sgs_diagnose([1; 2; 3; 4i]), 'sgs_diagnose complex'; ...
    'sgsample:badArgument', @() sgs_diagnose(int8([1; 2; 3; 4])), 'sgs_diagnose integers'; ...
    'sgsample:badOption', @() sgs_diagnose(zeros(8, 1), 'Divergences', -1), 'sgs_diagnose Divergences -1'; ...
    'sgsample:unknownOption', @() sgs_diagnose(zeros(8, 1), 'Divergence', 1), 'sgs_diagnose misspelt option'; ...
    'sgsample:unknownOption', @() sgs_amagold(E, G, 0, 'StepSise', 0.1), 'misspelt option'; ...
    'sgsample:badArguments', @() sgs_amagold(E, G, 0, 'StepSize'), 'option without a value'; ...
    'sgsample:badOption', @() sgs_amagold(E, G, 0, 'Samples', -1), 'Samples -1'; ...
    'sgsample:badOption', @() sgs_sgld(G, 0, 'Seed', 1.5), 'Seed 1.5'; ...
    'sgsample:badOption', @() sgs_amagold(E, G, 0, 'StepSize', 'big'), 'StepSize a string'; ...
    'sgsample:notFunctionHandle', @() sgs_amagold('energy', G, 0), 'energy not a function handle'; ...
    'sgsample:badArgument', @() sgs_amagold(E, G, [1 + 2i]), 'complex theta0'; ...
    'sgsample:badArgument', @() sgs_amagold(E, G, ones(2, 2)), 'theta0 a matrix'; ...
    'sgsample:badCallbackOutput', @() sgs_amagold(@(x) [1 2], G, 0), 'energy returns a vector'; ...
    'sgsample:badCallbackOutput', @() sgs_amagold(E, @(x, s) [x; x], [0; 0]), 'gradient of the wrong length'; ...
    'sgsample:badCallbackOutput', @() sgs_svgd(@(X, s) X', X0), 'SVGD gradients transposed'; ...
    'sgsample:invalidBatchSize', @() sgs_svgd(GS, X0, 'BatchSize', 1), 'BatchSize 1'; ...
    'sgsample:invalidBatchSize', @() sgs_svgd(GS, X0, 'BatchSize', 11), 'BatchSize > N'; ...
    'sgsample:invalidBandwidth', @() sgs_svgd(GS, X0, 'Bandwidth', -2), 'Bandwidth -2'; ...
    'sgsample:invalidStepRule', @() sgs_svgd(GS, X0, 'AdaGradAlpha', 1), 'AdaGradAlpha 1'; ...
    'sgsample:invalidKernel', @() sgs_svgd(GS, X0, 'Kernel', 'imq', 'IMQbeta', 0), 'IMQbeta 0'; ...
    'sgsample:invalidOption', @() sgs_svgd(GS, X0, 'StepRule', 'newton'), 'StepRule newton'; ...
    'sgsample:zeroParticles', @() sgs_svgd(GS, zeros(0, 2)), 'no particles'; ...
    'sgsample:nonFinite', @() sgs_svgd(@(X, s) X * NaN, X0), 'SVGD gradient NaN'; ...
    'sgsample:gradientRejected', @() sgs_svgd(@(X, s) [], X0), 'SVGD gradient [] (REJECT)'; ...
    'sgsample:invalidMinibatch', @() sgs_minibatch(1, 5, 6), 'minibatch B > n'; ...
    'sgsample:invalidMinibatch', @() sgs_minibatch(1, 0, 0), 'minibatch n = 0'; ...
    'sgsample:badArgument', @() sgs_minibatch(-1, 5, 2), 'minibatch seed -1'; ...
    'sgsample:outOfMemory', @() sgs_sgld(G, [0; 0], 'Samples', uint64(2^50)), 'Samples 2^50 (out of memory)'; ...
    'sgsample:outOfMemory', @() sgs_minibatch(1, 2^52, 2^52), 'minibatch of 2^52 (out of memory)'};
  for k = 1:size(cases, 1)
    t = expect_error(t, cases{k, 1}, cases{k, 2}, cases{k, 3});
  end
  % A NaN draw: the message says which draw (the library's text speaks of particles).
  try
    sgs_stats(cat(3, [1 2; 3 4; 5 6], [1 2; 3 NaN; 5 6]));
    t = check(t, 'bad input: sgs_stats NaN message names the draw', false, '(no error)');
  catch e
    t = check(t, 'bad input: sgs_stats NaN message names the draw', strcmp(e.identifier, 'sgsample:nonFinite') && ...
              ~isempty(strfind(e.message, 'X(2, :, 2)')) && isempty(strfind(e.message, 'particle')), e.message);
  end
  % A non-finite draw: the message names the element.
  try
    sgs_diagnose(cat(3, [1 2; 3 4; 5 6; 7 8], [1 2; 3 4; 5 NaN; 7 8]));
    t = check(t, 'bad input: sgs_diagnose NaN message names the draw', false, '(no error)');
  catch e
    t = check(t, 'bad input: sgs_diagnose NaN message names the draw', strcmp(e.identifier, 'sgsample:nonFiniteDraws') && ...
              ~isempty(strfind(e.message, 'X(3, 2, 2)')), e.message);
  end
  % The message is the library's status text.
  try
    sgs_amagold(E, G, 0, 'StepSize', -1);
  catch e
    t = check(t, 'bad input: message is the status text', ...
              ~isempty(strfind(e.message, sgsample_mex('status', 5))), ['(', e.message, ')']);
  end
end

function t = callback_errors(t)
  E = @(x) 0.5 * sum(x .^ 2);
  calls = 0;
  function g = flaky(x, seed) %#ok<INUSD>
    calls = calls + 1;
    if calls == 57
      error('mymodel:diverged', 'model blew up at call %d', calls);
    end
    g = x;
  end
  try
    sgs_amagold(E, @flaky, [1; 2], 'Samples', 100);
    t = check(t, 'callback error: rethrown', false, '(no error)');
  catch e
    t = check(t, 'callback error: identifier and message kept', strcmp(e.identifier, 'mymodel:diverged') && ...
              strcmp(e.message, 'model blew up at call 57'), sprintf('(%s: %s)', e.identifier, e.message));
    t = check(t, 'callback error: no further calls after the error', calls == 57, sprintf('(%d calls)', calls));
  end
  try
    sgs_amagold(@(x) error('mymodel:energy', 'energy failed'), @(x, s) x, 1);
    t = check(t, 'callback error: in energy at init', false);
  catch e
    t = check(t, 'callback error: in energy at init', strcmp(e.identifier, 'mymodel:energy'), e.message);
  end
  try
    sgs_svgd(@(X, s) error('mymodel:svgd', 'gradients failed'), randn(6, 2), 'BatchSize', 3);
    t = check(t, 'callback error: in SVGD gradients', false);
  catch e
    t = check(t, 'callback error: in SVGD gradients', strcmp(e.identifier, 'mymodel:svgd') && strcmp(e.message, 'gradients failed'), e.message);
  end
  try
    sgs_sghmc(@(x, s) undefined_function_xyz(x), 0);
    t = check(t, 'callback error: undefined function inside SGHMC', false);
  catch e
    t = check(t, 'callback error: undefined function inside SGHMC', ~isempty(strfind(e.message, 'undefined_function_xyz')), e.message);
  end
  % Everything still works after the errors (nothing left half-done in the gateway).
  s = sgs_sgld(@(x, s) x, [0; 0], 'Samples', 5, 'Seed', 1);
  t = check(t, 'callback error: later runs unaffected', isequal(size(s), [5, 2]) && all(isfinite(s(:))));
end

function t = objects(t)
  % The objects run the same chains as the one-shot functions, bit for bit.
  E = @(x) 0.5 * (x(1) * x(1) + x(2) * x(2));
  G = @(x, seed) x + seed_noise(seed);
  th = [1; -1];
  opts = {'StepSize', 0.2, 'Seed', 11, 'Stream', 3, 'Steps', 5, 'Variant', 'nonreversible'};
  ref = sgs_amagold(E, G, th, opts{:}, 'Warmup', 50, 'Samples', 200);
  c = sgs.Amagold(E, G, th, opts{:}, 'Warmup', 50);
  c.run(49);
  info1 = c.step();
  [s, info] = c.run(200);
  t = check(t, 'object: sgs.Amagold run(49), step(), run(200) = sgs_amagold Warmup 50 Samples 200, bit for bit', ...
            isequal(s, ref));
  % step() of iteration 50 is the warm-up's last: no draw (samples 0), its row not returned.
  t = check(t, 'object: info of step() and run(n)', info1.samples == 0 && info1.iterations == 50 && ...
            info.iterations == 250 && info.samples == 200 && isequal(size(info.log_accept), [200, 1]) && ...
            info.callback_calls == 200 * 6 && info.accepted <= 200 && info.accepted > 100);
  t = check(t, 'object: Position, Iterations, StepSize, Divergences', isequal(c.Position, ref(end, :)') && ...
            c.Iterations == 250 && c.StepSize == info.step_size && c.StepSize ~= 0.2 && c.Divergences == 0);
  one = sgs.Amagold(E, G, th, 'StepSize', 0.3, 'Seed', 7);
  rows = zeros(5, 2);
  for k = 1:5
    one.step();
    rows(k, :) = one.Position';
  end
  t = check(t, 'object: five step() = the first five samples', isequal(rows, sgs_amagold(E, G, th, 'StepSize', 0.3, 'Seed', 7, 'Samples', 5)));
  h = sgs.Sghmc(G, th, 'StepSize', 0.1, 'Seed', 5);
  h.run(30);
  t = check(t, 'object: sgs.Sghmc = sgs_sghmc Burnin 30, bit for bit', ...
            isequal(h.run(100), sgs_sghmc(G, th, 'StepSize', 0.1, 'Seed', 5, 'Burnin', 30, 'Samples', 100)));
  l = sgs.Sgld(G, th, 'StepSize', 0.05, 'Seed', 9, 'Steps', 3);
  t = check(t, 'object: sgs.Sgld = sgs_sgld, bit for bit', ...
            isequal(l.run(100), sgs_sgld(G, th, 'StepSize', 0.05, 'Seed', 9, 'Steps', 3, 'Samples', 100)));
  % Two live objects do not share anything.
  a = sgs.Sgld(G, th, 'Seed', 1);
  b = sgs.Sgld(G, th, 'Seed', 1);
  a.run(10);
  t = check(t, 'object: two objects are independent', b.Iterations == 0 && isequal(b.Position, th) && ...
            isequal(a.run(5), tail_rows(b.run(15), 5)));
end

% AMAGOLD's warm-up API: options, the report (OK from a far start, SUSPECT from a hopeless
% set-up), the comparison, the objects' setters and getters, handing a pilot's adaptation on,
% and the new statuses' identifiers.
function t = warmup_api(t)
  sd = [1; 100; 0.01];   % a raw-scale Gaussian: variances 1e8 apart
  U = @(x) 0.5 * sum((x ./ sd) .^ 2);
  G = @(x, seed) x ./ sd .^ 2;
  far = 200 * sd;
  [s, info] = sgs_amagold(U, G, far, 'Warmup', 1000, 'Mass', 'diagonal', 'Samples', 1000, 'Seed', 2);
  r = info.warmup_report;
  t = check(t, 'warm-up: far start, report ok', strcmp(r.verdict, 'ok') && isempty(r.reasons) && ...
            r.reason_flags == 0 && r.iterations == 1000 && r.approach_iterations >= 1 && ...
            r.approach_energy_start == 3 * 200 ^ 2 / 2 && r.approach_energy_end < 60 && ...
            r.step_size == info.step_size, sprintf('(%s)', r.verdict));
  k = info.inverse_mass;
  t = check(t, 'warm-up: far start, inverse mass ~ the variances within 2x', all(k > sd .^ 2 / 2 & k < 2 * sd .^ 2), ...
            sprintf('(%g %g %g)', k));
  t = check(t, 'warm-up: far start, samples in the typical set', all(all(abs(s ./ sd') < 6)) && ...
            abs(mean(sum((s ./ sd') .^ 2, 2)) - 3) < 0.5);
  t = check(t, 'warm-up: info.phase, inverse_mass_dense [] unless dense', strcmp(info.phase, 'sampling') && ...
            isempty(info.inverse_mass_dense));
  [~, h] = sgs_amagold(U, G, far, 'Warmup', 300, 'Approach', false, 'Samples', 1, 'Seed', 2);
  t = check(t, 'warm-up: hopeless set-up (no approach, unit mass, 200 sds away) is suspect', ...
            strcmp(h.warmup_report.verdict, 'suspect') && ~isempty(h.warmup_report.reasons) && ...
            iscellstr(h.warmup_report.reasons), sprintf('(%s)', strjoin(h.warmup_report.reasons, ', ')));
  [~, n] = sgs_amagold(U, G, far, 'Samples', 1);
  t = check(t, 'warm-up: no warm-up, verdict none', strcmp(n.warmup_report.verdict, 'none'));
  % 'AdaptMass', true is 'Mass', 'diagonal', bit for bit; a contradiction is refused.
  E2 = @(x) 0.5 * sum(x .^ 2);
  G2 = @(x, seed) x + seed_noise(seed);
  a1 = sgs_amagold(E2, G2, [1; -1], 'Warmup', 60, 'AdaptMass', true, 'Samples', 50, 'Seed', 4);
  a2 = sgs_amagold(E2, G2, [1; -1], 'Warmup', 60, 'Mass', 'diagonal', 'Samples', 50, 'Seed', 4);
  a3 = sgs_amagold(E2, G2, [1; -1], 'Warmup', 60, 'Mass', 'dense', 'Samples', 50, 'Seed', 4);
  a4 = sgs_amagold(E2, G2, [1; -1], 'Warmup', 60, 'Mass', 'diagonal', 'JitterSteps', true, 'Samples', 50, 'Seed', 4);
  t = check(t, 'warm-up: AdaptMass true = Mass diagonal, bit for bit; dense and jitter differ', ...
            isequal(a1, a2) && ~isequal(a2, a3) && ~isequal(a2, a4));
  % Comparing chains: three from the mode, one left far out (no approach, no mass matrix).
  cs = cell(1, 4);
  for c = 1:4
    if c < 4
      cs{c} = sgs.Amagold(U, G, zeros(3, 1), 'Warmup', 1000, 'Mass', 'diagonal', 'Seed', 1, 'Stream', c);
    else
      % Without a mass matrix (with one, its warm-up brings it in).
      cs{c} = sgs.Amagold(U, G, far, 'Warmup', 1000, 'Mass', 'unit', 'Approach', false, 'Seed', 1, 'Stream', c);
    end
    cs{c}.run(1000);
  end
  R = sgs_warmup_compare(cs);
  own = cs{4}.warmupReport();
  t = check(t, 'compare: the chain left far out disagrees', isequal(size(R), [4, 1]) && ...
            any(strcmp(R(4).reasons, 'chains_disagree')) && strcmp(R(4).verdict, 'suspect') && ...
            ~any(strcmp(own.reasons, 'chains_disagree')) && R(4).energy_mean == own.energy_mean);
  ok3 = true;
  for c = 1:3
    ok3 = ok3 && all(strcmp(R(c).reasons, 'chains_disagree')) && strcmp(cs{c}.warmupReport().verdict, 'ok');
  end
  t = check(t, 'compare: the other chains are ok on their own (flagged only for disagreeing)', ok3);
  % The objects: report while running, phases, set/get round trips.
  o = sgs.Amagold(U, G, far, 'Warmup', 200, 'Mass', 'dense', 'Seed', 3);
  r0 = o.warmupReport();
  i1 = o.step();
  [~, i2] = o.run(199);
  t = check(t, 'object: report running during the warm-up, ok after; phases', strcmp(r0.verdict, 'running') && ...
            strcmp(i1.phase, 'approach') && strcmp(i2.phase, 'final') && ...
            any(strcmp(o.warmupReport().verdict, {'ok', 'suspect'})) && isequal(size(o.InverseMassDense), [3, 3]));
  K = [2, 0.6, 0.1; 0.6, 1, -0.2; 0.1, -0.2, 0.5];
  d = sgs.Amagold(U, G, zeros(3, 1), 'Mass', 'dense');
  d.StepSize = 0.25;
  d.InverseMassDense = K;
  t = check(t, 'object: StepSize and InverseMassDense round trip', d.StepSize == 0.25 && ...
            max(max(abs(d.InverseMassDense - K))) < 1e-12 && isequal(d.InverseMassDense, d.InverseMassDense') && ...
            isequal(d.InverseMass, diag(d.InverseMassDense)));
  d.InverseMass = [1; 2; 3];
  q = sgs.Amagold(U, G, zeros(3, 1), 'Mass', 'diagonal');
  q.InverseMass = [4, 1e4, 1e-4];   % a row is taken too
  t = check(t, 'object: InverseMass round trip (diagonal and on a dense chain)', ...
            isequal(q.InverseMass, [4; 1e4; 1e-4]) && isequal(q.InverseMassDense, diag([4, 1e4, 1e-4])) && ...
            max(max(abs(d.InverseMassDense - diag([1, 2, 3])))) < 1e-12);
  u = sgs.Amagold(U, G, zeros(3, 1));
  t = check(t, 'object: a unit-mass chain reads ones and the identity', isequal(u.InverseMass, ones(3, 1)) && ...
            isequal(u.InverseMassDense, eye(3)));
  % Handing a pilot's adaptation to a fresh chain without a warm-up: exact from its first draw.
  C = [1, 9; 9, 100];
  P = inv(C);
  Uc = @(x) 0.5 * x' * P * x;
  Gc = @(x, seed) P * x;
  p = sgs.Amagold(Uc, Gc, [30; 300], 'Warmup', 1000, 'Mass', 'dense', 'Seed', 4);
  p.run(1000);
  f = sgs.Amagold(Uc, Gc, [30; 300], 'Mass', 'dense', 'Seed', 5);
  f.StepSize = p.StepSize;
  f.InverseMassDense = p.InverseMassDense;
  f.run(200);
  [x, fi] = f.run(4000);
  st = sgs_stats(x);
  se = sqrt(diag(C)' ./ st.ess);
  t = check(t, 'hand-off: pilot step size and dense matrix, moments of the correlated Gaussian', ...
            strcmp(p.warmupReport().verdict, 'ok') && f.StepSize == p.StepSize && ...
            fi.acceptance > 0.45 && fi.acceptance < 0.9 && all(abs(mean(x)) < 5 * se) && ...
            max(max(abs(cov(x) ./ C - 1))) < 0.2 && strcmp(fi.phase, 'sampling'), ...
            sprintf('(acceptance %.3f)', fi.acceptance));
  % The new statuses and the setters' refusals (nothing changes on an error).
  cases = { ...
    'sgsample:massMismatch', @() set_prop(u, 'InverseMass', ones(3, 1)), 'InverseMass on a unit-mass chain'; ...
    'sgsample:massMismatch', @() set_prop(u, 'InverseMassDense', eye(3)), 'InverseMassDense on a unit-mass chain'; ...
    'sgsample:massMismatch', @() set_prop(q, 'InverseMassDense', eye(3)), 'InverseMassDense on a diagonal chain'; ...
    'sgsample:invalidMass', @() set_prop(q, 'InverseMass', [1; NaN; 1]), 'InverseMass with a NaN'; ...
    'sgsample:invalidMass', @() set_prop(q, 'InverseMass', [1; -1; 1]), 'InverseMass negative'; ...
    'sgsample:invalidMass', @() set_prop(q, 'InverseMass', [1; 0; 1]), 'InverseMass zero'; ...
    'sgsample:invalidMass', @() set_prop(d, 'InverseMassDense', [1, 0.5, 0; 0.4, 1, 0; 0, 0, 1]), 'InverseMassDense not symmetric'; ...
    'sgsample:invalidMass', @() set_prop(d, 'InverseMassDense', [1, 2, 0; 2, 1, 0; 0, 0, 1]), 'InverseMassDense not positive definite'; ...
    'sgsample:invalidMass', @() set_prop(d, 'InverseMassDense', diag([1, Inf, 1])), 'InverseMassDense with an Inf'; ...
    'sgsample:lengthMismatch', @() set_prop(q, 'InverseMass', [1; 1]), 'InverseMass of the wrong length'; ...
    'sgsample:lengthMismatch', @() set_prop(q, 'InverseMass', ones(3, 3)), 'InverseMass a matrix'; ...
    'sgsample:lengthMismatch', @() set_prop(d, 'InverseMassDense', eye(2)), 'InverseMassDense 2-by-2 for d = 3'; ...
    'sgsample:lengthMismatch', @() set_prop(d, 'InverseMassDense', ones(9, 1)), 'InverseMassDense as a vector'; ...
    'sgsample:badArgument', @() set_prop(q, 'InverseMass', [1; 1i; 1]), 'InverseMass complex'; ...
    'sgsample:badArgument', @() set_prop(q, 'InverseMass', single([1; 1; 1])), 'InverseMass single'; ...
    'sgsample:invalidStepSize', @() set_prop(d, 'StepSize', NaN), 'StepSize NaN'; ...
    'sgsample:invalidStepSize', @() set_prop(d, 'StepSize', -1), 'StepSize -1'; ...
    'sgsample:badArgument', @() set_prop(d, 'StepSize', 'big'), 'StepSize a string'; ...
    'sgsample:badArgument', @() set_prop(d, 'StepSize', [0.1, 0.2]), 'StepSize a vector'; ...
    'sgsample:badArgument', @() set_prop(sgs.Sgld(G, zeros(3, 1)), 'StepSize', 0.1), 'StepSize of an SGLD object'; ...
    'sgsample:invalidOption', @() sgs_amagold(U, G, far, 'Mass', 'sideways'), 'Mass sideways'; ...
    'sgsample:badOption', @() sgs_amagold(U, G, far, 'Approach', 2), 'Approach 2'; ...
    'sgsample:badOption', @() sgs_amagold(U, G, far, 'JitterSteps', 'yes'), 'JitterSteps a string'; ...
    'sgsample:badOption', @() sgs_amagold(U, G, far, 'AdaptMass', true, 'Mass', 'dense', 'Warmup', 50), 'AdaptMass contradicting Mass'; ...
    'sgsample:zeroDimension', @() sgs_warmup_compare({}), 'sgs_warmup_compare of no chain'; ...
    'sgsample:badArgument', @() sgs_warmup_compare({cs{1}, 3}), 'sgs_warmup_compare of a number'; ...
    'sgsample:badArgument', @() sgs_warmup_compare({cs{1}, sgs.Sgld(G, zeros(3, 1))}), 'sgs_warmup_compare of an SGLD object'; ...
    'sgsample:lengthMismatch', @() sgs_warmup_compare({cs{1}, sgs.Amagold(E2, G2, [1; 2])}), 'sgs_warmup_compare of chains of two dimensions'};
  for c = 1:size(cases, 1)
    t = expect_error(t, cases{c, 1}, cases{c, 2}, cases{c, 3});
  end
  t = check(t, 'bad input: the refused setters changed nothing', d.StepSize == 0.25 && ...
            isequal(q.InverseMass, [4; 1e4; 1e-4]) && max(max(abs(d.InverseMassDense - diag([1, 2, 3])))) < 1e-12);
  % A dense matrix is refused while a slow window collects draws.
  w = sgs.Amagold(U, G, zeros(3, 1), 'Warmup', 200, 'Mass', 'dense');
  info = w.step();
  while ~strcmp(info.phase, 'slow')
    info = w.step();
  end
  w.step();
  t = expect_error(t, 'sgsample:invalidMass', @() set_prop(w, 'InverseMassDense', eye(3)), 'InverseMassDense during a slow window');
end

% AMAGOLD's mass-matrix warm-up on a Gaussian whose coordinates' scales differ by 100x (sd 1 and
% 0.01): with it the dual averaging can take a ~50x larger step and the wide coordinate mixes.
% Both runs make about the same number of gradient calls (no point is rejected; only the warm-up's
% short approach and curvature steps count differently: 0.03 % apart), so the ESS ratio is the
% ESS-per-gradient ratio. Measured when written (4 chains, warm-up 500, 2048 draws): worst ESS
% 102 without, 5247 with (51x); R-hat 1.0002 with; chain 4's inverse mass 1.21 and 1.15e-4 for
% the variances 1 and 1e-4 (a warm-up of 500 leaves ~20 % error in its last window's estimate).
% With the rewritten warm-up (approach, curvature): 104 without, 3964 with (38x), R-hat 1.0008.
% With the curvature floors and the honest ESS (0.4): ESS 0 without (the chains cannot tell),
% 4052 with, R-hat 1.0010; gradient calls 0.11 % apart (the curvature steps).
function t = mass_warmup(t)
  sc = [1; 0.01];
  U = @(x) 0.5 * sum((x ./ sc) .^ 2);
  G = @(x, seed) x ./ sc .^ 2 + 0.5 * seed_noise(seed);
  ess = zeros(2, 2);
  for mass = [false, true]
    S = cell(1, 4);
    for c = 1:4
      [S{c}, info] = sgs_amagold(U, G, [0.5; 0.005], 'StepSize', 0.01, 'Warmup', 500, ...
                                 'AdaptMass', mass, 'Samples', 2048, 'Stream', c, 'Seed', 3);
      calls(c) = info.callback_calls; %#ok<AGROW>
    end
    st = sgs_stats(cat(3, S{:}));
    ess(mass + 1, :) = st.ess;
    if mass
      t = check(t, 'mass: R-hat < 1.01 with the warm-up', all(st.rhat < 1.01), sprintf('(%.4f %.4f)', st.rhat));
      k = info.inverse_mass;
      t = check(t, 'mass: inverse mass ~ the variances (1, 1e-4) within 2x', ...
                isequal(size(k), [2, 1]) && all(k > sc .^ 2 / 2 & k < 2 * sc .^ 2), sprintf('(%g %g)', k));
    else
      t = check(t, 'mass: inverse mass is ones without it', isequal(info.inverse_mass, [1; 1]));
      calls0 = calls;
    end
  end
  t = check(t, 'mass: the same gradient calls with and without, to 0.5 %', abs(sum(calls) / sum(calls0) - 1) < 5e-3, ...
            sprintf('(%d vs %d)', sum(calls), sum(calls0)));
  t = check(t, 'mass: worst-coordinate ESS per gradient > 5x with the warm-up', ...
            min(ess(2, :)) > 5 * min(ess(1, :)), sprintf('(%.0f vs %.0f)', min(ess(2, :)), min(ess(1, :))));
  % The object: InverseMass is ones until the first slow window ends (warm-up 60: iteration 54),
  % and run(w) then run(n) is the one-shot run with Warmup w, mass included, bit for bit.
  E = @(x) 0.5 * (x(1) * x(1) + x(2) * x(2));
  Gn = @(x, seed) x + seed_noise(seed);
  th = [1; -1];
  o = sgs.Amagold(E, Gn, th, 'StepSize', 0.05, 'Seed', 21, 'Warmup', 60, 'AdaptMass', true);
  o.run(53);
  k53 = o.InverseMass;
  o.run(7);
  [s, info] = o.run(200);
  [ref, rinfo] = sgs_amagold(E, Gn, th, 'StepSize', 0.05, 'Seed', 21, 'Warmup', 60, 'AdaptMass', true, 'Samples', 200);
  % (The target is a standard normal and the curvature's floor 1/H_ii = 1: the learnt values are
  % 1 or a little above, never below.)
  t = check(t, 'mass object: InverseMass ones before the window ends, then learnt (floored at 1)', ...
            isequal(k53, [1; 1]) && all(o.InverseMass >= 1 - 1e-9) && isequal(o.InverseMass, info.inverse_mass));
  t = check(t, 'mass object: run(60) + run(200) = sgs_amagold Warmup 60 AdaptMass, bit for bit', ...
            isequal(s, ref) && isequal(o.InverseMass, rinfo.inverse_mass));
  h = sgs.Sghmc(Gn, th);
  t = check(t, 'mass object: SGHMC objects have no InverseMass', ~isprop(h, 'InverseMass'));
end

% sgs_stats against exact truths: an AR(1) chain x_t = phi x_{t-1} + e_t has integrated
% autocorrelation time tau = (1 + phi)/(1 - phi) exactly (19 for phi = 0.9), so k chains of n draws
% have ESS k n / tau; the Geyer estimate's relative sd is about sqrt(2 (2M+1)/(k n)) ~ 3 % here
% (M ~ 60 lags summed), tolerance 15 % (5 sd). Measured when written: 2.7 % and 0.4 % off.
function t = diagnostics(t)
  phi = 0.9;
  n = 16 * 2 ^ 12;
  k = 4;
  randn('state', 20261201); %#ok<RAND>
  X = zeros(n, 2, k);
  for c = 1:k
    X(:, :, c) = filter(1, [1, -phi], randn(n, 2));
  end
  S = sgs_stats(X);
  want = k * n * (1 - phi) / (1 + phi);
  t = check(t, 'stats: AR(1) ESS = k n / tau within 15 %', all(abs(S.ess / want - 1) < 0.15), ...
            sprintf('(%.0f %.0f vs %.0f)', S.ess, want));
  t = check(t, 'stats: AR(1) chains agree, split-R-hat < 1.01', all(abs(S.rhat - 1) < 0.01), sprintf('(%.5f %.5f)', S.rhat));
  t = check(t, 'stats: shapes and counts', isequal(size(S.ess), [1, 2]) && isequal(size(S.mcse), [k, 2]) && ...
            isequal(size(S.mean), [k, 2]) && S.draws == n && S.chains == k);
  t = check(t, 'stats: mcse = sqrt(variance / chain ESS)', max(abs(S.mcse(:) ./ sqrt(S.variance(:) ./ S.chain_ess(:)) - 1)) < 1e-12);
  % m-by-d: row c is chain c (squeeze(mean(X, 1)) is d-by-m).
  t = check(t, 'stats: per-chain mean and variance (m-by-d)', max(max(abs(S.mean - squeeze(mean(X, 1))'))) < 1e-12 && ...
            max(max(abs(S.variance ./ squeeze(var(X, 0, 1))' - 1))) < 1e-12);
  % Scale and shift change neither ESS nor R-hat (the accumulators subtract the first draw, so a
  % large mean does not cancel the lag products).
  Y = sgs_stats(X * 1e3 + 5e3);
  t = check(t, 'stats: 1000 x + 5000 has the same ESS and R-hat to 1e-9', ...
            max(abs(Y.ess ./ S.ess - 1)) < 1e-9 && max(abs(Y.rhat ./ S.rhat - 1)) < 1e-9);
  % One chain: the across-chain ESS is the chain's own.
  S1 = sgs_stats(X(:, :, 1));
  t = check(t, 'stats: one chain', isequal(S1.ess, S1.chain_ess) && S1.chains == 1 && all(abs(S1.rhat - 1) < 0.01));
  % Chains that disagree (one shifted by 3 sd of its stationary law) give a large R-hat.
  Y = X(:, 1, 1:2);
  Y(:, 1, 2) = Y(:, 1, 2) + 3 * sqrt(1 / (1 - phi ^ 2));
  t = check(t, 'stats: shifted chains, R-hat > 1.5', stats_field(Y, 'rhat') > 1.5, sprintf('(%.3f)', stats_field(Y, 'rhat')));
  % single draws are widened exactly: the same numbers as their double values.
  Z = single(X(1:4096, 1, 1));
  t = check(t, 'stats: single = double of the same values', isequal(sgs_stats(Z), sgs_stats(double(Z))));
  % The ESS flags: 0 on these long, well-mixed chains (ArviZ's estimate). A linear trend and a
  % random walk have no finite autocorrelation time: ESS 0, both flags (1: beyond the window,
  % 2: short), MCSE Inf. AR(1) with phi = 0.99 over 2000 draws (true ESS 10.05) was reported
  % as 22.9 before the flags; now never above 1.5x the truth, flagged short.
  t = check(t, 'stats: ess_flags 0 on long well-mixed chains', isequal(S.ess_flags, [0, 0]) && ...
            isequal(S.chain_ess_flags, zeros(k, 2)));
  W = sgs_stats([(0:1999)', cumsum(randn(2000, 1))]);
  t = check(t, 'stats: a trend and a random walk: ESS 0, flags 3, MCSE Inf', isequal(W.ess, [0, 0]) && ...
            isequal(W.ess_flags, [3, 3]) && isequal(W.chain_ess_flags, [3, 3]) && all(isinf(W.mcse)), ...
            sprintf('(%g %g, flags %g %g)', W.ess, W.ess_flags));
  A = sgs_stats(filter(1, [1, -0.99], randn(2000, 1) * sqrt(1 - 0.99 ^ 2)));
  t = check(t, 'stats: AR(1) phi = 0.99, n = 2000: ESS <= 1.5 x 10.05, flagged short', ...
            A.ess <= 1.5 * 2000 * 0.01 / 1.99 && bitand(A.ess_flags, 2) == 2, sprintf('(%g, flags %g)', A.ess, A.ess_flags));
end

% sgs_diagnose against exact truths and its own contract: AR(1) chains (phi = 0.5, tau = 3) pass
% the verdict with a bulk-ESS near k n / tau; a chain shifted by one stationary sd is caught by
% R-hat; one chain is never OK (R-hat needs two); divergences are a reason of their own; single
% equals double of the same values; the verdict's worst values are the fields' extremes.
function t = draws_diagnostics(t)
  phi = 0.5;
  k = 4;
  n = 4000;
  randn('state', 20261205); %#ok<RAND>
  X = zeros(n, 2, k);
  for c = 1:k
    X(:, :, c) = filter(1, [1, -phi], randn(n, 2));
  end
  S = sgs_diagnose(X);
  want = k * n * (1 - phi) / (1 + phi);
  t = check(t, 'diagnose: AR(1) verdict OK', S.verdict.ok && isempty(S.verdict.reasons) && S.verdict.flags == 0, ...
            sprintf('(%s)', strjoin(S.verdict.reasons, ', ')));
  t = check(t, 'diagnose: AR(1) bulk-ESS = k n / tau within 15 %', all(abs(S.ess_bulk / want - 1) < 0.15), ...
            sprintf('(%.0f %.0f vs %.0f)', S.ess_bulk, want));
  t = check(t, 'diagnose: AR(1) rank R-hat < 1.01, shapes', all(S.rhat < 1.01) && isequal(size(S.rhat), [1, 2]) && ...
            S.draws == n && S.chains == k && S.verdict.ess_threshold == 100 * k);
  t = check(t, 'diagnose: worst values are the fields'' extremes', S.verdict.worst_rhat == max(S.rhat) && ...
            S.verdict.min_ess_bulk == min(S.ess_bulk) && S.verdict.min_ess_tail == min(S.ess_tail) && ...
            S.rhat(S.verdict.worst_rhat_coord) == S.verdict.worst_rhat);
  t = check(t, 'diagnose: mean and sd of all draws', abs(S.mean(1) - mean(reshape(X(:, 1, :), [], 1))) < 1e-12 && ...
            abs(S.sd(2) - std(reshape(X(:, 2, :), [], 1))) < 1e-12);
  Y = X;
  Y(:, 1, 2) = Y(:, 1, 2) + sqrt(1 / (1 - phi ^ 2));
  V = sgs_diagnose(Y).verdict;
  t = check(t, 'diagnose: a chain shifted by one sd -> R-hat', ~V.ok && any(strcmp(V.reasons, 'rhat')) && V.worst_rhat_coord == 1, ...
            sprintf('(%.3f)', V.worst_rhat));
  V = sgs_diagnose(X, 'Divergences', 3).verdict;
  t = check(t, 'diagnose: divergences', ~V.ok && isequal(V.reasons, {'divergences'}) && V.divergences == 3);
  V = sgs_diagnose(X(:, :, 1)).verdict;
  t = check(t, 'diagnose: one chain -> not computable', ~V.ok && any(strcmp(V.reasons, 'not_computable')) && ...
            V.not_computable == 2 && V.first_not_computable == 1 && isnan(V.worst_rhat));
  Z = single(X);
  t = check(t, 'diagnose: single = double of the same values', isequaln(sgs_diagnose(Z), sgs_diagnose(double(Z))));
end

function r = tail_rows(x, n)
  r = x(end - n + 1:end, :);
end

function t = object_errors(t)
  E = @(x) 0.5 * sum(x .^ 2);
  G = @(x, seed) x + seed_noise(seed);
  th = [1; 2];
  ref = sgs_amagold(E, G, th, 'Seed', 3, 'Samples', 60);
  % A callback error inside run: rethrown unchanged; the chain stays at its last completed
  % iteration and continues exactly as if nothing had happened.
  calls = 0;
  function g = flaky(x, seed)
    calls = calls + 1;
    if calls == 257
      error('mymodel:diverged', 'model blew up');
    end
    g = G(x, seed);
  end
  c = sgs.Amagold(E, @flaky, th, 'Seed', 3);
  try
    c.run(60);
    t = check(t, 'object: callback error rethrown', false, '(no error)');
  catch e
    t = check(t, 'object: callback error rethrown', strcmp(e.identifier, 'mymodel:diverged'), e.message);
  end
  m = c.Iterations;
  t = check(t, 'object: after the error the chain is at its last completed iteration', ...
            m == floor(256 / 10) && isequal(c.Position, ref(m, :)'), sprintf('(%d iterations)', m));
  t = check(t, 'object: run after the error continues the same chain, bit for bit', ...
            isequal(c.run(60 - m), ref(m + 1:end, :)));
  % Re-entry from a callback: sgsample:busy (the library's status), chain intact.
  r = [];
  function g = reenter(x, seed) %#ok<INUSD>
    r.step();
  end
  r = sgs.Sgld(@reenter, th);
  try
    r.step();
    t = check(t, 'object: step from its own callback', false, '(no error)');
  catch e
    t = check(t, 'object: step from its own callback -> sgsample:busy', strcmp(e.identifier, 'sgsample:busy'), e.message);
  end
  t = check(t, 'object: still usable after the busy error', r.Iterations == 0);
  % Ids: bad, deleted (never reused), and clear mex.
  id = c.Id;
  delete(c);
  t = expect_error(t, 'sgsample:invalidHandle', @() c.step(), 'object: step after delete');
  t = expect_error(t, 'sgsample:invalidHandle', @() sgsample_mex('run', id, 1, E, G, []), 'object: a deleted id');
  t = expect_error(t, 'sgsample:invalidHandle', @() sgsample_mex('query', 12345), 'object: an id never issued');
  t = expect_error(t, 'sgsample:invalidHandle', @() sgsample_mex('query', 'x'), 'object: an id that is text');
  d = sgs.Sgld(G, th);
  t = check(t, 'object: ids are not reused', d.Id ~= id);
  t = expect_error(t, 'sgsample:unknownOption', @() sgs.Amagold(E, G, th, 'Samples', 10), 'object: Samples is per run');
  t = expect_error(t, 'sgsample:invalidStepSize', @() sgs.Sghmc(G, th, 'StepSize', -1), 'object: StepSize -1');
  t = expect_error(t, 'sgsample:initialEnergyRejected', @() sgs.Amagold(@(x) [], G, th), 'object: energy [] at theta0');
  t = expect_error(t, 'sgsample:notFunctionHandle', @() sgs.Amagold(E, 'G', th), 'object: gradient not a handle');
  t = expect_error(t, 'sgsample:badArgument', @() d.run(-1), 'object: run(-1)');
  t = expect_error(t, 'sgsample:badArguments', @() d.run(), 'object: run()');
  t = expect_error(t, 'sgsample:outOfMemory', @() d.run(2^50), 'object: run(2^50) (out of memory)');
  % 'new' with a callback that is not a handle (only reachable by calling the gateway directly)
  % used to leak the chain's malloc block: 200 failures at d = 1e5 grew VmSize by 460 MiB.
  vm = @() str2double(regexprep(regexp(fileread('/proc/self/status'), 'VmSize:\s*\d+', 'match', 'once'), '\D', '')) / 1024;
  if exist('/proc/self/status', 'file')
    v0 = vm();
    ids = {};
    for k = 1:200
      try
        sgsample_mex('new', 'sgld', [], 3, zeros(100000, 1), struct(), []);
      catch e
        ids{end + 1} = e.identifier; %#ok<AGROW>
      end
    end
    grew = vm() - v0;
    t = check(t, 'object: a failed new (gradient not a handle) frees its block', ...
              numel(ids) == 200 && all(strcmp(ids, 'sgsample:notFunctionHandle')) && grew < 50, ...
              sprintf('(VmSize %+.1f MiB over 200 failures)', grew));
  end
  % At most 256 live objects: the next one raises sgsample:tooManyObjects; deleting frees slots.
  many = {};
  try
    for k = 1:300
      many{end + 1} = sgs.Sgld(G, th); %#ok<AGROW>
    end
    t = check(t, 'object: the 257th live object', false, '(no error)');
  catch e
    t = check(t, 'object: the 257th live object -> sgsample:tooManyObjects', ...
              strcmp(e.identifier, 'sgsample:tooManyObjects') && numel(many) <= 256 && numel(many) >= 250, ...
              sprintf('(%d made; %s)', numel(many), e.message));
  end
  many = {}; %#ok<NASGU>
  f = sgs.Sgld(G, th);
  t = check(t, 'object: slots are free again once the objects are gone', f.Iterations == 0);
  delete(f);
  if exist('OCTAVE_VERSION', 'builtin')
    clear sgsample_mex   % Octave's spelling of MATLAB's clear mex: unloads the MEX file
  else
    clear mex
  end
  t = expect_error(t, 'sgsample:staleHandle', @() d.step(), 'object: step after clear mex');
  delete(d);   % frees nothing (the chain went with clear mex), raises nothing
  e2 = sgs.Sgld(G, th, 'Seed', 2);
  t = check(t, 'object: new objects work after clear mex', isequal(e2.run(3), sgs_sgld(G, th, 'Seed', 2, 'Samples', 3)));
end

% The gateway's argument decoding fuzzed (tests/fuzz_gateway.m): the known crashes, then 3000
% random argument lists, in a child Octave, so that a crash is a failure naming its case (replay
% it with fuzz_gateway(seed, 0, logfile, case), which prints the arguments).
% Importance weights of SVGD particles (docs/algorithms.md section 2.9): a case known exactly,
% the formula written out here on random particles, the median heuristic, bad inputs.
function t = particle_weights(t)
  % Three particles at 0 and one at 10, equal density: s = 3 at 0 and 1 at 10 (the cross terms
  % are e^-50), so w = [1 1 1 3]/6 and ess = 1/(3/36 + 1/4) = 3.
  [w, ess] = sgs_particle_weights([0; 0; 0; 10], zeros(4, 1), 'Bandwidth', 1);
  t = check(t, 'weights: 3 particles at 0, 1 at 10: w = 1/6 and 1/2, ess 3', isequal(size(w), [4, 1]) && ...
            abs(w(4) - 0.5) < 1e-12 && all(abs(w(1:3) - 1 / 6) < 1e-12) && abs(ess - 3) < 1e-9, ...
            sprintf('(%s, ess %.15g)', mat2str(w', 15), ess));
  saved = randn('state');
  randn('state', 20260311);
  X = randn(20, 3);
  V = 0.5 * sum(X .^ 2, 2) + randn(20, 1);
  randn('state', saved);
  D2 = zeros(20);
  for i = 1:20
    D2(i, :) = sum((X - X(i, :)) .^ 2, 2)';
  end
  hm = sgs_median_bandwidth(X);
  worst = 0;
  for h = [0.3, 1, hm]
    u = exp(-V) ./ sum(exp(-D2 / (2 * h)), 2);
    wf = u / sum(u);
    [w, ess] = sgs_particle_weights(X, V, 'Bandwidth', h);
    worst = max([worst, max(abs(w - wf) ./ wf), abs(ess - 1 / sum(wf .^ 2)) * sum(wf .^ 2)]);
  end
  t = check(t, 'weights: the formula on 20x3 particles, 3 bandwidths, within 1e-12 relative', worst < 1e-12, ...
            sprintf('(worst %.3g)', worst));
  r = sqrt(D2(triu(true(20), 1)));
  t = check(t, 'median bandwidth: med^2/(2 log n) of the pairwise distances', ...
            abs(hm - median(r)^2 / (2 * log(20))) < 1e-12 * hm, sprintf('(%.17g)', hm));
  t = check(t, 'weights: the median heuristic by default; V a row or a column', ...
            isequal(sgs_particle_weights(X, V), sgs_particle_weights(X, V', 'Bandwidth', hm)));
  t = check(t, 'median bandwidth: [0; 1; 3] is 4/(2 log 3)', abs(sgs_median_bandwidth([0; 1; 3]) - 4 / (2 * log(3))) < 1e-15);
  t = check(t, 'median bandwidth: 1 for one particle', sgs_median_bandwidth([1, 2]) == 1);
  Xn = X;
  Xn(3, 2) = NaN;
  Vn = V;
  Vn(5) = NaN;
  Vm = V;
  Vm(2) = -Inf;
  cases = { ...
    'sgsample:nonFinite', @() sgs_particle_weights(Xn, V, 'Bandwidth', 1), 'weights: NaN in X'; ...
    'sgsample:nonFinite', @() sgs_particle_weights(X, Vn, 'Bandwidth', 1), 'weights: a NaN energy'; ...
    'sgsample:nonFinite', @() sgs_particle_weights(X, Vm, 'Bandwidth', 1), 'weights: a -Inf energy'; ...
    'sgsample:nonFinite', @() sgs_particle_weights(X, Inf(20, 1), 'Bandwidth', 1), 'weights: every energy +Inf'; ...
    'sgsample:badArgument', @() sgs_particle_weights(X, V(1:19), 'Bandwidth', 1), 'weights: 19 energies for 20 particles'; ...
    'sgsample:badArgument', @() sgs_particle_weights(X, [V, V], 'Bandwidth', 1), 'weights: energies a matrix'; ...
    'sgsample:invalidBandwidth', @() sgs_particle_weights(X, V, 'Bandwidth', 0), 'weights: Bandwidth 0'; ...
    'sgsample:invalidBandwidth', @() sgs_particle_weights(X, V, 'Bandwidth', Inf), 'weights: Bandwidth Inf'; ...
    'sgsample:badArgument', @() sgs_particle_weights(X, V, 'Bandwidth', true), 'weights: Bandwidth logical'; ...
    'sgsample:badArgument', @() sgs_particle_weights(X + 1i, V), 'weights: complex X'; ...
    'sgsample:badArgument', @() sgs_particle_weights(single(X), V, 'Bandwidth', 1), 'weights: single X'; ...
    'sgsample:badArgument', @() sgs_particle_weights(X, single(V), 'Bandwidth', 1), 'weights: single energies'; ...
    'sgsample:zeroParticles', @() sgs_particle_weights(zeros(0, 2), [], 'Bandwidth', 1), 'weights: no particles'; ...
    'sgsample:zeroDimension', @() sgs_particle_weights(zeros(3, 0), zeros(3, 1), 'Bandwidth', 1), 'weights: dimension 0'; ...
    'sgsample:unknownOption', @() sgs_particle_weights(X, V, 'Bandwith', 1), 'weights: misspelt option'; ...
    'sgsample:badArguments', @() sgs_particle_weights(X), 'weights: no energies'; ...
    'sgsample:nonFinite', @() sgs_median_bandwidth(Xn), 'median bandwidth: NaN in X'; ...
    'sgsample:zeroParticles', @() sgs_median_bandwidth(zeros(0, 3)), 'median bandwidth: no particles'; ...
    'sgsample:badArgument', @() sgs_median_bandwidth(sparse(X)), 'median bandwidth: sparse X'; ...
    'sgsample:outOfMemory', @() sgs_median_bandwidth(zeros(2^22, 1)), 'median bandwidth: 2^22 particles (out of memory)'};
  for k = 1:size(cases, 1)
    t = expect_error(t, cases{k, 1}, cases{k, 2}, cases{k, 3});
  end
end

% Draws from the particles' kernel density estimate and their weights (docs/algorithms.md section
% 2.9): reproducible draws, a prefix property, the weights' formula written out here, a mixture's
% mode mass recovered from particles in the wrong proportion, bad inputs.
function t = kde(t)
  X = [linspace(-3.5, -2.5, 30)'; linspace(2, 3, 10)'];
  Y = sgs_kde_draws(X, 200, 7, 'Bandwidth', 1);
  t = check(t, 'kde draws: 200-by-1, the same for the same seed, a prefix for fewer', ...
            isequal(size(Y), [200, 1]) && isequal(Y, sgs_kde_draws(X, 200, uint64(7), 'Bandwidth', 1)) && ...
            isequal(Y(1:50), sgs_kde_draws(X, 50, 7, 'Bandwidth', 1)) && ~isequal(Y, sgs_kde_draws(X, 200, 8, 'Bandwidth', 1)));
  saved = randn('state');
  randn('state', 20261206);
  P = randn(15, 2);
  V = 0.5 * sum(P .^ 2, 2) + randn(15, 1);
  randn('state', saved);
  Q = sgs_kde_draws(P, 40, 3);
  VQ = 0.5 * sum(Q .^ 2, 2);
  h = sgs_median_bandwidth(P);
  lq = zeros(40, 1);
  for k = 1:40
    a = -sum((P - Q(k, :)) .^ 2, 2) / (2 * h);
    lq(k) = max(a) + log(sum(exp(a - max(a))));
  end
  l = -VQ - lq;
  wf = exp(l - max(l));
  wf = wf / sum(wf);
  [w, ess] = sgs_kde_weights(P, Q, VQ');
  worst = max([max(abs(w - wf) ./ wf), abs(ess - 1 / sum(wf .^ 2)) * sum(wf .^ 2)]);
  t = check(t, 'kde weights: the formula on 15x2 particles, 40 draws, median bandwidth, within 1e-12', ...
            worst < 1e-12 && size(Q, 2) == 2, sprintf('(worst %.3g)', worst));
  est = zeros(20, 1);
  for s = 1:20
    Y = sgs_kde_draws(X, 2000, s, 'Bandwidth', 1);
    VY = -log(0.3 * exp(-0.5 * (Y + 3) .^ 2) + 0.7 * exp(-0.5 * (Y - 3) .^ 2));
    w = sgs_kde_weights(X, Y, VY, 'Bandwidth', 1);
    est(s) = sum(w(Y > 0));
  end
  se = std(est) / sqrt(20);
  t = check(t, 'kde weights: the right mode''s mass 0.7 within 4 s.e. (the particles say 0.25)', ...
            abs(mean(est) - 0.7) < 4 * se && se < 0.015, sprintf('(%.4f +- %.4f)', mean(est), se));
  cases = { ...
    'sgsample:nonFinite', @() sgs_kde_draws([NaN; 1], 5, 1, 'Bandwidth', 1), 'kde draws: NaN in X'; ...
    'sgsample:zeroParticles', @() sgs_kde_draws(X, 0, 1, 'Bandwidth', 1), 'kde draws: m = 0'; ...
    'sgsample:zeroParticles', @() sgs_kde_draws(zeros(0, 2), 5, 1, 'Bandwidth', 1), 'kde draws: no particles'; ...
    'sgsample:invalidBandwidth', @() sgs_kde_draws(X, 5, 1, 'Bandwidth', 0), 'kde draws: Bandwidth 0'; ...
    'sgsample:badArgument', @() sgs_kde_draws(X, 5, -1, 'Bandwidth', 1), 'kde draws: seed -1'; ...
    'sgsample:badArgument', @() sgs_kde_draws(X, 2.5, 1, 'Bandwidth', 1), 'kde draws: m 2.5'; ...
    'sgsample:badArgument', @() sgs_kde_draws(X, 5, 1, 'Bandwidth', true), 'kde draws: Bandwidth logical'; ...
    'sgsample:unknownOption', @() sgs_kde_draws(X, 5, 1, 'Bandwith', 1), 'kde draws: misspelt option'; ...
    'sgsample:badArguments', @() sgs_kde_draws(X, 5), 'kde draws: no seed'; ...
    'sgsample:badArgument', @() sgs_kde_weights(P, Q(:, 1), VQ), 'kde weights: Y with 1 column for 2'; ...
    'sgsample:badArgument', @() sgs_kde_weights(P, Q, VQ(1:39)), 'kde weights: 39 energies for 40 draws'; ...
    'sgsample:nonFinite', @() sgs_kde_weights(P, Q, Inf(40, 1)), 'kde weights: every energy +Inf'; ...
    'sgsample:nonFinite', @() sgs_kde_weights(P, [Q(1:39, :); NaN, 0], VQ), 'kde weights: NaN in Y'; ...
    'sgsample:invalidBandwidth', @() sgs_kde_weights(P, Q, VQ, 'Bandwidth', -1), 'kde weights: Bandwidth -1'; ...
    'sgsample:badArguments', @() sgs_kde_weights(P, Q), 'kde weights: no energies'};
  for k = 1:size(cases, 1)
    t = expect_error(t, cases{k, 1}, cases{k, 2}, cases{k, 3});
  end
end

function t = fuzz(t)
  if ~exist('OCTAVE_VERSION', 'builtin')
    fprintf('skip fuzz (the child process is an Octave)\n');
    return;
  end
  here = fileparts(mfilename('fullpath'));
  seed = 20261205;
  n = 3000;
  logfile = [tempname(), '.txt'];
  octave = fullfile(OCTAVE_HOME, 'bin', 'octave-cli');
  [status, out] = system(sprintf('"%s" --no-gui --no-history --quiet --no-window-system --eval "addpath(''%s''); fuzz_gateway(%d, %d, ''%s'')" 2>&1', ...
                                 octave, here, seed, n, logfile));
  last = '';
  if exist(logfile, 'file')
    last = strtrim(fileread(logfile));
    lines = strsplit(last, sprintf('\n'));
    last = lines{end};
    delete(logfile);
  end
  done = regexp(out, 'FUZZ DONE (\d+) cases, (\d+) bad', 'tokens', 'once');
  ok = status == 0 && ~isempty(done) && str2double(done{1}) == n && str2double(done{2}) == 0;
  detail = sprintf('(seed %d: %s)', seed, strjoin(regexp(out, 'FUZZ (DONE|BAD)[^\n]*', 'match'), '; '));
  if isempty(done)
    detail = sprintf('(the child died in case %s of seed %d, exit %d: replay with fuzz_gateway(%d, 0, tempname(), %s))', ...
                     last, seed, status, seed, last);
  end
  t = check(t, sprintf('fuzz: %d random gateway calls + the known crashes, each returns or raises sgsample:*', n), ok, detail);
end

function t = interrupts(t)
  % Ctrl-C, as a user at the Octave prompt sees it: a child Octave in interactive mode reads
  % commands from a file; its callback sends SIGINT to itself (tests/interrupt_after.m). The
  % interrupt must stop the run, reach the prompt as an interrupt (not an error: no try/catch
  % sees it, nothing is printed as "error:"), and leave every chain usable.
  if ~exist('OCTAVE_VERSION', 'builtin')
    fprintf('skip Ctrl-C (an Octave-only test: MATLAB cannot be run here)\n');
    return;
  end
  here = fileparts(mfilename('fullpath'));
  cmds = { ...
    sprintf('addpath(''%s''); addpath(''%s'');', fileparts(here), here), ...
    'global KCALLS KAT; E = @(x) 0.5 * sum(x .^ 2); KCALLS = 0; KAT = 57;', ...
    'try, s = sgs_amagold(E, @interrupt_after, [1; 2], ''Samples'', 1000); disp(''RESULT returned''); catch e, disp([''RESULT caught '', e.identifier]); end', ...
    'printf(''CALLS1 %d\n'', KCALLS); q = sgs_partial(); printf(''ONESHOT %d %d\n'', q.info.iterations, size(q.samples, 1)); KCALLS = 0; KAT = 3;', ...
    'try, X = sgs_svgd(@interrupt_after, (1:10)'' / 10, ''Iterations'', 100); disp(''RESULT returned''); catch e, disp([''RESULT caught '', e.identifier]); end', ...
    'printf(''CALLS2 %d\n'', KCALLS); c = sgs.Amagold(E, @interrupt_after, [1; 2], ''Seed'', 5); KCALLS = 0; KAT = 205;', ...
    'try, c.run(1000); disp(''RESULT returned''); catch e, disp([''RESULT caught '', e.identifier]); end', ...
    'm = c.Iterations; p = c.Partial; KAT = 0; rest = c.run(30); ref = sgs_amagold(E, @interrupt_after, [1; 2], ''Seed'', 5, ''Samples'', m + 30); printf(''OBJECT %d %d\n'', m, isequal(rest, ref(m + 1:end, :)));', ...
    'printf(''PARTIAL %d\n'', isequal(p.samples, ref(1:m, :)) && p.info.iterations == m && p.info.samples == m);', ...
    'KCALLS = 0; KAT = 7; Z = @(t, p, i) zeros(size(i)); m = sgs.Tunamh(Z, 1, ''Terms'', 10, ''Bound'', 1, ''Exact'', @interrupt_after, ''Seed'', 5);', ...
    'try, m.run(100); disp(''RESULT returned''); catch e, disp([''RESULT caught '', e.identifier]); end', ...
    'k = m.Iterations; KAT = 0; mrest = m.run(30); mref = sgs_tunamh(Z, 1, ''Terms'', 10, ''Bound'', 1, ''Exact'', @interrupt_after, ''Seed'', 5, ''Samples'', k + 30); printf(''TUNAMH %d %d\n'', k, isequal(mrest, mref(k + 1:end, :)));', ...
    's = sgs_sgld(@(x, s) x, [0; 0], ''Samples'', 5); printf(''AFTER %d\n'', isequal(size(s), [5, 2]));'};
  file = [tempname(), '.m'];
  fid = fopen(file, 'w');
  fprintf(fid, '%s\n', cmds{:});
  fclose(fid);
  octave = fullfile(OCTAVE_HOME, 'bin', 'octave-cli');
  [status, out] = system(sprintf('"%s" --no-gui --no-history --quiet --no-window-system --interactive --no-line-editing < "%s" 2>&1', octave, file));
  delete(file);
  num = @(tag) sscanf(regexp(out, [tag, ' [0-9 ]*'], 'match', 'once'), [tag, ' %d %d'])';
  t = check(t, 'Ctrl-C: no try/catch saw it, nothing printed as an error', status == 0 && ...
            isempty(strfind(out, 'RESULT')) && isempty(strfind(out, 'error:')), sprintf('(exit %d)', status));
  t = check(t, 'Ctrl-C: an AMAGOLD run stops in the callback that was interrupted', isequal(num('CALLS1'), 57), ...
            sprintf('(%s)', regexp(out, 'CALLS1 [0-9]*', 'match', 'once')));
  t = check(t, 'Ctrl-C: sgs_partial() has the one-shot run''s completed iterations (gradient call 57: 5 of 10 calls each)', ...
            isequal(num('ONESHOT'), [5, 5]), sprintf('(%s)', regexp(out, 'ONESHOT [0-9 ]*', 'match', 'once')));
  t = check(t, 'Ctrl-C: an SVGD run stops likewise', isequal(num('CALLS2'), 3));
  o = num('OBJECT');
  t = check(t, 'Ctrl-C: an object is left at its last iteration, not busy, and continues bit for bit', ...
            numel(o) == 2 && o(1) == floor((205 - 1) / 10) && o(2) == 1, sprintf('(%s)', regexp(out, 'OBJECT [0-9 ]*', 'match', 'once')));
  t = check(t, 'Ctrl-C: a TunaMH object interrupted in its Exact callback (call 7) is left at iteration 6 and continues bit for bit', ...
            isequal(num('TUNAMH'), [6, 1]), sprintf('(%s)', regexp(out, 'TUNAMH [0-9 ]*', 'match', 'once')));
  t = check(t, 'Ctrl-C: later runs work', isequal(num('AFTER'), 1));
  t = check(t, 'Ctrl-C: the object''s Partial keeps the rows of the interrupted run, exact totals', isequal(num('PARTIAL'), 1));
  if t.failed > 0
    lines = strsplit(out, sprintf('\n'));
    fprintf('     | %s\n', lines{:});
  end
end
