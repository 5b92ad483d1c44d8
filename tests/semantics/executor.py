"""A workflow executor written from docs/workflow-dialect.md.

Steps run one at a time, in order; a step whose `when` is false is skipped (its
result absent); the first failing step stops `steps`, then `finally` runs (each
step under its own `when`), then the workflow fails. Catalog executor steps call
the operation stub (the operation is found from the step's type and executor
config, as the catalog declares them); `llm.call` calls the model stub, with the
objective and inputs that the `template.render` step which produced its prompt was
given. Shared conventions (simulated concurrency, cleanup failures, eager boolean
operators, `json()`): see interpreter.py."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from .common import Failure, OracleBug, load_text, norm
from .expr import Scope, evaluate_text
from .interpreter import Outcome
from .soundness import fits
from .stubs import CatalogIndex, Stubs

BUILTIN = {"set", "switch", "parallel", "loop.parallel", "loop.sequential", "workflow.call", "template.render",
           "llm.call", "value.project", "array.project", "value.validate"}
_PLACEHOLDER = re.compile(r"\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}")


def validate_schema(value: Any, schema: Any) -> bool:
    return fits(value, schema)


def fill_defaults(value: Any, schema: Any) -> Any:
    """docs/workflow-dialect.md, Workflow: where an input's value is an object without a
    property whose schema (reached through `properties` and `items`) has a `default`, the
    runtime fills that default in; a present null stays null."""
    if not isinstance(schema, dict):
        return value
    if isinstance(value, dict) and isinstance(schema.get("properties"), dict):
        out = dict(value)
        for name, prop in schema["properties"].items():
            if not isinstance(prop, dict):
                continue
            if name in out:
                out[name] = fill_defaults(out[name], prop)
            elif "default" in prop:
                out[name] = norm(prop["default"])
        return out
    if isinstance(value, list) and isinstance(schema.get("items"), dict):
        return [fill_defaults(v, schema["items"]) for v in value]
    return value


@dataclass
class Frame:
    name: str
    scope: Scope


class Executor:
    def __init__(self, document: dict, catalog: CatalogIndex, stubs: Stubs, plan: dict | None = None):
        self.doc = document
        self.workflows = document["workflows"]
        self.catalog = catalog
        self.stubs = stubs
        self.plan = plan
        self.cleanups: list[tuple] = []
        self.rendered: dict[str, dict] = {}  # text a template.render produced -> its values

    def run(self, inputs: dict) -> Outcome:
        try:
            outputs = self.call(self.doc["entrypoint"], norm(inputs), None, given_all=False)
            return Outcome(True, norm(outputs), None, list(self.stubs.calls), self.cleanups, list(self.stubs.unsound))
        except Failure as exc:
            return Outcome(False, None, str(exc), list(self.stubs.calls), self.cleanups, list(self.stubs.unsound))

    # -------------------------------------------------------------- workflows

    def call(self, name: str, given: dict, loop: tuple | None, given_all: bool = True) -> dict:
        wf = self.workflows[name]
        bound = {}
        declared = wf.get("inputs") or {}
        for key in given:
            if key not in declared:
                raise OracleBug(f"workflow {name}: undeclared input {key}")
        for key, decl in declared.items():
            if key in given:
                value = given[key]
            elif "default" in decl:
                value = norm(decl["default"])
            elif decl.get("required", True):
                raise Failure(f"workflow {name}: required input {key} not bound")
            else:
                value = None
            value = fill_defaults(value, decl.get("type"))
            if not validate_schema(value, decl.get("type")):
                raise Failure(f"workflow {name}: input {key}={value!r} does not fit its type")
            bound[key] = value
        scope = Scope(bound, {}, loop)
        frame = Frame(name, scope)
        error: Failure | None = None
        try:
            self.steps(wf.get("steps") or [], frame)
        except Failure as exc:
            error = exc
        outputs = {}
        if error is None:
            try:
                for key, decl in (wf.get("outputs") or {}).items():
                    value = evaluate_text(decl["expr"], scope)
                    if not validate_schema(value, decl.get("type")):
                        raise Failure(f"workflow {name}: output {key}={value!r} does not fit its type")
                    outputs[key] = value
            except Failure as exc:
                error = exc
        for step in wf.get("finally") or []:
            business = not step["id"].startswith("__")
            try:
                ran = self.step(step, frame)
            except Failure as exc:
                if business:
                    self.cleanups.append((step["id"], "failed"))
                error = error or exc
                continue
            if business:
                self.cleanups.append((step["id"], "ran" if ran else "skipped"))
        if error is not None:
            raise error
        return outputs

    def steps(self, steps: list, frame: Frame) -> None:
        for step in steps:
            self.step(step, frame)

    # -------------------------------------------------------------- data trees

    def tree(self, node: Any, scope: Scope) -> Any:
        if isinstance(node, str):
            if node.startswith("${"):
                return evaluate_text(node, scope)
            if "${" in node:
                raise OracleBug(f"a string with ${{ inside: {node!r}")
            return node
        if isinstance(node, dict):
            if len(node) == 1 and "$literal" in node:
                return norm(node["$literal"])
            for k in node:
                if str(k).startswith("$"):
                    raise OracleBug(f"reserved key {k}")
            return {k: self.tree(v, scope) for k, v in node.items()}
        if isinstance(node, list):
            return [self.tree(v, scope) for v in node]
        return norm(node)

    # -------------------------------------------------------------- steps

    def step(self, step: dict, frame: Frame) -> bool:
        """Run one step; False when its `when` skipped it."""
        scope = frame.scope
        if "when" in step:
            when = evaluate_text(step["when"], scope)
            if not isinstance(when, bool):
                raise Failure(f"step {step['id']}: when is not a boolean")
            if not when:
                return False
        kind = step["type"]
        sid = step["id"]
        if kind == "set":
            result = {"value": self.tree(step["value"], scope)}
        elif kind == "switch":
            result = None
            for index, case in enumerate(step["cases"]):
                when = evaluate_text(case["when"], scope)
                if not isinstance(when, bool):
                    raise Failure(f"switch {sid}: a case's when is not a boolean")
                if when:
                    result = {"case": index, "outputs": self.branch(case, frame)}
                    break
            if result is None:
                default = step.get("default")
                result = {"case": None, "outputs": self.branch(default, frame) if default else {}}
        elif kind == "parallel":
            outs, error = [], None
            for branch in step["branches"]:
                try:
                    outs.append(self.call(branch["call"], self.tree(branch.get("input") or {}, scope), None))
                except Failure as exc:
                    error = error or exc
            if error is not None:
                raise error
            result = {"branches": outs}
        elif kind in ("loop.parallel", "loop.sequential"):
            items = evaluate_text(step["items"], scope)
            if not isinstance(items, list):
                raise Failure(f"loop {sid}: items is not an array")
            outs, error = [], None
            for index, item in enumerate(items):
                try:
                    given = self.tree(step.get("input") or {}, scope)
                    outs.append(self.call(step["call"], given, (item, index)))
                except Failure as exc:
                    error = error or exc
                    if kind == "loop.sequential":
                        break
            if error is not None:
                raise error
            result = {"results": outs}
        elif kind == "workflow.call":
            result = {"outputs": self.call(step["workflow"], self.tree(step.get("input") or {}, scope), None)}
        elif kind == "template.render":
            values = self.tree(step.get("values") or {}, scope)

            def fill(m: re.Match) -> str:
                v = values[m.group(1)]
                return v if isinstance(v, str) else __import__("json").dumps(v)

            text = _PLACEHOLDER.sub(fill, step["template"])
            self.rendered[text] = values
            result = {"text": text}
        elif kind == "llm.call":
            prompt = evaluate_text(step["prompt"], scope)
            values = self.rendered.get(prompt)
            if values is None or "objective" not in values or "inputs" not in values:
                raise OracleBug(f"llm.call {sid}: a prompt not rendered from an objective and inputs")
            answer = self.stubs.model(values["objective"], load_text(values["inputs"], json_text=True), step["schema"])
            result = {"text": __import__("json").dumps(answer), "json": answer}
        elif kind == "value.project":
            value = self.project(evaluate_text(step["from"], scope), step["path"], step.get("required", True), sid)
            if "schema" in step and not validate_schema(value, step["schema"]):
                raise Failure(f"value.project {sid}: {value!r} does not fit its schema")
            result = {"value": value}
        elif kind == "array.project":
            source = evaluate_text(step["from"], scope)
            if not isinstance(source, list):
                raise Failure(f"array.project {sid}: not an array")
            result = {"value": [self.project(e, step["path"], True, sid) for e in source]}
        elif kind == "value.validate":
            value = evaluate_text(step["value"], scope)
            if not validate_schema(value, step["schema"]):
                raise Failure(f"value.validate {sid}: {value!r} does not fit its schema")
            if "max_items" in step and (not isinstance(value, list) or len(value) > step["max_items"]):
                raise Failure(f"value.validate {sid}: more than {step['max_items']} items")
            result = {"value": value}
        elif kind in BUILTIN:
            raise OracleBug(f"step type {kind}")
        else:
            result = {"result": self.operation(step, scope)}
        frame.scope.steps[sid] = result
        return True

    def branch(self, case: dict, frame: Frame) -> dict:
        if "call" in case:
            return self.call(case["call"], self.tree(case.get("input") or {}, frame.scope), None)
        self.steps(case.get("steps") or [], frame)
        return {}

    @staticmethod
    def project(value: Any, path: list, required: bool, sid: str) -> Any:
        for seg in path:
            if value is None:
                return None  # a present null stays null
            if not isinstance(value, dict) or seg not in value:
                if required:
                    raise Failure(f"{sid}: missing field {seg!r}")
                return None
            value = value[seg]
        return value

    def operation(self, step: dict, scope: Scope) -> Any:
        given = self.tree(step["input"], scope)
        request = given.pop("request")
        candidates = self.catalog.by_executor(step["type"], given)
        if len(candidates) != 1 and self.plan is not None and step.get("source"):
            node: Any = self.plan
            for part in step["source"].split("/")[1:]:
                part = part.replace("~1", "/").replace("~0", "~")
                node = node[int(part)] if isinstance(node, list) else node[part]
            candidates = [self.catalog.resolve(node["operation"])]
        if len(candidates) != 1:
            raise OracleBug(f"step {step['id']}: {len(candidates)} operations match {step['type']} {given}")
        return self.stubs.operation(candidates[0].key, request)


def execute(document: dict, catalog: CatalogIndex, stubs: Stubs, inputs: dict, plan: dict | None = None) -> Outcome:
    return Executor(document, catalog, stubs, plan).run(inputs)
