"""The package's layout rules hold (docs/design.md; house rules): one direction of dependence
(``theory`` imports neither ``numerics`` nor ``properties``; ``numerics`` does not import
``properties``), no import cycles between modules, no private helper (``_name``) imported from
another module, and modules of about 400 lines at most. Static (AST) checks: no module is imported.
"""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("theory", "numerics", "properties")
PREFIX = "contrastive_bounds."
#: Lines a module may have ("under ~400"). The modules that define the built-in checks are listed by
#: ``check --list`` and grow with the checks; they are exempt, as in the API reference.
MAX_LINES = 420
LINE_EXEMPT = ("properties/checks/",)


def _modules() -> dict[str, Path]:
    out = {}
    for pkg in PACKAGES:
        for path in (ROOT / pkg).rglob("*.py"):
            rel = path.relative_to(ROOT).with_suffix("")
            parts = rel.parts[:-1] if rel.name == "__init__" else rel.parts
            out[PREFIX + ".".join(parts)] = path
    return out


def _resolve(module: str, node: ast.ImportFrom, is_package: bool) -> str:
    if not node.level:
        return node.module or ""
    base = module.split(".") if is_package else module.split(".")[:-1]
    base = base[: len(base) - (node.level - 1)]
    return ".".join(base + ([node.module] if node.module else []))


def _imports(module: str, path: Path, *, top_level_only: bool) -> list[tuple[str, list[str], int]]:
    """(imported module, names imported from it, line) for each import of ``module``."""
    tree = ast.parse(path.read_text(), str(path))
    nodes = tree.body if top_level_only else list(ast.walk(tree))
    out = []
    for node in nodes:
        if isinstance(node, ast.Import):
            out += [(a.name, [], node.lineno) for a in node.names]
        elif isinstance(node, ast.ImportFrom):
            out.append((_resolve(module, node, path.name == "__init__.py"), [a.name for a in node.names], node.lineno))
    return out


def test_theory_and_numerics_import_only_downwards():
    """theory -> nothing of ours but theory; numerics -> theory, numerics; properties -> anything. The package's
    own ``contrastive_bounds._faces`` (the lazy-face helper, standard library only) is below every layer."""
    allowed = {"theory": ("theory", "_faces"), "numerics": ("theory", "numerics", "_faces")}
    bad = []
    for module, path in _modules().items():
        layer = module.split(".")[1]
        if layer not in allowed:
            continue
        for target, _, line in _imports(module, path, top_level_only=False):
            if target.startswith(PREFIX) and target.split(".")[1] not in allowed[layer]:
                bad.append(f"{path.relative_to(ROOT)}:{line} imports {target}")
    assert bad == []


def test_no_private_name_is_imported_from_another_module():
    """A helper used by two modules is public in the module it belongs to (``from m import _x`` is refused)."""
    bad = []
    paths = dict(_modules())
    paths.update({f"benchmarks.{p.stem}": p for p in (ROOT / "benchmarks").glob("*.py")})
    for module, path in paths.items():
        for target, names, line in _imports(module, path, top_level_only=False):
            if target.startswith("contrastive_bounds"):
                bad += [f"{path.relative_to(ROOT)}:{line} imports {n} from {target}" for n in names
                        if n.startswith("_") and not n.startswith("__")]
    assert bad == []


def test_no_import_cycles_between_modules():
    """Module-level imports form no cycle. A package is its ``__init__``: a submodule that imports a
    name its package re-exports closes a cycle; ``from package import submodule`` imports only the
    submodule (the package itself is always imported first, by Python)."""
    modules = _modules()
    graph: dict[str, set[str]] = {m: set() for m in modules}
    for module, path in modules.items():
        for target, names, _ in _imports(module, path, top_level_only=True):
            submodules = {f"{target}.{n}" for n in names} & set(modules)  # `from package import submodule`
            graph[module] |= submodules
            if target in modules and target != module and (not names or len(submodules) < len(names)):
                graph[module].add(target)
    cycles, state = [], {}

    def visit(node: str, stack: list[str]) -> None:
        state[node] = 1
        for nxt in sorted(graph[node]):
            if state.get(nxt) == 1:
                cycles.append(stack[stack.index(nxt):] + [nxt] if nxt in stack else [node, nxt])
            elif nxt not in state:
                visit(nxt, stack + [nxt])
        state[node] = 2

    for m in sorted(graph):
        if m not in state:
            visit(m, [m])
    assert cycles == [], "import cycles: " + "; ".join(" -> ".join(c) for c in cycles)


def test_modules_stay_under_about_400_lines():
    """One responsibility a module: split a module that grows past MAX_LINES (check modules exempt)."""
    long = {str(p.relative_to(ROOT)): n for p in _modules().values()
            if not str(p.relative_to(ROOT)).startswith(LINE_EXEMPT) and (n := len(p.read_text().splitlines())) > MAX_LINES}
    assert long == {}, f"modules over {MAX_LINES} lines (split them): {long}"


#: modules whose quoted return annotations are left to the work going on in them (the network search's records,
#: tally, settings and structured starts)
QUOTED_RETURN_EXEMPT = tuple(f"numerics/landscapes/network/{m}.py" for m in ("records", "tally", "state", "structured"))


def test_no_return_annotation_is_a_quoted_string():
    """``def scaled(...) -> "FourierSeries"`` showed as ``-> "'FourierSeries'"`` in help() and quoted in the API
    reference: under ``from __future__ import annotations`` a class can name itself unquoted. Every module here
    has that import, so no return annotation needs quotes."""
    import inspect

    from contrastive_bounds.numerics.landscapes import FourierSeries

    quoted = []
    for path in _modules().values():
        rel = str(path.relative_to(ROOT))
        if rel in QUOTED_RETURN_EXEMPT:
            continue
        for node in ast.walk(ast.parse(path.read_text(), rel)):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and isinstance(node.returns, ast.Constant) \
                    and isinstance(node.returns.value, str):
                quoted.append(f"{rel}:{node.lineno} {node.name} -> {node.returns.value!r}")
    assert quoted == []
    assert inspect.signature(FourierSeries.scaled).return_annotation == "FourierSeries"
