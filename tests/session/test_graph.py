"""The session graph: traversal, validation, JSONL/Mermaid/DOT export and the lineage journal."""

from __future__ import annotations

import gc
import json
import re
from itertools import pairwise
from pathlib import Path
from uuid import UUID, uuid4

import pytest

from rath.errors import LineageConsistencyError, UserError
from rath.llm import RathLLMTokenUsage
from rath.session import (
    GraphNode,
    LineageJournal,
    LineageKind,
    Session,
    SessionGraph,
    TableRef,
    ancestors_bfs,
    descendants_dfs_preorder,
    edge_pairs,
    lineage_journal_optional,
    lineage_journal_tracking,
    validate_acyclic,
)
from rath.session.graph import record_session


def node(parents: tuple[UUID, ...] = (), **fields: object) -> GraphNode:
    return GraphNode(
        id=fields.pop("id", None) or uuid4(),
        parent_session_ids=parents,
        lineage_kind=fields.pop("lineage_kind", LineageKind.OP_FORK),
        **fields,
    )


@pytest.fixture
def family() -> dict[str, Session]:
    root = Session.from_user_message("root")
    a = root.fork()
    b = root.fork()
    merged = a.merge(b)
    loose = merged.detach()
    leaf = merged.fork()
    return {"root": root, "a": a, "b": b, "merged": merged, "loose": loose, "leaf": leaf}


def test_edges_roots_ancestors_descendants(family: dict[str, Session]) -> None:
    s = {name: session.id for name, session in family.items()}
    graph = SessionGraph.from_sessions(family.values())
    assert graph.edges() == [
        (s["root"], s["a"]),
        (s["root"], s["b"]),
        (s["a"], s["merged"]),
        (s["b"], s["merged"]),
        (s["merged"], s["leaf"]),
    ]
    assert graph.roots() == (s["root"], s["loose"])  # detach starts a new tree
    assert graph.ancestors(s["leaf"]) == (s["merged"], s["a"], s["b"], s["root"])
    assert graph.descendants(s["root"]) == (s["a"], s["merged"], s["leaf"], s["b"])
    assert graph.descendants(s["leaf"]) == ()
    graph.validate()
    assert repr(graph) == "SessionGraph(nodes=6, edges=5, roots=2)"
    assert s["merged"] in graph and uuid4() not in graph and len(graph) == 6


def test_ancestors_are_breadth_first_and_unique() -> None:
    top = node()
    deep = node((top.id,))
    near = node((top.id,))
    child = node((deep.id, near.id))
    graph = SessionGraph(nodes=(top, deep, near, child))
    # BFS gives both parents before the grandparent (DFS would give deep, top, near).
    assert graph.ancestors(child.id) == (deep.id, near.id, top.id)


def test_plain_functions_accept_sessions(family: dict[str, Session]) -> None:
    by_id = {session.id: session for session in family.values()}
    s = {name: session.id for name, session in family.items()}
    assert ancestors_bfs(by_id, s["merged"]) == (s["a"], s["b"], s["root"])
    assert descendants_dfs_preorder(by_id, s["b"]) == (s["merged"], s["leaf"])
    assert list(edge_pairs(by_id)) == SessionGraph.from_sessions(family.values()).edges()
    validate_acyclic(by_id)
    with pytest.raises(LineageConsistencyError, match=str(s["root"])):
        validate_acyclic({s["a"]: family["a"]})


def test_unknown_and_missing_ids_raise() -> None:
    ghost = uuid4()
    orphan = node((ghost,))
    graph = SessionGraph(nodes=(orphan, node((orphan.id,))))
    with pytest.raises(LineageConsistencyError, match=f"{orphan.id} names parent {ghost}"):
        graph.validate()
    with pytest.raises(LineageConsistencyError, match=str(ghost)):
        graph.ancestors(graph.nodes[1].id)
    stranger = uuid4()
    with pytest.raises(LineageConsistencyError, match=str(stranger)):
        graph.ancestors(stranger)
    with pytest.raises(LineageConsistencyError, match=str(stranger)):
        graph.descendants(stranger)
    error = LineageConsistencyError("x")
    assert isinstance(error, ValueError) and isinstance(error, UserError)


