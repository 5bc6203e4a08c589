"""Memory on an OpenViking server: the plane's ops, then a durable agent that recalls from it.

Needs a running ``openviking-server`` (``bash infra/openviking.sh`` installs one into
``.venv-openviking``; start it with ``.venv-openviking/bin/openviking-server --config ov.conf``)
and the client (``pip install 'rath[openviking]'``, in the dev extra). Set:

* ``OPEN_VIKING_URL`` (default ``http://127.0.0.1:1933``),
* ``OPEN_VIKING_API_KEY``: a user key (OpenViking refuses its root key for data),
* ``OPEN_VIKING_ACCOUNT`` and ``OPEN_VIKING_USER``: that key's account and user.

The agent's run uses the offline demo model on the embedded Temporal (no LLM key needed);
its worker opens the same OpenViking store. The key stays in this process: the run's history
holds a reference to it, never the key.
"""

import os

from rath import flow, memory
from rath.flow.memory_inject import DefaultRecallInjection
from rath.memory import (
    MEMORY_PREFIX,
    MemoryFindResult,
    MemoryOpFind,
    MemoryOpList,
    MemoryOpWrite,
    MemoryStoreSpec,
)
from rath.session import ChunkKind, Session

FACTS = {
    "memory://user/memories/preferences/editor": "The user prefers dark mode in every editor.",
    "memory://user/memories/habits/night": "The user reads code late at night.",
}


def main() -> None:
    spec = MemoryStoreSpec(
        account_id=os.environ.get("OPEN_VIKING_ACCOUNT", "default"),
        user_id=os.environ.get("OPEN_VIKING_USER"),
        options={
            "url": os.environ.get("OPEN_VIKING_URL", "http://127.0.0.1:1933"),
            "api_key": os.environ.get("OPEN_VIKING_API_KEY"),
        },
    )
    with memory.get("openviking").open(spec) as store:
        for uri, content in FACTS.items():
            store.dispatch(MemoryOpWrite(uri=uri, content=content, wait=True))
            print(f"write: {uri}")
        listed = store.dispatch(MemoryOpList(uri="memory://user/memories/habits"))
        print("list habits:", [entry.uri for entry in getattr(listed, "entries", ())])
        found = store.dispatch(MemoryOpFind(query="reading code at night", top_k=2))
        assert isinstance(found, MemoryFindResult), found
        print("find 'reading code at night':")
        for hit in found.hits:
            print(f"  {hit.score:.3f}  {hit.uri}  {hit.snippet}")

        agent = flow.Agent(
            "Answer using what you remember about the user.",
            model="gpt-4o-mini",
            name="assistant",
            memory=store,
            memory_inject=DefaultRecallInjection(top_k=1, target_uri="memory://user"),
        )
        with agent:
            out = agent(Session.from_user_message("When do I like to read code?"))
            injected = [
                row.payload["content"]
                for row in out.chunk_table.rows
                if row.kind is ChunkKind.SYSTEM and row.payload["content"].startswith(MEMORY_PREFIX)
            ]
        print(f"the run {out.run_id} was given {len(injected)} memory:")
        for content in injected:
            print("  " + content.replace("\n", "\n  "))


if __name__ == "__main__":
    main()
