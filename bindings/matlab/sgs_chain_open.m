function [id, trampoline] = sgs_chain_open(kind, caller, energy, gradient, theta0, args)
% SGS_CHAIN_OPEN  Internal: creates the persistent chain behind an sgs.Amagold, sgs.Sghmc or
%   sgs.Sgld object (those classes call it; it lives here to share the option tables and checks
%   of the one-shot functions, which are private to this folder).
%
%   KIND 'amagold' | 'sghmc' | 'sgld'; ENERGY [] except for AMAGOLD; ARGS the name/value cell.
%   Returns the gateway's id of the chain and the handle callbacks go through (Octave).
  spec = sgs_options(kind);
  % A one-shot run's length and what it records are per call for an object (run(n)).
  spec = spec(~ismember(spec(:, 1), {'Samples', 'Burnin', 'LogAccept'}), :);
  if strcmp(kind, 'amagold')
    sgs_check_handle(caller, energy, 'energy');
  end
  sgs_check_handle(caller, gradient, 'gradient');
  opts = sgs_parse(caller, spec, args);
  trampoline = sgs_trampoline();
  id = sgsample_mex('new', kind, energy, gradient, theta0, opts, trampoline);
end
