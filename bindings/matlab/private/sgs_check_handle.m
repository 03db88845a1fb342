function sgs_check_handle(caller, f, what)
% SGS_CHECK_HANDLE  Error sgsample:notFunctionHandle unless F is a function handle.
  if ~isa(f, 'function_handle')
    error('sgsample:notFunctionHandle', '%s: %s must be a function handle', caller, what);
  end
end
