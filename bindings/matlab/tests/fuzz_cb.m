function out = fuzz_cb(kind, varargin)
% FUZZ_CB  The callbacks of FUZZ_GATEWAY: KIND picks what they return (right, wrong type, wrong
%   size, NaN, [] ...); every call counts against a budget of 300 calls per case, after which
%   they raise fuzz:budget, so that a case whose options ask for a very long run still ends
%   quickly. fuzz_cb('reset') starts a new case.
  persistent calls
  if isempty(calls)
    calls = 0;
  end
  if strcmp(kind, 'reset')
    calls = 0;
    out = [];
    return;
  end
  calls = calls + 1;
  if calls > 300
    error('fuzz:budget', 'callback budget of the case spent');
  end
  x = [];
  if ~isempty(varargin)
    x = varargin{1};
  end
  switch kind
    case 'echo',     out = x;                          % a gradient of the right shape
    case 'half',     out = 0.5 * sum(x(:) .^ 2);       % an energy (a vector for SVGD's X)
    case 'empty',    out = [];
    case 'nan',      out = x * NaN;
    case 'inf',      out = -Inf;
    case 'int',      out = int8(x);
    case 'single',   out = single(x);
    case 'complex',  out = x + 1i;
    case 'sparse',   out = sparse(double(x));
    case 'logical',  out = true(size(x));
    case 'cell',     out = {x};
    case 'struct',   out = struct('x', x);
    case 'text',     out = 'abc';
    case 'big',      out = zeros(1000, 3);
    case 'transpose', out = x';
    case 'handle',   out = @sin;
    case 'error',    error('fuzz:callback', 'a callback error');
    case 'zeros',    out = zeros(size(x));   % TunaMH: one difference per index
      if numel(varargin) >= 3
        out = zeros(size(varargin{3}));
      end
    otherwise,       out = x;
  end
end
