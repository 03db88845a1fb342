classdef Svgd < handle
% SGS.SVGD  An SVGD / RBM-SVGD particle system advanced step by step (a handle object).
%
%   o = sgs.Svgd(@gradients, X0, Name, Value, ...)
%
%   gradients(X, seed) and X0 (N-by-d) as for SGS_SVGD; the options are SGS_SVGD's, without
%   'Iterations' (per run): BatchSize (min(N, 8)), StepSize (0.2), StepRule ('adagrad'),
%   AdaGradAlpha (0.9), Kernel ('gaussian'), Bandwidth (1), IMQc (1), IMQbeta (0.5), Batching
%   ('without'), Seed (fresh unless given; o.Seed reports it), Stream (0), KSD ('off'), Scale
%   ('none'), Progress (false).
%
%   [X, info] = o.run(n)     n iterations; X the particles after them (N-by-d). INFO:
%                            iterations (this call), total_iterations, interactions, bandwidth,
%                            step_size, mean_force, max_force, ksd_squared (of the last
%                            iteration), callback_calls, seed, stream.
%   [X, info] = o.run(n, 'Schedule', s)
%                            n iterations whose batch size grows (sgs_svgd_run_scheduled): s a
%                            struct with kind 'doubling' (default) or 'ksd', start (2), every
%                            (100), min_decrease (0.1, for 'ksd'). Without replacement only;
%                            afterwards o.BatchSize is the schedule's last choice, which the
%                            next iterations keep.
%   info = o.step()          one iteration
%   o.Particles              the particles, N-by-d (read-only)
%   o.Iterations             iterations since creation (read-only)
%   o.BatchSize              the batch size p of the next iterations (settable: 2 <= p <= N,
%                            without replacement; a scheduled run's last choice after it)
%   o.Seed, o.Stream         the generator's (uint64, read-only)
%   o.Progress               false | true: a line of text a second during run
%   k2 = o.ksd()             KSD^2 of the particles as they are (IMQ base kernel, c = 1,
%                            beta = -1/2; docs/algorithms.md 2.5), with the gradients the
%                            callback returns for 'Seed' (default 0); options 'Kind', 'full'
%                            (default, O(N^2 d)) or 'batch' (O(p N d), unbiased, may be
%                            negative) with 'BatchSize' (default o.BatchSize) and 'Stream' (0).
%   delete(o)                frees the system
%
%   The same options and seed give the particles of SGS_SVGD bit for bit: o.run(a); o.run(b)
%   equals sgs_svgd(..., 'Iterations', a + b). An error in the callback or Ctrl-C leaves the
%   particles as after the last completed iteration (nothing is lost; run continues from there).
%   Errors: sgsample:* as for SGS_SVGD; sgsample:readOnly (Particles, Iterations, Seed, Stream),
%   sgsample:staleHandle (after clear mex), sgsample:busy (from its own callback).
%
%   See also SGS_SVGD.
  properties (SetAccess = private, Hidden = true)
    Id = 0
    Gradients = []
    Trampoline = []
  end
  properties (Dependent)
    Particles    % N-by-d (read-only)
    Iterations   % iterations since creation (read-only)
    BatchSize    % batch size of the next iterations (settable)
    Seed         % uint64 (read-only)
    Stream       % uint64 (read-only)
  end
  properties
    Progress = false   % true: a line of text a second during run
  end

  methods
    function obj = Svgd(gradients, X0, varargin)
      if nargin < 2
        error('sgsample:badArguments', 'usage: o = sgs.Svgd(@gradients, X0, Name, Value, ...)');
      end
      [obj.Id, obj.Trampoline, progress] = sgs_svgd_open(gradients, X0, varargin);
      obj.Gradients = gradients;
      obj.Progress = progress;
    end

    function info = step(obj)
      [~, info] = obj.run(1);
    end

    function [X, info] = run(obj, n, varargin)
      if nargin < 2
        error('sgsample:badArguments', 'usage: [X, info] = o.run(n)');
      end
      ro = struct('progress', double(obj.Progress));
      if ~isempty(varargin)
        if numel(varargin) ~= 2 || ~ischar(varargin{1}) || ~strcmpi(varargin{1}, 'Schedule') || ~isstruct(varargin{2})
          error('sgsample:badArguments', 'usage: o.run(n, ''Schedule'', s) with s a struct (kind, start, every, min_decrease)');
        end
        ro = sgs.Svgd.schedule(ro, varargin{2});
      end
      [X, info] = sgsample_mex('svgd_run', obj.Id, n, obj.Gradients, obj.Trampoline, ro);
    end

    function k2 = ksd(obj, varargin)
      kind = 'full';
      seed = 0;
      p = [];
      stream = 0;
      if mod(numel(varargin), 2) ~= 0
        error('sgsample:badArguments', 'ksd: options come in name/value pairs');
      end
      for k = 1:2:numel(varargin)
        switch lower(char(varargin{k}))
          case 'kind', kind = varargin{k + 1};
          case 'seed', seed = varargin{k + 1};
          case 'batchsize', p = varargin{k + 1};
          case 'stream', stream = varargin{k + 1};
          otherwise
            error('sgsample:unknownOption', 'ksd: unknown option ''%s''; known: Kind, Seed, BatchSize, Stream', char(varargin{k}));
        end
      end
      if ~ischar(kind) || ~any(strcmp(kind, {'full', 'batch'}))
        error('sgsample:badOption', 'ksd: Kind must be ''full'' or ''batch''');
      end
      if strcmp(kind, 'full')
        k2 = sgsample_mex('svgd_ksd', obj.Id, obj.Gradients, obj.Trampoline, 'full', seed);
      else
        if isempty(p)
          p = obj.BatchSize;
        end
        k2 = sgsample_mex('svgd_ksd', obj.Id, obj.Gradients, obj.Trampoline, 'batch', seed, p, stream);
      end
    end

    function v = get.Particles(obj), v = obj.query().particles; end
    function v = get.Iterations(obj), v = obj.query().iterations; end
    function v = get.BatchSize(obj), v = obj.query().batch_size; end
    function v = get.Seed(obj), v = obj.query().seed; end
    function v = get.Stream(obj), v = obj.query().stream; end
    function set.BatchSize(obj, p), sgsample_mex('svgd_set', obj.Id, 'batch_size', p); end
    function set.Particles(obj, ~), sgs.Svgd.read_only('Particles'); end
    function set.Iterations(obj, ~), sgs.Svgd.read_only('Iterations'); end
    function set.Seed(obj, ~), sgs.Svgd.read_only('Seed'); end
    function set.Stream(obj, ~), sgs.Svgd.read_only('Stream'); end
    function set.Progress(obj, v)
      if ~(isscalar(v) && (islogical(v) || (isnumeric(v) && isreal(v) && (v == 0 || v == 1))))
        error('sgsample:badOption', 'Progress must be true or false');
      end
      obj.Progress = logical(v);
    end

    function delete(obj)
      % Never throws (see sgs.Chain): a gone or stale id frees nothing.
      sgsample_mex('svgd_free', obj.Id);
    end
  end

  methods (Access = private)
    function s = query(obj)
      s = sgsample_mex('svgd_query', obj.Id);
    end
  end

  methods (Static, Access = private)
    function read_only(name)
      error('sgsample:readOnly', '%s is read-only', name);
    end
    function ro = schedule(ro, s)
      kinds = {'doubling', 'ksd'};
      kind = 'doubling';
      if isfield(s, 'kind'), kind = s.kind; end
      hit = find(strcmpi(kind, kinds), 1);
      if ~ischar(kind) || isempty(hit)
        error('sgsample:invalidOption', 'Schedule kind must be ''doubling'' or ''ksd''');
      end
      ro.schedule_kind = hit - 1;
      names = {'start', 'schedule_start'; 'every', 'schedule_every'; 'min_decrease', 'schedule_min_decrease'};
      for k = 1:size(names, 1)
        if isfield(s, names{k, 1})
          ro.(names{k, 2}) = s.(names{k, 1});
        end
      end
    end
  end
end
