"""An import-linter contract for Rath's floors: imports only go down, no cycles, no private reach.

Configured in pyproject.toml (``type = "floors"``) and run by ``lint-imports`` in CI:

* ``floors``: lowest first, one string per floor, ``"name: pattern pattern ..."``; floors side
  by side on one level are separated by ``|`` (``"activities: rath.activities | workflows:
  rath.workflows"``), and may not import each other. A module belongs to the floor of its
  longest matching pattern; ``=rath`` names that one module alone (the root package's
  ``__init__``), not the package below it. Every module must belong to a floor.
* A pattern names a folder (a package, at any depth) or a top-level module ``rath.<name>``,
  so a module's floor follows from its path. A sub-folder may sit on a *higher* floor than
  its parent (the parent may not import it: the ordinary upward rule) or on a *lower* one
  (then the parent's ``__init__``, which runs when the sub-folder is imported, must not load
  the higher floor: ``tests/test_floors.py`` checks that at run time).
* ``transitional_modules`` (optional): patterns that name a module inside a package, or the
  ``__init__`` alone of a package other than the root (``=rath.session``), kept while the
  code moves into folders. An entry no floor uses any more breaks the contract: delete it.
* A module may import modules of its own floor or of lower ones, never of a higher floor or
  of a sibling floor.
* No import cycle among the package's modules, counting every import statement (inside
  functions and under ``TYPE_CHECKING`` too).
* No cycle among the packages one level below the root (``rath.X``; a top-level module counts
  as its own package), counting the imports between modules of different packages, except
  imports of the root itself.
* No import, from a module of package ``rath.A``, of a module under another package
  ``rath.B`` whose path after ``rath.B`` has a segment starting with ``_`` (``__init__``-style
  names excepted): a package imports another's public names, never its private modules.
  ``allowed_private`` (optional) lists today's offenders as ``"importer -> imported"``; it may
  only shrink: an entry that no longer occurs breaks the contract (delete it).
  ``python infra/floor_figures.py --contract`` prints both lists for today's tree.

The package grouping and the private rule are those of the before-stop hook's figures, so CI
and the held-out check count alike.
"""

from __future__ import annotations

import importlib.util
import os
import sys
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass

import grimp
from importlinter.application import output
from importlinter.domain import fields
from importlinter.domain.contract import Contract, ContractCheck

ARROW = " -> "


@dataclass(frozen=True)
class Floor:
    """One floor: its name, its level (0 is the lowest) and the module patterns it owns."""

    name: str
    level: int
    patterns: tuple[str, ...]


def parse_floors(lines: list[str]) -> list[Floor]:
    """Floors from the contract's ``floors`` strings (see the module docstring)."""
    floors: list[Floor] = []
    for level, line in enumerate(lines):
        for part in line.split("|"):
            name, _, modules = part.partition(":")
            if not modules.strip():
                raise ValueError(f"floor {part.strip()!r} needs 'name: module module ...'")
            floors.append(Floor(name.strip(), level, tuple(modules.split())))
    return floors


def floor_of(module: str, floors: list[Floor]) -> Floor | None:
    """The floor owning ``module``: the one with its longest matching pattern."""
    best: tuple[int, bool, Floor] | None = None
    for floor in floors:
        for pattern in floor.patterns:
            exact = pattern.startswith("=")
            name = pattern.lstrip("=")
            matches = module == name or (not exact and module.startswith(name + "."))
            if matches and (best is None or (len(name), exact) > best[:2]):
                best = (len(name), exact, floor)
    return best[2] if best else None


def pattern_problems(
    floors: list[Floor], package: str, packages: set[str], transitional: Iterable[str] = ()
) -> list[str]:
    """Why the floors' patterns are not all folders or top-level modules, one line each.

    Args:
        floors: The parsed floors.
        package: The root package (``rath``).
        packages: Every package (folder with an ``__init__``) under the root, the root included.
        transitional: Patterns allowed although they name a module (``transitional_modules``).
    """
    allowed = set(transitional)
    used: set[str] = set()
    problems = []
    for floor in floors:
        for pattern in floor.patterns:
            name = pattern.lstrip("=")
            exact = pattern.startswith("=")
            top_level = name.count(".") == package.count(".") + 1
            if name == package or (not exact and (top_level or name in packages)):
                continue
            if pattern in allowed:
                used.add(pattern)
                continue
            what = "a package's __init__ alone" if exact else "a module inside a package"
            problems.append(
                f"floor pattern {pattern} names {what}: list its folder, or add it to "
                "transitional_modules while it moves"
            )
    problems.extend(
        f"transitional_modules entry {entry} is not a module pattern of any floor: delete it"
        for entry in sorted(allowed - used)
    )
    return problems


