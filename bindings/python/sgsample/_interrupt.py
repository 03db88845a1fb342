"""Ctrl-C during a run: noticed between chunks, never in the middle of the binding's own
bookkeeping.

Python's default SIGINT handler raises ``KeyboardInterrupt`` at whatever bytecode runs when the
signal is checked. Between two chunks of a run that can be the line after the library returned
and before its rows and totals were recorded: the rows of that chunk, and with Raw callbacks the
whole run's output, were lost. While a run is under way (on the main thread, with Python's
default handler in place) SIGINT is therefore handled here: inside a Python callback it raises
``KeyboardInterrupt`` there, as before (the callback returns ``SGS_CB_ABORT``, the chain stops
at its last accepted state); anywhere else it only sets a flag, which the chunk loop reads after
it has recorded the chunk. Either way the run then raises ``KeyboardInterrupt`` with every draw
made and exact totals.
"""

import signal
import threading

# The code objects that mark "inside a user's Python callback": the trampolines (filled by
# _callbacks, which imports this module).
CALLBACK_CODES = set()

_state = {"depth": 0, "pending": False, "previous": None}
_lock = threading.Lock()


def _handler(signum, frame):
    f = frame
    while f is not None:
        if f.f_code in CALLBACK_CODES:
            raise KeyboardInterrupt
        f = f.f_back
    _state["pending"] = True


class deferred:
    """Context manager around one run: SIGINT sets :func:`pending` instead of raising in the
    binding's own code. Nested runs (a run inside a callback of another) share the handler."""

    def __enter__(self):
        self.installed = False
        if threading.current_thread() is not threading.main_thread():
            return self  # signals are delivered to the main thread only
        with _lock:
            if _state["depth"] == 0:
                if signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
                    return self  # the program's own handler: leave it in charge
                _state["previous"] = signal.signal(signal.SIGINT, _handler)
                _state["pending"] = False
            _state["depth"] += 1
            self.installed = True
        return self

    def __exit__(self, *exc):
        if self.installed:
            with _lock:
                _state["depth"] -= 1
                if _state["depth"] == 0:
                    signal.signal(signal.SIGINT, _state["previous"])
        return False


def pending():
    """True when a SIGINT arrived since the outermost run started and was not yet raised."""
    return _state["pending"]


def take():
    """Clears the flag; call when raising the ``KeyboardInterrupt`` it stands for."""
    _state["pending"] = False
