"""02 · Session lineage: fork, detach, merge, diff, and the graph exported three ways.

Every session knows where it came from. ``fork`` and ``detach`` share the transcript by
reference (O(1), nothing copied), ``merge`` concatenates, and ``diff`` shows what one branch
added since the branches parted. ``lineage_journal_tracking`` records every session made in
a block; the graph exports as OpenRath-compatible JSONL, Mermaid and Graphviz DOT.

Run: ``python examples/02_session_lineage.py`` (offline demo model unless OPENAI_API_KEY is set).
"""

from pathlib import Path

from rath import flow
from rath.session import Session
from rath.session.graph import lineage_journal_tracking


def main() -> None:
    provider = flow.Provider(model="gpt-4o-mini")
    optimist = flow.Agent("Answer optimistically.", provider=provider, name="optimist")
    skeptic = flow.Agent("Answer skeptically.", provider=provider, name="skeptic")
    with lineage_journal_tracking() as journal:
        question = Session.from_user_message("Will it rain tomorrow?")
        sunny = optimist(question.fork())  # two lazy runs, in parallel
        rainy = skeptic(question.fork())
        both = sunny.merge(rainy)  # lazy too: nothing has been read yet
        fresh = both.detach()  # same rows, a new lineage root
        print(both.diff(rainy))  # waits for both runs
    graph = journal.graph()
    print(graph)
    out = Path("lineage")
    graph.write_jsonl(out / "graph.jsonl")
    (out / "graph.mmd").write_text(graph.to_mermaid())
    (out / "graph.dot").write_text(graph.to_dot())
    print(f"wrote {out}/graph.jsonl, graph.mmd, graph.dot ({len(graph.nodes)} sessions)")
    print(f"detached: {fresh!r}".splitlines()[0])


if __name__ == "__main__":
    main()
