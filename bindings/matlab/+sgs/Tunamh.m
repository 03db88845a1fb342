classdef Tunamh < sgs.Chain
% SGS.TUNAMH  TunaMH (exact minibatch Metropolis-Hastings) advanced step by step (a handle object).
%
%   c = sgs.Tunamh(@differences, theta0, 'Terms', N, 'Bound', c, Name, Value, ...)
%
%   Callbacks and options as for SGS_TUNAMH (differences(theta, proposal, idx) with 1-based
%   indices; 'Exact', @(theta, proposal) ... for the part evaluated in full), without
%   'Samples': StepSize 0.1, Chi 1, Burnin 0 (its rows are not returned as samples), Seed
%   fresh, Stream 0, KeepWarmup false, Progress false. Methods step, run, properties Position,
%   Iterations, Divergences, StepSize (read-only here), Seed, Partial, save/load, ...: see
%   SGS.CHAIN. Also:
%     c.Accepted      proposals accepted since the chain started (read-only)
%     c.Evaluations   term differences asked for since the chain started: the data cost
%                     (read-only; info.evaluations of a run is the same total)
%
%   A callback error, or sgsample:boundExceeded, leaves the chain exactly as before the
%   iteration that failed (position, counters and generator): run again continues bit for bit.
%
%     y = randn(40, 1) + 1;
%     c = sgs.Tunamh(@(th, pr, idx) abs(y(idx) - pr) - abs(y(idx) - th), 0, 'Terms', 40, ...
%                    'Bound', 1, 'StepSize', 0.1, 'Exact', @(th, pr) (pr^2 - th^2) / 2, 'Seed', 1);
%     info = c.step();
%     [samples, info] = c.run(1000);
%     cost = c.Evaluations / c.Iterations;   % terms per iteration (N = 40 for plain MH)
%
%   See also SGS.CHAIN, SGS_TUNAMH.
  properties (Dependent)
    Accepted     % proposals accepted since the chain started (read-only)
    Evaluations  % term differences asked for since the chain started (read-only)
  end
  methods
    function obj = Tunamh(varargin)
      obj@sgs.Chain('tunamh', 'sgs.Tunamh', 'sgs.Tunamh(@differences, theta0, ''Terms'', N, ''Bound'', c, Name, Value, ...)', varargin);
    end

    function v = get.Accepted(obj)
      s = sgsample_mex('query', obj.Id);
      v = s.accepted;
    end

    function v = get.Evaluations(obj)
      s = sgsample_mex('query', obj.Id);
      v = s.evaluations;
    end

    function set.Accepted(obj, ~) %#ok<INUSD>
      error('sgsample:readOnly', 'Accepted is read-only');
    end

    function set.Evaluations(obj, ~) %#ok<INUSD>
      error('sgsample:readOnly', 'Evaluations is read-only');
    end
  end
end
