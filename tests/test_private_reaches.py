"""No module of quercus reaches into another module's private names.

A name that starts with one underscore is its module's (or its class's) own business. The
modules are read with ``ast``, never imported, and two kinds of reach are listed:

- ``from M import _name``: a private name imported from another module;
- ``obj._name``: a private attribute of anything but ``self``, ``cls`` or ``super()``,
  where the module does not define ``_name`` itself (a method, a class attribute, an
  attribute it assigns). The methods of named tuples (``_replace``, ``_asdict`` ...) are
  their public interface, not a reach.

The few reaches into other libraries that have no public way to do what quercus needs are
listed in :data:`ALLOWED`, each with its reason. The list only shrinks: a new reach fails
the test, and so does a listed one that is gone (take it off the list).
"""

from __future__ import annotations

import ast
from collections import Counter
from pathlib import Path

import quercus

PACKAGE = Path(quercus.__file__).parent
#: The public interface of named tuples, underscored so as not to clash with field names.
NAMED_TUPLE_API = frozenset({"_replace", "_asdict", "_fields", "_make", "_field_defaults"})

#: (module file, reach) -> why it stays: reaches into other libraries' private names.
ALLOWED = {
    ("_kernel_cache.py", "dispatcher._cache"): (
        "Numba has no public way to reach a compiled function's cache"
    ),
    ("_kernel_cache.py", "locator._py_file"): "Numba's cache locator keeps the source path",
    ("_kernel_cache.py", "store._load_overload"): "loads one cached signature, to check it",
    ("cli/dask_fit.py", "frame._meta"): (
        "a Dask DataFrame's empty meta frame (its columns' dtypes) has no public name"
    ),
    ("plot/tree.py", "figure._get_renderer"): (
        "matplotlib measures text extents only through the figure's renderer"
    ),
}


def own_names(tree: ast.Module) -> set[str]:
    """The names a module defines itself: functions, classes, attributes it assigns
    (``self._x = ...``, ``_x = ...`` in a class body or at the top)."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.Assign | ast.AnnAssign | ast.AugAssign):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                for part in ast.walk(target):
                    if isinstance(part, ast.Name):
                        names.add(part.id)
                    elif isinstance(part, ast.Attribute):
                        names.add(part.attr)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
    return {name for name in names if name.startswith("_")}


def _private(name: str) -> bool:
    return name.startswith("_") and not name.startswith("__")


def _is_own_object(node: ast.expr) -> bool:
    if isinstance(node, ast.Name):
        return node.id in ("self", "cls")
    return (
        isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "super"
    )


def reaches(path: Path) -> list[str]:
    """The private reaches of the module in ``path``, as text, one per occurrence."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    own = own_names(tree)
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and node.module != "__future__":
            source = "." * node.level + (node.module or "")
            found += [f"from {source} import {a.name}" for a in node.names if _private(a.name)]
        elif (
            isinstance(node, ast.Attribute)
            and _private(node.attr)
            and node.attr not in NAMED_TUPLE_API
            and node.attr not in own
            and not _is_own_object(node.value)
        ):
            found.append(f"{ast.unparse(node.value)}.{node.attr}")
    return found


def all_reaches() -> Counter:
    """(module file relative to the package, reach) -> occurrences."""
    counts = Counter()
    for path in sorted(PACKAGE.rglob("*.py")):
        for reach in reaches(path):
            counts[path.relative_to(PACKAGE).as_posix(), reach] += 1
    return counts


def test_no_module_reaches_into_another_modules_private_names():
    found = all_reaches()
    new = sorted(set(found) - set(ALLOWED))
    assert not new, "private names reached from another module:\n" + "\n".join(
        f"  {module}: {reach}" for module, reach in new
    )


def test_the_allowed_reaches_are_all_still_there():
    gone = sorted(set(ALLOWED) - set(all_reaches()))
    assert not gone, "reaches gone: take them off ALLOWED:\n" + "\n".join(
        f"  {module}: {reach}" for module, reach in gone
    )


def test_the_lister_finds_each_kind_of_reach(tmp_path):
    module = tmp_path / "m.py"
    module.write_text(
        "from .other import _hidden, shown\n"
        "class A:\n"
        "    _mine = 1\n"
        "    def f(self, other):\n"
        "        self._x = other._y + self._z + super()._w + other._mine\n"
        "        return other._replace(a=1), other._x\n"
    )
    assert reaches(module) == ["from .other import _hidden", "other._y"]
