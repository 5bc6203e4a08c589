"""rath.backend.persistence: sandbox identities on disk (local directories, remote records)."""

from __future__ import annotations

import os
import stat
import time
import uuid
from datetime import timedelta
from pathlib import Path

import pytest

from rath.backend import BackendSandboxSpec
from rath.backend.persistence import PersistentSandboxRegistry, local_sandbox_dir


@pytest.fixture
def registry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> PersistentSandboxRegistry:
    monkeypatch.setenv("RATH_HOME", str(tmp_path / "home"))
    return PersistentSandboxRegistry()


def test_local_ids(registry: PersistentSandboxRegistry, tmp_path: Path) -> None:
    first, second = registry.alloc_local_id(), registry.alloc_local_id()
    assert registry.local_path(first) == tmp_path / "home" / "sandboxes" / "local" / str(first)
    assert registry.local_path(first).is_dir()
    assert registry.list_local() == sorted([first, second])
    old = time.time() - 3600
    os.utime(local_sandbox_dir(first), (old, old))
    assert registry.prune_local(older_than=timedelta(minutes=30)) == [first]
    assert registry.delete_local(second) and not registry.delete_local(second)
    assert registry.list_local() == []


def test_remote_records(registry: PersistentSandboxRegistry) -> None:
    spec = BackendSandboxSpec(image="img", env={"A": "1"}, timeout=timedelta(seconds=9))
    sandbox_id = registry.record_remote("opensandbox", "remote-1", spec)
    record = registry.load_remote(sandbox_id)
    assert record is not None and record.remote_id == "remote-1" and record.backend == "opensandbox"
    assert record.spec is not None and record.spec.timeout == timedelta(seconds=9)
    assert stat.S_IMODE(record.path.stat().st_mode) == 0o600
    before = record.last_used_at
    registry.touch_remote(sandbox_id)
    touched = registry.load_remote(sandbox_id)
    assert touched is not None and touched.last_used_at >= before
    assert [r.id for r in registry.list_remote()] == [sandbox_id]
    assert registry.prune_remote(older_than=timedelta(hours=1)) == []
    with pytest.raises(KeyError):
        registry.reattach_remote(uuid.uuid4())
    plain_id = registry.record_remote("bwrap", "x")
    with pytest.raises(AttributeError, match="cannot attach"):
        registry.reattach_remote(plain_id)
    assert registry.delete_remote(sandbox_id) and not registry.delete_remote(sandbox_id)
