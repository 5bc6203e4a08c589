"""An import-linter contract for Rath's floors: imports only go down, and no module cycles.

Configured in pyproject.toml (``type = "floors"``) and run by ``lint-imports`` in CI:

* ``floors``: lowest first, one string per floor, ``"name: module module ..."``; floors side
  by side on one level are separated by ``|`` (``"activities: rath.activities | workflows:
  rath.workflows"``), and may not import each other. A module belongs to the floor of its
  longest listed prefix; ``=rath.session`` names that one module alone (a package's
  ``__init__``), not the package below it. Every module must belong to a floor.
* A module may import modules of its own floor or of lower ones, never of a higher floor or
  of a sibling floor.
* No import cycle among the package's modules, counting every import statement (inside
  functions and under ``TYPE_CHECKING`` too).
"""

from __future__ import annotations

import sys
from dataclasses import dataclass

import grimp
from importlinter.application import output
from importlinter.domain import fields
from importlinter.domain.contract import Contract, ContractCheck


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


def cycles(graph: grimp.ImportGraph, modules: set[str]) -> list[list[str]]:
    """Strongly connected components of more than one module (Tarjan, iterative)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    on_stack: set[str] = set()
    stack: list[str] = []
    found: list[list[str]] = []
    counter = 0
    for root in sorted(modules):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.find_modules_directly_imported_by(root) & modules)))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    imported = graph.find_modules_directly_imported_by(child) & modules
                    work.append((child, iter(sorted(imported))))
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


def violations(
    graph: grimp.ImportGraph, package: str, floors: list[Floor]
) -> tuple[list[str], list[tuple[str, str, str]], list[list[str]]]:
    """Modules with no floor, upward or sideways imports (with why), and import cycles."""
    modules = {m for m in graph.modules if m == package or m.startswith(package + ".")}
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


class FloorsContract(Contract):
    """Imports only go down the floors, and no module is part of an import cycle."""

    type_name = "floors"

    package = fields.StringField()
    floors = fields.ListField(subfield=fields.StringField())

    def check(self, graph: grimp.ImportGraph, verbose: bool) -> ContractCheck:
        """Check the floors and cycles over the whole import graph."""
        floors = parse_floors(list(self.floors))  # type: ignore[call-overload]
        unplaced, wrong, loops = violations(graph, str(self.package), floors)
        details = []
        for importer, imported, why in wrong:
            lines = graph.get_import_details(importer=importer, imported=imported)
            where = ", ".join(f"line {d['line_number']}" for d in lines) or "?"
            details.append((importer, imported, why, where))
        return ContractCheck(
            kept=not (unplaced or wrong or loops),
            metadata={"unplaced": unplaced, "wrong": details, "cycles": loops},
        )

    def render_broken_contract(self, check: ContractCheck) -> None:
        """Say what broke, one line each."""
        for module in check.metadata["unplaced"]:
            output.print_error(f"{module} belongs to no floor: add it to a floor's modules")
        for importer, imported, why, where in check.metadata["wrong"]:
            output.print_error(f"{importer} imports {imported} ({where}): {why}")
        for loop in check.metadata["cycles"]:
            output.print_error(f"import cycle of {len(loop)} modules: {' , '.join(loop)}")
        output.new_line()


if __name__ == "__main__":  # pragma: no cover - a quick look without lint-imports
    print("run: PYTHONPATH=infra .venv/bin/lint-imports", file=sys.stderr)
