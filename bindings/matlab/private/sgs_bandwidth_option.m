function h = sgs_bandwidth_option(who, X, opts)
% SGS_BANDWIDTH_OPTION  The 'Bandwidth' option of the weights functions (sgs_particle_weights,
%   sgs_kde_draws, sgs_kde_weights): opts the Name, Value pairs after the required arguments;
%   [] (the default) is the median heuristic of the particles X (sgs_median_bandwidth).
  p = struct('Bandwidth', []);
  if mod(numel(opts), 2) ~= 0
    error('sgsample:badArgument', '%s: options come in Name, Value pairs', who);
  end
  for k = 1:2:numel(opts)
    name = opts{k};
    if ~ischar(name) || ~isfield(p, name)
      error('sgsample:unknownOption', '%s: unknown option; known: Bandwidth', who);
    end
    p.(name) = opts{k + 1};
  end
  h = p.Bandwidth;
  if isempty(h) && isnumeric(h)
    h = sgsample_mex('median_bandwidth', X);
  end
end
