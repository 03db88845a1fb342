function idx = sgs_stein_thin(X, G, m, varargin)
% SGS_STEIN_THIN  Stein thinning: the m stored draws whose empirical measure is closest to the
%   target in kernelized Stein discrepancy, chosen greedily (the C library's sgs_stein_thin;
%   docs/algorithms.md section 6).
%
%   idx = sgs_stein_thin(X, G, m, Name, Value, ...)
%
%   X      n-by-d draws (one per row), e.g. a chain's samples
%   G      n-by-d gradients of V = -log(target) at the draws (the gradient callbacks' sign; the
%          stein-thinning Python package takes the score, -G)
%   m      how many draws to choose (a draw may be chosen more than once)
%   idx    m-by-1 row indices into X, in the order chosen: X(idx, :) are the thinned draws
%
%   Options (defaults):
%     'Standardize'     true: each column divided by its mean absolute deviation (the package's
%                       default), false: raw coordinates
%     'Preconditioner'  'id' (default), 'med' (1/h, h the squared median pairwise distance of up
%                       to 1000 evenly spaced standardised draws), 'sclmed' (log(min(1000, n))/h),
%                       a positive number s (1/s), or d positive values
%     'C', 'Beta'       the IMQ base kernel (c^2 + r^2)^beta (1, -0.5)
%
%   O(n*m*d) in C; nothing random. Errors: sgsample:badArgument, the library's statuses
%   (sgsample:nonFinite, sgsample:invalidKernel, ...).
%
%   See also SGS_DIAGNOSE, SGS_SGLD.
  p = struct('Standardize', true, 'Preconditioner', 'id', 'C', 1, 'Beta', -0.5);
  if mod(numel(varargin), 2) ~= 0
    error('sgsample:badArgument', 'sgs_stein_thin: options come in Name, Value pairs');
  end
  for k = 1:2:numel(varargin)
    name = varargin{k};
    if ~ischar(name) || ~isfield(p, name)
      error('sgsample:unknownOption', 'sgs_stein_thin: unknown option; known: Standardize, Preconditioner, C, Beta');
    end
    p.(name) = varargin{k + 1};
  end
  if ~isnumeric(X) || ndims(X) ~= 2
    error('sgsample:badArgument', 'sgs_stein_thin: X must be an n-by-d matrix');
  end
  [n, d] = size(X);
  scale = [];
  if p.Standardize
    scale = sgsample_mex('stein_thin_scales', double(X));
  end
  pre = p.Preconditioner;
  if ischar(pre)
    switch pre
      case 'id'
        lam = [];
      case {'med', 'sclmed'}
        Xs = double(X);
        if ~isempty(scale)
          Xs = Xs ./ scale;
        end
        lam = repmat(1 / median_sq_distance(Xs), 1, d);
        if strcmp(pre, 'sclmed')
          lam = lam * log(min(1000, n));
        end
      otherwise
        error('sgsample:badArgument', 'sgs_stein_thin: Preconditioner is ''id'', ''med'', ''sclmed'', a number or d values');
    end
  elseif isnumeric(pre) && isscalar(pre)
    if ~(pre > 0)
      error('sgsample:badArgument', 'sgs_stein_thin: a Preconditioner number must be positive');
    end
    lam = repmat(1 / double(pre), 1, d);
  else
    lam = double(pre(:)');
  end
  idx = sgsample_mex('stein_thin', double(X), double(G), m, scale, lam, double(p.C), double(p.Beta));
end

function h = median_sq_distance(X)
  n = size(X, 1);
  if n > 1000
    X = X(floor(linspace(0, n - 1, 1000)) + 1, :);
  end
  k = size(X, 1);
  dist = zeros(k * (k - 1) / 2, 1);
  at = 0;
  for i = 1:k - 1
    D = X(i + 1:end, :) - X(i, :);
    dist(at + 1:at + k - i) = sqrt(sum(D .* D, 2));
    at = at + k - i;
  end
  if isempty(dist) || ~(median(dist) > 0)
    error('sgsample:badArgument', 'sgs_stein_thin: the median heuristic needs at least two distinct draws');
  end
  h = median(dist)^2;
end
