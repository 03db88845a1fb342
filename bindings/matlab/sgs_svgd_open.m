function [id, trampoline, progress] = sgs_svgd_open(gradients, X0, args)
% SGS_SVGD_OPEN  Internal: creates the particle system behind an sgs.Svgd object (it lives here
%   to share SGS_SVGD's option table, which is private to this folder).
  sgs_check_handle('sgs.Svgd', gradients, 'gradients');
  spec = sgs_options('svgd');
  spec = spec(~strcmp(spec(:, 1), 'Iterations'), :);
  opts = sgs_parse('sgs.Svgd', spec, args);
  progress = false;
  if isfield(opts, 'progress')
    progress = opts.progress ~= 0;
    opts = rmfield(opts, 'progress');
  end
  trampoline = sgs_trampoline();
  id = sgsample_mex('svgd_new', gradients, X0, opts, trampoline);
end
