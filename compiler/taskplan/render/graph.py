"""Draw a PlanningGraph as Mermaid or Graphviz dot text (`taskplan graph`).

The picture is built once, format-independently (`picture(graph)`), then written
by `to_mermaid` or `to_dot`:

- every workflow (the root scope `main`, each child scope, each group body) is a
  cluster; its cleanup steps (`finally`) sit in a dashed sub-cluster;
- every step is a node: business steps (a task's own ID) prominent, generated
  `__` helpers small and grey;
- each cluster has an inputs node (the workflow's inputs, and `item`/`index` when
  its steps read them) and, when it has outputs, an outputs node;
- data edges go from the step (or inputs node) an expression reads to the step
  (or outputs node) that reads it, labelled with the paths read (`result.files`);
  all reads of one producer by one consumer share one edge;
- a step that runs a child workflow (`workflow.call`, a loop, a `parallel` branch,
  a `switch` case) has a bold edge into that workflow's cluster;
- edges into cleanup steps are dashed and carry the presence guard of the step
  (`when present`: the producer has run; `when present(result)`: its result is not
  null), so that a partial failure is visibly never fed to cleanup.

The output is deterministic (workflows, steps and fields in the graph's own
order) and every label is escaped for its format: plan text (port names from a
catalog's schema may be any string) can never break the syntax.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from taskplan.ir.graph import Expr, PlanningGraph, Step, Workflow
from taskplan.workflow import expr as expr_lang

FORMATS = ("mermaid", "dot")

BUSINESS = "business"
HELPER = "helper"
INPUTS = "inputs"
OUTPUTS = "outputs"
STEP_KINDS = (BUSINESS, HELPER)

_PLAIN = re.compile(r"^[A-Za-z0-9_-]+$")

DATA = "data"
CLEANUP = "cleanup"
CALL = "call"


@dataclass(slots=True)
class Node:
    key: str
    """Unique in the picture: `<workflow>/<step ID>`, `<workflow>/@inputs`, `<workflow>/@outputs`."""
    workflow: str
    kind: str
    """business, helper, inputs or outputs."""
    lines: list[str]
    section: str = "steps"
    """`steps` or `finally` (cleanup)."""
    step: Step | None = None


@dataclass(slots=True)
class Edge:
    source: str
    target: str
    """A node key (for a call: the called workflow's inputs node)."""
    kind: str
    """data, cleanup or call."""
    reads: list[str] = field(default_factory=list)
    """The paths read (data and cleanup edges), in order, without repeats."""
    guards: list[str] = field(default_factory=list)
    """Presence guards of a cleanup step on this producer (`present`, `present(result)`)."""
    label: str = ""
    """The call's label (call edges)."""
    cluster: str | None = None
    """The called workflow (call edges)."""

    def lines(self) -> list[str]:
        if self.kind == CALL:
            return [self.label] if self.label else []
        out = [", ".join(self.reads)] if self.reads else []
        out.extend(f"when {g}" for g in self.guards)
        return out


@dataclass(slots=True)
class Cluster:
    workflow: str
    source: str
    nodes: list[Node] = field(default_factory=list)


@dataclass(slots=True)
class Picture:
    name: str
    clusters: list[Cluster]
    edges: list[Edge]

    def node_keys(self) -> list[str]:
        return [n.key for c in self.clusters for n in c.nodes]

    def layout_links(self) -> list[tuple[str, str]]:
        """Invisible links that keep each cluster reading top-down: its inputs node
        above every node that nothing in the cluster feeds, and its outputs node below
        every node that feeds nothing in the cluster. Layout only: no data flows there."""
        into: set[str] = set()
        out_of: set[str] = set()
        for edge in self.edges:
            if edge.kind != CALL:
                into.add(edge.target)
                out_of.add(edge.source)
        links: list[tuple[str, str]] = []
        for cluster in self.clusters:
            entry = cluster.nodes[0].key
            exit_ = next((n.key for n in cluster.nodes if n.kind == OUTPUTS), None)
            for node in cluster.nodes:
                if node.kind in (STEP_KINDS) and node.key not in into:
                    links.append((entry, node.key))
            if exit_ is not None and exit_ not in into:
                sinks = [n.key for n in cluster.nodes if n.kind in STEP_KINDS and n.key not in out_of]
                links.extend((k, exit_) for k in (sinks or [entry]))
            # Cleanup runs last: below the outputs (or the last step).
            steps = [n for n in cluster.nodes if n.kind in STEP_KINDS and n.section == "steps"]
            last = exit_ or (steps[-1].key if steps else entry)
            links.extend((last, n.key) for n in cluster.nodes if n.section == "finally")
        return links


# ------------------------------------------------------------------ building


def picture(graph: PlanningGraph) -> Picture:
    """The format-independent picture of `graph`."""
    clusters: list[Cluster] = []
    edges: list[Edge] = []
    for wf in graph.workflows.values():
        cluster, wf_edges = _workflow(wf, graph)
        clusters.append(cluster)
        edges.extend(wf_edges)
    return Picture(graph.name, clusters, edges)


def inputs_key(workflow: str) -> str:
    return f"{workflow}/@inputs"


def outputs_key(workflow: str) -> str:
    return f"{workflow}/@outputs"


def step_key(workflow: str, step_id: str) -> str:
    return f"{workflow}/{step_id}"


class _Edges:
    """Data edges of one workflow, one per (producer, consumer), in first-read order."""

    def __init__(self) -> None:
        self.edges: dict[tuple[str, str], Edge] = {}

    def read(self, source: str, target: str, kind: str, path: str | None, guard: str | None) -> None:
        edge = self.edges.get((source, target))
        if edge is None:
            edge = self.edges[(source, target)] = Edge(source, target, kind)
        if path is not None and path not in edge.reads:
            edge.reads.append(path)
        if guard is not None and guard not in edge.guards:
            edge.guards.append(guard)


def _workflow(wf: Workflow, graph: PlanningGraph) -> tuple[Cluster, list[Edge]]:
    name = wf.name
    cluster = Cluster(name, wf.source)
    entry = Node(inputs_key(name), name, INPUTS, [])
    cluster.nodes.append(entry)
    ids = {s.id for s in wf.steps + wf.finally_}
    data = _Edges()
    calls: list[Edge] = []
    extra_inputs: list[str] = []

    def producer(ref: expr_lang.Ref) -> tuple[str, str] | None:
        """(node key, path label) of what `ref` reads; None for a step the workflow lacks."""
        if ref.root == "steps":
            if ref.name not in ids:
                return None
            return step_key(name, ref.name or ""), _segments(ref.segments)
        if ref.root == "inputs":
            return entry.key, (ref.name or "") + _segments(ref.segments, leading_dot=True)
        word = ref.root  # item, index
        if word not in extra_inputs:
            extra_inputs.append(word)
        return entry.key, word + _segments(ref.segments, leading_dot=True)

    for section, steps in (("steps", wf.steps), ("finally", wf.finally_)):
        kind = CLEANUP if section == "finally" else DATA
        for step in steps:
            node = Node(step_key(name, step.id), name, HELPER if step.generated else BUSINESS,
                        [step.id, step.type], section, step)
            cluster.nodes.append(node)
            for e in _exprs(step.fields):
                for ref in _refs(e):
                    found = producer(ref)
                    if found is not None:
                        data.read(found[0], node.key, kind, found[1], None)
            if step.when is not None:
                for ref in _refs(step.when):
                    found = producer(ref)
                    if found is None:
                        continue
                    # `present(result)` tests a field; a bare `present` the step's record
                    # (it has run: a cleanup's guard, whatever null it produced).
                    guard = (f"present({found[1]})" if found[1] else "present") if ref.in_present else None
                    # A guard alone (no field reads that producer) still draws the edge.
                    data.read(found[0], node.key, kind, None if ref.in_present else found[1], guard)
            for target, label in _calls(step):
                if target in graph.workflows:
                    calls.append(Edge(node.key, inputs_key(target), CALL, label=label, cluster=target))

    if wf.outputs:
        out = Node(outputs_key(name), name, OUTPUTS, ["outputs", ", ".join(wf.outputs)])
        cluster.nodes.append(out)
        for e in (o.expr for o in wf.outputs.values()):
            for ref in _refs(e):
                found = producer(ref)
                if found is not None:
                    data.read(found[0], out.key, DATA, found[1], None)

    # Cleanup last (after the outputs), as it runs.
    cluster.nodes.sort(key=lambda n: n.section == "finally")
    names = list(wf.inputs) + extra_inputs
    entry.lines = ["inputs", ", ".join(names)] if names else ["start"]
    return cluster, list(data.edges.values()) + calls


def _segments(segments: tuple[Any, ...], leading_dot: bool = False) -> str:
    text = "".join(_segment(s) for s in segments)
    if not leading_dot and text.startswith("."):
        text = text[1:]
    return text


def _segment(seg: Any) -> str:
    if isinstance(seg, int):
        return f"[{seg}]"
    if _PLAIN.match(seg):
        return f".{seg}"
    return "[" + expr_lang.string_literal(seg) + "]"


def _exprs(value: Any):
    """Every Expr in a step's fields, in field order."""
    if isinstance(value, Expr):
        yield value
    elif isinstance(value, dict):
        for v in value.values():
            yield from _exprs(v)
    elif isinstance(value, list):
        for v in value:
            yield from _exprs(v)


def _refs(e: Expr) -> tuple[expr_lang.Ref, ...]:
    parsed = expr_lang.parse(e.text)
    return parsed.refs if parsed.ok else ()


def _calls(step: Step) -> list[tuple[str, str]]:
    """(called workflow, edge label) of a step, in field order."""
    f = step.fields
    out: list[tuple[str, str]] = []
    if isinstance(f.get("workflow"), str):
        out.append((f["workflow"], "calls"))
    if isinstance(f.get("call"), str):
        if step.type == "loop.parallel":
            limit = f.get("max_concurrency")
            label = "each item, parallel" + (f" (max {limit})" if limit is not None else "")
        elif step.type == "loop.sequential":
            label = "each item, in order"
        else:
            label = "calls"
        out.append((f["call"], label))
    branches = f.get("branches") or []
    for i, item in enumerate(branches):
        if isinstance(item, dict) and isinstance(item.get("call"), str):
            out.append((item["call"], f"branch {i + 1}"))
    cases = f.get("cases") or []
    for i, item in enumerate(cases):
        if isinstance(item, dict) and isinstance(item.get("call"), str):
            out.append((item["call"], "when true" if len(cases) == 1 else f"case {i + 1}"))
    default = f.get("default")
    if isinstance(default, dict) and isinstance(default.get("call"), str):
        out.append((default["call"], "otherwise"))
    return out


# ------------------------------------------------------------------- mermaid

_MERMAID_CLASSES = (
    "classDef business fill:#dbeafe,stroke:#1d4ed8,stroke-width:2px,color:#0f172a",
    "classDef helper fill:#f3f4f6,stroke:#9ca3af,stroke-width:1px,color:#6b7280,font-size:11px",
    "classDef io fill:#ffffff,stroke:#64748b,stroke-width:1px,color:#334155,font-size:11px",
)


def mermaid_text(text: str) -> str:
    """`text` for a double-quoted Mermaid label: every character that Mermaid (or the
    HTML it renders to) could read as syntax becomes a numeric entity code (`#35;`)."""
    out = []
    for ch in text:
        code = ord(ch)
        if ch.isalnum() or ch in " _-.,:;/@()+=*!?'$~^":
            out.append(ch)
        else:
            out.append(f"#{code};")
    return "".join(out)


def _mermaid_label(lines: list[str]) -> str:
    return '"' + "<br/>".join(mermaid_text(line) for line in lines) + '"'


def to_mermaid(pic: Picture) -> str:
    """The picture as a Mermaid flowchart."""
    ids: dict[str, str] = {}
    cluster_ids: dict[str, str] = {}
    out = [f"%% taskplan graph: {mermaid_text(pic.name)}", "flowchart TB"]
    for ci, cluster in enumerate(pic.clusters, 1):
        cid = f"w{ci}"
        cluster_ids[cluster.workflow] = cid
        out.append(f"  subgraph {cid}[{_mermaid_label([cluster.workflow])}]")
        out.append("    direction TB")
        in_finally = False
        for ni, node in enumerate(cluster.nodes, 1):
            nid = f"{cid}n{ni}"
            ids[node.key] = nid
            if node.section == "finally" and not in_finally:
                out.append(f"    subgraph {cid}f[{_mermaid_label(['finally (cleanup)'])}]")
                in_finally = True
            elif node.section != "finally" and in_finally:
                out.append("    end")
                in_finally = False
            indent = "      " if in_finally else "    "
            label = _mermaid_label(node.lines)
            if node.kind == INPUTS:
                shape = f"[/{label}\\]"
            elif node.kind == OUTPUTS:
                shape = f"[\\{label}/]"
            elif node.kind == HELPER:
                shape = f"[{label}]"
            else:
                shape = f"({label})"
            out.append(f"{indent}{nid}{shape}")
        if in_finally:
            out.append("    end")
        out.append("  end")
    for edge in pic.edges:
        source = ids[edge.source]
        target = cluster_ids[edge.cluster] if edge.kind == CALL and edge.cluster else ids[edge.target]
        arrow = {DATA: "-->", CLEANUP: "-.->", CALL: "==>"}[edge.kind]
        lines = edge.lines()
        label = f"|{_mermaid_label(lines)}|" if lines else ""
        out.append(f"  {source} {arrow}{label} {target}")
    for source, target in pic.layout_links():
        out.append(f"  {ids[source]} ~~~ {ids[target]}")
    for line in _MERMAID_CLASSES:
        out.append(f"  {line}")
    groups: dict[str, list[str]] = {"business": [], "helper": [], "io": []}
    for cluster in pic.clusters:
        for node in cluster.nodes:
            group = "io" if node.kind in (INPUTS, OUTPUTS) else node.kind
            groups[group].append(ids[node.key])
    for group, members in groups.items():
        if members:
            out.append(f"  class {','.join(members)} {group}")
    for ci, cluster in enumerate(pic.clusters, 1):
        out.append(f"  style w{ci} fill:#fafafa,stroke:#94a3b8")
        if any(n.section == "finally" for n in cluster.nodes):
            out.append(f"  style w{ci}f fill:#fff7ed,stroke:#b45309,stroke-dasharray:4 3")
    return "\n".join(out) + "\n"


# ----------------------------------------------------------------------- dot


def dot_string(text: str) -> str:
    """`text` as a double-quoted dot string: backslashes and quotes escaped (so no
    `\\l`/`\\N` escape is ever formed from plan text), control characters shown
    as visible `\\xNN`."""
    out = ['"']
    for ch in text:
        if ch == "\\":
            out.append("\\\\")
        elif ch == '"':
            out.append('\\"')
        elif ord(ch) < 32 or ord(ch) == 127:
            out.append(f"\\\\x{ord(ch):02x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _dot_label(lines: list[str]) -> str:
    """Lines joined by dot's centred line break `\\n` (each line escaped on its own)."""
    return "\\n".join(dot_string(line)[1:-1] for line in lines)


_DOT_NODE_STYLE = {
    BUSINESS: 'shape=box, style="rounded,filled", fillcolor="#dbeafe", color="#1d4ed8", penwidth=2, fontsize=12',
    HELPER: 'shape=box, style="rounded,filled", fillcolor="#f3f4f6", color="#9ca3af", fontcolor="#6b7280", fontsize=9',
    INPUTS: 'shape=invhouse, style=filled, fillcolor="#ffffff", color="#64748b", fontcolor="#334155", fontsize=10',
    OUTPUTS: 'shape=house, style=filled, fillcolor="#ffffff", color="#64748b", fontcolor="#334155", fontsize=10',
}

_DOT_EDGE_STYLE = {
    DATA: 'color="#334155", fontcolor="#334155"',
    CLEANUP: 'style=dashed, color="#b45309", fontcolor="#b45309"',
    CALL: 'style=bold, color="#1d4ed8", fontcolor="#1d4ed8", penwidth=2',
}


def to_dot(pic: Picture) -> str:
    """The picture as a Graphviz digraph (render with `dot -Tsvg`)."""
    cluster_ids: dict[str, str] = {}
    out = [
        f"digraph {dot_string(pic.name)} {{",
        f'  graph [label={dot_string(pic.name)}, labelloc=t, fontname="Helvetica", fontsize=16, '
        'compound=true, newrank=true, rankdir=TB, nodesep=0.35, ranksep=0.45];',
        '  node [fontname="Helvetica"];',
        '  edge [fontname="Helvetica", fontsize=9, arrowsize=0.7];',
    ]
    for ci, cluster in enumerate(pic.clusters):
        cid = f"cluster_{ci}"
        cluster_ids[cluster.workflow] = cid
        out.append(f"  subgraph {cid} {{")
        out.append(
            f'    graph [label={dot_string(cluster.workflow)}, style="rounded,filled", fillcolor="#fafafa", '
            'color="#94a3b8", fontsize=13, labeljust=l];'
        )
        cleanup = [n for n in cluster.nodes if n.section == "finally"]
        for node in cluster.nodes:
            if node.section != "finally":
                out.append(f"    {dot_string(node.key)} [label=\"{_dot_label(node.lines)}\", {_DOT_NODE_STYLE[node.kind]}];")
        if cleanup:
            out.append(f"    subgraph {cid}_finally {{")
            out.append(
                '      graph [label="finally (cleanup)", style="rounded,dashed,filled", fillcolor="#fff7ed", '
                'color="#b45309", fontsize=11];'
            )
            for node in cleanup:
                out.append(
                    f"      {dot_string(node.key)} [label=\"{_dot_label(node.lines)}\", {_DOT_NODE_STYLE[node.kind]}];"
                )
            out.append("    }")
        out.append("  }")
    for edge in pic.edges:
        attrs = [_DOT_EDGE_STYLE[edge.kind]]
        lines = edge.lines()
        if lines:
            attrs.append(f'label="{_dot_label(lines)}"')
        out.append(f"  {dot_string(edge.source)} -> {dot_string(edge.target)} [{', '.join(attrs)}];")
    for source, target in pic.layout_links():
        out.append(f"  {dot_string(source)} -> {dot_string(target)} [style=invis];")
    out.append("}")
    return "\n".join(out) + "\n"


def render(graph: PlanningGraph, fmt: str) -> str:
    """`graph` drawn in `fmt` (mermaid or dot)."""
    pic = picture(graph)
    if fmt == "mermaid":
        return to_mermaid(pic)
    if fmt == "dot":
        return to_dot(pic)
    raise ValueError(f"unknown graph format {fmt!r} (expected one of {', '.join(FORMATS)})")
