classdef Amagold < sgs.Chain
% SGS.AMAGOLD  AMAGOLD advanced step by step (a handle object).
%
%   c = sgs.Amagold(@energy, @gradient, theta0, Name, Value, ...)
%
%   Callbacks and options as for SGS_AMAGOLD, without 'Samples' and 'LogAccept' (every run
%   returns its samples and info.log_accept); 'Warmup' adapts the step size during the first
%   Warmup iterations, and with 'AdaptMass', true also a diagonal mass matrix (read it as
%   InverseMass, d-by-1; ones without AdaptMass). Methods step, run, properties Position,
%   Iterations, Divergences, StepSize: see SGS.CHAIN.
%
%     c = sgs.Amagold(@(x) 0.5*sum(x.^2), @(x, seed) x, [3; -3], 'StepSize', 0.3, 'Seed', 1);
%     info = c.step();          % one iteration
%     theta = c.Position;
%     [samples, info] = c.run(1000);
%
%   See also SGS.CHAIN, SGS_AMAGOLD.
  properties (Dependent)
    InverseMass  % diagonal inverse mass relative to MomentumSD^-2, d-by-1 (adapted in the warm-up)
  end
  methods
    function obj = Amagold(varargin)
      obj@sgs.Chain('amagold', 'sgs.Amagold', 'sgs.Amagold(@energy, @gradient, theta0, Name, Value, ...)', varargin);
    end

    function v = get.InverseMass(obj)
      s = sgsample_mex('query', obj.Id);
      v = s.inverse_mass;
    end
  end
end
