function t = test_tunamh(t, check, expect_error, c_bits_file)
% TEST_TUNAMH  TunaMH in the binding (sgs_tunamh, sgs.Tunamh), called by test_sgsample with its
%   check/expect_error: exactness on a Laplace location model against quadrature, both paths
%   (minibatch and full pass) taken; the 1-based indices; same seed, same bits; bit for bit
%   against the C library (C_BITS_FILE, from tests/bitexact.c); the object = the one-shot
%   function, save/load; a callback error or a bound exceeded leaves the chain as it was; bad
%   inputs with their identifiers.
  t = exactness(t, check);
  t = indices(t, check);
  t = bits(t, check, c_bits_file);
  t = object(t, check, expect_error);
  t = unchanged_on_error(t, check, expect_error);
  t = bad_inputs(t, check, expect_error);
end

% pi(theta) ~ exp(-theta^2/2 - sum_i |y_i - theta|), N = 40 (Laplace terms, 1-Lipschitz: Bound
% 1; the N(0, 1) prior through 'Exact'). Truth by quadrature on a fine grid (the density is
% smooth between the y_i and negligible 3 units beyond them); the chain's mean and variance
% within 4.5 batch-means standard errors.
function t = exactness(t, check)
  % (centred at 1.5, so that the prior moves the mean by ~12 SE: a chain that lost the Exact
  % part fails)
  y = 1.5 + 1.5 * sin((1:40)');
  dU = @(th, pr, idx) abs(y(idx) - pr) - abs(y(idx) - th);
  ex = @(th, pr) (pr * pr - th * th) / 2;
  grid = linspace(min(y) - 3, max(y) + 3, 100001);
  lp = -grid .^ 2 / 2 - sum(abs(y - grid), 1);
  w = exp(lp - max(lp));
  z = trapz(grid, w);
  mu = trapz(grid, grid .* w) / z;
  v = trapz(grid, (grid - mu) .^ 2 .* w) / z;
  n = 40000;
  [s, info] = sgs_tunamh(dU, 0, 'Terms', 40, 'Bound', 1, 'StepSize', 0.1, 'Exact', ex, ...
                         'Samples', n, 'Burnin', 500, 'Seed', 2026);
  [m, sem] = batch_means(s, 50);
  [vv, sev] = batch_means((s - m) .^ 2, 50);
  t = check(t, sprintf('tunamh: Laplace model, E theta = %.4f (quadrature)', mu), abs(m - mu) < 4.5 * sem, ...
            sprintf('(%.4f ± %.4f)', m, sem));
  t = check(t, sprintf('tunamh: Laplace model, Var theta = %.5f (quadrature)', v), abs(vv - v) < 4.5 * sev, ...
            sprintf('(%.5f ± %.5f)', vv, sev));
  ev = info.stats.evaluations;
  fp = info.stats.full_pass;
  % Both kernels ran, the minibatch one mostly, and a full pass asks for every term.
  t = check(t, 'tunamh: minibatches (fewer than N terms per iteration on average) and some full passes', ...
            mean(ev) < 20 && any(fp) && mean(fp) < 0.5 && all(ev(fp) == 40) && mean(ev(~fp)) < 20 && ...
            all(info.stats.kept <= ev) && all(info.stats.kept(fp) == 40), ...
            sprintf('(%.2f terms per iteration, %.1f %% full passes)', mean(ev), 100 * mean(fp)));
  t = check(t, 'tunamh: info counts', info.iterations == n + 500 && info.samples == n && ...
            info.accepted == sum(info.stats.accepted) && abs(info.acceptance - info.accepted / n) < 1e-12 && ...
            info.divergences == 0 && info.out_of_domain == 0 && info.evaluations >= sum(ev) && ...
            isa(info.seed, 'uint64') && info.seed == 2026 && all(info.stats.step_size == 0.1) && ...
            all(isnan(info.stats.energy)) && all(isnan(info.stats.inner_steps)) && islogical(fp), ...
            sprintf('(acceptance %.3f, %d evaluations)', info.acceptance, info.evaluations));
end

% The indices reach the callback 1-based, as a column: a full pass (a huge step) asks for 1..32,
% then 33..40; a minibatch's are integers in 1..N.
function t = indices(t, check)
  seen = {};
  function out = record(th, pr, idx) %#ok<INUSL>
    seen{end + 1} = idx;
    out = zeros(size(idx));
  end
  sgs_tunamh(@record, [0; 0], 'Terms', 40, 'Bound', 1, 'StepSize', 100, 'Samples', 1, 'Seed', 1);
  t = check(t, 'tunamh: a full pass asks for 1..32, then 33..40 (1-based columns)', ...
            numel(seen) == 2 && isequal(seen{1}, (1:32)') && isequal(seen{2}, (33:40)'));
  seen = {};
  [~, info] = sgs_tunamh(@record, 0, 'Terms', 1000, 'Bound', 1, 'StepSize', 0.002, 'Samples', 50, 'Seed', 2);
  all_idx = vertcat(seen{:});
  t = check(t, 'tunamh: minibatch indices are integers in 1..N, as many as evaluated', ...
            ~isempty(all_idx) && all(all_idx >= 1 & all_idx <= 1000 & all_idx == round(all_idx)) && ...
            numel(all_idx) == sum(info.stats.evaluations) && ~any(info.stats.full_pass), ...
            sprintf('(%d indices)', numel(all_idx)));
end

function [d, e] = bitexact_model()
  y = @(i) mod(i - 1, 7) * 0.25 - 0.75;   % tests/bitexact.c's term_y of the 0-based index
  z = @(i) mod(i - 1, 5) * 0.5 - 1.0;
  d = @(th, pr, idx) (abs(y(idx) - pr(1)) + 0.5 * abs(z(idx) - pr(2))) - (abs(y(idx) - th(1)) + 0.5 * abs(z(idx) - th(2)));
  e = @(th, pr) 0.5 * (pr(1) * pr(1) + pr(2) * pr(2)) - 0.5 * (th(1) * th(1) + th(2) * th(2));
end

% Same seed, same bits; a fresh seed reported and repeatable; the C library's chains (seed 17,
% stream 2, step 0.15, bound 1.2, N 40; and without the exact part, Chi 3, seed 4, step 0.1) bit
% for bit, with each iteration's log ratio, evaluations, kept, full pass and acceptance.
function t = bits(t, check, file)
  [d, e] = bitexact_model();
  opts = {'Terms', 40, 'Bound', 1.2, 'StepSize', 0.15, 'Exact', e, 'Samples', 200};
  [s, info] = sgs_tunamh(d, [1; -1], opts{:}, 'Seed', 17, 'Stream', 2);
  [s2, info2] = sgs_tunamh(d, [1; -1], opts{:}, 'Seed', 17, 'Stream', 2);
  [f, fi] = sgs_tunamh(d, [1; -1], opts{:});
  t = check(t, 'tunamh: same seed, same bits (samples and per-draw stats); a fresh seed repeats', ...
            isequal(s, s2) && isequaln(info.stats, info2.stats) && ~isequal(s, f) && ...
            isequal(f, sgs_tunamh(d, [1; -1], opts{:}, 'Seed', fi.seed)));
  c_lines = strsplit(strtrim(fileread(file)), sprintf('\n'));
  [h, hi] = sgs_tunamh(d, [1; -1], 'Terms', 40, 'Bound', 1.2, 'StepSize', 0.1, 'Chi', 3, 'Seed', 4, 'Samples', 100);
  runs = {'tunamh', s, info.stats, 200; 'tunamh_chi', h, hi.stats, 100};
  for r = 1:2
    [tag, x, st, n] = runs{r, :};
    mine = [hex_rows(tag, x), hex_rows([tag, '_info'], [st.log_accept, st.evaluations, st.kept, double(st.full_pass), double(st.accepted)])];
    theirs = [c_lines(strncmp(c_lines, [tag, ' '], numel(tag) + 1)), c_lines(strncmp(c_lines, [tag, '_info '], numel(tag) + 6))];
    t = check(t, sprintf('bit-for-bit: %s = C library (positions, log ratio, evaluations, kept, full pass, accepted)', tag), ...
              numel(theirs) == 2 * n && isequal(mine, theirs) && any(st.full_pass) && ~all(st.full_pass), ...
              sprintf('(%d rows)', numel(theirs)));
  end
