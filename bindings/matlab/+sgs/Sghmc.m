classdef Sghmc < sgs.Chain
% SGS.SGHMC  SGHMC advanced step by step (a handle object).
%
%   c = sgs.Sghmc(@gradient, theta0, Name, Value, ...)
%
%   Callback and options as for SGS_SGHMC, without 'Samples' and 'Chains': StepSize 0.1, Steps 10,
%   Friction 0.25, MomentumSD 1, ResampleMomentum true, Burnin 0 (its rows are not returned as
%   samples), Seed fresh, Stream 0, KeepWarmup false, Progress false. Methods step, run,
%   properties Position, Iterations, Divergences, StepSize, Seed, Partial, ...: see SGS.CHAIN.
%
%   See also SGS.CHAIN, SGS_SGHMC.
  methods
    function obj = Sghmc(varargin)
      obj@sgs.Chain('sghmc', 'sgs.Sghmc', 'sgs.Sghmc(@gradient, theta0, Name, Value, ...)', varargin);
    end
  end
end
