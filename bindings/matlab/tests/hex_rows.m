function rows = hex_rows(tag, X)
% HEX_ROWS  One line per row of X, TAG and the hex bits of its doubles, as tests/bitexact.c
%   prints them (the bit-for-bit comparisons). A test helper shared by the test files.
  rows = {};
  for k = 1:size(X, 1)
    h = cellstr(num2hex(X(k, :)'));
    rows{end + 1} = [tag, sprintf(' %s', h{:})]; %#ok<AGROW>
  end
end
