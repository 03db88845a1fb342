function [out, err] = sgs_call(f, varargin)
% SGS_CALL  Calls f(varargin{:}) and returns its error instead of throwing it.
%   Used by the MEX gateway under GNU Octave, whose mexCallMATLABWithTrap keeps no error
%   message: the gateway aborts the sampler cleanly, then rethrows ERR unchanged.
  err = [];
  try
    out = f(varargin{:});
  catch err
    out = [];
  end
end
