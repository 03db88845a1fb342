classdef Sghmc < sgs.Chain
% SGS.SGHMC  SGHMC advanced step by step (a handle object).
%
%   c = sgs.Sghmc(@gradient, theta0, Name, Value, ...)
%
%   Callback and options as for SGS_SGHMC, without 'Samples' and 'Burnin'. Methods step, run,
%   properties Position, Iterations, Divergences, StepSize: see SGS.CHAIN.
%
%   See also SGS.CHAIN, SGS_SGHMC.
  methods
    function obj = Sghmc(varargin)
      obj@sgs.Chain('sghmc', 'sgs.Sghmc', 'sgs.Sghmc(@gradient, theta0, Name, Value, ...)', varargin);
    end
  end
end