def strongly_connected(
    nodes: Iterable[str], successors: Callable[[str], Iterable[str]]
) -> list[list[str]]:
    """Strongly connected components of more than one node, each sorted (Tarjan, iterative)."""
    members = set(nodes)
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []

    def enter(node: str) -> tuple[str, Iterator[str]]:
        index[node] = low[node] = len(index)
        stack.append(node)
        on_stack.add(node)
        return node, iter(sorted(set(successors(node)) & members))

    for root in sorted(members):
        if root in index:
            continue
        work = [enter(root)]
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    work.append(enter(child))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component: list[str] = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))
    return found


def cycles(graph: grimp.ImportGraph, modules: set[str]) -> list[list[str]]:
    """Import cycles among ``modules``: components of more than one module."""
    return strongly_connected(modules, graph.find_modules_directly_imported_by)


def own_modules(graph: grimp.ImportGraph, package: str) -> set[str]:
    """The graph's modules inside ``package`` (the package itself included)."""
    return {m for m in graph.modules if m == package or m.startswith(package + ".")}


def package_of(module: str, package: str) -> str:
    """The package one level below the root holding ``module`` (``rath.llm`` for ``rath.llm.x``)."""
    return ".".join(module.split(".")[: package.count(".") + 2])


def cross_package_imports(graph: grimp.ImportGraph, package: str) -> list[tuple[str, str]]:
    """``(importer, imported)`` of every import between packages, imports of the root aside."""
    modules = own_modules(graph, package)
    pairs = []
    for importer in sorted(modules):
        for imported in sorted(graph.find_modules_directly_imported_by(importer) & modules):
            if imported != package and package_of(imported, package) != package_of(
                importer, package
            ):
                pairs.append((importer, imported))
    return pairs


def package_cycles(graph: grimp.ImportGraph, package: str) -> list[list[str]]:
    """Cycles among the packages one level below the root (see the module docstring)."""
    edges: dict[str, set[str]] = {}
    for importer, imported in cross_package_imports(graph, package):
        edges.setdefault(package_of(importer, package), set()).add(package_of(imported, package))
    nodes = {package_of(m, package) for m in own_modules(graph, package)}
    return strongly_connected(nodes, lambda node: edges.get(node, ()))


def is_private_reach(imported: str, package: str) -> bool:
    """Whether ``imported`` is private to its package: a segment after ``rath.B`` starts ``_``."""
    tail = imported.split(".")[package.count(".") + 2 :]
    return any(part.startswith("_") and not part.startswith("__") for part in tail)


def private_imports(graph: grimp.ImportGraph, package: str) -> list[tuple[str, str]]:
    """``(importer, imported)`` of every import of another package's private module."""
    return [
        pair for pair in cross_package_imports(graph, package) if is_private_reach(pair[1], package)
    ]


def unallowed_pairs(
    found: list[tuple[str, str]], allowed: Iterable[str]
) -> tuple[list[tuple[str, str]], list[str]]:
    """The pairs ``allowed`` does not list, and the entries that match no pair."""
    listed = {" ".join(entry.split()) for entry in allowed}
    written = {f"{a}{ARROW}{b}": (a, b) for a, b in found}
    new = [pair for text, pair in written.items() if text not in listed]
    return new, sorted(listed - set(written))


