"""Contracts and implementations never drift: every activity and workflow matches its contract.

For each contract in ``rath.contracts``, the registered implementation has the contract's name,
and its annotated input and result types are exactly the contract's (``typing.get_type_hints``).
Workflow code names activities and child workflows only through contracts, never by string.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
import subprocess
import sys
import typing
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from temporalio import activity, workflow

import rath
import rath.activities
import rath.workflows
from rath.contracts import ActivityContract, WorkflowContract
from rath.contracts.registered import ACTIVITIES, WORKFLOWS
from rath.plugin import RathPlugin
from rath.settings import Settings

WORKFLOW_SOURCES = sorted(Path(rath.workflows.__path__[0]).glob("*.py"))
BARE_CALLS = re.compile(
    r"\b(execute_activity|execute_activity_method|execute_local_activity|start_activity"
    r"|execute_child_workflow|start_child_workflow)\("
)


def _modules(package: Any) -> Iterator[Any]:
    for info in pkgutil.iter_modules(package.__path__, package.__name__ + "."):
        yield importlib.import_module(info.name)


def _activity_impls() -> dict[str, Callable[..., Any]]:
    """Every activity defined in ``rath.activities``, by registered name."""
    found: dict[str, Callable[..., Any]] = {}
    for module in _modules(rath.activities):
        for owner in vars(module).values():
            members = vars(owner).values() if inspect.isclass(owner) else [owner]
            for member in members:
                defn = activity._Definition.from_callable(member) if callable(member) else None
                if defn is not None and defn.name is not None:
                    assert found.setdefault(defn.name, member) is member, defn.name
    return found


def _workflow_impls() -> dict[str, type]:
    """Every workflow class defined in ``rath.workflows``, by registered name."""
    found: dict[str, type] = {}
    for module in _modules(rath.workflows):
        for owner in vars(module).values():
            defn = workflow._Definition.from_class(owner) if inspect.isclass(owner) else None
            if defn is not None and defn.name is not None:
                assert found.setdefault(defn.name, owner) is owner, defn.name
    return found


def _signature(fn: Callable[..., Any]) -> tuple[Any, Any]:
    """The annotated type of ``fn``'s single argument (after ``self``) and of its result."""
    hints = typing.get_type_hints(fn)
    params = [p for p in inspect.signature(fn).parameters.values() if p.name != "self"]
    assert len(params) == 1, f"{fn.__qualname__} takes {len(params)} arguments, not one"
    return hints[params[0].name], hints["return"]


ACTIVITY_IMPLS = _activity_impls()
WORKFLOW_IMPLS = _workflow_impls()


@pytest.mark.parametrize("contract", ACTIVITIES, ids=[c.name for c in ACTIVITIES])
def test_activity_matches_its_contract(contract: ActivityContract[Any, Any]) -> None:
    impl = ACTIVITY_IMPLS.get(contract.name)
    assert impl is not None, f"no activity in rath.activities registers {contract.name!r}"
    assert _signature(impl) == (contract.input, contract.result)


@pytest.mark.parametrize("contract", WORKFLOWS, ids=[c.name for c in WORKFLOWS])
def test_workflow_matches_its_contract(contract: WorkflowContract[Any, Any]) -> None:
    impl = WORKFLOW_IMPLS.get(contract.name)
    assert impl is not None, f"no workflow in rath.workflows registers {contract.name!r}"
    run_fn = workflow._Definition.must_from_class(impl).run_fn
    assert _signature(run_fn) == (contract.input, contract.result)


def test_every_implementation_has_a_contract() -> None:
    assert set(ACTIVITY_IMPLS) == {c.name for c in ACTIVITIES}
    assert set(WORKFLOW_IMPLS) == {c.name for c in WORKFLOWS}
    assert len({c.name for c in ACTIVITIES}) == len(ACTIVITIES)


def test_the_plugin_registers_every_contract(tmp_path: Path) -> None:
    settings = Settings(
        home=tmp_path, address=None, namespace="default", queue_name="t", store_dir=tmp_path
    )
    config = RathPlugin(settings=settings).configure_worker({"activities": [], "workflows": []})
    activities = {activity._Definition.must_from_callable(a).name for a in config["activities"]}
    workflows = {workflow._Definition.must_from_class(w).name for w in config["workflows"]}
    assert activities == {c.name for c in ACTIVITIES}
    assert workflows == {c.name for c in WORKFLOWS}


@pytest.mark.parametrize("path", WORKFLOW_SOURCES, ids=[p.name for p in WORKFLOW_SOURCES])
def test_workflow_code_calls_through_contracts(path: Path) -> None:
    source = path.read_text()
    assert not BARE_CALLS.findall(source), f"{path.name}: call activities through a contract"
    assert "rath.activities" not in source
    assert "temporalio.client" not in source


def test_contracts_load_no_client_or_engine_code() -> None:
    probe = (
        "import sys, rath.contracts; print(sorted(m for m in sys.modules if m.startswith(("
        "'temporalio.client', 'rath.runtime', 'rath.activities', 'rath.workflows'))))"
    )
    result = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, timeout=60, check=True
    )
    assert result.stdout.strip() == "[]"
