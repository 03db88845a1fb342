function t = sgs_trampoline()
% SGS_TRAMPOLINE  The handle the gateway calls user functions through (Octave only; [] in MATLAB,
%   whose mexCallMATLABWithTrap returns the original MException).
  if exist('OCTAVE_VERSION', 'builtin')
    t = @sgs_call;
  else
    t = [];
  end
end