end

% sgs.Tunamh: run(70), step(), run(129) = sgs_tunamh Burnin 30 Samples 170, bit for bit; its
% properties; save, clear, load, continue = uninterrupted.
function t = object(t, check, expect_error)
  [d, e] = bitexact_model();
  opts = {'Terms', 40, 'Bound', 1.2, 'StepSize', 0.15, 'Exact', e, 'Seed', 17, 'Stream', 2};
  [ref, ri] = sgs_tunamh(d, [1; -1], opts{:}, 'Burnin', 30, 'Samples', 170, 'KeepWarmup', true);
  c = sgs.Tunamh(d, [1; -1], opts{:}, 'Burnin', 30);
  s1 = c.run(70);
  i1 = c.step();
  row = c.Position';
  [s2, i2] = c.run(129);
  t = check(t, 'tunamh object: run(70), step(), run(129) = sgs_tunamh Burnin 30 Samples 170, bit for bit', ...
            isequal([s1; row; s2], ref) && isequal(size(s1), [40, 2]) && ...
            i1.samples == 1 && i2.iterations == 200 && isequal(c.Position, ref(end, :)'));
  t = check(t, 'tunamh object: Accepted and Evaluations since the start (burn-in included), Iterations, Seed, StepSize', ...
            c.Accepted == ri.accepted + sum(ri.warmup_stats.accepted) && ...
            c.Evaluations == sum(ri.stats.evaluations) + sum(ri.warmup_stats.evaluations) && ...
            c.Evaluations == ri.evaluations && i2.evaluations == ri.evaluations && c.Iterations == 200 && ...
            c.Seed == 17 && c.Stream == 2 && c.StepSize == 0.15 && strcmp(c.Kind, 'tunamh'));
  t = expect_error(t, 'sgsample:readOnly', @() set_prop(c, 'Evaluations', 1), 'tunamh object: Evaluations read-only');
  t = expect_error(t, 'sgsample:readOnly', @() set_prop(c, 'Accepted', 1), 'tunamh object: Accepted read-only');
  t = expect_error(t, 'sgsample:badArgument', @() set_prop(c, 'StepSize', 0.2), 'tunamh object: StepSize not settable');
  % save/load: the checkpoint, no iteration replayed (a differences function that throws).
  s = saveobj(c);
  later = c.run(25);
  s.Gradient = @(varargin) error('sgsample:test', 'an iteration was replayed');
  r = sgs.Chain.loadobj(s);
  ok = isa(r, 'sgs.Tunamh') && r.Iterations == 200 && r.Evaluations == ri.evaluations;
  s.Gradient = d;
  r = sgs.Chain.loadobj(s);
  t = check(t, 'tunamh object: save, load, continue = uninterrupted, bit for bit (Exact kept)', ...
            ok && isequal(r.run(25), later) && r.Evaluations == c.Evaluations && r.Accepted == c.Accepted);
end

% A callback error (differences or Exact) and a difference past the bound: rethrown / refused,
% the chain exactly as before the failed iteration (position, counters, generator), Partial
% holds the call's rows, the next run continues bit for bit.
function t = unchanged_on_error(t, check, expect_error)
  [d, e] = bitexact_model();
  opts = {'Terms', 40, 'Bound', 1.2, 'StepSize', 0.15, 'Seed', 5};
  [ref, ri] = sgs_tunamh(d, [1; -1], opts{:}, 'Exact', e, 'Samples', 120);
  scale = 1;
  calls = 0;
  fail_at = 0;
  function out = flaky(th, pr, idx)
    calls = calls + 1;
    if calls == fail_at
      error('mymodel:terms', 'terms failed');
    end
    out = scale * d(th, pr, idx);
  end
  ecalls = 0;
  efail = 0;
  function out = eflaky(th, pr)
    ecalls = ecalls + 1;
    if ecalls == efail
      error('mymodel:prior', 'prior failed');
    end
    out = e(th, pr);
  end
  c = sgs.Tunamh(@flaky, [1; -1], opts{:}, 'Exact', @eflaky);
  c.run(20);
  fail_at = calls + 7;
  try
    c.run(50);
    t = check(t, 'tunamh: differences error rethrown', false, '(no error)');
  catch err
    t = check(t, 'tunamh: differences error rethrown unchanged', strcmp(err.identifier, 'mymodel:terms') && ...
              strcmp(err.message, 'terms failed'), err.message);
  end
  m = c.Iterations;
  t = check(t, 'tunamh: after a differences error, position, accepted, evaluations as after the last completed iteration', ...
            m >= 20 && m < 70 && isequal(c.Position, ref(m, :)') && c.Accepted == sum(ri.stats.accepted(1:m)) && ...
            c.Evaluations == sum(ri.stats.evaluations(1:m)) && isequal(c.Partial.samples, ref(21:m, :)), ...
            sprintf('(%d iterations)', m));
  efail = ecalls + 3;
  try
    c.run(50);
    t = check(t, 'tunamh: Exact error rethrown', false, '(no error)');
  catch err
    t = check(t, 'tunamh: Exact error rethrown unchanged', strcmp(err.identifier, 'mymodel:prior'), err.message);
  end
  m2 = c.Iterations;
  t = check(t, 'tunamh: after an Exact error, as after the last completed iteration', ...
            m2 == m + 2 && isequal(c.Position, ref(m2, :)') && c.Evaluations == sum(ri.stats.evaluations(1:m2)));
  scale = 6;   % now past the declared bound (by 3.5 times at least wherever a term moves)
  t = expect_error(t, 'sgsample:boundExceeded', @() c.run(10), 'tunamh: a difference past the bound');
  % (iterations whose Poisson batch is empty ask for no difference and complete)
  m3 = m2 + find(ri.stats.evaluations(m2 + 1:end) > 0, 1) - 1;
  t = check(t, 'tunamh: after sgsample:boundExceeded, the chain as before the refused iteration', c.Iterations == m3 && ...
            isequal(c.Position, ref(m3, :)') && c.Accepted == sum(ri.stats.accepted(1:m3)) && ...
            c.Evaluations == sum(ri.stats.evaluations(1:m3)), sprintf('(%d iterations)', m3));
  scale = 1;
  t = check(t, 'tunamh: the next run continues bit for bit (the generator was restored each time)', ...
            isequal(c.run(120 - m3), ref(m3 + 1:end, :)) && c.Evaluations == ri.evaluations && isempty(c.Partial));
  % A one-shot run stopped by a callback error: sgs_partial() has its completed iterations.
  calls = 0;
  fail_at = 100;
  try
    sgs_tunamh(@flaky, [1; -1], opts{:}, 'Exact', e, 'Samples', 120);
  catch err %#ok<NASGU>
  end
  q = sgs_partial();
  n = q.info.samples;
  t = check(t, 'tunamh: sgs_partial() after a one-shot run''s callback error, exact totals', n > 0 && n < 120 && ...
            isequal(q.samples, ref(1:n, :)) && q.info.evaluations == sum(ri.stats.evaluations(1:n)) && ...
            isequal(q.info.stats.evaluations, ri.stats.evaluations(1:n)), sprintf('(%d rows)', n));
  % [] rejects (outside the domain), NaN is a divergence: neither is an error.
  [s, info] = sgs_tunamh(@(th, pr, idx) [], [1; 2], opts{:}, 'Samples', 20);
  t = check(t, 'tunamh: differences [] rejects every proposal (out_of_domain)', info.out_of_domain == 20 && ...
            info.accepted == 0 && isequal(s, repmat([1, 2], 20, 1)) && all(isnan(info.stats.log_accept)));
  [~, info] = sgs_tunamh(@(th, pr, idx) NaN(size(idx)), [1; 2], opts{:}, 'Samples', 20);
  t = check(t, 'tunamh: a NaN difference is a divergence', info.divergences == 20 && all(info.stats.diverging));
end

% Only reachable by calling the gateway directly: the chain's exact part left out of a run.
function run_without_exact(dU, ok)
  c = sgs.Tunamh(dU, 0, ok{:}, 'Exact', @(a, b) 0, 'StepSize', 0.01);
  sgsample_mex('run', c.Id, 5, [], dU, []);
end

function t = bad_inputs(t, check, expect_error) %#ok<INUSL>
  dU = @(th, pr, idx) zeros(size(idx));
  ok = {'Terms', 10, 'Bound', 1};
  cases = { ...
    'sgsample:badArguments', @() sgs_tunamh(dU, 0, 'Bound', 1), 'Terms missing'; ...
    'sgsample:badArguments', @() sgs_tunamh(dU, 0, 'Terms', 10), 'Bound missing'; ...
    'sgsample:badArguments', @() sgs.Tunamh(dU, 0, 'Bound', 1), 'sgs.Tunamh without Terms'; ...
    'sgsample:invalidBound', @() sgs_tunamh(dU, 0, 'Terms', 10, 'Bound', 0), 'Bound 0'; ...
    'sgsample:invalidBound', @() sgs_tunamh(dU, 0, 'Terms', 10, 'Bound', -1), 'Bound -1'; ...
    'sgsample:invalidBound', @() sgs_tunamh(dU, 0, 'Terms', 10, 'Bound', NaN), 'Bound NaN'; ...
    'sgsample:invalidBound', @() sgs_tunamh(dU, 0, 'Terms', 10, 'Bound', Inf), 'Bound Inf'; ...
    'sgsample:invalidBound', @() sgs_tunamh(dU, 0, 'Terms', 0, 'Bound', 1), 'Terms 0'; ...
    'sgsample:invalidBound', @() sgs_tunamh(dU, 0, ok{:}, 'Chi', 0), 'Chi 0'; ...
    'sgsample:invalidBound', @() sgs.Tunamh(dU, 0, ok{:}, 'Chi', -2), 'sgs.Tunamh Chi -2'; ...
    'sgsample:invalidStepSize', @() sgs_tunamh(dU, 0, ok{:}, 'StepSize', 0), 'tunamh StepSize 0'; ...
    'sgsample:badOption', @() sgs_tunamh(dU, 0, 'Terms', uint64(2)^53 + 2, 'Bound', 1), 'Terms past 2^53'; ...
    'sgsample:badOption', @() sgs_tunamh(dU, 0, 'Terms', 2.5, 'Bound', 1), 'Terms 2.5'; ...
    'sgsample:badOption', @() sgs_tunamh(dU, 0, ok{:}, 'Chi', 'big'), 'Chi a string'; ...
    'sgsample:unknownOption', @() sgs_tunamh(dU, 0, ok{:}, 'Chains', 2), 'tunamh has no Chains'; ...
    'sgsample:unknownOption', @() sgs.Tunamh(dU, 0, ok{:}, 'Samples', 2), 'sgs.Tunamh: Samples is per run'; ...
    'sgsample:badArguments', @() sgs_tunamh(dU, 0, ok{:}, 'Exact'), 'Exact without a value'; ...
    'sgsample:notFunctionHandle', @() sgs_tunamh(dU, 0, ok{:}, 'Exact', 'prior'), 'Exact not a function handle'; ...
    'sgsample:notFunctionHandle', @() sgs.Tunamh(dU, 0, ok{:}, 'Exact', 3), 'sgs.Tunamh Exact not a function handle'; ...
    'sgsample:notFunctionHandle', @() sgs_tunamh('dU', 0, ok{:}), 'differences not a function handle'; ...
    'sgsample:badArgument', @() sgs_tunamh(dU, [1 + 2i; 0], ok{:}), 'tunamh complex theta0'; ...
    'sgsample:invalidPosition', @() sgs_tunamh(dU, [0; NaN], ok{:}), 'tunamh theta0 with a NaN'; ...
    'sgsample:zeroDimension', @() sgs_tunamh(dU, [], ok{:}), 'tunamh empty theta0'; ...
    'sgsample:badCallbackOutput', @() sgs_tunamh(@(th, pr, idx) [idx; 1], 0, ok{:}, 'StepSize', 10), 'differences of the wrong length'; ...
    'sgsample:badCallbackOutput', @() sgs_tunamh(@(th, pr, idx) single(0 * idx), 0, ok{:}, 'StepSize', 10), 'differences single'; ...
    'sgsample:badCallbackOutput', @() sgs_tunamh(@(th, pr, idx) zeros(numel(idx), 2), 0, ok{:}, 'StepSize', 10), 'differences a matrix'; ...
    'sgsample:badCallbackOutput', @() sgs_tunamh(dU, 0, ok{:}, 'Exact', @(th, pr) [1, 2]), 'Exact returns a vector'; ...
    'sgsample:badCallbackOutput', @() sgs_tunamh(dU, 0, ok{:}, 'Exact', @(th, pr) true), 'Exact returns a logical'; ...
    'sgsample:badArguments', @() run_without_exact(dU, ok), 'gateway: run without the Exact the chain was made with'; ...
    'sgsample:outOfMemory', @() sgs_tunamh(dU, [0; 0], ok{:}, 'Samples', uint64(2^50)), 'tunamh Samples 2^50 (out of memory)'};
  for k = 1:size(cases, 1)
    t = expect_error(t, cases{k, 1}, cases{k, 2}, cases{k, 3});
  end
end
