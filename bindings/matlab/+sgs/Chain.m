classdef Chain < handle
% SGS.CHAIN  A sampler chain advanced step by step; the common part of sgs.Amagold, sgs.Sghmc,
%   sgs.Sgld and sgs.Tunamh (create those, not this).
%
%   info = c.step()          one iteration; INFO as from c.run(1)
%   [samples, info] = c.run(n)
%                            n iterations. SAMPLES has one row per iteration after the warm-up
%                            ('Warmup', AMAGOLD) and the burn-in ('Burnin'), the position after
%                            it: n-by-d once they are over, fewer rows (0 during them) while they
%                            last. INFO: iterations (total so far), samples, accepted, acceptance,
%                            divergences (total), out_of_domain, step_size, callback_calls, seed,
%                            stream, stats (per draw, one n-by-1 column each: diverging and
%                            accepted (logical), log_accept, step_size, energy, inner_steps; NaN
%                            where a sampler has no such number), warmup_samples and
%                            warmup_stats (the warm-up/burn-in rows of this call, only with
%                            c.KeepWarmup = true; else 0-by-d and []), and for AMAGOLD
%                            warmup_acceptance, log_accept (= stats.log_accept), inverse_mass,
%                            inverse_mass_dense, warmup_report, phase; for TunaMH
%                            evaluations and the per-draw stats evaluations, kept, full_pass.
%   c.Partial                what the last run that failed (a callback error, Ctrl-C) had
%                            produced: a struct with samples and info as run would have returned
%                            them for the iterations it completed ([] when the last run
%                            completed). Nothing is lost: c.run continues from there.
%   c.Position               the current position, d-by-1
%   c.Iterations, c.Divergences, c.StepSize (AMAGOLD: settable, c.StepSize = e)
%   c.Seed, c.Stream         the generator's seed and stream (uint64; a fresh seed unless given:
%                            sgs.Amagold(..., 'Seed', c.Seed) repeats the chain)
%   c.Progress               false (default) | true: a line of text a second during run
%   c.KeepWarmup             false (default) | true: run returns the warm-up and burn-in rows in
%                            info.warmup_samples and info.warmup_stats
%   delete(c)                frees the chain (also done when the last reference goes, and by
%                            clear mex, after which the object raises sgsample:staleHandle)
%   save('f.mat', 'c'), load('f.mat')
%                            saves the chain and restores it bit for bit (see SAVEOBJ)
%
%   Read-only properties (Position, Iterations, Divergences, Seed, Stream, Partial, Kind) raise
%   sgsample:readOnly when assigned.
%
%   At most 256 objects can be alive at once: the next raises sgsample:tooManyObjects. step,
%   run or delete called from the object's own callback raises sgsample:busy (the object is
%   unchanged). theta0 and the callback outputs must be real double.
%
%   The chain lives in the MEX file between calls. The same options and seed give the same
%   iterations, bit for bit, as the one-shot function: sgs_amagold(..., 'Warmup', w, 'Samples', n)
%   equals c.run(w) followed by c.run(n). An error in a callback, or Ctrl-C, leaves the chain at
%   its last completed iteration (the library rolls the failed one back, generator included), so
%   step/run can simply be called again.
%
%   See also SGS.AMAGOLD, SGS.SGHMC, SGS.SGLD, SGS.TUNAMH.
  properties (SetAccess = private)
    Kind = ''    % 'amagold', 'sghmc', 'sgld' or 'tunamh'
  end
  % Readable (Hidden) rather than private: Octave 7 runs delete() of an object whose class was
  % cleared (clear all) in a context that cannot read private properties.
  properties (SetAccess = private, Hidden = true)
    Id = 0       % the gateway's chain id
    Energy = []      % AMAGOLD's energy; TunaMH's Exact ([] for none)
    Gradient = []    % the gradient; TunaMH's differences
    Trampoline = []
  end
  properties (Dependent)
    Position     % current position, d-by-1 (read-only)
    Iterations   % iterations completed since creation (read-only)
    Divergences  % divergent iterations since creation (read-only)
    StepSize     % current step size (AMAGOLD: adapted during the warm-up; settable)
    Seed         % the generator's seed, uint64 (read-only; fresh unless given)
    Stream       % the generator's stream, uint64 (read-only)
    Partial      % what the last failed run produced: struct samples, info; [] (read-only)
  end
  properties
    Progress = false    % true: a line of text a second during run
    KeepWarmup = false  % true: run returns the warm-up/burn-in rows in info.warmup_samples
  end
  % How the chain was made ({'new', class, theta0, options}), for loadobj: it makes a chain
  % the same way, then imports the saved C checkpoint into it.
  properties (SetAccess = private, Hidden = true)
    History = {}
  end

  methods (Access = protected)
    % ARGS: the subclass constructor's arguments, (energy,) gradient, theta0, Name, Value, ...
    function obj = Chain(kind, caller, usage, args)
      npos = 2 + strcmp(kind, 'amagold');
      if numel(args) < npos
        error('sgsample:badArguments', 'usage: c = %s', usage);
      end
      energy = [];
      if npos == 3
        energy = args{1};
      end
      gradient = args{npos - 1};
      [obj.Id, obj.Trampoline, runopts, energy] = sgs_chain_open(kind, caller, energy, gradient, args{npos}, args(npos + 1:end));
      obj.Kind = kind;
      obj.Progress = runopts.progress;
      obj.KeepWarmup = runopts.keep_warmup;
      % the seed the gateway drew, so that a restored chain is the same chain
      obj.History = {'new', caller, args{npos}, [args(npos + 1:end), {'Seed', obj.Seed}]};
      obj.Energy = energy;
      obj.Gradient = gradient;
    end
  end

  methods
    function info = step(obj)
      [~, info] = obj.run(1);
    end

    function [samples, info] = run(obj, n)
      if nargin < 2
        error('sgsample:badArguments', 'usage: [samples, info] = c.run(n)');
      end
      ro = struct('keep_warmup', double(logical(obj.KeepWarmup)), 'progress', double(logical(obj.Progress)));
      [samples, info] = sgsample_mex('run', obj.Id, n, obj.Energy, obj.Gradient, obj.Trampoline, ro);
    end

    function v = get.Position(obj), v = obj.query().position; end
    function v = get.Iterations(obj), v = obj.query().iterations; end
    function v = get.Divergences(obj), v = obj.query().divergences; end
    function v = get.StepSize(obj), v = obj.query().step_size; end
    % AMAGOLD only (sgs_amagold_set_step_size); the others raise sgsample:badArgument.
    function set.StepSize(obj, v)
      sgsample_mex('amagold_set', obj.Id, 'step_size', v);
    end
    function v = get.Seed(obj), v = obj.query().seed; end
    function v = get.Stream(obj), v = obj.query().stream; end
    function v = get.Partial(obj), v = sgsample_mex('partial', obj.Id); end
    function set.Position(obj, ~), sgs.Chain.read_only('Position'); end
    function set.Iterations(obj, ~), sgs.Chain.read_only('Iterations'); end
    function set.Divergences(obj, ~), sgs.Chain.read_only('Divergences'); end
    function set.Seed(obj, ~), sgs.Chain.read_only('Seed'); end
    function set.Stream(obj, ~), sgs.Chain.read_only('Stream'); end
    function set.Partial(obj, ~), sgs.Chain.read_only('Partial'); end
    function set.Progress(obj, v), obj.Progress = sgs.Chain.flag('Progress', v); end
    function set.KeepWarmup(obj, v), obj.KeepWarmup = sgs.Chain.flag('KeepWarmup', v); end

    function s = saveobj(obj)
      % SAVEOBJ  What save() writes: the callbacks, theta0 and the options (with the seed
      %   drawn), and the chain's state itself as the C library's checkpoint (Checkpoint, a
      %   uint8 vector from sgs_*_export: configuration, generator, counters, the warm-up, the
      %   step size and mass matrices set, the workspace; portable between machines). LOADOBJ
      %   makes the chain again and imports it: no iteration is run again (AMAGOLD evaluates
      %   the energy at theta0 once), and the chain continues bit for bit.
      s = struct('Kind', obj.Kind, 'Energy', {obj.Energy}, 'Gradient', {obj.Gradient}, ...
                 'History', {obj.History}, 'Checkpoint', sgsample_mex('export', obj.Id), ...
                 'Iterations', obj.Iterations, 'Progress', obj.Progress, ...
                 'KeepWarmup', obj.KeepWarmup);
    end

    function delete(obj)
      % A destructor must not throw: an id that is gone already (clear mex) is not an error
      % here, and ids are never reused, so later calls get sgsample:invalidHandle from the
      % gateway. (No property is set: Octave 7 may run this where that is refused.)
      sgsample_mex('free', obj.Id);
    end
  end

  methods (Static)
    function obj = loadobj(s)
      % LOADOBJ  Remakes a saved chain (see SAVEOBJ); one saved by sgsample 0.4 (no
      %   Checkpoint) by replaying its iterations.
      if ~isstruct(s) || ~isfield(s, 'History') || isempty(s.History)
        error('sgsample:badArgument', 'loadobj: not a saved sgs chain');
      end
      h = s.History;
      ctor = str2func(h{2});
      if strcmp(s.Kind, 'amagold')
        obj = ctor(s.Energy, s.Gradient, h{3}, h{4}{:});
      else
        obj = ctor(s.Gradient, h{3}, h{4}{:});
      end
      if isfield(s, 'Checkpoint')
        % sgsample:invalidCheckpoint (damaged), sgsample:checkpointMismatch (another sampler)
        sgsample_mex('import', obj.Id, s.Checkpoint);
      else
        % Saved by sgsample 0.4, before checkpoints: replay its setter calls and iterations.
        for k = 1:size(s.Sets, 1)
          obj.run(s.Sets{k, 1} - obj.Iterations);
          sgsample_mex('amagold_set', obj.Id, s.Sets{k, 2}, s.Sets{k, 3});
        end
        obj.run(s.Iterations - obj.Iterations);
      end
      obj.Progress = s.Progress;
      obj.KeepWarmup = s.KeepWarmup;
    end
  end

  methods (Static, Access = private)
    function read_only(name)
      error('sgsample:readOnly', '%s is read-only', name);
    end
    function v = flag(name, v)
      if ~(isscalar(v) && (islogical(v) || (isnumeric(v) && isreal(v) && (v == 0 || v == 1))))
        error('sgsample:badOption', '%s must be true or false', name);
      end
      v = logical(v);
    end
  end

  methods (Access = private)
    function s = query(obj)
      s = sgsample_mex('query', obj.Id);
    end
  end
end
