"""How results look in a terminal (``show()``, ``repr``) and a notebook
(``_repr_html_``): like DuckDB's, long results show their first and last
rows and say how many were left out, wide ones their first and last columns,
and long values are cut."""

from __future__ import annotations

import html
import shutil
from dataclasses import dataclass

MAX_ROWS = 20  # rows shown: the first and last halves
MAX_COUNTED = 10_000  # rows read to count a result that is not read yet
MAX_CELL = 40  # characters of a value in the text view
MAX_CELL_HTML = 200  # ... and in the notebook view
MAX_COLUMNS_HTML = 20


@dataclass
class Preview:
    """What a view shows: `rows` are the rows shown (a gap after the first
    `head` of them when rows were left out), `total` the row count, or None
    when the result is longer than what was read to count it."""

    names: list[str]
    numeric: list[bool]
    rows: list[tuple]
    head: int
    total: int | None

    @property
    def left_out(self) -> bool:
        return self.total is None or self.total > len(self.rows)


def preview(native, names: list[str], kept: int, complete: bool) -> Preview:
    """The rows to show of the `kept` rows of the native result `native` (all
    its rows when `complete`)."""
    numeric = native.numeric()
    if kept <= MAX_ROWS:
        return Preview(names, numeric, native.rows(0, kept), kept, kept if complete else None)
    if not complete:
        return Preview(names, numeric, native.rows(0, MAX_ROWS), MAX_ROWS, None)
    head = MAX_ROWS // 2
    shown = native.rows(0, head) + native.rows(kept - (MAX_ROWS - head), MAX_ROWS - head)
    return Preview(names, numeric, shown, head, kept)


def _cell(value, limit: int) -> str:
    text = "NULL" if value is None else str(value).replace("\n", " ")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _footer(p: Preview, columns: int, shown_columns: int) -> str:
    if p.total is None:
        rows = f"more than {MAX_COUNTED:,} rows ({len(p.rows)} shown)"
    else:
        rows = f"{p.total:,} row{'' if p.total == 1 else 's'}"
        if p.left_out:
            rows += f" ({len(p.rows)} shown, {p.total - len(p.rows):,} left out)"
    if shown_columns < columns:
        rows += f", {columns} columns ({columns - shown_columns} left out)"
    return rows


def _pick_columns(widths: list[int], limit: int) -> list[int | None]:
    """Column indexes to show from both ends within `limit` characters (None: the gap)."""
    if sum(w + 3 for w in widths) + 1 <= limit:
        return list(range(len(widths)))
    left, right, lo, hi, used = [], [], 0, len(widths), 5
    while lo < hi:
        take_left = len(left) <= len(right)
        i = lo if take_left else hi - 1
        if used + widths[i] + 3 > limit and (left or right):
            break
        used += widths[i] + 3
        if take_left:
            left.append(i)
            lo += 1
        else:
            right.insert(0, i)
            hi -= 1
    return [*left, None, *right]


def text(p: Preview, types: list[str], width: int | None = None) -> str:
    """An aligned text table, cut to `width` characters (the terminal's by default)."""
    names = p.names
    if not names:
        return "(no columns)"
    width = width or shutil.get_terminal_size((120, 24)).columns
    cells = [[_cell(v, MAX_CELL) for v in r] for r in p.rows]
    numeric = p.numeric
    columns = [[r[i] for r in cells] for i in range(len(names))]
    widths = [max([len(n), len(t)] + [len(v) for v in col]) for n, t, col in zip(names, types, columns)]
    picked = _pick_columns(widths, width)

    def row(cells, align=False):
        parts = []
        for i in picked:
            if i is None:
                parts.append("…")
            else:
                parts.append(cells[i].rjust(widths[i]) if align and numeric[i] else cells[i].ljust(widths[i]))
        return "| " + " | ".join(parts) + " |"

    line = "+" + "+".join("-" * ((widths[i] if i is not None else 1) + 2) for i in picked) + "+"
    out = [line, row(names), row(types), line]
    for k, r in enumerate(cells):
        if k == p.head and p.left_out and p.total is not None:
            out.append(row(["…"] * len(names)))
        out.append(row(list(r), align=True))
    out.append(line)
    out.append(_footer(p, len(names), len([i for i in picked if i is not None])))
    return "\n".join(out)


def html_table(p: Preview, types: list[str]) -> str:
    """The notebook view: an HTML table with the same cuts."""
    names = p.names
    n = len(names)
    picked: list[int | None] = list(range(n))
    if n > MAX_COLUMNS_HTML:
        half = MAX_COLUMNS_HTML // 2
        picked = [*range(half), None, *range(n - half, n)]
    head = "".join(
        "<th>…</th>" if i is None else f"<th>{html.escape(names[i])}<br><small>{html.escape(types[i])}</small></th>" for i in picked
    )
    body = []
    for k, r in enumerate(p.rows):
        if k == p.head and p.left_out and p.total is not None:
            body.append("<tr>" + "<td>…</td>" * len(picked) + "</tr>")
        cells = "".join("<td>…</td>" if i is None else f"<td>{html.escape(_cell(r[i], MAX_CELL_HTML))}</td>" for i in picked)
        body.append(f"<tr>{cells}</tr>")
    footer = html.escape(_footer(p, n, len([i for i in picked if i is not None])))
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table><p>{footer}</p>"
