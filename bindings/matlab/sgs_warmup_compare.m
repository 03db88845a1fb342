function R = sgs_warmup_compare(chains)
% SGS_WARMUP_COMPARE  The warm-up reports of several AMAGOLD chains of one model, compared.
%
%   R = sgs_warmup_compare({c1, c2, ...})   (MATLAB: also an array [c1, c2, ...] of sgs.Amagold
%                                           objects; Octave 7 cannot concatenate them)
%
%   R is a k-by-1 struct array, one report per chain in order (the fields of info.warmup_report:
%   see SGS_AMAGOLD): each chain's own verdict, plus the reason 'chains_disagree' (verdict
%   'suspect') where a chain's final-window mean energy is more than 2 median energy sds from
%   the chains' median, or, with a mass matrix, the final windows' positions give an R-hat above
%   1.1 in some coordinate (then in every chain). One chain alone cannot see that it sits in
%   another region than the others: compare the chains of one model before trusting their
%   samples. The chains must have one dimension (sgsample:lengthMismatch); none at all is
%   sgsample:zeroDimension; a chain that is not an sgs.Amagold object sgsample:badArgument.
%
%   See also SGS.AMAGOLD, SGS_AMAGOLD.
  if nargin ~= 1
    error('sgsample:badArguments', 'usage: R = sgs_warmup_compare({c1, c2, ...})');
  end
  if ~iscell(chains)
    chains = num2cell(chains);
  end
  ids = zeros(numel(chains), 1);
  for k = 1:numel(chains)
    if ~isa(chains{k}, 'sgs.Amagold')
      error('sgsample:badArgument', 'sgs_warmup_compare: chain %d is not an sgs.Amagold object', k);
    end
    ids(k) = chains{k}.Id;
  end
  R = sgsample_mex('amagold_compare', ids);
end