def violations(
    graph: grimp.ImportGraph, package: str, floors: list[Floor]
) -> tuple[list[str], list[tuple[str, str, str]], list[list[str]]]:
    """Modules with no floor, upward or sideways imports (with why), and import cycles."""
    modules = own_modules(graph, package)
    unplaced = sorted(m for m in modules if floor_of(m, floors) is None)
    wrong: list[tuple[str, str, str]] = []
    for importer in sorted(modules):
        low = floor_of(importer, floors)
        if low is None:
            continue
        for imported in sorted(graph.find_modules_directly_imported_by(importer) & modules):
            high = floor_of(imported, floors)
            if high is None or high == low:
                continue
            if high.level > low.level:
                wrong.append(
                    (importer, imported, f"{low.name} imports {high.name}, a higher floor")
                )
            elif high.level == low.level:
                wrong.append((importer, imported, f"{low.name} imports {high.name}, beside it"))
    return unplaced, wrong, cycles(graph, modules)


def packages_on_disk(package: str) -> set[str]:
    """Every package (folder with an ``__init__.py``) of the installed ``package``, itself too.

    Found from the files, without importing anything below the root.
    """
    spec = importlib.util.find_spec(package)
    if spec is None or not spec.submodule_search_locations:
        raise ValueError(f"{package} is not an installed package")
    found = {package}
    for location in spec.submodule_search_locations:
        for folder, dirs, files in os.walk(location, followlinks=True):
            dirs[:] = sorted(d for d in dirs if d != "__pycache__")
            relative = os.path.relpath(folder, location)
            if "__init__.py" in files and relative != ".":
                found.add(".".join([package, *relative.split(os.sep)]))
    return found


class FloorsContract(Contract):
    """Imports only go down the floors; no module or package cycle; no private reach."""

    type_name = "floors"

    package = fields.StringField()
    floors = fields.ListField(subfield=fields.StringField())
    transitional_modules = fields.ListField(subfield=fields.StringField(), required=False)
    allowed_private = fields.ListField(subfield=fields.StringField(), required=False)

    def _list(self, name: str) -> list[str]:
        return list(getattr(self, name) or [])

    def check(self, graph: grimp.ImportGraph, verbose: bool) -> ContractCheck:
        """Check the floors, the patterns, module and package cycles, and private imports."""
        package = str(self.package)
        floors = parse_floors(self._list("floors"))
        patterns = pattern_problems(
            floors, package, packages_on_disk(package), self._list("transitional_modules")
        )
        unplaced, wrong, loops = violations(graph, package, floors)
        details = []
        for importer, imported, why in wrong:
            lines = graph.get_import_details(importer=importer, imported=imported)
            where = ", ".join(f"line {d['line_number']}" for d in lines) or "?"
            details.append((importer, imported, why, where))
        package_loops = package_cycles(graph, package)
        private, stale_private = unallowed_pairs(
            private_imports(graph, package), self._list("allowed_private")
        )
        metadata = {
            "patterns": patterns,
            "unplaced": unplaced,
            "wrong": details,
            "cycles": loops,
            "package_cycles": package_loops,
            "private": private,
            "stale_private": stale_private,
        }
        return ContractCheck(kept=not any(metadata.values()), metadata=metadata)

    def render_broken_contract(self, check: ContractCheck) -> None:
        """Say what broke, one line each."""
        meta = check.metadata
        for problem in meta["patterns"]:
            output.print_error(problem)
        for module in meta["unplaced"]:
            output.print_error(f"{module} belongs to no floor: add it to a floor's modules")
        for importer, imported, why, where in meta["wrong"]:
            output.print_error(f"{importer} imports {imported} ({where}): {why}")
        for loop in meta["cycles"]:
            output.print_error(f"import cycle of {len(loop)} modules: {' , '.join(loop)}")
        for loop in meta["package_cycles"]:
            output.print_error(
                f"package cycle of {len(loop)}: {' '.join(loop)} (break an import between them)"
            )
        for importer, imported in meta["private"]:
            output.print_error(
                f"{importer} imports {imported}, another package's private module: import a "
                "public name instead"
            )
        for entry in meta["stale_private"]:
            output.print_error(f"allowed_private entry {entry!r} no longer occurs: delete it")
        output.new_line()


if __name__ == "__main__":  # pragma: no cover - a quick look without lint-imports
    print("run: PYTHONPATH=infra .venv/bin/lint-imports", file=sys.stderr)
