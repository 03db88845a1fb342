"""The optional progress bar of long runs (``tqdm``)."""

import sys


def _interactive():
    """A person is likely watching: stderr is a terminal, or an interactive interpreter or
    IPython/Jupyter session runs. Never in scripts piped to files, CI or batch jobs."""
    try:
        tty = sys.stderr is not None and sys.stderr.isatty()
    except (AttributeError, ValueError):
        tty = False
    return tty or hasattr(sys, "ps1") or "ipykernel" in sys.modules


def bar(progress, total, desc):
    """A tqdm bar for ``total`` iterations, or None.

    ``progress``: ``None`` (the default) shows one only in an interactive session with tqdm
    installed; ``True`` always (``ImportError`` without tqdm); ``False`` never."""
    if progress is None:
        progress = _interactive()
        required = False
    else:
        required = bool(progress)
    if not progress or total == 0:
        return None
    try:
        from tqdm.auto import tqdm
    except ImportError:
        if required:
            raise ImportError("progress=True needs tqdm (pip install tqdm)") from None
        return None
    # delay: runs shorter than half a second show nothing.
    return tqdm(total=total, desc=desc, unit="it", delay=0.5, leave=False)
