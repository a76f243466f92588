"""The core's layout rules, read from its source (no build needed).

- Layers: each layer is a crate of its own (`swingdb-storage`, with the error
  type and the helpers under every layer such as the signal check, then
  `swingdb-share`, `swingdb-pipe`, `swingdb-sql` and `swingdb`, the API); each
  one's manifest names only the swingdb crates below it, so the compiler
  refuses an upward import. In `swingdb` the helpers at the top of `src/`
  never import the API (`api/`) they serve.
- No import cycles between files, in any of these crates, in the faces over
  them (the shell, the C API, the Flight server, the Python extension) and in
  the Python package (imports inside functions count).
- No source file over MAX_LINES lines (split it by concept; test modules
  live in their own file, `x/tests.rs` beside `x.rs`).

A file's imports are the `crate::...` and `super::...` paths it names and, in a
`mod.rs`, the paths into its own child modules; each resolves to the longest
prefix that is a module file. Test modules (`#[cfg(test)] mod tests`) and
comments do not count.
"""

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
CRATES = ROOT / "crates"
# The layer crates, lowest first: each may depend on those before it only.
LAYER_CRATES = ["swingdb-storage", "swingdb-share", "swingdb-pipe", "swingdb-sql", "swingdb"]

# Lower number = lower layer; modules not named here are the base (0).
LAYERS = {"api": 5}
# lib.rs re-exports the public API from every layer: it is above them all.
TOP = {()}

MAX_LINES = 600

PATH = re.compile(r"\b(crate|super)((?:::(?:super|[A-Za-z_][A-Za-z0-9_]*))+)(::\{)?")


def module_of(path, src):
    parts = list(path.relative_to(src).with_suffix("").parts)
    if parts[-1] in ("mod", "lib"):
        parts.pop()
    return tuple(parts)


def files_of(src):
    return {module_of(p, src): p for p in src.rglob("*.rs")}


CRATE_FILES = {crate: files_of(CRATES / crate / "src") for crate in LAYER_CRATES}
# The faces over the API: their files may not import each other in a circle either.
FACE_FILES = {
    face: files_of(src)
    for face, src in [
        ("swingdb-cli", CRATES / "swingdb-cli" / "src"),
        ("swingdb-capi", CRATES / "swingdb-capi" / "src"),
        ("swingdb-flight", CRATES / "swingdb-flight" / "src"),
        ("swingdb-python", ROOT / "python" / "src"),
    ]
}
# The core crate, whose files keep the layers inside it apart.
FILES = CRATE_FILES["swingdb"]


def name(module):
    return "/".join(module) or "lib"


def is_folder(module, files):
    """A module with children: `x/mod.rs`, `lib.rs`, or `x.rs` beside an `x/`."""
    path = files[module]
    return path.name in ("mod.rs", "lib.rs") or path.with_suffix("").is_dir()


def resolve(parts, files):
    """The module file a path points into: its longest prefix that is one
    (none for a path into another crate, such as `crate::storage`)."""
    for n in range(len(parts), 0, -1):
        if tuple(parts[:n]) in files:
            return tuple(parts[:n])
    return None


def code_of(module, files):
    text = files[module].read_text()
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


def imports(module, files):
    text = code_of(module, files)
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
                found.add(resolve(base + rest + names, files))
        else:
            found.add(resolve(base + rest, files))
    if is_folder(module, files):
        for child in re.findall(r"^\s*(?:pub(?:\([a-z]+\))? )?mod ([a-z_0-9]+);", text, re.M):
            for m in re.finditer(r"(?<![:\w])" + child + r"((?:::[A-Za-z_][A-Za-z0-9_]*)+)", text):
                line = text[text.rfind("\n", 0, m.start()) + 1 : m.start()]
                if "pub use" in line or "pub(crate) use" in line:
                    continue  # a re-export is the folder's face, not a use of the child
                found.add(resolve(list(module) + [child] + [x for x in m.group(1).split("::") if x], files))
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


CRATE_GRAPHS = {
    crate: {m: imports(m, files) for m in files} for crate, files in (CRATE_FILES | FACE_FILES).items()
}


def python_imports(package):
    """Each module of the Python package `package` (a folder) with the modules
    of it that it imports, at the top or inside a function."""
    modules = {p.stem: p for p in package.glob("*.py")}
    # The compiled extension (`_swingdb`, typed by its .pyi) imports nothing of the package.
    native = {p.stem for p in package.glob("*.pyi")}
    graph = {}
    for stem, path in modules.items():
        found = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.level == 1:
                if node.module:
                    found.add(node.module.split(".")[0])
                else:
                    # `from . import x`: module x, or a name of the package's __init__.
                    found |= {a.name if a.name in modules.keys() | native else "__init__" for a in node.names}
            elif isinstance(node, ast.ImportFrom) and (node.module or "").startswith(package.name + "."):
                found.add(node.module.split(".")[1])
        graph[(stem,)] = {(m,) for m in found if m in modules and m != stem}
    return graph


PYTHON_GRAPH = python_imports(ROOT / "python" / "swingdb")
GRAPH = CRATE_GRAPHS["swingdb"]


