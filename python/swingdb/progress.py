"""Progress bars: of long loads from Python data, and of any statement that
runs long (driven by what the engine's scans have read)."""

from __future__ import annotations

import sys
import time


def _bar(share: float) -> str:
    """`[#####     ]  45%` for a share between 0 and 1."""
    return f"[{'#' * int(30 * share):<30}] {share:4.0%}"


class ProgressBar:
    """Called with the rows stored so far; redraws at most ten times a second."""

    def __init__(self, label: str, total: int, stream=None):
        self.label, self.total = label, max(total, 1)
        self.stream = stream or sys.stderr
        self.started = time.perf_counter()
        self.last = 0.0

    def __call__(self, rows: int) -> None:
        now = time.perf_counter()
        if now - self.last < 0.1 and rows < self.total:
            return
        self.last = now
        share = min(rows / self.total, 1.0)
        rate = rows / max(now - self.started, 1e-9)
        self.stream.write(f"\r{self.label} {_bar(share)} {rows:,}/{self.total:,} rows, {rate:,.0f} rows/s")
        if rows >= self.total:
            self.stream.write("\n")
        self.stream.flush()


def progress_for(label: str, total: int, progress):
    """The callback to use: `progress` itself if callable, a bar if True, or
    (None) a bar only for large loads on a terminal."""
    if callable(progress):
        return progress
    if progress is None:
        progress = total >= 1_000_000 and sys.stderr.isatty()
    return ProgressBar(label, total) if progress else None


class _Settings:
    enabled = True
    after = 2.0  # seconds a statement runs before its bar is shown
    file = None  # where to draw; None: standard error, on a terminal or in a notebook only


def set_progress(enabled: bool = True, *, after: float = 2.0, file=None) -> None:
    """Turns the progress bar of long statements on or off. It shows, for a
    statement running longer than `after` seconds, the rows its scans have
    read of how many, the bytes and the time left, as the engine reports
    them; on standard error when that is a terminal or a notebook, or always
    on `file` if given."""
    _Settings.enabled, _Settings.after, _Settings.file = bool(enabled), float(after), file


def _where():
    if _Settings.file is not None:
        return _Settings.file
    if sys.stderr is not None and (sys.stderr.isatty() or "ipykernel" in sys.modules):
        return sys.stderr
    return None


def _size(n: int) -> str:
    for unit, scale in (("GiB", 1 << 30), ("MiB", 1 << 20)):
        if n >= scale:
            return f"{n / scale:.1f} {unit}"
    return f"{n / 1024:.1f} KiB"


def statement_progress(*report) -> None:
    """The display the engine calls while a statement runs (with rows, bytes,
    total rows or None, seconds) and when it ends (no arguments)."""
    out = _where()
    if out is None or not _Settings.enabled:
        return
    if not report:
        out.write("\r\033[K")
        out.flush()
        return
    rows, size, total, seconds = report
    if seconds < _Settings.after:
        return
    if total:
        share = min(rows / total, 1.0)
        left = f", {seconds * (total - rows) / rows:.0f} s left" if rows else ""
        line = f"{_bar(share)} {rows:,}/{total:,} rows, {_size(size)}{left}"
    else:
        line = f"{rows:,} rows read, {_size(size)}, {seconds:.0f} s"
    out.write("\r\033[K" + line)
    out.flush()
