"""OpenRath inventory 6.2-6.4: the ``local`` plane backend's files, find, resources, commits."""

from __future__ import annotations

import json
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

import rath.memory as memory
from rath.llm.chat_request import RathLLMChatRequest
from rath.llm.chat_response import RathLLMAssistantMessage, RathLLMChatChoice, RathLLMChatResponse
from rath.memory import (
    MemoryCommitResult,
    MemoryExecutionFailure,
    MemoryFindResult,
    MemoryListResult,
    MemoryOpCommit,
    MemoryOpFind,
    MemoryOpList,
    MemoryOpRead,
    MemoryOpResource,
    MemoryOpSearch,
    MemoryOpTree,
    MemoryOpWrite,
    MemoryReadResult,
    MemoryStoreSpec,
    MemoryWriteResult,
)
from rath.memory.persistence import PersistentMemoryRegistry, local_memory_root
from rath.testing.fake_embedder import FakeEmbeddingServer


def _open(path: Path, **options: Any) -> memory.MemoryStore:
    return memory.get("local").open(MemoryStoreSpec(options={"path": str(path), **options}))


def _write(store: memory.MemoryStore, uri: str, content: str) -> None:
    assert isinstance(store.dispatch(MemoryOpWrite(uri=uri, content=content)), MemoryWriteResult)


def test_write_creates_markdown_and_read_returns_it(tmp_path: Path) -> None:
    store = _open(tmp_path / "s")
    done = store.dispatch(
        MemoryOpWrite(uri="memory://user/memories/preferences/theme", content="dark")
    )
    assert done == MemoryWriteResult(
        uri="memory://user/memories/preferences/theme", bytes_written=4
    )
    assert (tmp_path / "s/user/memories/preferences/theme.md").read_text() == "dark"
    _write(store, "memory://user/memories/preferences/theme", "light")
    for level in ("abstract", "overview", "detail"):
        read = store.dispatch(
            MemoryOpRead(uri="memory://user/memories/preferences/theme", level=level)
        )
        assert read == MemoryReadResult(
            uri="memory://user/memories/preferences/theme", data="light", level=level
        )
    raw = store.dispatch(
        MemoryOpRead(uri="memory://user/memories/preferences/theme", encoding=None)
    )
    assert isinstance(raw, MemoryReadResult) and raw.data == b"light"


@pytest.mark.parametrize(
    ("uri", "kind"),
    [
        ("memory://nowhere/x", "invalid_uri"),
        ("file:///etc/passwd", "invalid_uri"),
        ("memory://user/../../etc/passwd", "invalid_uri"),
        ("memory://user", "invalid_uri"),
    ],
)
def test_bad_uris_come_back_as_failures(tmp_path: Path, uri: str, kind: str) -> None:
    failure = _open(tmp_path / "s").dispatch(MemoryOpWrite(uri=uri, content="x"))
    assert isinstance(failure, MemoryExecutionFailure) and failure.kind == kind


def test_missing_entries_are_not_found_and_listings_hide_sidecars(tmp_path: Path) -> None:
    store = _open(tmp_path / "s")
    missing = store.dispatch(MemoryOpRead(uri="memory://user/memories/none"))
    assert isinstance(missing, MemoryExecutionFailure) and missing.kind == "not_found"
    assert store.dispatch(MemoryOpList(uri="memory://agent/empty")) == MemoryListResult(())
    _write(store, "memory://user/memories/a", "one")
    _write(store, "memory://user/memories/deep/b", "two")
    (tmp_path / "s/user/memories/a.vec").write_text("{}")
    listed = store.dispatch(MemoryOpList(uri="memory://user/memories"))
    assert isinstance(listed, MemoryListResult)
    assert [(e.name, e.uri, e.is_dir) for e in listed.entries] == [
        ("a", "memory://user/memories/a", False),
        ("deep", "memory://user/memories/deep", True),
    ]
    tree = store.dispatch(MemoryOpTree(uri="memory://user", depth=2))
    assert isinstance(tree, MemoryListResult)
    assert {e.uri for e in tree.entries} == {
        "memory://user/memories",
        "memory://user/memories/a",
        "memory://user/memories/deep",
        "memory://user/memories/deep/b",
    }
    shallow = store.dispatch(MemoryOpTree(uri="memory://user", depth=0))
    assert [e.uri for e in shallow.entries] == ["memory://user/memories"]  # type: ignore[union-attr]


