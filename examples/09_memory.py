"""09 · Memory: remember facts, recall them by relevance, and have them injected into a run.

Run it twice: ``python examples/09_memory.py``. No key is needed (the run uses the offline demo
model on the embedded Temporal). Memories live in one SQLite file under the data dir,
``$RATH_HOME/memory/memory.db`` (``~/.rath`` by default), so the second run starts with what
the first one remembered. Remembering the same fact again returns the same memory and URI:
nothing is stored twice.
"""

from rath import flow
from rath.memory import MEMORY_PREFIX
from rath.session import ChunkKind, Session

FACTS = [
    ("The user prefers dark mode and reads code late at night.", "preferences"),
    ("The user's main project is a Rust web server called Orion.", "profile"),
]


def main() -> None:
    agent = flow.Agent(
        "Answer using what you remember about the user.",
        provider=flow.Provider(model="gpt-4o-mini"),
        name="assistant",
        memory="local",
    )
    known = {hit.uri for hit in agent.recall_memory("user", top_k=50)}
    print(f"{len(known)} memories about the user before this run")

    for content, category in FACTS:
        record = agent.remember_memory(content, category=category)
        status = "remembered by an earlier run" if record.uri in known else "new"
        print(f"remember: {record.uri} ({status})")

    query = "reading code at night"
    print(f"recall {query!r}, top 3:")
    # Only memories that match come back (never a zero score). BM25 scores are relative: in a
    # store this small every word counts as common, so they are tiny but still ordered.
    for hit in agent.recall_memory(query, top_k=3):
        print(f"  {hit.score:.3g}  {hit.uri}  {hit.content}")

    # A durable run: before its first round the relevant memory is injected as a marked
    # SYSTEM row (the Orion memory shares no word with the question, so it stays out).
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
