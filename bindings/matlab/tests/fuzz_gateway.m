function fuzz_gateway(seed, ncases, logfile, only)
% FUZZ_GATEWAY  Random argument lists for the MEX gateway (sgsample_mex): random commands with
%   random arguments (empty, struct arrays, cells, strings, every integer class, NaN/Inf, huge
%   sizes, complex, sparse, logical, function handles that return wrong things, ids of live,
%   deleted and never-made objects; TunaMH's runs and objects among them). Every call must return or raise an error whose identifier
%   is sgsample:* (the gateway's) or fuzz:* (the callbacks' own, rethrown); anything else is
%   printed as "FUZZ BAD". Case k draws from rand('state', [seed; k]), so a case can be
%   replayed alone (ONLY = k). Before each case its number is written to LOGFILE and flushed,
%   so that the parent (test_sgsample) can name the case that crashed the process.
%   Run in a child Octave: a crash of the gateway ends that process, not the test suite.
  if nargin < 4
    only = [];
  end
  here = fileparts(mfilename('fullpath'));
  addpath(fileparts(here));
  fid = fopen(logfile, 'w');
  cmds = {'amagold', 'sghmc', 'sgld', 'svgd', 'minibatch', 'status', 'version', 'new', 'run', ...
          'query', 'free', 'amagold_get', 'amagold_set', 'amagold_compare', 'stats', 'draws', ...
          'normal', 'uniform', 'svgd_new', 'svgd_run', 'svgd_query', 'svgd_ksd', 'partial', ...
          'amagold_batch', 'sghmc_batch', 'sgld_batch', 'svgd_set', 'svgd_free', ...
          'run_batch', 'epoch', 'export', 'import', 'tunamh', 'particle_weights', 'kde_draws', 'kde_weights', ...
          'median_bandwidth', '', 'AMAGOLD', 'nonsense', repmat('x', 1, 40)};
  live = live_ids();
  bad = 0;
  % The crashes found by hand first, as cases -1, -2, ...: no arguments, and options
  % that are a 0-by-0 struct with fields (mxGetField read element 0 of none).
  g = @(varargin) fuzz_cb('echo', varargin{:});
  known = {{}, {'new', 'sgld', [], g, 1, struct('seed', {}), @fuzz_call}, ...
           {'new', 'amagold', g, g, 1, struct('a', {}, 'b', {}), []}, ...
           {'sghmc', g, 1, struct('samples', {}), @fuzz_call}, {'svgd', g, ones(3, 1), repmat(struct('a', 1), 2, 1), []}, ...
           {'draws', ones(10, 1), struct('divergences', {})}, {'run', live(1), 1, g, g, -1}};
  if isempty(only)
    for k = 1:numel(known)
      fprintf(fid, '%d\n', -k);
      fflush(fid);
      try
        sgsample_mex(known{k}{:});
      catch e
        if ~strncmp(e.identifier, 'sgsample:', 9)
          bad = bad + 1;
          fprintf('FUZZ BAD case %d: %s (%s)\n', -k, e.identifier, e.message);
        end
      end
    end
  end
  cases = 1:ncases;
  if ~isempty(only)
    cases = only;
  end
  for k = cases
    fprintf(fid, '%d\n', k);
    fflush(fid);
    rand('state', [seed; k]); %#ok<RAND>
    fuzz_cb('reset');
    if rand < 0.6
      % A valid call of a random command with each argument replaced by a random value with
      % probability 1/4, and sometimes one argument dropped or added: reaches the checks
      % behind the first ones.
      args = template(live);
      for a = 2:numel(args)
        if rand < 0.25
          args{a} = value(live);
        end
      end
      if rand < 0.1 && numel(args) > 1
        args(randi(numel(args))) = [];
      elseif rand < 0.1
        args{end + 1} = value(live);
      end
    else
      nargs = randi([0, 8]);
      args = cell(1, nargs);
      if nargs > 0 && rand < 0.9
        args{1} = cmds{randi(numel(cmds))};
      elseif nargs > 0
        args{1} = value(live);
      end
      for a = 2:nargs
        args{a} = value(live);
      end
      if nargs >= 2 && rand < 0.3
        args{2} = live(randi(numel(live)));
      end
    end
    nout = randi([0, 3]);
    if ~isempty(only)
      describe(k, nout, args);
    end
    try
      outs = cell(1, nout);
      [outs{:}] = sgsample_mex(args{:}); %#ok<NASGU>
    catch e
      % sgsample:* from the gateway; fuzz:* and Octave's invalid-fun-call (a handle such as
      % @(x) x called with two arguments) are the callbacks' own errors, rethrown unchanged.
      if ~(strncmp(e.identifier, 'sgsample:', 9) || strncmp(e.identifier, 'fuzz:', 5) || ...
           strcmp(e.identifier, 'Octave:invalid-fun-call'))
        bad = bad + 1;
        fprintf('FUZZ BAD case %d: %s (%s)\n', k, e.identifier, e.message);
      end
    end
    if rand < 0.02
      fuzz_cb('reset');    % (the case may have spent the callbacks' budget)
      live = live_ids();   % objects freed by the cases are replaced
    end
  end
  fclose(fid);
  fprintf('FUZZ DONE %d cases, %d bad\n', numel(cases), bad);
end

% A valid argument list of a random command.
function args = template(live)
  g = @(varargin) fuzz_cb('echo', varargin{:});
  e = @(varargin) fuzz_cb('half', varargin{:});
  z = @(varargin) fuzz_cb('zeros', varargin{:});   % TunaMH differences of the right shape
  tr = @fuzz_call;
  id = live(pick({1, 2, 3, 4}));
  o = options();
  if rand < 0.05
    o = pick({struct('samples', {}, 'seed', {}), repmat(o, 1, 2), struct([])});   % not 1-by-1
  end
  c = {{'amagold', e, g, [1; 2], o, tr}, {'sghmc', g, 1, o, tr}, {'sgld', g, [0; 1], o, tr}, ...
       {'svgd', g, randn(5, 2), o, tr}, {'minibatch', 1, 10, 3}, {'status', 3}, {'version'}, ...
       {'new', pick({'amagold', 'sghmc', 'sgld'}), e, g, [1; 2], o, tr}, ...
       {'tunamh', pick({[], e, g}), pick({z, g}), pick({[1; 2], 0.5}), terms(o), tr}, ...
       {'new', 'tunamh', pick({[], e}), z, pick({[1; 2], 0.5}), terms(o), tr}, ...
       {'run', live(4), 2, pick({[], e}), pick({z, g}), tr}, ...
       {'run', id, 2, e, g, tr}, {'query', id}, {'free', live(randi(numel(live)))}, ...
       {'amagold_get', live(1), pick({'inverse_mass_dense', 'warmup_report'})}, ...
       {'amagold_set', live(1), pick({'step_size', 'inverse_mass', 'inverse_mass_dense'}), pick({0.2, [1; 1], eye(2)})}, ...
       {'amagold_compare', live(1)}, {'stats', randn(10, 2)}, {'draws', randn(10, 2, 2), o}, ...
       {'partial', id}, {'partial'}, {'svgd_new', g, randn(6, 2), o, tr}, ...
       {'svgd_run', live(3), 2, g, tr, struct('schedule_kind', pick({0, 1, 2}), 'schedule_every', pick({0, 1, 2}))}, ...
       {'svgd_run', live(3), 2, g, tr}, {'svgd_query', live(3)}, {'svgd_set', live(3), 'batch_size', pick({1, 2, 3, 7})}, ...
       {'svgd_ksd', live(3), g, tr, pick({'full', 'batch'}), 1, 2, 0}, {'svgd_free', live(randi(numel(live)))}, ...
       {'normal', pick({uint64([1; 2]), 3, [], -1, 2^60}), pick({0, 2, 2^40})}, {'uniform', 7, 3}, ...
       {'amagold_batch', e, g, pick({[1; 2], randn(3, 2), randn(1, 2, 3)}), chains(o), tr}, ...
       {'sgld_batch', g, pick({[1; 2], randn(3, 2), zeros(0, 3)}), chains(o), tr}, ...
       {'sghmc_batch', g, randn(1, 1, 2), chains(o), tr}, {'export', id}, ...
       {'import', id, pick({uint8(randi(255, 1, 90)), uint8([]), uint8('SGSCHKPT'), randn(1, 90), ...
                           uint8(randi(255, 3, 3))})}, ...
       {'stein_thin', pick({randn(6, 2), zeros(0, 2), 'x', randn(2, 2, 2)}), pick({randn(6, 2), randn(5, 2)}), ...
        pick({3, 0, -1, 2^60}), pick({[], [1, 2], [0, 1], 1}), pick({[], [1, 1], [-1, 1]}), pick({1, NaN}), pick({-0.5, 0})}, ...
       {'stein_thin_scales', pick({randn(6, 2), ones(4, 2), zeros(0, 3), {}})}, ...
       {'particle_weights', pick({randn(6, 2), zeros(0, 2), ones(6, 2), [NaN; 1], randn(2, 2, 2)}), ...
        pick({randn(6, 1), randn(1, 6), zeros(0, 1), Inf(6, 1), [NaN; 1], randn(6, 2)}), pick({1, 0, -1, NaN, Inf, 1e-300, true})}, ...
       {'median_bandwidth', pick({randn(6, 2), ones(4, 2), zeros(0, 3), randn(1, 3), [NaN; 1]})}, ...
       {'kde_draws', pick({randn(6, 2), zeros(0, 2), [NaN; 1], randn(2, 2, 2), 'x'}), pick({5, 0, -1, 2^60, true}), ...
        pick({uint64(3), 3, -1, NaN}), pick({1, 0, -1, NaN, Inf, 1e-300, true})}, ...
       {'kde_weights', pick({randn(6, 2), zeros(0, 2), [NaN; 1]}), pick({randn(5, 2), randn(5, 3), zeros(0, 2), [Inf, 1]}), ...
        pick({randn(5, 1), randn(1, 5), Inf(5, 1), [NaN; 1], zeros(0, 1)}), pick({1, 0, NaN, true})}};
  args = c{randi(numel(c))};
end

% Options with a Chains field (kept when o is not a 1-by-1 struct: the gateway must refuse it).
function o = chains(o)
  if isstruct(o) && numel(o) == 1
    o.chains = pick({1, 2, 3, 0, 2^40, -1, 'x'});
  end
end

% Options with TunaMH's required Terms and Bound, mostly valid (kept when o is not 1-by-1).
function o = terms(o)
  if isstruct(o) && numel(o) == 1
    if rand < 0.9
      o.terms = pick({1, 3, 40, 0, 2^53, 2^60, uint64(7), -1, 'x'});
    end
    if rand < 0.9
      o.bound = pick({1, 0.5, 1e-300, 0, -1, NaN, Inf, 'x'});
    end
  end
end

function ids = live_ids()
  g = @(varargin) fuzz_cb('echo', varargin{:});
  e = @(varargin) fuzz_cb('half', varargin{:});
  try
    sv = sgsample_mex('svgd_new', g, randn(5, 2), struct('batch_size', 2), sgs_fuzz_trampoline());
  catch
    sv = NaN;   % a gateway without sgs.Svgd (to run the fuzz against an older one)
  end
  z = @(varargin) fuzz_cb('zeros', varargin{:});
  ids = [sgsample_mex('new', 'amagold', e, g, [1; 2], struct('seed', 1), sgs_fuzz_trampoline()), ...
         sgsample_mex('new', 'sgld', [], g, 1, struct(), sgs_fuzz_trampoline()), sv, ...
         sgsample_mex('new', 'tunamh', e, z, [1; 2], struct('terms', 40, 'bound', 1), sgs_fuzz_trampoline()), ...
         12345, 0, -1, NaN, 2^32 + 1, 2^53];
end

function t = sgs_fuzz_trampoline()
  t = @fuzz_call;   % a copy of private/sgs_call, as the wrappers pass it
end

function v = value(live)
  kinds = {'echo', 'half', 'empty', 'nan', 'inf', 'int', 'single', 'complex', 'sparse', ...
           'logical', 'cell', 'struct', 'text', 'big', 'transpose', 'handle', 'error', 'zeros'};
  switch randi(24)
    case 1, v = [];
    case 2, v = zeros(0, 3);
    case 3, v = randn(randi(4), randi(3));
    case 4, v = pick({NaN, Inf, -Inf, -1, 0, 0.5, 1, 2, 7, 2^31, 2^32, 2^50, 2^53, 2^64, 1e300, -0});
    case 5, v = cast(pick({0, 1, 3, 255, -1}), pick({'int8', 'uint8', 'int16', 'uint16', 'int32', 'uint32', 'int64', 'uint64'}));
    case 6, v = pick({intmax('uint64'), intmax('int64'), intmin('int64'), uint64(2^53) + 1});
    case 7, v = randn(randi(3), 1) + 1i * randn(1);
    case 8, v = sparse(randn(randi(3), 1));
    case 9, v = rand(randi(3), 1) > 0.5;
    case 10, kind = kinds{randi(numel(kinds))}; v = @(varargin) fuzz_cb(kind, varargin{:});
    case 11, v = pick({@sin, @(x) x, @() 1, @fuzz_call});
    case 12, v = {1, 'a'};
    case 13, v = cell(0, 0);
    case 14, v = struct([]);
    case 15, v = repmat(struct('a', 1), 2, 2);
    case 16, v = options();
    case 17, v = options();
    case 18, v = pick({'', 'amagold', 'step_size', 'inverse_mass', 'inverse_mass_dense', 'warmup_report', 'abc', repmat('z', 1, 200)});
    case 19, v = live(randi(numel(live)));
    case 20, v = single(pick({1, NaN, 2.5}));
    case 21, v = randn(2, 2, 2);
    case 22, v = ['ab'; 'cd'];
    case 23, v = live(randi(numel(live))) * [1, 1];
    case 24, v = struct('samples', {}, 'seed', {});
  end
end

function s = options()
  names = {'samples', 'warmup', 'burnin', 'seed', 'stream', 'step_size', 'steps', 'friction', ...
           'momentum_sd', 'target_accept', 'adapt_mass', 'mass', 'approach', 'jitter_steps', ...
           'variant', 'log_accept', 'iterations', 'batch_size', 'bandwidth', 'kernel', 'step_rule', ...
           'ksd', 'scale', 'batching', 'imq_c', 'imq_beta', 'adagrad_alpha', 'divergences', ...
           'resample_momentum', 'keep_warmup', 'progress', 'chains', 'max_calls', 'fixed_burnin', ...
           'terms', 'bound', 'chi'};
  s = struct();
  for k = 1:randi([0, 5])
    s.(names{randi(numel(names))}) = pick({0, 1, 2, 3, 20, 0.5, -1, NaN, Inf, 2^53, 2^64, ...
      intmax('uint64'), uint64(7), int8(3), true, 'x', [], [1 2], 1i, {1}, single(2)});
  end
  % Most runs short (a long legal run is not what the fuzz looks for; the callbacks' budget
  % ends the others).
  if ~isfield(s, 'samples') || rand < 0.5
    s.samples = pick({0, 1, 2, 3});
  end
  if ~isfield(s, 'iterations') || rand < 0.5
    s.iterations = pick({0, 1, 2, 3});
  end
end

function v = pick(c)
  v = c{randi(numel(c))};
end

function describe(k, nout, args)
  fprintf('case %d: %d outputs, %d arguments\n', k, nout, numel(args));
  for a = 1:numel(args)
    v = args{a};
    if ischar(v) && size(v, 1) <= 1
      txt = ['''', v, ''''];
    elseif isa(v, 'function_handle')
      txt = func2str(v);
    elseif isstruct(v)
      txt = sprintf('struct %s fields {%s}', mat2str(size(v)), strjoin(fieldnames(v)', ', '));
      if numel(v) == 1
        f = fieldnames(v);
        for j = 1:numel(f)
          txt = [txt, sprintf(' %s=%s', f{j}, disp_value(v.(f{j})))]; %#ok<AGROW>
        end
      end
    else
      txt = disp_value(v);
    end
    fprintf('  %d: %s\n', a, txt);
  end
end

function txt = disp_value(v)
  if isnumeric(v) || islogical(v)
    txt = sprintf('%s %s %s', class(v), mat2str(size(v)), mat2str(full(v(1:min(end, 4)))));
  else
    txt = sprintf('%s %s', class(v), mat2str(size(v)));
  end
end
