% DOUBLE_WELL  The AMAGOLD paper's double well (docs/algorithms.md §1.3) from MATLAB/Octave:
%   AMAGOLD against SGHMC at step size 0.25 (T = 10, beta = 0.25, sigma = 1, theta0 = 0), the
%   gradient noise N(0, 1) drawn from the minibatch seed; histograms against the exact density,
%   saved as a PNG. Headless: figure('visible', 'off'); under Octave without a display the
%   gnuplot toolkit (Debian: gnuplot-nox, fonts-freefont-otf) prints with -dpngcairo.
%
%   run('bindings/matlab/examples/double_well.m')        (SGS_QUICK=1: fewer samples;
%                                                         SGS_PNG=path: where to write the PNG;
%                                                         default: tempdir, never the sources)
here = fileparts(mfilename('fullpath'));
addpath(fileparts(here));
n = 50000;
if ~isempty(getenv('SGS_QUICK'))
  n = 10000;
end
png = getenv('SGS_PNG');
if isempty(png)
  png = fullfile(tempdir, 'sgsample_double_well.png');
end
U = @(x) (x + 4) * (x + 1) * (x - 1) * (x - 3) / 14 + 0.5;
% N(0, 1) from the minibatch seed by the library's generator: the same seed, the same gradient.
dU = @(x, s) (4 * x^3 + 3 * x^2 - 26 * x - 1) / 14 + sgs_normal(s);
opts = {'StepSize', 0.25, 'Steps', 10, 'Friction', 0.25, 'Samples', n, 'Seed', 1};
tic;
[a, ia] = sgs_amagold(U, dU, 0, opts{:});
ta = toc;
tic;
s = sgs_sghmc(dU, 0, opts{:});
ts = toc;
fprintf('double well, %d samples each (truth: mean -2.148, variance 2.862, P(theta > 0) 0.1288)\n', n);
fprintf('  AMAGOLD  mean %+.3f  variance %.3f  P(theta > 0) %.4f  acceptance %.3f  (%.1f s)\n', ...
        mean(a), var(a), mean(a > 0), ia.acceptance, ta);
fprintf('  SGHMC    mean %+.3f  variance %.3f  P(theta > 0) %.4f                     (%.1f s)\n', ...
        mean(s), var(s), mean(s > 0), ts);

% Exact density on a grid (midpoint rule normalisation).
x = linspace(-7, 6, 1300)';
w = exp(-arrayfun(U, x));
w = w / (sum(w) * (x(2) - x(1)));
edges = -7:0.25:6;
centres = edges(1:end - 1) + 0.125;
ha = histc(a, edges);
hs = histc(s, edges);
ha = ha(1:end - 1) / (n * 0.25);
hs = hs(1:end - 1) / (n * 0.25);

if exist('OCTAVE_VERSION', 'builtin')
  warning('off', 'Octave:gnuplot-graphics');
  if isempty(available_graphics_toolkits())
    error('sgsample:noGraphics', 'no Octave graphics toolkit: install gnuplot-nox and fonts-freefont-otf');
  end
  if isempty(getenv('DISPLAY')) && any(strcmp(available_graphics_toolkits(), 'gnuplot'))
    graphics_toolkit('gnuplot');
  end
end
f = figure('visible', 'off');
plot(centres, ha, 'b-', centres, hs, 'r-', x, w, 'k--', 'LineWidth', 1.5);
legend('AMAGOLD', 'SGHMC', 'exact', 'Location', 'northeast');
xlabel('\theta');
ylabel('density');
title(sprintf('Double well, \\epsilon = 0.25, T = 10, %d samples', n));
if exist('OCTAVE_VERSION', 'builtin') && strcmp(graphics_toolkit(), 'gnuplot')
  print(f, png, '-dpngcairo');     % gnuplot's own PNG terminal; -dpng would need ghostscript
else
  print(f, png, '-dpng', '-r100');
end
close(f);
fprintf('wrote %s\n', png);
