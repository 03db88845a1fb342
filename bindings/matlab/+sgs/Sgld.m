classdef Sgld < sgs.Chain
% SGS.SGLD  SGLD advanced step by step (a handle object).
%
%   c = sgs.Sgld(@gradient, theta0, Name, Value, ...)
%
%   Callback and options as for SGS_SGLD, without 'Samples' and 'Chains': StepSize 0.1, Steps 1,
%   Burnin 0 (its rows are not returned as samples), Seed fresh, Stream 0, KeepWarmup false,
%   Progress false. Methods step, run, properties Position, Iterations, Divergences, StepSize,
%   Seed, Partial, ...: see SGS.CHAIN.
%
%   See also SGS.CHAIN, SGS_SGLD.
  methods
    function obj = Sgld(varargin)
      obj@sgs.Chain('sgld', 'sgs.Sgld', 'sgs.Sgld(@gradient, theta0, Name, Value, ...)', varargin);
    end
  end
end
