function opts = sgs_parse(caller, spec, args)
% SGS_PARSE  Name/value options -> a struct holding only the options given.
%   SPEC is an N-by-3 cell: {MatlabName, field, kind}; kind is 'real', 'count', 'seed',
%   'logical' or a cell of choice names (mapped to 0, 1, 2, ... in that order).
%   Names are case-insensitive. Errors: sgsample:badArguments (odd count, a name that is
%   not text), sgsample:unknownOption, sgsample:badOption (wrong type),
%   sgsample:invalidOption (a choice that is not one; the library's status text).
  opts = struct();
  if mod(numel(args), 2) ~= 0
    error('sgsample:badArguments', '%s: options must come in name/value pairs', caller);
  end
  for k = 1:2:numel(args)
    name = args{k};
    value = args{k + 1};
    if ~(ischar(name) && isrow(name)) && ~(isa(name, 'string') && isscalar(name))
      error('sgsample:badArguments', '%s: option names must be text', caller);
    end
    row = find(strcmpi(char(name), spec(:, 1)), 1);
    if isempty(row)
      error('sgsample:unknownOption', '%s: unknown option ''%s''; known: %s', caller, ...
            char(name), strjoin(spec(:, 1)', ', '));
    end
    field = spec{row, 2};
    kind = spec{row, 3};
    pretty = spec{row, 1};
    if iscell(kind)
      if ~(ischar(value) || (isa(value, 'string') && isscalar(value)))
        error('sgsample:badOption', '%s: %s must be one of: %s', caller, pretty, strjoin(kind, ', '));
      end
      hit = find(strcmpi(char(value), kind), 1);
      if isempty(hit)
        error('sgsample:invalidOption', '%s: %s ''%s'': %s (one of: %s)', caller, pretty, ...
              char(value), sgsample_mex('status', 19), strjoin(kind, ', '));
      end
      opts.(field) = hit - 1;
      continue;
    end
    ok = isscalar(value) && (isnumeric(value) || islogical(value)) && isreal(value);
    switch kind
      case 'real'
        ok = ok && ~islogical(value);
        value = double(value);
        what = 'a real scalar';
      case 'logical'
        ok = ok && (value == 0 || value == 1);
        value = double(value ~= 0);
        what = 'true or false';
      case {'count', 'seed'}
        if ok && isa(value, 'uint64')
          % kept as uint64 (the full range of a seed)
        elseif ok && ~islogical(value)
          value = double(value);
          ok = value >= 0 && value == floor(value) && value <= 2^53;
        else
          ok = false;
        end
        what = 'a non-negative integer (a double up to 2^53, or a uint64)';
    end
    if ~ok
      error('sgsample:badOption', '%s: %s must be %s', caller, pretty, what);
    end
    opts.(field) = value;
  end
end
