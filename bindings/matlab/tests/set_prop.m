function set_prop(obj, name, value)
% SET_PROP  obj.(name) = value, as a function (for expect_error's handles). A test helper shared
%   by the test files.
  obj.(name) = value;
end