def test_validate_names_the_cycle_and_walks_terminate() -> None:
    a_id, b_id, c_id = uuid4(), uuid4(), uuid4()
    a = node((c_id,), id=a_id)
    b = node((a_id,), id=b_id)
    c = node((b_id,), id=c_id)
    fine = node()
    graph = SessionGraph(nodes=(fine, a, b, c))
    with pytest.raises(LineageConsistencyError, match="lineage cycle") as caught:
        graph.validate()
    message = str(caught.value)
    ids = re.findall(r"[0-9a-f-]{36}", message)
    assert set(ids) == {str(a_id), str(b_id), str(c_id)} and ids[0] == ids[-1]
    assert len(ids) == 4
    # Producer -> consumer order: each id is a parent of the next.
    parents = {n.id: n.parent_session_ids for n in graph.nodes}
    for producer, consumer in pairwise(ids):
        assert UUID(producer) in parents[UUID(consumer)]
    assert set(graph.ancestors(a_id)) == {b_id, c_id}
    assert set(graph.descendants(a_id)) == {b_id, c_id}
    selfish_id = uuid4()
    with pytest.raises(LineageConsistencyError, match=str(selfish_id)):
        SessionGraph(nodes=(node((selfish_id,), id=selfish_id),)).validate()


def test_long_chains_do_not_recurse() -> None:
    chain = [node()]
    for _ in range(5000):  # well past the default recursion limit
        chain.append(node((chain[-1].id,)))
    graph = SessionGraph(nodes=tuple(chain))
    graph.validate()
    assert len(graph.ancestors(chain[-1].id)) == 5000
    assert graph.descendants(chain[0].id)[-1] == chain[-1].id


def test_one_entry_per_id_latest_wins_and_union() -> None:
    first = node(agent="old")
    other = node()
    newer = first.model_copy(update={"agent": "new"})
    graph = SessionGraph(nodes=(first, other, newer))
    assert [n.id for n in graph.nodes] == [first.id, other.id]
    assert graph.by_id[first.id].agent == "new" and graph.nodes[0].agent == "new"
    extra = node((other.id,))
    joined = SessionGraph(nodes=(first, other)).union(SessionGraph(nodes=(newer, extra)))
    assert [n.id for n in joined.nodes] == [first.id, other.id, extra.id]
    assert joined.by_id[first.id].agent == "new"
    joined.by_id.clear()  # a copy: the graph is unaffected
    assert len(joined.by_id) == 3


def test_jsonl_rows_round_trip(tmp_path: Path, family: dict[str, Session]) -> None:
    merged = family["merged"]
    merged.usage = RathLLMTokenUsage(3, 4, 7)
    merged.lineage_extras = (("loop.truncated", True), ("note", "ünï ✓"))
    nodes = [GraphNode.from_session(s) for s in family.values()]
    nodes[3] = GraphNode.from_session(merged, agent="planner", run_id="rath-planner-1")
    graph = SessionGraph(nodes=tuple(nodes))
    text = graph.to_jsonl()
    assert text.endswith("\n") and text.count("\n") == 6
    assert "ünï ✓" in text  # ensure_ascii=False
    rows = [json.loads(line) for line in text.splitlines()]
    assert list(rows[3]) == [
        "id",
        "parent_session_ids",
        "lineage_operator",
        "lineage_kind",
        "lineage_extras",
        "chunk_count",
        "cumulative_usage",
        "agent",
        "run_id",
    ]
    assert rows[3] == {
        "id": str(merged.id),
        "parent_session_ids": [str(family["a"].id), str(family["b"].id)],
        "lineage_operator": "Session.merge",
        "lineage_kind": "op_merge",
        "lineage_extras": [["loop.truncated", True], ["note", "ünï ✓"]],
        "chunk_count": 2,
        "cumulative_usage": {"prompt_tokens": 3, "completion_tokens": 4, "total_tokens": 7},
        "agent": "planner",
        "run_id": "rath-planner-1",
    }
    assert rows[0]["cumulative_usage"] is None and rows[0]["lineage_kind"] == "unknown"
    assert SessionGraph.from_jsonl(text) == graph
    assert SessionGraph().to_jsonl() == ""

    target = tmp_path / "deep" / "er" / "lineage.jsonl"
    graph.write_jsonl(target)
    assert target.read_text(encoding="utf-8") == text