def test_lexical_find_ranks_by_bm25_and_drops_unrelated_entries(tmp_path: Path) -> None:
    store = _open(tmp_path / "s")
    assert store.dispatch(MemoryOpFind(query="anything")) == MemoryFindResult(hits=())
    _write(store, "memory://user/memories/p/night", "The user reads code late at night.")
    _write(store, "memory://user/memories/p/tea", "The user drinks green tea.")
    _write(store, "memory://agent/memories/p/style", "Answer in short lists about code.")
    _write(store, "memory://user/memories/p/zh", "用户喜欢喝绿茶")
    found = store.dispatch(MemoryOpFind(query="reading code at night", top_k=5))
    assert isinstance(found, MemoryFindResult)
    uris = [hit.uri for hit in found.hits]
    # No zero scores (OpenRath returned them, inventory 9.2.22): tea is unrelated.
    assert uris == ["memory://user/memories/p/night", "memory://agent/memories/p/style"]
    assert found.hits[0].snippet == "The user reads code late at night."
    scoped = store.dispatch(MemoryOpFind(query="code", target_uri="memory://agent"))
    assert [h.uri for h in scoped.hits] == ["memory://agent/memories/p/style"]  # type: ignore[union-attr]
    assert len(store.dispatch(MemoryOpFind(query="code", top_k=1)).hits) == 1  # type: ignore[union-attr]
    searched = store.dispatch(MemoryOpSearch(query="green tea"))
    assert [h.uri for h in searched.hits] == ["memory://user/memories/p/tea"]  # type: ignore[union-attr]
    chinese = store.dispatch(MemoryOpFind(query="用户喜欢喝绿茶"))
    assert [h.uri for h in chinese.hits] == ["memory://user/memories/p/zh"]  # type: ignore[union-attr]


def test_embedding_find_uses_the_configured_client_and_caches_vectors(tmp_path: Path) -> None:
    class Recorder:
        model = "trigram"

        def __init__(self) -> None:
            self.calls: list[list[str]] = []

        def embed(self, texts: list[str]) -> list[list[float]]:
            self.calls.append(list(texts))
            return [[1.0, 0.0] if "tea" in t else [0.0, 1.0] for t in texts]

    client = Recorder()
    store = _open(tmp_path / "s", embedding=client)
    _write(store, "memory://user/memories/p/tea", "green tea")
    _write(store, "memory://user/memories/p/code", "rust code")
    found = store.dispatch(MemoryOpFind(query="a cup of tea", top_k=1))
    assert [h.uri for h in found.hits] == ["memory://user/memories/p/tea"]  # type: ignore[union-attr]
    assert json.loads((tmp_path / "s/user/memories/p/tea.vec").read_text())["model"] == "trigram"
    store.dispatch(MemoryOpFind(query="tea again"))
    assert client.calls[-1] == ["tea again"]  # documents came from the sidecars


def test_embedding_find_over_the_openai_wire(tmp_path: Path) -> None:
    with FakeEmbeddingServer() as server:
        config = tmp_path / "config.json"
        config.write_text(
            json.dumps(
                {
                    "llm": {
                        "providers": {
                            "emb": {
                                "provider_kind": "openai",
                                "model": "fake-embed",
                                "base_url": server.base_url,
                            }
                        }
                    }
                }
            )
        )
        with pytest.MonkeyPatch.context() as patch:
            patch.setenv("OPENRATH_HOME", str(tmp_path))
            store = _open(tmp_path / "s", embedding_provider="emb")
            _write(store, "memory://user/memories/p/tea", "The user drinks green tea.")
            found = store.dispatch(MemoryOpFind(query="green tea drinks"))
        assert [h.uri for h in found.hits] == ["memory://user/memories/p/tea"]  # type: ignore[union-attr]
        assert server.requests


