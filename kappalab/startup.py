"""Ctrl-C while the console command starts.

``kappalab ...`` and ``python -m kappalab ...`` import the package (numpy, pandas, scipy:
about a second) before :func:`kappalab.cli.main` runs and can catch an interrupt. This
module is the first one ``kappalab/__init__.py`` imports: when, and only when, the process is
that command, importing it holds SIGINT until the package is imported, so that an interrupt
ends the command as ``main`` ends one (one line on stderr, exit code 130) instead of a
traceback and a death by signal. ``kappalab/__init__.py`` calls :func:`release` at its end;
imported as a library, by any other program, nothing changes.

Examples
--------
>>> holding()  # a test run is not the console command
False
"""

from __future__ import annotations

import signal
import sys
from typing import Any

#: the exit code after Ctrl-C (128 + SIGINT, as a shell reports a command it interrupted)
EXIT_INTERRUPTED = 130
#: what the one line on stderr says after Ctrl-C (``kappalab: error: interrupted``)
INTERRUPTED = "interrupted"
#: the names of the console script (pip writes ``kappalab``; on Windows a launcher)
SCRIPT_NAMES = ("kappalab", "kappalab.exe", "kappalab-script.py")

_held: list[Any] = []  # the handler replaced while the command starts (empty otherwise)


def is_the_command() -> bool:
    """Whether this process is the console command starting (``kappalab ...`` or
    ``python -m kappalab ...``).

    Returns
    -------
    bool
        With ``python -m``, ``sys.argv[0]`` is ``"-m"`` while the package is imported and the
        module named is the argument of the interpreter just before ``sys.argv[1:]``; the
        console script is the ``__main__`` module, a file named ``kappalab``.
    """
    argv = sys.argv
    if argv and argv[0] == "-m":
        original = list(getattr(sys, "orig_argv", ()))
        module = original[len(original) - len(argv)] if len(original) >= len(argv) else ""
        return module == "kappalab" or (module.startswith("-") and module.endswith("mkappalab"))
    main = sys.modules.get("__main__")
    path = str(getattr(main, "__file__", None) or "")
    return path.replace("\\", "/").rsplit("/", 1)[-1] in SCRIPT_NAMES


def _interrupted(signum: int, frame: Any) -> None:
    sys.stderr.write(f"kappalab: error: {INTERRUPTED}\n")
    raise SystemExit(EXIT_INTERRUPTED)


def hold() -> bool:
    """Hold SIGINT while the command starts (nothing when the process is not the command, or
    when SIGINT is not Python's default, e.g. ignored in a background job).

    Returns
    -------
    bool
        Whether SIGINT is held.
    """
    if _held or signal.getsignal(signal.SIGINT) is not signal.default_int_handler:
        return bool(_held)
    if not is_the_command():
        return False
    try:
        _held.append(signal.signal(signal.SIGINT, _interrupted))
    except ValueError:  # not the main thread
        return False
    return True


def holding() -> bool:
    """Whether SIGINT is held (the command is starting)."""
    return bool(_held)


def release() -> None:
    """Give SIGINT back to Python's default handler (``main`` then catches it)."""
    if _held:
        signal.signal(signal.SIGINT, _held.pop())


hold()
