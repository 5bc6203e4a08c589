"""rath.backend.persistence keeps OpenRath's layout, JSON and error types."""

from __future__ import annotations

import json
import stat
import uuid
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from rath.backend import BackendSandboxSpec
from rath.backend.persistence import (
    PersistentSandboxRegistry,
    local_root,
    opensandbox_index_path,
    opensandbox_root,
)


@pytest.fixture
def registry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> PersistentSandboxRegistry:
    monkeypatch.setenv("RATH_HOME", str(tmp_path / "home"))
    return PersistentSandboxRegistry()


def test_ensure_dirs_creates_both_roots(registry: PersistentSandboxRegistry) -> None:
    registry.ensure_dirs()
    assert local_root().is_dir() and opensandbox_root().is_dir()
    assert opensandbox_root().name == "opensandbox"


def test_every_remote_record_lives_under_opensandbox(registry: PersistentSandboxRegistry) -> None:
    sandbox_id = registry.record_remote("bwrap", "rid")
    path = opensandbox_index_path(sandbox_id)
    assert path == opensandbox_root() / f"{sandbox_id}.json" and path.is_file()
    assert json.loads(path.read_text())["backend"] == "bwrap"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600


def test_the_record_json_uses_openrath_keys(registry: PersistentSandboxRegistry) -> None:
    spec = BackendSandboxSpec(
        image="img", entrypoint=("a", "b"), env={"K": "V"}, timeout=timedelta(seconds=600)
    )
    raw = json.loads(opensandbox_index_path(registry.record_remote("x", "r", spec)).read_text())
    assert set(raw) == {
        "schema_version",
        "id",
        "backend",
        "remote_id",
        "spec",
        "created_at",
        "last_used_at",
    }
    assert raw["spec"] == {
        "image": "img",
        "entrypoint": ["a", "b"],
        "env": {"K": "V"},
        "timeout_seconds": 600.0,
        "working_dir": None,
    }


def test_a_loaded_spec_is_a_backend_sandbox_spec(registry: PersistentSandboxRegistry) -> None:
    spec = BackendSandboxSpec(env={"K": "V"}, timeout=timedelta(seconds=9), working_dir="/ws")
    record = registry.load_remote(registry.record_remote("opensandbox", "rid", spec))
    assert record is not None and isinstance(record.spec, BackendSandboxSpec)
    assert record.spec == spec
    bare = registry.load_remote(registry.record_remote("opensandbox", "rid"))
    assert bare is not None and bare.spec is None


def test_a_corrupt_record_is_skipped(registry: PersistentSandboxRegistry) -> None:
    good = registry.record_remote("opensandbox", "rid")
    broken = uuid.uuid4()
    opensandbox_index_path(broken).write_text("{not json")
    assert [r.id for r in registry.list_remote()] == [good]
    assert registry.load_remote(broken) is None
    registry.touch_remote(broken)  # no-op, no error


def test_prune_remote_goes_by_last_use(registry: PersistentSandboxRegistry) -> None:
    old = registry.record_remote("opensandbox", "a")
    new = registry.record_remote("opensandbox", "b")
    path = opensandbox_index_path(old)
    data = json.loads(path.read_text())
    data["last_used_at"] = (datetime.now(UTC) - timedelta(days=400)).isoformat()
    path.write_text(json.dumps(data))
    assert registry.prune_remote(older_than=timedelta(days=30)) == [old]
    assert registry.load_remote(new) is not None


def test_reattach_errors_are_openrath_types(registry: PersistentSandboxRegistry) -> None:
    with pytest.raises(KeyError, match="no remote sandbox"):
        registry.reattach_remote(uuid.uuid4())
    local = registry.record_remote("local", "rid", BackendSandboxSpec(working_dir="/tmp/x"))
    with pytest.raises(AttributeError, match="does not support reattach"):
        registry.reattach_remote(local)


def test_ids_may_be_given_as_strings(registry: PersistentSandboxRegistry) -> None:
    sandbox_id = registry.record_remote("opensandbox", "rid")
    assert registry.load_remote(str(sandbox_id)) is not None
    assert registry.ensure_local(str(sandbox_id)) == registry.local_path(sandbox_id)
    assert registry.delete_remote(str(sandbox_id))


def test_a_local_sandbox_id_cannot_name_a_path_outside(registry: PersistentSandboxRegistry) -> None:
    for bad in ("..", "../..", "a/b", "", "."):
        with pytest.raises(ValueError, match="invalid local sandbox id"):
            registry.delete_local(bad)