def test_non_json_extras_are_stringified() -> None:
    class Thing:
        def __str__(self) -> str:
            return "a thing"

    marker = uuid4()
    extras = (("thing", Thing()), ("id", marker), ("nan", float("nan")), ("ok", [1, "x"]))
    text = SessionGraph(nodes=(node(lineage_extras=extras),)).to_jsonl()

    def no_constants(name: str) -> object:
        raise AssertionError(f"invalid JSON constant {name}")

    row = json.loads(text, parse_constant=no_constants)
    assert row["lineage_extras"] == [
        ["thing", "a thing"],
        ["id", str(marker)],
        ["nan", "nan"],
        ["ok", [1, "x"]],
    ]


def test_from_jsonl_reads_openrath_rows_and_names_bad_lines() -> None:
    sid, parent = uuid4(), uuid4()
    openrath_row = {
        "id": str(sid),
        "parent_session_ids": [str(parent)],
        "lineage_operator": "run_session_loop",
        "lineage_kind": "op_session_loop",
        "lineage_extras": [["loop.truncated", True]],
        "chunk_count": 5,
        "cumulative_usage": None,
    }
    graph = SessionGraph.from_jsonl(json.dumps(openrath_row) + "\n\n")
    (only,) = graph.nodes
    assert only.parent_session_ids == (parent,)
    assert only.lineage_kind is LineageKind.OP_SESSION_LOOP
    assert only.lineage_extras == (("loop.truncated", True),)
    assert (only.agent, only.run_id, only.chunk_count) == (None, None, 5)
    with pytest.raises(ValueError, match="line 2"):
        SessionGraph.from_jsonl(json.dumps(openrath_row) + "\n{not json\n")
    with pytest.raises(ValueError, match="line 1"):
        SessionGraph.from_jsonl('{"id": "nope"}\n')


NASTY = 'say "hi" [x] (y) {z} #quot; <b>&amp;</b> `tick`\nend'


def nasty_graph() -> tuple[SessionGraph, UUID]:
    ghost = uuid4()
    root = node((ghost,), lineage_operator='op"]-->x', chunk_count=1)
    child = node((root.id,), agent=NASTY, chunk_count=3)
    merged = node((root.id, child.id), lineage_kind=LineageKind.OP_MERGE)
    return SessionGraph(nodes=(root, child, merged)), ghost


