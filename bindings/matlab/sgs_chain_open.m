function [id, trampoline, runopts, energy] = sgs_chain_open(kind, caller, energy, gradient, theta0, args)
% SGS_CHAIN_OPEN  Internal: creates the persistent chain behind an sgs.Amagold, sgs.Sghmc,
%   sgs.Sgld or sgs.Tunamh object (those classes call it; it lives here to share the option
%   tables and checks of the one-shot functions, which are private to this folder).
%
%   KIND 'amagold' | 'sghmc' | 'sgld' | 'tunamh'; ENERGY [] except for AMAGOLD; GRADIENT
%   TunaMH's differences; ARGS the name/value cell. Returns the gateway's id of the chain, the
%   handle callbacks go through (Octave), the options that are the object's properties
%   (progress, keep_warmup: 0 or 1) and the callback of the chain's energy slot (AMAGOLD's
%   energy; TunaMH's 'Exact' option, or []), which every run passes again.
  spec = sgs_options(kind);
  % A one-shot run's length and what it records are per call for an object (run(n)).
  spec = spec(~ismember(spec(:, 1), {'Samples', 'LogAccept', 'Chains'}), :);
  if strcmp(kind, 'amagold')
    sgs_check_handle(caller, energy, 'energy');
  end
  if strcmp(kind, 'tunamh')
    sgs_check_handle(caller, gradient, 'differences');
    [energy, args] = sgs_take_option(caller, args, 'Exact');
  else
    sgs_check_handle(caller, gradient, 'gradient');
  end
  opts = sgs_parse(caller, spec, args);
  runopts = struct('progress', 0, 'keep_warmup', 0);
  for f = {'progress', 'keep_warmup'}
    if isfield(opts, f{1})
      runopts.(f{1}) = opts.(f{1});
      opts = rmfield(opts, f{1});
    end
  end
  trampoline = sgs_trampoline();
  id = sgsample_mex('new', kind, energy, gradient, theta0, opts, trampoline);
end