def test_resources_are_ingested_once_with_their_reason(tmp_path: Path) -> None:
    store = _open(tmp_path / "s")
    source = tmp_path / "notes.txt"
    source.write_text("Rath runs agents durably.")
    first = store.dispatch(MemoryOpResource(source=str(source), reason="docs", instruction="cite"))
    again = store.dispatch(MemoryOpResource(source=str(source)))
    assert isinstance(first, MemoryWriteResult) and isinstance(again, MemoryWriteResult)
    assert first.uri == again.uri and first.uri.startswith("memory://resources/")
    folder = tmp_path / "s" / first.uri.removeprefix("memory://")
    assert (folder / "source.txt").read_text() == "Rath runs agents durably."
    assert "## Reason\n\n\n" in (folder / "meta.md").read_text()  # the second ingest's
    missing = store.dispatch(MemoryOpResource(source=str(tmp_path / "nope.txt")))
    assert isinstance(missing, MemoryExecutionFailure) and missing.kind == "not_found"
    bad = store.dispatch(MemoryOpResource(source=str(source), target_uri="memory://nowhere/x"))
    assert isinstance(bad, MemoryExecutionFailure) and bad.kind == "invalid_uri"
    aimed = store.dispatch(MemoryOpResource(source=str(source), target_uri="memory://resources/k"))
    # Under the target, in a folder of its own (as OpenRath did): two resources never collide.
    assert isinstance(aimed, MemoryWriteResult)
    assert aimed.uri == "memory://resources/k/" + first.uri.rsplit("/", 1)[-1]


def test_resources_over_http(tmp_path: Path) -> None:
    class Page(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            body = b"remote page" if self.path == "/doc.md" else b""
            self.send_response(200 if body else 404)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Page)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        base = f"http://127.0.0.1:{server.server_port}"
        store = _open(tmp_path / "s")
        done = store.dispatch(MemoryOpResource(source=f"{base}/doc.md"))
        assert isinstance(done, MemoryWriteResult) and done.bytes_written == len(b"remote page")
        gone = store.dispatch(MemoryOpResource(source=f"{base}/gone.md"))
        assert isinstance(gone, MemoryExecutionFailure) and gone.kind == "not_found"
    finally:
        server.shutdown()


def test_commits_archive_and_extract_only_when_waited_for(tmp_path: Path) -> None:
    class Chat:
        def __init__(self) -> None:
            self.requests: list[RathLLMChatRequest] = []

        def complete(self, request: RathLLMChatRequest) -> RathLLMChatResponse:
            self.requests.append(request)
            item = {"uri": "memory://user/memories/extracted/tea", "content": "Likes tea."}
            reply = f"```json\n{json.dumps([item])}\n```"
            message = RathLLMAssistantMessage(content=reply)
            choice = RathLLMChatChoice(index=0, finish_reason="stop", message=message)
            return RathLLMChatResponse(id="r", choices=(choice,), created=0, model="m")

    messages = [{"role": "user", "content": "I like tea."}]
    plain = _open(tmp_path / "plain")
    first = plain.dispatch(MemoryOpCommit(session_id="s1", messages=messages))
    second = plain.dispatch(MemoryOpCommit(session_id="s1", messages=messages, wait=True))
    assert isinstance(first, MemoryCommitResult) and first.extracted_count == -1
    assert isinstance(second, MemoryCommitResult) and second.extracted_count == 0
    assert first.archived_uri != second.archived_uri
    archive = tmp_path / "plain" / str(first.archived_uri).removeprefix("memory://")
    assert json.loads(archive.read_text()) == messages
    assert len(list((tmp_path / "plain/session/s1/commits").iterdir())) == 2
    chat = Chat()
    smart = _open(tmp_path / "smart", chat=chat)
    assert smart.dispatch(MemoryOpCommit(session_id="s", messages=messages)).extracted_count == -1  # type: ignore[union-attr]
    assert not chat.requests
    done = smart.dispatch(MemoryOpCommit(session_id="s", messages=messages, wait=True))
    assert isinstance(done, MemoryCommitResult) and done.extracted_count == 1
    assert chat.requests[0].temperature == 0
    assert (tmp_path / "smart/user/memories/extracted/tea.md").read_text() == "Likes tea."
    bad = smart.dispatch(MemoryOpCommit(session_id="", messages=messages))
    assert isinstance(bad, MemoryExecutionFailure) and bad.kind == "invalid_uri"