def test_mermaid_has_every_node_and_edge_and_escapes_labels() -> None:
    graph, ghost = nasty_graph()
    root, child, merged = graph.nodes
    text = graph.to_mermaid()
    lines = text.splitlines()
    assert lines[0] == "flowchart TD" and text.endswith("\n")
    labels: dict[str, str] = {}
    for line in lines[1:]:
        shape = re.fullmatch(r'    (s[0-9a-f]+)(\["|\(\[")([^"\n]*)("\]|"\]\))', line)
        if shape:  # every label is one quoted string with no raw quote inside
            labels[shape.group(1)] = shape.group(3)
    names = {n.id: f"s{n.id.hex[:8]}" for n in (*graph.nodes,)} | {ghost: f"s{ghost.hex[:8]}"}
    assert set(labels) == set(names.values())
    for parent, kid in graph.edges():
        assert f"    {names[parent]} --> {names[kid]}" in lines
    assert sum("-->" in line and "[" not in line for line in lines) == len(graph.edges()) == 4
    child_label = labels[names[child.id]]
    assert "<" not in child_label.replace("<br/>", "") and ">" not in child_label.replace(
        "<br/>", ""
    )
    assert "agent: say #34;hi#34; [x] (y) {z} #35;quot; #60;b#62;#38;amp;" in child_label
    assert "#96;tick#96; end" in child_label and "3 chunks" in child_label
    assert "Session.fork" not in child_label and "implicit (op_fork)" in child_label
    assert labels[names[root.id]].endswith("<br/>1 chunk")  # singular
    assert "op#34;]--#62;x (op_fork)" in labels[names[root.id]]
    assert "chunk" not in labels[names[merged.id]]  # unknown count is not shown
    assert "not in graph" in labels[names[ghost]]
    assert f"class {names[ghost]} external" in text


def test_dot_has_every_node_and_edge_and_quotes_labels() -> None:
    graph, ghost = nasty_graph()
    root, child, _ = graph.nodes
    text = graph.to_dot()
    assert text.startswith("digraph session_graph {\n") and text.endswith("}\n")
    quoted = r'"((?:[^"\\]|\\.)*)"'
    labels = {}
    for line in text.splitlines()[2:-1]:
        statement = re.fullmatch(rf"    {quoted} \[label={quoted}(, [^\]]*)?\];", line)
        edge = re.fullmatch(rf"    {quoted} -> {quoted};", line)
        assert statement or edge, line
        if statement:
            labels[UUID(statement.group(1))] = statement.group(2)
    assert set(labels) == {*(n.id for n in graph.nodes), ghost}
    for parent, kid in graph.edges():
        assert f'    "{parent}" -> "{kid}";' in text
    unescaped = labels[child.id].replace('\\"', '"').split("\\n")
    assert unescaped[2] == "agent: " + NASTY.replace("\n", " ")
    assert unescaped[3] == "3 chunks"
    assert labels[root.id].split("\\n")[1] == 'op\\"]-->x (op_fork)'
    ghost_line = next(line for line in text.splitlines() if line.startswith(f'    "{ghost}" ['))
    assert "dashed" in ghost_line and "not in graph" in ghost_line


def test_short_ids_grow_when_prefixes_collide() -> None:
    a = node(id=UUID("12345678-aaaa-4aaa-8aaa-aaaaaaaaaaaa"))
    b = node((a.id,), id=UUID("12345678-bbbb-4bbb-8bbb-bbbbbbbbbbbb"))
    text = SessionGraph(nodes=(a, b)).to_mermaid()
    assert "s12345678a --> s12345678b" in text


class FakePending:
    """A run that never finishes; touching its result fails the test."""

    def __init__(self, *, done: bool = False) -> None:
        self._done = done

    @property
    def run_id(self) -> str:
        return "rath-agent-fake"

    def done(self) -> bool:
        return self._done

    def result(self) -> Session:
        raise AssertionError("GraphNode.from_session waited for a lazy session")


def lazy_output(parent: Session, *, done: bool = False) -> Session:
    out = Session(
        parent_session_ids=(parent.id,),
        lineage_kind=LineageKind.OP_SESSION_LOOP,
        lineage_operator="run_session_loop",
    )
    out.attach_pending(FakePending(done=done))
    return out


def test_from_session_never_blocks() -> None:
    user = Session.from_user_message("hi")
    for done in (False, True):  # finished but not yet synchronised: still not read
        out = lazy_output(user, done=done)
        snap = GraphNode.from_session(out, agent="writer")
        assert snap.chunk_count is None  # the empty placeholder table is not "0 rows"
        assert snap.cumulative_usage is None
        assert (snap.run_id, snap.agent) == ("rath-agent-fake", "writer")
        assert snap.parent_session_ids == (user.id,)
        graph = SessionGraph.from_sessions([user, out])
        assert graph.edges() == [(user.id, out.id)]
        assert "rath-agent-fake" in graph.to_jsonl() and graph.to_mermaid() and graph.to_dot()
    stored = Session(table=TableRef.sealed("0" * 64))  # rows only in the store: not loaded
    assert GraphNode.from_session(stored).chunk_count is None
    assert GraphNode.from_session(out, run_id="explicit").run_id == "explicit"


