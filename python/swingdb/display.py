"""How results look in a terminal (``show()``, ``repr``) and a notebook
(``_repr_html_``): like DuckDB's, long results show their first and last
rows and say how many were left out, wide ones their first and last columns,
and long values are cut."""

from __future__ import annotations

import html
import shutil
from dataclasses import dataclass

import pyarrow as pa

MAX_ROWS = 20  # rows shown: the first and last halves
MAX_COUNTED = 10_000  # rows read to count a result that is not read yet
MAX_CELL = 40  # characters of a value in the text view
MAX_CELL_HTML = 200  # ... and in the notebook view
MAX_COLUMNS_HTML = 20


@dataclass
class Preview:
    """What a view shows: `table` holds the rows shown (a gap after the first
    `head` of them when rows were left out), `total` the row count, or None
    when the result is longer than what was read to count it."""

    table: pa.Table
    head: int
    total: int | None

    @property
    def left_out(self) -> bool:
        return self.total is None or self.total > self.table.num_rows


def preview(kept: list[pa.RecordBatch], schema: pa.Schema, complete: bool) -> Preview:
    """The rows to show of `kept` (all rows when `complete`)."""
    table = pa.Table.from_batches(kept, schema=schema)
    n = table.num_rows
    if n <= MAX_ROWS:
        return Preview(table, n, n if complete else None)
    if not complete:
        return Preview(table.slice(0, MAX_ROWS), MAX_ROWS, None)
    head = MAX_ROWS // 2
    shown = pa.concat_tables([table.slice(0, head), table.slice(n - (MAX_ROWS - head))])
    return Preview(shown, head, n)


def _cell(value, limit: int) -> str:
    text = "NULL" if value is None else str(value).replace("\n", " ")
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _footer(p: Preview, columns: int, shown_columns: int) -> str:
    if p.total is None:
        rows = f"more than {MAX_COUNTED:,} rows ({p.table.num_rows} shown)"
    else:
        rows = f"{p.total:,} row{'' if p.total == 1 else 's'}"
        if p.left_out:
            rows += f" ({p.table.num_rows} shown, {p.total - p.table.num_rows:,} left out)"
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
    names = p.table.column_names
    if not names:
        return "(no columns)"
    width = width or shutil.get_terminal_size((120, 24)).columns
    columns = [[_cell(v, MAX_CELL) for v in c.to_pylist()] for c in p.table.columns]
    numeric = [pa.types.is_integer(t) or pa.types.is_floating(t) or pa.types.is_decimal(t) for t in p.table.schema.types]
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
    rows = list(zip(*columns)) if columns and columns[0] else []
    for k, r in enumerate(rows):
        if k == p.head and p.left_out and p.total is not None:
            out.append(row(["…"] * len(names)))
        out.append(row(list(r), align=True))
    out.append(line)
    out.append(_footer(p, len(names), len([i for i in picked if i is not None])))
    return "\n".join(out)


def html_table(p: Preview, types: list[str]) -> str:
    """The notebook view: an HTML table with the same cuts."""
    names = p.table.column_names
    n = len(names)
    picked: list[int | None] = list(range(n))
    if n > MAX_COLUMNS_HTML:
        half = MAX_COLUMNS_HTML // 2
        picked = [*range(half), None, *range(n - half, n)]
    columns = [c.to_pylist() for c in p.table.columns]
    head = "".join(
        "<th>…</th>" if i is None else f"<th>{html.escape(names[i])}<br><small>{html.escape(types[i])}</small></th>" for i in picked
    )
    body = []
    for k in range(p.table.num_rows):
        if k == p.head and p.left_out and p.total is not None:
            body.append("<tr>" + "<td>…</td>" * len(picked) + "</tr>")
        cells = "".join("<td>…</td>" if i is None else f"<td>{html.escape(_cell(columns[i][k], MAX_CELL_HTML))}</td>" for i in picked)
        body.append(f"<tr>{cells}</tr>")
    footer = html.escape(_footer(p, n, len([i for i in picked if i is not None])))
    return f"<table><thead><tr>{head}</tr></thead><tbody>{''.join(body)}</tbody></table><p>{footer}</p>"
