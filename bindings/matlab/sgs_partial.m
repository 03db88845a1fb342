function p = sgs_partial()
% SGS_PARTIAL  What the last one-shot run that stopped had produced.
%
%   p = sgs_partial()
%
%   After a callback error or Ctrl-C (or a library error) stopped sgs_amagold, sgs_sghmc,
%   sgs_sgld or sgs_tunamh, P is a struct with SAMPLES and INFO as the function would have returned them for
%   the iterations completed (exact totals: info.iterations, info.samples, info.accepted, ...;
%   with 'Chains', K the iterations every chain completed, Samples-by-d-by-K). [] when the last
%   one-shot run completed (each run clears it when it starts), or none ran since the MEX file
%   was loaded. For runs that are to be continued use the objects (sgs.Amagold, ...), whose
%   c.Partial keeps a failed run's rows and whose chain resumes bit for bit.
%
%   See also SGS_AMAGOLD, SGS.CHAIN.
  p = sgsample_mex('partial');
end
