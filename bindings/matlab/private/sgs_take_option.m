function [f, rest] = sgs_take_option(caller, args, name)
% SGS_TAKE_OPTION  Takes the function-handle option NAME (case-insensitive) out of a name/value
%   cell, for the options SGS_PARSE has no kind for (TunaMH's 'Exact'). F is the handle, or []
%   when the option is absent or given as []; REST the other pairs, in order. Only names at odd
%   positions are looked at, so a value that happens to read 'Exact' stays a value (an odd count
%   is left for SGS_PARSE to refuse). Error sgsample:notFunctionHandle for anything else.
  f = [];
  keep = true(1, numel(args));
  for k = 1:2:numel(args) - 1
    key = args{k};
    if ((ischar(key) && isrow(key)) || (isa(key, 'string') && isscalar(key))) && strcmpi(char(key), name)
      f = args{k + 1};
      keep(k:k + 1) = false;
    end
  end
  rest = args(keep);
  if ~(isa(f, 'function_handle') || (isnumeric(f) && isempty(f)))
    error('sgsample:notFunctionHandle', '%s: %s must be a function handle (or [] for none)', caller, name);
  end
end
