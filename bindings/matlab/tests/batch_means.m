function [m, se] = batch_means(f, nb)
% BATCH_MEANS  Batch-means estimate and standard error of mean(f) over a chain (NB batches; the
%   tests' tolerances are multiples of SE). A test helper shared by the test files.
  n = floor(numel(f) / nb) * nb;
  b = mean(reshape(f(1:n), [], nb), 1);
  m = mean(f(1:n));
  se = std(b) / sqrt(nb);
end
