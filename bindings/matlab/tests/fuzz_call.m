function [out, err] = fuzz_call(f, varargin)
% FUZZ_CALL  The trampoline FUZZ_GATEWAY passes to the gateway (as private/sgs_call, which the
%   tests cannot name: it is private to the binding's folder).
  err = [];
  try
    out = f(varargin{:});
  catch err
    out = [];
  end
end
