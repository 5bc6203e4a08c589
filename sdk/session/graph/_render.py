"""Drawing a session graph: Mermaid flowcharts and Graphviz DOT. See docs/modules.md."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING
from uuid import UUID

if TYPE_CHECKING:
    from rath.session.graph._node import GraphNode

_MIN_SHORT_ID = 8

# Mermaid decodes `#<code>;` in labels as an HTML entity. Escaping `#` too means a name
# containing `#quot;` stays literal; `<`/`>` are escaped because labels are HTML.
_MERMAID_ESCAPES = str.maketrans(
    {
        '"': "#34;",
        "#": "#35;",
        "&": "#38;",
        "<": "#60;",
        ">": "#62;",
        "`": "#96;",
        "\n": " ",
        "\r": " ",
    }
)
_DOT_ESCAPES = str.maketrans({"\\": "\\\\", '"': '\\"', "\n": " ", "\r": " "})


def short_ids(ids: Iterable[UUID]) -> dict[UUID, str]:
    """A hex prefix per id: 8 characters, longer only if two ids would otherwise collide."""
    unique = list(dict.fromkeys(ids))
    width = _MIN_SHORT_ID
    while len({sid.hex[:width] for sid in unique}) < len(unique):
        width += 1
    return {sid: sid.hex[:width] for sid in unique}


def _label_lines(node: GraphNode, short: str) -> list[str]:
    lines = [short, f"{node.lineage_operator} ({node.lineage_kind.value})"]
    if node.agent is not None:
        lines.append(f"agent: {node.agent}")
    if node.chunk_count is not None:
        lines.append(f"{node.chunk_count} chunk" + ("" if node.chunk_count == 1 else "s"))
    return lines


def mermaid(
    nodes: Sequence[GraphNode], edges: Sequence[tuple[UUID, UUID]], missing: Sequence[UUID]
) -> str:
    """The Mermaid ``flowchart TD`` text (see docs/modules.md)."""
    short = short_ids([*(node.id for node in nodes), *missing])
    lines = ["flowchart TD"]
    for node in nodes:
        label = "<br/>".join(
            text.translate(_MERMAID_ESCAPES) for text in _label_lines(node, short[node.id])
        )
        lines.append(f'    s{short[node.id]}["{label}"]')
    for sid in missing:
        lines.append(f'    s{short[sid]}(["{short[sid]}<br/>not in graph"])')
    lines.extend(f"    s{short[parent]} --> s{short[child]}" for parent, child in edges)
    if missing:
        lines.append(
            "    classDef external fill:#f6f6f6,stroke:#999,stroke-dasharray:4 3,color:#666"
        )
        lines.append("    class " + ",".join(f"s{short[sid]}" for sid in missing) + " external")
    return "\n".join(lines) + "\n"


def dot(
    nodes: Sequence[GraphNode], edges: Sequence[tuple[UUID, UUID]], missing: Sequence[UUID]
) -> str:
    """The Graphviz ``digraph`` text (see docs/modules.md); node names are full ids."""
    short = short_ids([*(node.id for node in nodes), *missing])
    lines = [
        "digraph session_graph {",
        '    node [shape=box, style=rounded, fontname="Helvetica"];',
    ]
    for node in nodes:
        label = "\\n".join(
            text.translate(_DOT_ESCAPES) for text in _label_lines(node, short[node.id])
        )
        lines.append(f'    "{node.id}" [label="{label}"];')
    for sid in missing:
        lines.append(
            f'    "{sid}" [label="{short[sid]}\\nnot in graph", style="rounded,dashed", '
            "color=gray50, fontcolor=gray50];"
        )
    lines.extend(f'    "{parent}" -> "{child}";' for parent, child in edges)
    lines.append("}")
    return "\n".join(lines) + "\n"
