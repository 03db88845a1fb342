function g = interrupt_after(x, seed) %#ok<INUSD>
% INTERRUPT_AFTER  A gradient (standard normal: returns X) for the Ctrl-C test that sends SIGINT
%   to this Octave process on its call number KAT (a global; KCALLS counts the calls) and waits
%   for the interrupt, as a user's Ctrl-C during a slow model would arrive. The pause ends as soon
%   as Octave acts on the signal; if it never did, the test would see more calls than KAT.
  global KCALLS KAT
  KCALLS = KCALLS + 1;
  if KCALLS == KAT
    kill(getpid(), 2);
    pause(30);
  end
  g = x;
end
