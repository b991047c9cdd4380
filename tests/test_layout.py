"""The package's layout: no import cycle among the modules of ``quercus``.

The modules are read with ``ast``, never imported, and every import counts: at the top of a
module, inside a function, under ``if TYPE_CHECKING``. An import deferred into a function
hides a cycle from Python's import machinery but not from a reader, who still has to
understand the two modules together.
"""

import ast
import textwrap
from pathlib import Path

import quercus


def module_files(package_dir: Path) -> dict[str, Path]:
    """Every module of the package in ``package_dir`` by dotted name (a package by the
    name of its ``__init__``)."""
    modules = {}
    for path in sorted(package_dir.rglob("*.py")):
        parts = list(path.relative_to(package_dir.parent).with_suffix("").parts)
        if parts[-1] == "__init__":
            parts.pop()
        modules[".".join(parts)] = path
    return modules


def _innermost_module(name: str, modules) -> str | None:
    """``name`` if it is a module, else the module that defines it (``a.b.f`` -> ``a.b``)."""
    while name and name not in modules:
        name = name.rpartition(".")[0]
    return name or None


def imported_modules(name: str, path: Path, modules) -> set[str]:
    """The modules of ``modules`` that module ``name`` (the file ``path``) imports,
    anywhere in its text. ``from . import x`` is an import of the submodule ``x`` when
    there is one, else of the package."""
    package = name if path.name == "__init__.py" else name.rpartition(".")[0]
    targets = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")
                parts = parts[: len(parts) - (node.level - 1)]
                base = ".".join([*parts, base] if base else parts)
            names = [
                f"{base}.{alias.name}" if f"{base}.{alias.name}" in modules else base
                for alias in node.names
            ]
        else:
            continue
        for imported in names:
            target = _innermost_module(imported, modules)
            if target is not None and target != name:
                targets.add(target)
    return targets


def import_graph(package_dir: Path) -> dict[str, set[str]]:
    """Module -> the modules of the same package that it imports."""
    modules = module_files(package_dir)
    return {name: imported_modules(name, path, modules) for name, path in modules.items()}


def import_cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan's algorithm),
    each sorted, in sorted order: every set of modules that import each other in a circle."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []

    def visit(module):
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for target in sorted(graph[module]):
            if target not in index:
                visit(target)
                low[module] = min(low[module], low[target])
            elif target in on_stack:
                low[module] = min(low[module], index[target])
        if low[module] == index[module]:
            component = []
            while True:
                member = stack.pop()
                on_stack.discard(member)
                component.append(member)
                if member == module:
                    break
            if len(component) > 1:
                found.append(sorted(component))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return sorted(found)


def test_quercus_has_no_import_cycle():
    graph = import_graph(Path(quercus.__file__).parent)
    assert "quercus.estimators.base" in graph  # the package was read
    cycles = import_cycles(graph)
    assert not cycles, "import cycles:\n" + "\n".join("  " + ", ".join(cycle) for cycle in cycles)


def _package(root: Path, files: dict[str, str]) -> Path:
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    return root / "pkg"


def test_the_graph_reads_every_kind_of_import(tmp_path):
    package_dir = _package(
        tmp_path,
        {
            "pkg/__init__.py": "from .top import run\n",
            "pkg/top.py": """
                import pkg.sub.leaf as leaf_module
                from pkg.sub import other

                def run():
                    from . import helper  # a submodule
                    return helper, leaf_module, other
            """,
            "pkg/helper.py": """
                from typing import TYPE_CHECKING

                import numpy

                if TYPE_CHECKING:
                    from .sub.leaf import Leaf
            """,
            "pkg/sub/__init__.py": "from .. import not_a_module\n",
            "pkg/sub/leaf.py": "from ..helper import name_in_helper\n",
            "pkg/sub/other.py": "from . import leaf, missing\n",
        },
    )
    assert import_graph(package_dir) == {
        "pkg": {"pkg.top"},
        "pkg.top": {"pkg.sub.leaf", "pkg.sub.other", "pkg.helper"},
        "pkg.helper": {"pkg.sub.leaf"},
        "pkg.sub": {"pkg"},
        "pkg.sub.leaf": {"pkg.helper"},
        "pkg.sub.other": {"pkg.sub.leaf", "pkg.sub"},
    }


def test_a_cycle_hidden_in_functions_and_type_checking_is_found(tmp_path):
    package_dir = _package(
        tmp_path,
        {
            "pkg/__init__.py": "",
            "pkg/a.py": """
                def f():
                    from . import b
                    return b
            """,
            "pkg/b.py": """
                from typing import TYPE_CHECKING

                if TYPE_CHECKING:
                    from .c import C
            """,
            "pkg/c.py": "import pkg.a\n",
            "pkg/d.py": "from .a import f\n",  # imports the cycle, is not in it
            "pkg/e.py": "from .f import g\n",
            "pkg/f.py": "from .e import h\n",
        },
    )
    assert import_cycles(import_graph(package_dir)) == [
        ["pkg.a", "pkg.b", "pkg.c"],
        ["pkg.e", "pkg.f"],
    ]
