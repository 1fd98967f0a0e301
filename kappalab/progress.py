"""Progress on stderr for steps that may take more than a couple of seconds.

Two tools, both silent unless the stream (stderr by default) is a terminal, and silent with
``quiet=True``, so that logs, pipes and redirected output never receive progress text:

* :class:`elapsed`, a context manager for one long step: after ``delay`` seconds (``DELAY``,
  2 s, by default) it shows ``description... 5 s`` on one line, updated twice a second, and
  erases the line when the step ends. A step shorter than the delay shows nothing.
* :func:`track`, an iterator wrapper for a loop: a tqdm bar when tqdm is installed, else a
  plain ``description 3/10`` line; it too appears only after ``delay`` seconds and is erased
  at the end.

Examples
--------
>>> import io
>>> with elapsed("computing", stream=io.StringIO()):  # not a terminal: nothing shown
...     pass
>>> [x * x for x in track(range(3), "squares", stream=io.StringIO())]
[0, 1, 4]
"""

from __future__ import annotations

import sys
import threading
import time
from typing import Any, Iterable, Iterator, Literal, TextIO

from .validation import check_real

__all__ = ["DELAY", "enabled", "elapsed", "track"]

#: Seconds a step runs before its progress appears.
DELAY = 2.0


def enabled(quiet: bool = False, stream: TextIO | None = None, *,
            force: bool = False) -> bool:
    """Whether progress is shown: ``force``, or not ``quiet`` and ``stream`` (default
    stderr) a terminal or a Jupyter notebook's.

    Parameters
    ----------
    quiet : bool
        True turns progress off.
    stream : file-like, optional
        Where progress would go (default: ``sys.stderr``).
    force : bool
        True shows progress wherever it goes (the API's ``progress=True``).

    Returns
    -------
    bool
        True when progress would be shown.

    Examples
    --------
    >>> import io
    >>> enabled(stream=io.StringIO()), enabled(force=True), enabled(quiet=True)
    (False, True, False)
    """
    if force:
        return True
    if quiet:
        return False
    stream = sys.stderr if stream is None else stream
    if stream is sys.stderr and "ipykernel" in sys.modules:  # a notebook's stderr
        return True
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError, OSError):  # no isatty, or a closed stream
        return False


def _write(stream: TextIO, text: str) -> None:
    try:
        stream.write(text)
        stream.flush()
    except (OSError, ValueError):  # a closed terminal: progress is not worth a failure
        pass


class elapsed:
    """A context manager that shows the time a step has been running, after a delay.

    Parameters
    ----------
    description : str
        What the step does, shown before the seconds.
    quiet : bool
        True shows nothing.
    delay : float, optional
        Seconds before the line appears (default: :data:`DELAY`).
    interval : float
        Seconds between updates.
    stream : file-like, optional
        Where the line goes (default: ``sys.stderr``, read on entry).

    Attributes
    ----------
    shown : bool
        Whether the line appeared (the step outlasted the delay on a terminal).

    Examples
    --------
    >>> import io
    >>> out = io.StringIO()
    >>> with elapsed("fitting", stream=out) as step:  # not a terminal: nothing is written
    ...     total = sum(range(10))
    >>> total, step.shown, out.getvalue()
    (45, False, '')
    """

    def __init__(self, description: str, *, quiet: bool = False, delay: float | None = None,
                 interval: float = 0.5, stream: TextIO | None = None) -> None:
        self.description = description
        self.quiet = quiet
        self.delay = DELAY if delay is None else check_real(delay, "delay", low=0.0)
        self.interval = check_real(interval, "interval", low=0.0)
        self.stream = stream
        self.shown = False
        self._width = 0
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def __enter__(self) -> "elapsed":
        self._out = sys.stderr if self.stream is None else self.stream
        self._start = time.monotonic()
        if enabled(self.quiet, self._out):
            self._thread = threading.Thread(target=self._run, name="kappalab-progress",
                                            daemon=True)
            self._thread.start()
        return self

    def _run(self) -> None:
        if self._stop.wait(self.delay):
            return
        while True:
            text = f"{self.description}... {time.monotonic() - self._start:.0f} s"
            self._width = max(self._width, len(text))
            _write(self._out, "\r" + text.ljust(self._width))
            self.shown = True
            if self._stop.wait(self.interval):
                return

    def __exit__(self, *exc_info: Any) -> Literal[False]:
        self._stop.set()
        if self._thread is not None:
            self._thread.join()
        if self.shown:
            _write(self._out, "\r" + " " * self._width + "\r")
        return False


def track(iterable: Iterable[Any], description: str = "", *, total: int | None = None,
          quiet: bool = False, delay: float | None = None,
          stream: TextIO | None = None, force: bool = False) -> Iterator[Any]:
    """Yield from ``iterable`` and show how far the loop is, after a delay.

    Parameters
    ----------
    iterable : iterable
        The loop's items.
    description : str
        Shown before the count.
    total : int, optional
        The number of items (default: ``len(iterable)`` when it has one).
    quiet : bool
        True shows nothing.
    delay : float, optional
        Seconds before the progress appears (default: :data:`DELAY`).
    stream : file-like, optional
        Where it goes (default: ``sys.stderr``).
    force : bool
        True shows it even where ``stream`` is not a terminal.

    Yields
    ------
    object
        The items of ``iterable``, unchanged.

    Examples
    --------
    >>> import io
    >>> out = io.StringIO()
    >>> sum(track(range(5), "summing", stream=out)), out.getvalue()  # 0 + 1 + 2 + 3 + 4
    (10, '')
    """
    out = sys.stderr if stream is None else stream
    delay = DELAY if delay is None else check_real(delay, "delay", low=0.0)
    if total is None and hasattr(iterable, "__len__"):
        total = len(iterable)  # type: ignore[arg-type]
    if not enabled(quiet, out, force=force):
        yield from iterable
        return
    try:
        from tqdm import tqdm
    except ImportError:
        tqdm = None
    if tqdm is not None:
        bar = tqdm(iterable, desc=description, total=total, file=out, delay=delay,
                   leave=False, mininterval=0.5)
        try:
            yield from bar
        finally:
            bar.close()
        return
    yield from _plain(iterable, description, total, delay, out)


def _plain(iterable: Iterable[Any], description: str, total: int | None, delay: float,
           out: TextIO) -> Iterator[Any]:
    """The fallback of :func:`track` without tqdm: ``description 3/10`` on one line."""
    start = time.monotonic()
    width = 0
    try:
        for done, item in enumerate(iterable, start=1):
            yield item
            if time.monotonic() - start >= delay:
                text = f"{description} {done}/{total if total is not None else '?'}"
                width = max(width, len(text))
                _write(out, "\r" + text.ljust(width))
    finally:
        if width:
            _write(out, "\r" + " " * width + "\r")
