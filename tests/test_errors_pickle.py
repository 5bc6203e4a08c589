"""Every Rath error pickles back to an equal one: same type, message, args and attributes."""

from __future__ import annotations

import importlib
import pickle
import pkgutil
from typing import Any

import rath
from rath.errors import RathError

# Constructor arguments for each error whose ``__init__`` is its own (keyed by where it lives).
SAMPLES: dict[str, tuple[tuple[Any, ...], dict[str, Any]]] = {
    "rath.errors.RunFailedError": (("the run failed",), {"workflow_id": "wf-1"}),
    "rath.errors.RunUnreachableError": (("no answer",), {"workflow_id": "wf-2"}),
    "rath.errors.BudgetExceededError": (
        ("out of tokens",),
        {"workflow_id": "wf-3", "session": {"rows": 2}, "reason": "tokens"},
    ),
    "rath.errors.MemoryStoreError": (("store down",), {"retryable": False}),
    "rath.llm.errors.ProviderError": (
        ("rate limited",),
        {"error_type": "LLMHTTP429", "retryable": True, "retry_after": 2.5, "status": 429},
    ),
    "rath.llm.embedding.EmbeddingError": (
        ("embed failed",),
        {"retryable": False, "retry_after": 1.5},
    ),
    "rath.backend.errors.UnsupportedBackendTool": (("BackendToolCodeRun", "local"), {}),
    "rath.backend.errors.BackendSandboxClosed": (("sb-1",), {}),
    "rath.backend.errors.BackendNotFound": (("docker",), {"available": ("local", "opensandbox")}),
    "rath.backend.sandboxes._registry.SandboxUnavailableError": (
        ("docker", "not installed", ("local",)),
        {},
    ),
    "rath.tools.mcp._errors.McpError": (("server gone",), {"retryable": False, "code": -32600}),
    "rath.memory.errors.MemoryStoreClosed": (("mem-1",), {}),
    "rath.memory.errors.UnsupportedMemoryOp": (("recall", "viking"), {}),
    "rath.memory.errors.MemoryBackendNotFound": (("viking",), {"available": ("sqlite",)}),
    "rath.memory.errors.MemoryNotFound": (("mem://a",), {}),
    "rath.memory.errors.MemoryConflict": (("mem://b",), {}),
}


def _every_error() -> list[type[RathError]]:
    for info in pkgutil.walk_packages(rath.__path__, "rath."):
        importlib.import_module(info.name)
    found: list[type[RathError]] = []
    todo = [RathError]
    while todo:
        cls = todo.pop()
        if cls not in found:
            found.append(cls)
            todo += cls.__subclasses__()
    return found


def _name(cls: type) -> str:
    return f"{cls.__module__}.{cls.__qualname__}"


def test_every_error_pickles_with_its_message_and_attributes() -> None:
    errors = _every_error()
    own_init = {_name(cls) for cls in errors if "__init__" in vars(cls)}
    assert own_init == set(SAMPLES), "give SAMPLES arguments for each error with its own __init__"
    for cls in errors:
        args, kwargs = SAMPLES.get(_name(cls), (("something went wrong",), {}))
        error = cls(*args, **kwargs)
        copy = pickle.loads(pickle.dumps(error))
        assert type(copy) is cls
        assert (str(copy), copy.args, vars(copy)) == (str(error), error.args, vars(error)), cls
