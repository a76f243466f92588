"""A one-line progress bar for long loads, drawn on standard error."""

from __future__ import annotations

import sys
import time


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
        bar = "#" * int(30 * share)
        rate = rows / max(now - self.started, 1e-9)
        self.stream.write(f"\r{self.label} [{bar:<30}] {share:4.0%} {rows:,}/{self.total:,} rows, {rate:,.0f} rows/s")
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
