"""The core crate's layout rules, read from its source (no build needed).

- Layers: every file imports only from its own layer or the layers below
  (storage <- share <- pipe <- sql <- api; the base modules at the top of
  `src/` -- errors, signals, allocation, array helpers -- sit under all of them).
- No import cycles between files.
- No source file over MAX_LINES lines (split it by concept; test modules
  live in their own file, `x/tests.rs` beside `x.rs`).

A file's imports are the `crate::...` and `super::...` paths it names and, in a
`mod.rs`, the paths into its own child modules; each resolves to the longest
prefix that is a module file. Test modules (`#[cfg(test)] mod tests`) and
comments do not count.
"""

import re
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "crates" / "swingdb" / "src"

# Lower number = lower layer; modules not named here are the base (0).
LAYERS = {"storage": 1, "share": 2, "pipe": 3, "sql": 4, "api": 5}
# lib.rs re-exports the public API from every layer: it is above them all.
TOP = {()}

MAX_LINES = 600

PATH = re.compile(r"\b(crate|super)((?:::(?:super|[A-Za-z_][A-Za-z0-9_]*))+)(::\{)?")


def module_of(path):
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    if parts[-1] in ("mod", "lib"):
        parts.pop()
    return tuple(parts)


FILES = {module_of(p): p for p in SRC.rglob("*.rs")}


def name(module):
    return "/".join(module) or "lib"


def is_folder(module):
    return FILES[module].name in ("mod.rs", "lib.rs")


def resolve(parts):
    """The module file a path points into: its longest prefix that is one."""
    for n in range(len(parts), -1, -1):
        if tuple(parts[:n]) in FILES:
            return tuple(parts[:n])
    return None


def code_of(module):
    text = FILES[module].read_text()
    text = re.sub(r"//[^\n]*", "", text)
    text = re.sub(r'"(?:\\.|[^"\\])*"', '""', text)
    cut = re.search(r"#\[cfg\(test\)\]\s*mod tests", text)
    return text[: cut.start()] if cut else text


def group_items(text, start):
    """The top-level items of a `{a, b::{c}, d as e}` use group opening at `start`."""
    depth, begin, items = 0, start, []
    for k in range(start, len(text)):
        c = text[k]
        if c == "{":
            depth += 1
        elif c == "}":
            if depth == 0:
                items.append(text[begin:k])
                return items
            depth -= 1
        elif c == "," and depth == 0:
            items.append(text[begin:k])
            begin = k + 1
    return items


def imports(module):
    text = code_of(module)
    found = set()
    for m in PATH.finditer(text):
        head, rest = m.group(1), [x for x in m.group(2).split("::") if x]
        if head == "crate":
            base = []
        else:
            # `super` of a folder's mod.rs is the folder's parent; of a file, its folder.
            base = list(module[:-1])
        while rest and rest[0] == "super":
            base, rest = base[:-1], rest[1:]
        if m.group(3):
            for item in group_items(text, m.end()):
                names = [x for x in item.strip().split("{")[0].split(" as ")[0].split("::") if x and x != "self"]
                found.add(resolve(base + rest + names))
        else:
            found.add(resolve(base + rest))
    if is_folder(module):
        for child in re.findall(r"^\s*(?:pub(?:\([a-z]+\))? )?mod ([a-z_0-9]+);", text, re.M):
            for m in re.finditer(r"(?<![:\w])" + child + r"((?:::[A-Za-z_][A-Za-z0-9_]*)+)", text):
                line = text[text.rfind("\n", 0, m.start()) + 1 : m.start()]
                if "pub use" in line or "pub(crate) use" in line:
                    continue  # a re-export is the folder's face, not a use of the child
                found.add(resolve(list(module) + [child] + [x for x in m.group(1).split("::") if x]))
    found.discard(None)
    found.discard(module)
    return found


def layer(module):
    return LAYERS.get(module[0], 0) if module else 99


def cycles(graph):
    """The strongly connected components of more than one file (Tarjan)."""
    index, low, stack, on_stack, found = {}, {}, [], set(), []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = set()
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.add(name(w))
                if w == v:
                    break
            if len(component) > 1:
                found.append(frozenset(component))

    for v in graph:
        if v not in index:
            visit(v)
    return found


GRAPH = {module: imports(module) for module in FILES}


def test_the_analysis_sees_imports():
    # The analysis must find what is plainly there, or the rules below pass for nothing.
    assert ("storage", "manifest") in GRAPH[("storage", "dir")]
    assert ("error",) in GRAPH[("storage", "dir")]
    assert any(t[:1] == ("sql",) for t in GRAPH[("api", "connection")])
    assert cycles({("a",): {("b",)}, ("b",): {("a",)}, ("c",): set()}) == [frozenset({"a", "b"})]


def test_no_file_imports_from_a_layer_above_its_own():
    upward = sorted(
        f"{name(m)} -> {name(t)}"
        for m, targets in GRAPH.items()
        if m not in TOP
        for t in targets
        if layer(t) > layer(m)
    )
    assert upward == [], "imports that point up the layers (storage <- share <- pipe <- sql <- api):\n" + "\n".join(
        upward
    )


def test_no_import_cycles_between_files():
    found = [sorted(c) for c in cycles(GRAPH)]
    assert found == [], f"import cycles between files: {found}"


def test_no_file_over_the_line_limit():
    long = sorted(
        str(p.relative_to(SRC)) for p in SRC.rglob("*.rs") if len(p.read_text().splitlines()) > MAX_LINES
    )
    assert long == [], f"split these files (over {MAX_LINES} lines): {long}"
