classdef Chain < handle
% SGS.CHAIN  A sampler chain advanced step by step; the common part of sgs.Amagold, sgs.Sghmc and
%   sgs.Sgld (create those, not this).
%
%   info = c.step()          one iteration; INFO as from c.run(1)
%   [samples, info] = c.run(n)
%                            n iterations; SAMPLES is n-by-d, the position after each one (no
%                            burn-in: run the first iterations and ignore them). INFO: iterations
%                            (total so far), samples, accepted, acceptance, divergences (total),
%                            out_of_domain, step_size, callback_calls, and for AMAGOLD
%                            warmup_acceptance (NaN) and log_accept (n-by-1).
%   c.Position               the current position, d-by-1
%   c.Iterations, c.Divergences, c.StepSize (AMAGOLD: settable, c.StepSize = e)
%   delete(c)                frees the chain (also done when the last reference goes, and by
%                            clear mex, after which the object only raises sgsample:invalidHandle)
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
%   See also SGS.AMAGOLD, SGS.SGHMC, SGS.SGLD.
  properties (SetAccess = private)
    Kind = ''    % 'amagold', 'sghmc' or 'sgld'
  end
  % Readable (Hidden) rather than private: Octave 7 runs delete() of an object whose class was
  % cleared (clear all) in a context that cannot read private properties.
  properties (SetAccess = private, Hidden = true)
    Id = 0       % the gateway's chain id
    Energy = []
    Gradient = []
    Trampoline = []
  end
  properties (Dependent)
    Position     % current position, d-by-1
    Iterations   % iterations completed since creation
    Divergences  % divergent iterations since creation
    StepSize     % current step size (AMAGOLD: adapted during the warm-up; settable)
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
      [obj.Id, obj.Trampoline] = sgs_chain_open(kind, caller, energy, gradient, args{npos}, args(npos + 1:end));
      obj.Kind = kind;
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
      [samples, info] = sgsample_mex('run', obj.Id, n, obj.Energy, obj.Gradient, obj.Trampoline);
    end

    function v = get.Position(obj), v = obj.query().position; end
    function v = get.Iterations(obj), v = obj.query().iterations; end
    function v = get.Divergences(obj), v = obj.query().divergences; end
    function v = get.StepSize(obj), v = obj.query().step_size; end
    % AMAGOLD only (sgs_amagold_set_step_size); the others raise sgsample:badArgument.
    function set.StepSize(obj, v), sgsample_mex('amagold_set', obj.Id, 'step_size', v); end

    function delete(obj)
      % A destructor must not throw: an id that is gone already (clear mex) is not an error
      % here, and ids are never reused, so later calls get sgsample:invalidHandle from the
      % gateway. (No property is set: Octave 7 may run this where that is refused.)
      sgsample_mex('free', obj.Id);
    end
  end

  methods (Access = private)
    function s = query(obj)
      s = sgsample_mex('query', obj.Id);
    end
  end
end