def test_from_session_reads_known_rows_and_usage(family: dict[str, Session]) -> None:
    assert GraphNode.from_session(family["root"]).chunk_count == 1
    merged = GraphNode.from_session(family["merged"])
    assert merged.chunk_count == 2
    assert (merged.lineage_kind, merged.lineage_operator) == (LineageKind.OP_MERGE, "Session.merge")
    family["root"].usage = RathLLMTokenUsage(0, 0, 9)
    assert GraphNode.from_session(family["root"]).cumulative_usage == RathLLMTokenUsage(0, 0, 9)


def test_journal_records_in_visit_order(family: dict[str, Session]) -> None:
    root, a, merged = family["root"], family["a"], family["merged"]
    record_session(a)  # no active journal: a no-op
    assert lineage_journal_optional() is None
    with lineage_journal_tracking() as journal:
        assert lineage_journal_optional() is journal
        record_session(a, inputs=(root,))  # the unstamped root: a graph node, not a visit
        record_session(merged, agent="joiner", inputs=(a, family["b"]))
        record_session(a)  # again: keeps its first position
    assert lineage_journal_optional() is None
    record_session(family["leaf"])  # after the block: not recorded
    assert journal.visit_order == [a.id, merged.id]  # only what operations made (OpenRath)
    graph = journal.graph()
    assert [node.id for node in graph.nodes] == [root.id, a.id, family["b"].id, merged.id]
    graph.validate()  # no missing roots (OpenRath's journal lost them)
    assert graph.by_id[merged.id].agent == "joiner"
    b = family["b"]
    assert graph.edges() == [(root.id, a.id), (root.id, b.id), (a.id, merged.id), (b.id, merged.id)]
    assert repr(journal) == "LineageJournal(sessions=2)"


def test_journal_passed_in_and_nested() -> None:
    outer_session, inner_session = Session.from_user_message("o"), Session.from_user_message("i")
    mine = LineageJournal()
    with lineage_journal_tracking(journal=mine) as outer:
        assert outer is mine
        with lineage_journal_tracking() as inner:
            record_session(inner_session)
        record_session(outer_session)
    assert mine.visit_order == [outer_session.id]
    assert inner.visit_order == [inner_session.id]


def test_journal_refreshes_live_sessions_and_holds_them_weakly() -> None:
    user = Session.from_user_message("hi")
    out = lazy_output(user)
    with lineage_journal_tracking() as journal:
        record_session(out, agent="writer")
    assert journal.graph().by_id[out.id].chunk_count is None
    # The run finishes and the session is synchronised: the journal's graph sees it.
    finished = Session.from_rows([*user.chunk_table.rows, *user.chunk_table.rows])
    finished.usage = RathLLMTokenUsage(0, 0, 5)
    out._pending = None
    out.table, out.usage = finished.table, finished.usage
    refreshed = journal.graph().by_id[out.id]
    assert (refreshed.chunk_count, refreshed.cumulative_usage) == (
        2,
        RathLLMTokenUsage(0, 0, 5),
    )
    assert (refreshed.agent, refreshed.run_id) == ("writer", "rath-agent-fake")
    out_id = out.id
    del out, finished
    gc.collect()
    kept = journal.graph().by_id[out_id]  # the last snapshot survives the session
    assert (kept.chunk_count, kept.agent) == (2, "writer")


def test_journal_records_nodes_too() -> None:
    ready = node(agent="a")
    journal = LineageJournal()
    journal.record(ready)
    assert journal.graph().nodes == (ready,)
