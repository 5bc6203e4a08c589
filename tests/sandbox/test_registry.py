"""Choosing a backend by name: the registry, ``available_backends`` and ``Session.to``."""

from __future__ import annotations

import pickle
import subprocess
import sys
from datetime import timedelta
from pathlib import Path
from uuid import UUID

import pytest
from pydantic import TypeAdapter, ValidationError
from temporalio.exceptions import ApplicationError

import rath.backend as plane
from rath.activities._boundary import activity_errors
from rath.backend import BackendSandboxSpec, SandboxLimits
from rath.backend.sandboxes import (
    BwrapSandbox,
    DockerSandbox,
    LocalSandbox,
    SandboxUnavailableError,
    available_backends,
    check_backend_name,
    open_sandbox,
    registered_backends,
)
from rath.errors import ConfigError
from rath.session import Session
from rath.session.placement import Placement


def test_every_backend_is_usable_here(docker_host: str, monkeypatch: pytest.MonkeyPatch) -> None:
    if BwrapSandbox.unavailable_reason() is not None:
        pytest.skip(BwrapSandbox.unavailable_reason() or "")
    monkeypatch.setenv("OPEN_SANDBOX_DOMAIN", "127.0.0.1:9")  # named: usable (not probed)
    assert available_backends() == ("bwrap", "docker", "local", "opensandbox")
    monkeypatch.delenv("OPEN_SANDBOX_DOMAIN")
    assert available_backends() == ("bwrap", "docker", "local")


def test_unusable_backends_are_left_out(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/nothing.sock")
    assert "docker" not in available_backends()
    assert "local" in available_backends()


def test_unknown_backend_lists_available_and_unavailable_ones(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/nothing.sock")
    with pytest.raises(SandboxUnavailableError) as info:
        open_sandbox(BackendSandboxSpec(backend="firecracker", working_dir=str(tmp_path)))
    error = info.value
    assert isinstance(error, ConfigError)
    assert (error.backend, error.available) == ("firecracker", available_backends())
    assert "docker" not in error.available and "local" in error.available
    message = str(error)
    assert message.startswith(
        "sandbox backend 'firecracker' is unavailable: no backend of that name is registered "
        "(registered but unable to run here: "
    )
    # bwrap is listed there too on a machine without bubblewrap; docker always is here.
    assert "docker: no Docker daemon answers: " in message
    assert message.endswith(". Available: " + ", ".join(error.available))


def test_backend_names_are_checked_without_probing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/nothing.sock")
    assert registered_backends() == ("bwrap", "docker", "local", "opensandbox")
    check_backend_name("docker")  # registered: fine, even with no daemon
    with pytest.raises(SandboxUnavailableError) as info:
        check_backend_name("firecracker")
    assert str(info.value) == (
        "sandbox backend 'firecracker' is unavailable: no backend of that name is registered "
        "(see register_backend). Available: bwrap, docker, local, opensandbox"
    )


def test_unavailable_error_crosses_the_activity_boundary_without_retries() -> None:
    error = SandboxUnavailableError("bwrap", "bubblewrap is not installed", ("local",))
    copy = pickle.loads(pickle.dumps(error))
    assert (str(copy), copy.backend, copy.reason, copy.available) == (
        str(error),
        "bwrap",
        "bubblewrap is not installed",
        ("local",),
    )
    with pytest.raises(ApplicationError) as info, activity_errors():
        raise error
    assert info.value.non_retryable
    assert info.value.type == "SandboxUnavailableError"
    assert info.value.message == str(error)


@pytest.mark.parametrize(
    ("name", "cls"), [("local", LocalSandbox), ("bwrap", BwrapSandbox), ("docker", DockerSandbox)]
)
def test_session_to_picks_the_backend(name: str, cls: type, tmp_path: Path) -> None:
    if cls.unavailable_reason() is not None and name == "bwrap":
        pytest.skip(cls.unavailable_reason())
    spec = BackendSandboxSpec(working_dir=str(tmp_path), limits=SandboxLimits(memory_mb=256))
    session = Session.from_user_message("hi").to(name, spec=spec)
    assert session.sandbox is not None
    assert session.sandbox.spec.backend == name
    assert session.sandbox.spec.limits.memory_mb == 256
    assert type(open_sandbox(session.sandbox.spec)) is cls
    by_path = Session.from_user_message("hi").to(name, spec=tmp_path)
    assert by_path.sandbox is not None
    assert by_path.sandbox.spec == BackendSandboxSpec(
        backend=name, working_dir=str(tmp_path), timeout=timedelta(seconds=60)
    )


def test_recorded_specs_still_validate() -> None:
    # Placements recorded before the one spec say ``command_timeout`` (seconds).
    old = {"backend": "local", "working_dir": "/w", "command_timeout": 5.0, "env": {}}
    for spec in (TypeAdapter(BackendSandboxSpec).validate_python(old), BackendSandboxSpec(**old)):
        assert spec.timeout == timedelta(seconds=5)
        assert (spec.image, spec.host_network, spec.limits) == (None, False, SandboxLimits())
    placement = Placement.model_validate({"spec": old, "sandbox_id": UUID(int=1)})
    assert placement.spec.command_timeout == 5.0
    with pytest.raises(ValidationError, match="command_timouet"):
        TypeAdapter(BackendSandboxSpec).validate_python({"command_timouet": 5.0})


def test_session_to_refuses_an_unregistered_name(tmp_path: Path) -> None:
    with pytest.raises(SandboxUnavailableError) as info:
        Session.from_user_message("hi").to("firecracker", spec=tmp_path)
    assert (info.value.backend, info.value.available) == ("firecracker", registered_backends())


def test_built_in_plane_backends_load_on_first_use() -> None:
    # Importing the plane (or a session) loads no sandbox; the registry imports a built-in's
    # module when the name is first used.
    code = """
import sys
import rath.backend as plane
from rath.session import Session
engines = ("rath.backend.sandboxes", "rath.backend.local")
loaded = sorted(m for m in sys.modules if m.startswith(engines))
assert not loaded, loaded
assert plane.list_names() == ["bwrap", "docker", "local", "opensandbox"]
assert plane.get_class("local") is plane.LocalBackend and plane.get("local").name == "local"
assert "rath.backend.sandboxes" in sys.modules
"""
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)


def test_one_capabilities_class_for_sandboxes_and_the_plane() -> None:
    assert type(BwrapSandbox.capabilities) is plane.Capabilities
    caps = plane.get_class("bwrap").capabilities()
    assert caps.isolation is plane.IsolationLevel.NAMESPACE == BwrapSandbox.capabilities.isolation
    assert caps.supports_code and caps.supports_code_interpreter and caps.cold_start_ms_p50 == 10