def test_lifecycle_paths_meta_and_counts(tmp_path: Path) -> None:
    backend = memory.get("local")
    before = backend.store_count()
    fresh = backend.open()
    other = backend.open()
    assert fresh.handle != other.handle
    assert Path(fresh.handle).parent == local_memory_root().resolve()
    meta = json.loads((Path(fresh.handle) / "meta.json").read_text())
    assert meta["schema_version"] == 1 and "created_at" in meta and "last_used_at" in meta
    named = backend.open(MemoryStoreSpec(namespace="team"))
    assert Path(named.handle).name == "team"
    assert backend.store_count() == before + 3
    explicit = _open(tmp_path / "kept")
    _write(explicit, "memory://user/memories/a", "kept")
    for store in (fresh, other, named, explicit):
        store.close()
    fresh.close()  # idempotent
    assert backend.store_count() == before
    reopened = _open(tmp_path / "kept")
    assert reopened.dispatch(MemoryOpRead(uri="memory://user/memories/a")).data == "kept"  # type: ignore[union-attr]
    reopened.close()


def test_store_references_close_at_zero(tmp_path: Path) -> None:
    store = _open(tmp_path / "s")
    with store:
        store.acquire()
        assert store.refcount == 2
        store.release()
    assert store.closed
    with pytest.raises(memory.MemoryStoreClosed):
        store.dispatch(MemoryOpFind(query="x"))
    closed_directly = _open(tmp_path / "t")
    closed_directly.close()
    with pytest.raises(memory.MemoryStoreClosed):
        closed_directly.acquire()


def test_persistent_registry_allocates_lists_and_prunes() -> None:
    registry = PersistentMemoryRegistry()
    store_id = registry.alloc_local_id()
    assert registry.local_path(store_id).is_dir()  # allocated and created, as OpenRath did
    registry.ensure_local("named")
    assert registry.list_local() == [store_id]  # named (namespace=) stores are not listed
    assert registry.delete_local("named") and not registry.delete_local("named")
    assert registry.prune_local(3600) == []
    assert registry.prune_local(-1) == [store_id]
    with pytest.raises(ValueError, match="invalid local memory store id"):
        registry.local_path("../x")


def test_spec_from_config(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "config.json").write_text(
        json.dumps(
            {
                "memory": {
                    "default_provider": "notes",
                    "providers": {"notes": {"backend_kind": "local", "path": str(tmp_path / "n")}},
                }
            }
        )
    )
    monkeypatch.setenv("OPENRATH_HOME", str(tmp_path))
    spec = MemoryStoreSpec.from_config()
    assert spec.options == {"path": str(tmp_path / "n")}
    assert MemoryStoreSpec.from_config("notes", user_id="u", top=1).user_id == "u"
    with pytest.raises(KeyError, match=r"no memory preset 'other'.*available: notes"):
        MemoryStoreSpec.from_config("other")