def test_the_analysis_sees_imports():
    # The analysis must find what is plainly there, or the rules below pass for nothing.
    assert ("manifest",) in CRATE_GRAPHS["swingdb-storage"][("dir",)]
    assert ("error",) in CRATE_GRAPHS["swingdb-storage"][("dir",)]
    assert ("home",) in CRATE_GRAPHS["swingdb-share"][("names",)]
    assert ("api", "result") in GRAPH[("api", "connection")]
    assert ("catalog",) in CRATE_GRAPHS["swingdb-sql"][("session",)]
    assert ("errors",) in CRATE_GRAPHS["swingdb-python"][("connection",)]
    assert ("statements",) in CRATE_GRAPHS["swingdb-flight"][("service",)]
    assert ("result",) in PYTHON_GRAPH[("connection",)]
    assert ("pipe",) in PYTHON_GRAPH[("connection",)], "imports inside functions count"
    assert cycles({("a",): {("b",)}, ("b",): {("a",)}, ("c",): set()}) == [frozenset({"a", "b"})]


def test_no_file_imports_from_a_layer_above_its_own():
    upward = sorted(
        f"{name(m)} -> {name(t)}"
        for m, targets in GRAPH.items()
        if m not in TOP
        for t in targets
        if layer(t) > layer(m)
    )
    assert upward == [], "imports of the API from the helpers below it:\n" + "\n".join(
        upward
    )


def test_no_import_cycles_between_files():
    found = [(crate, sorted(c)) for crate, graph in CRATE_GRAPHS.items() for c in cycles(graph)]
    assert found == [], f"import cycles between files: {found}"


def test_no_import_cycles_in_the_python_package():
    found = [sorted(c) for c in cycles(PYTHON_GRAPH)]
    assert found == [], f"import cycles between the package's modules: {found}"


def test_each_layer_crate_depends_only_on_the_crates_below_it():
    upward = []
    for k, crate in enumerate(LAYER_CRATES):
        manifest = (CRATES / crate / "Cargo.toml").read_text()
        dependencies = manifest.split("[dependencies]", 1)[1].split("\n[", 1)[0]
        assert "parking_lot" in dependencies, f"the analysis reads {crate}'s dependency table"
        named = re.findall(r"^(swingdb[\w-]*)", dependencies, re.M)
        upward += [f"{crate} -> {n}" for n in named if n not in LAYER_CRATES[:k]]
    assert upward == [], f"layer crates naming a crate at or above their own: {upward}"


def test_storage_is_grouped_by_concept():
    # Files of the storage crate live in its concept folders; at the top only
    # those folders' own files and the base every layer uses.
    concepts = {"segment", "encoding", "manifest", "keys", "dir"}
    base = {"lib", "error", "failpoint", "signal", "allocator", "huge_pages", "joined_slices", "test_mappings", "test_random"}
    top = {p.stem for p in (CRATES / "swingdb-storage" / "src").glob("*.rs")}
    assert concepts <= top, f"concept folders missing: {concepts - top}"
    assert top <= concepts | base, f"flat storage modules outside a concept: {sorted(top - concepts - base)}"


def test_no_file_over_the_line_limit():
    long = sorted(
        str(p.relative_to(CRATES))
        for src in (CRATES / crate / "src" for crate in LAYER_CRATES)
        for p in src.rglob("*.rs")
        if len(p.read_text().splitlines()) > MAX_LINES
    )
    assert long == [], f"split these files (over {MAX_LINES} lines): {long}"


def test_the_api_runs_sql_through_one_seam():
    # `swingdb` names of `swingdb-sql` only its seam (`engine`) and the
    # user-facing types at its root, never the modules behind them; and the
    # seam is a few types (a database, a session on it, what a statement
    # gives), no loose functions or modules.
    api = "\n".join(code_of(module, FILES) for module in FILES)
    uses = {m.group(0) for m in re.finditer(r"\bswingdb_sql::[A-Za-z_]+(?:::[A-Za-z_{]+)?", api)}
    inside = sorted(u for u in uses if u.count("::") > 1 and not u.startswith("swingdb_sql::engine::"))
    assert inside == [], f"the API reaches past the seam into swingdb-sql: {inside}"
    named = {
        name.strip()
        for m in re.finditer(r"\bswingdb_sql::engine::(\{[^}]*\}|\w+)", api)
        for name in m.group(1).strip("{}").split(",")
        if name.strip()
    }
    assert "Session" in named, "the analysis sees the API's imports"
    seam = (CRATES / "swingdb-sql" / "src" / "engine.rs").read_text()
    exported = {
        name.strip()
        for m in re.finditer(r"^pub use [\w:]+::(\{[^}]*\}|\w+);", seam, re.M)
        for name in m.group(1).strip("{}").split(",")
    }
    assert named <= exported, f"the API names what the seam does not export: {sorted(named - exported)}"
    loose = sorted(n for n in exported if not n[:1].isupper())
    assert loose == [], f"the seam exports functions or modules, not types: {loose}"
    assert len(exported) <= 8, f"the seam grew to {len(exported)} items: {sorted(exported)}"
