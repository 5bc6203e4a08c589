"""The public surface and the packaging of the one import root."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
import subprocess
import sys
import tomllib
import zipfile
from pathlib import Path

import pytest

import rath
import rath.activities
import rath.backend
import rath.backend.sandboxes
import rath.errors as errors
import rath.flow
import rath.flow.tool
import rath.llm
import rath.llm.aio
import rath.memory
import rath.session
import rath.session.graph
import rath.telemetry
import rath.tools
import rath.worker
import rath.workflows

ROOT = Path(__file__).resolve().parents[1]


def test_every_name_in_every_all_resolves() -> None:
    """A star import of any Rath module works: no ``__all__`` names what is gone."""
    missing = []
    for package in (rath, rath.workflows, rath.activities, rath.worker):
        for info in pkgutil.walk_packages(package.__path__, f"{package.__name__}."):
            module = importlib.import_module(info.name)
            missing += [
                f"{info.name}.{name}"
                for name in getattr(module, "__all__", ())
                if not hasattr(module, name)
            ]
    assert missing == []


def test_public_names_are_pinned() -> None:
    assert rath.__all__ == [
        "Agent",
        "AgentParam",
        "Budget",
        "Provider",
        "RathError",
        "Session",
        "Workflow",
        "approve",
        "deny",
        "errors",
        "flow",
        "llm",
        "pending_approvals",
        "run_graph",
        "session",
    ]
    assert rath.flow.__all__ == [
        "Agent",
        "AgentParam",
        "Compressor",
        "Provider",
        "Workflow",
        "register_workflow_class",
    ]
    assert rath.llm.__all__ == [
        "DEFAULT_EMBEDDING_MODEL",
        "BudgetExceededError",
        "ChatClient",
        "ChatClientFactory",
        "ChatClients",
        "EmbeddingProvider",
        "Provider",
        "ProviderError",
        "ProviderSpec",
        "RathAnthropicChatClient",
        "RathLLMAssistantMessage",
        "RathLLMChatChoice",
        "RathLLMChatRequest",
        "RathLLMChatResponse",
        "RathLLMFinishReason",
        "RathLLMFunctionTool",
        "RathLLMMessage",
        "RathLLMRole",
        "RathLLMStreamDelta",
        "RathLLMTokenUsage",
        "RathLLMToolCallFunction",
        "RathLLMToolCallPart",
        "RathOpenAIChatClient",
        "RathOpenAIEmbeddingClient",
        "RathOpenAIVLMClient",
        "StreamFold",
        "StreamingChatClient",
        "VLMProvider",
        "add_usage",
        "build_anthropic_kwargs",
        "build_anthropic_stream_kwargs",
        "chat_client_for",
        "describe_image",
        "describe_image_async",
        "embedder_for",
        "image_message",
        "normalize_anthropic_response",
        "normalize_chat_completion",
        "register_chat_client",
        "register_embedder",
        "registered_kinds",
        "to_create_kwargs",
    ]
    assert rath.llm.aio.__all__ == [
        "AsyncChatClient",
        "AsyncChatClientFactory",
        "AsyncStreamingChatClient",
        "async_chat_client_for",
    ]
    assert "run_session_loop" in rath.session.__all__
    assert "Session" in rath.session.__all__
    assert {
        "GraphNode",
        "LineageConsistencyError",
        "LineageJournal",
        "SessionGraph",
        "ancestors_bfs",
        "descendants_dfs_preorder",
        "edge_pairs",
        "lineage_journal_optional",
        "lineage_journal_tracking",
        "validate_acyclic",
    } <= set(rath.session.__all__)
    assert rath.tools.__all__ == [
        "BUILTIN_TOOLS",
        "FlowToolCall",
        "FunctionTool",
        "ToolCallContext",
        "ToolOutcome",
        "ToolRegistry",
        "current_tool_call",
        "error_body",
        "register_tool",
        "run_builtin",
        "tool",
        "tool_schemas",
        "validate_arguments",
    ]
    assert rath.telemetry.__all__ == [
        "TelemetryInterceptor",
        "TracePropagation",
        "annotate_tool",
        "flush",
        "install",
    ]


def _isort_style(name: str) -> tuple[int, str]:
    """Ruff's ``__all__`` order (RUF022): constants first, then the rest as plain ``sorted``."""
    return (0 if name.isupper() else 1, name)


