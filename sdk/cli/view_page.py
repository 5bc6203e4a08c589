"""The lineage page's HTML: inline CSS and script, no network. See docs/modules.md."""

PAGE = """<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy"
 content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'">
<title>{title}</title>
<style>
body { font: 14px/1.4 system-ui, sans-serif; margin: 0; display: flex; height: 100vh; }
#graph { flex: 3; overflow: auto; border-right: 1px solid #ddd; }
#detail { flex: 2; overflow: auto; padding: 12px 16px; }
h1 { font-size: 16px; margin: 12px 20px 0; }
.edge { fill: none; stroke: #888; stroke-width: 1.5; }
.node rect { fill: #f4f7fb; stroke: #6b8cba; stroke-width: 1.2; }
.node { cursor: pointer; }
.node.kind-op_fork rect { fill: #fdf6e3; stroke: #c9a227; }
.node.kind-op_merge rect { fill: #eef8ee; stroke: #4e9a4e; }
.node.kind-op_session_compress rect { fill: #f6eefa; stroke: #8e5ea2; }
.node.kind-op_workflow rect { fill: #e8eefc; stroke: #3557a6; }
.node.root rect { stroke-width: 3; }
.node.selected rect { stroke: #d33; stroke-width: 3; }
.t1 { font-weight: 600; font-size: 12px; } .t2 { font-size: 11px; fill: #444; }
#facts td { padding: 1px 8px 1px 0; vertical-align: top; }
#transcript { padding-left: 0; list-style: none; font: 12px/1.35 ui-monospace, monospace; }
#transcript li { white-space: pre-wrap; border-bottom: 1px solid #eee; padding: 3px 0; }
.row-assistant { color: #123f8c; } .row-tool_result { color: #555; }
.muted { color: #777; }
</style></head>
<body>
<div id="graph"><h1>{title}</h1>{svg}</div>
<div id="detail"><p class="muted" id="hint">Click a session to see its transcript.</p>
<h2 id="detail-title"></h2><table id="facts"></table>
<p><a id="run-link" target="_blank" rel="noopener"></a></p>
<p class="muted" id="note"></p><ol id="transcript"></ol></div>
<script type="application/json" id="lineage-data">{data}</script>
<script>
(function () {
  var data = JSON.parse(document.getElementById("lineage-data").textContent);
  function fact(table, name, value) {
    if (value === null || value === undefined || value === "") return;
    var tr = table.insertRow(), a = tr.insertCell(), b = tr.insertCell();
    a.textContent = name;
    b.textContent = typeof value === "string" ? value : JSON.stringify(value);
  }
  function show(id) {
    var n = data.nodes[id];
    if (!n) return;
    document.querySelectorAll("g.node").forEach(function (g) {
      g.classList.toggle("selected", g.getAttribute("data-id") === id);
    });
    document.getElementById("hint").textContent = "";
    document.getElementById("detail-title").textContent =
      "session " + n.short + " · " + (n.agent || n.operator);
    var table = document.getElementById("facts");
    table.textContent = "";
    fact(table, "id", n.id); fact(table, "kind", n.kind + " (" + n.operator + ")");
    fact(table, "agent", n.agent); fact(table, "model", n.models.join(", "));
    fact(table, "status", n.status); fact(table, "rounds", n.rounds);
    fact(table, "usage", n.usage); fact(table, "parents", n.parents.join(", "));
    if (Object.keys(n.extras).length) fact(table, "lineage", n.extras);
    fact(table, "run", n.run);
    var link = document.getElementById("run-link");
    if (n.link) {
      link.href = n.link;
      link.textContent = "open run " + n.run + " in the Temporal Web UI";
    } else {
      link.removeAttribute("href");
      link.textContent = n.run ? "run " + n.run + " (no Web UI address known)" : "";
    }
    document.getElementById("note").textContent = n.note;
    var list = document.getElementById("transcript");
    list.textContent = "";
    n.rows.forEach(function (row) {
      var li = document.createElement("li");
      li.className = "row row-" + row.kind;
      li.textContent = row.text;
      list.appendChild(li);
    });
  }
  document.querySelectorAll("g.node").forEach(function (g) {
    g.addEventListener("click", function () { show(g.getAttribute("data-id")); });
    g.addEventListener("keydown", function (e) {
      if (e.key === "Enter") show(g.getAttribute("data-id"));
    });
  });
  window.rathShow = show;
})();
</script>
</body></html>
"""
