classdef Amagold < sgs.Chain
% SGS.AMAGOLD  AMAGOLD advanced step by step (a handle object).
%
%   c = sgs.Amagold(@energy, @gradient, theta0, Name, Value, ...)
%
%   Callbacks and options as for SGS_AMAGOLD, without 'Samples', 'LogAccept' and 'Chains' (every
%   run returns its samples and info.log_accept): StepSize 0.1, Steps 10, Friction 0.25,
%   MomentumSD 1, Warmup 0, Burnin 0, TargetAccept 0.65, Mass 'unit', Approach true,
%   JitterSteps false, AdaptMass false, Variant 'reversible', Seed fresh, Stream 0, KeepWarmup
%   false, Progress false. 'Warmup' adapts the step size during the first Warmup iterations,
%   and with 'Mass', 'diagonal' or 'dense' also the mass matrix; 'Burnin' iterations follow at
%   the step size reached. Their rows are not returned as samples (see SGS.CHAIN). Methods step,
%   run, properties Position, Iterations, Divergences, StepSize, Seed, Partial, ...: SGS.CHAIN.
%
%   The warm-up API:
%     c.StepSize = e           fixes the step size of the next iterations (a pilot's; during a
%                              warm-up the dual averaging restarts from it)
%     c.InverseMass            d-by-1 diagonal of the inverse mass matrix relative to
%                              MomentumSD^-2 (ones with Mass 'unit'); settable with Mass
%                              'diagonal' or 'dense' (d positive values)
%     c.InverseMassDense       d-by-d inverse mass matrix; settable with Mass 'dense' (symmetric
%                              positive definite; refused while a slow or final warm-up window
%                              collects draws)
%     r = c.warmupReport()     the warm-up report (a struct, as info.warmup_report)
%     R = sgs_warmup_compare({c1, c2, ...})   the reports of several chains compared
%   Errors: sgsample:lengthMismatch (wrong size), sgsample:invalidMass (NaN, not positive, not
%   symmetric positive definite), sgsample:massMismatch (a matrix the chain's Mass has no room
%   for), sgsample:invalidStepSize. Nothing changes on an error.
%
%     c = sgs.Amagold(@(x) 0.5*sum(x.^2), @(x, seed) x, [3; -3], 'StepSize', 0.3, 'Seed', 1);
%     info = c.step();          % one iteration
%     theta = c.Position;
%     [samples, info] = c.run(1000);
%
%   Handing a pilot's adaptation to a fresh chain without a warm-up (its first draw is exact):
%     p = sgs.Amagold(@U, @g, theta0, 'Warmup', 1000, 'Mass', 'dense'); p.run(1000);
%     c = sgs.Amagold(@U, @g, p.Position, 'Mass', 'dense', 'Seed', 2);
%     c.StepSize = p.StepSize; c.InverseMassDense = p.InverseMassDense;
%
%   See also SGS.CHAIN, SGS_AMAGOLD, SGS_WARMUP_COMPARE.
  properties (Dependent)
    InverseMass       % diagonal inverse mass relative to MomentumSD^-2, d-by-1 (settable)
    InverseMassDense  % the inverse mass matrix relative to MomentumSD^-2, d-by-d (settable)
  end
  methods
    function obj = Amagold(varargin)
      obj@sgs.Chain('amagold', 'sgs.Amagold', 'sgs.Amagold(@energy, @gradient, theta0, Name, Value, ...)', varargin);
    end

    function v = get.InverseMass(obj)
      s = sgsample_mex('query', obj.Id);
      v = s.inverse_mass;
    end

    function set.InverseMass(obj, v)
      sgsample_mex('amagold_set', obj.Id, 'inverse_mass', v);
    end

    function v = get.InverseMassDense(obj)
      v = sgsample_mex('amagold_get', obj.Id, 'inverse_mass_dense');
    end

    function set.InverseMassDense(obj, v)
      sgsample_mex('amagold_set', obj.Id, 'inverse_mass_dense', v);
    end

    function r = warmupReport(obj)
      % WARMUPREPORT  The warm-up report (sgs_amagold_warmup_report): verdict 'none' (no
      %   warm-up), 'running' (the statistics so far), 'ok' or 'suspect' (with its reasons).
      r = sgsample_mex('amagold_get', obj.Id, 'warmup_report');
    end
  end
end