def test_all_lists_are_sorted_and_resolve() -> None:
    for module in (
        rath,
        rath.flow,
        rath.flow.tool,
        rath.llm,
        rath.memory,
        rath.session,
        rath.session.graph,
        rath.backend,
        rath.backend.sandboxes,
        rath.telemetry,
        rath.tools,
    ):
        names = list(module.__all__)
        orders = (sorted(names, key=str.lower), sorted(names), sorted(names, key=_isort_style))
        assert names in orders, module.__name__
        for name in names:
            assert hasattr(module, name), f"{module.__name__}.{name}"


ASYNC_FLAVOURED = re.compile(r"^(a(run|complete|forward|dispatch|open|close)_?|Async[A-Z])")
"""OpenRath's rule: no public name of its core packages looks asynchronous."""


def test_public_api_is_synchronous() -> None:
    for module in (rath, rath.flow, rath.session):
        for name in module.__all__:
            value = getattr(module, name)
            assert not inspect.iscoroutinefunction(value), f"{module.__name__}.{name}"
    for module in (rath, rath.session, rath.flow, rath.llm, rath.backend):
        public = {*module.__all__, *(name for name in dir(module) if not name.startswith("_"))}
        flavoured = sorted(name for name in public if ASYNC_FLAVOURED.match(name))
        assert not flavoured, f"{module.__name__}: {flavoured} (async names go to rath.llm.aio)"
    assert not inspect.iscoroutinefunction(rath.session.run_session_loop)
    for method in (rath.llm.ChatClient.complete, rath.llm.StreamingChatClient.complete_stream):
        assert not inspect.iscoroutinefunction(method)


def test_every_package_directory_is_listed_in_pyproject() -> None:
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())["tool"]["setuptools"]
    listed = set(config["packages"])
    mapping = config["package-dir"]
    found = set()
    for package, folder in mapping.items():
        for init in (ROOT / folder).rglob("__init__.py"):
            rel = init.parent.relative_to(ROOT / folder)
            found.add(".".join([package, *rel.parts]) if rel.parts else package)
    assert found == listed


def test_wheel_has_one_import_root(tmp_path: Path) -> None:
    subprocess.run(
        [
            sys.executable,
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "-q",
            "-w",
            str(tmp_path),
            str(ROOT),
        ],
        check=True,
        capture_output=True,
        timeout=300,
    )
    (wheel,) = tmp_path.glob("rath-*.whl")
    names = zipfile.ZipFile(wheel).namelist()
    tops = {name.split("/")[0] for name in names if not name.startswith("rath-")}
    assert tops == {"rath"}
    for module in (
        "rath/workflows/session_loop.py",
        "rath/activities/llm.py",
        "rath/worker/main.py",
        "rath/session/session.py",
        "rath/session/graph/_model.py",
        "rath/py.typed",
    ):
        assert module in names


@pytest.mark.parametrize(
    ("error", "builtin"),
    [
        (errors.ConfigError, ValueError),  # OpenRath: bad arguments (Agent without a model)
        (errors.ConfigError, RuntimeError),  # OpenRath: rath.config.ConfigError
        (errors.ToolNameConflictError, ValueError),
        (errors.LineageConsistencyError, ValueError),
        (errors.NotReadyError, RuntimeError),
        (errors.RunFailedError, RuntimeError),  # OpenRath re-raised the loop's error
        (errors.BudgetExceededError, RuntimeError),
        (errors.SandboxError, RuntimeError),  # OpenRath: BackendError
        (errors.MemoryStoreError, RuntimeError),  # OpenRath: MemoryBackendError
        (errors.StoreError, RuntimeError),  # OpenRath: PersistenceError
        (errors.LLMError, RuntimeError),
    ],
)
def test_errors_are_the_builtins_openrath_raised(
    error: type[errors.RathError], builtin: type[Exception]
) -> None:
    assert issubclass(error, errors.RathError) and issubclass(error, builtin)
