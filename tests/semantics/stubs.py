"""The deterministic stubs both sides call: catalog operations and the model.

An operation's answer is a pure function of (operation, request, salt): a value
generated from the operation's output JSON Schema (objects with their
properties, arrays of 0-3 items, strings that carry a hash of the request, so
that a request wired differently gives different data downstream). The model's
answer is a pure function of (objective, named inputs, salt), generated from the
transform's result schema. Failure and null injection are settings."""

from __future__ import annotations

import math
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .common import Failure, OracleBug, canonical_json, digest, load_text, norm
from .soundness import EXTRA, check_request, fits


# ------------------------------------------------------------------ catalog


@dataclass
class Operation:
    key: str            # `id`, or `id@version` when the operation declares a version
    id: str
    version: str | None
    executor: str
    config: dict
    fixed: dict
    input: dict
    output: Any         # a JSON Schema, or None (opaque)


class CatalogIndex:
    """The catalogs' operations, read from their raw files (not the compiler's loader)."""

    def __init__(self, trees: list[Any]):
        self.ops: dict[str, Operation] = {}
        self.by_id: dict[str, list[Operation]] = {}
        for tree in trees:
            for source in tree.get("sources") or []:
                for op in source.get("operations") or []:
                    executor = op.get("executor") or "operation.call"
                    if isinstance(executor, str):
                        etype, config = executor, {}
                    else:
                        etype, config = executor.get("type") or "operation.call", dict(executor.get("config") or {})
                    version = op.get("version")
                    version = None if version is None else str(version)
                    key = op["id"] if version is None else f"{op['id']}@{version}"
                    entry = Operation(key, op["id"], version, etype, config, dict(op.get("fixed") or {}),
                                      op.get("input") or {}, op.get("output"))
                    self.ops[key] = entry
                    self.by_id.setdefault(op["id"], []).append(entry)

    @classmethod
    def from_paths(cls, paths: list[Path | str]) -> "CatalogIndex":
        return cls([load_text(Path(p).read_bytes(), json_text=str(p).endswith(".json")) for p in paths])

    def resolve(self, ref: str) -> Operation:
        """The operation a plan's `operation` field names (`ID` or `ID@version`)."""
        if "@" in ref:
            op_id, version = ref.rsplit("@", 1)
            for op in self.by_id.get(op_id, []):
                if op.version == version:
                    return op
            raise OracleBug(f"no operation {ref}")
        found = self.by_id.get(ref, [])
        if len(found) != 1:
            raise OracleBug(f"operation {ref} is unknown or ambiguous")
        return found[0]

    def by_executor(self, step_type: str, config: dict) -> list[Operation]:
        """The operations a workflow step of this executor type and config may call:
        the config must be the catalog's, as it is (an `operation.call` names its
        operation in `operation` when the catalog does not)."""
        found = []
        want = canonical_json(config)
        for op in self.ops.values():
            if op.executor != step_type:
                continue
            candidates = [dict(op.config)]
            if op.executor == "operation.call" and "operation" not in op.config:
                candidates = [{**op.config, "operation": op.key}, {**op.config, "operation": op.id}]
            if any(canonical_json(c) == want for c in candidates):
                found.append(op)
        return found


# ------------------------------------------------------------------ values from schemas


def _merge(a: dict, b: dict) -> dict:
    """Two schemas that both apply, as one (for generation): `properties` and `required`
    are united (a property in both: both its schemas), the rest of `b` wins."""
    out = {**a, **b}
    if isinstance(a.get("properties"), dict) and isinstance(b.get("properties"), dict):
        props = dict(a["properties"])
        for name, sub in b["properties"].items():
            props[name] = _merge(props[name], sub) if isinstance(props.get(name), dict) and isinstance(sub, dict) else sub
        out["properties"] = props
    if "required" in a or "required" in b:
        out["required"] = list(dict.fromkeys(list(a.get("required") or []) + list(b.get("required") or [])))
    return out


def _resolve(schema: Any, root: Any) -> Any:
    seen = 0
    while isinstance(schema, dict) and "$ref" in schema and isinstance(schema["$ref"], str):
        ref = schema["$ref"]
        if not ref.startswith("#"):
            raise OracleBug(f"non-local $ref {ref}")
        node = root
        for part in [p for p in ref[1:].split("/") if p]:
            part = part.replace("~1", "/").replace("~0", "~")
            node = node[int(part)] if isinstance(node, list) else node[part]
        rest = {k: v for k, v in schema.items() if k != "$ref"}
        schema = _merge(node, rest) if isinstance(node, dict) else node
        seen += 1
        if seen > 50:
            raise OracleBug("recursive $ref")
    return schema


@dataclass
class StubConfig:
    """One configuration of the stubs (the same for both sides of a comparison)."""

    salt: str = "a"
    nulls: str = "none"
    """Nullable slots of generated data: `none` (never null), `all`, `mixed` (by hash)."""
    omit_optional: str = "none"
    """Non-required object properties: `none` (always present), `all` omitted, `mixed`."""
    fail_op: str | None = None
    """An operation key that fails..."""
    fail_at: int = 1
    """... on its k-th call (1-based)."""
    fail_llm_at: int | None = None
    """The k-th model call fails."""
    invalid_llm_at: int | None = None
    """The k-th model call answers something that does not fit the schema."""
    edge: str = "none"
    """Answers at the edges of the schemas: `low` (arrays at `minItems`, empty when
    allowed; strings at `minLength`, empty when allowed; numbers at `minimum`, 0 when
    unbounded), `high` (arrays at `maxItems`, 5 items when unbounded; long strings with
    quotes, `${`, line breaks and non-ASCII up to `maxLength`; numbers at `maximum`,
    2^53-1 or 1.5e300 when unbounded; an extra property wherever `additionalProperties`
    allows one), or `none` (hashed values in between)."""
    pick: int | None = None
    """Every enum (and every `anyOf`/`oneOf` branch) answers its k-th value (mod its
    size), instead of one by hash: run k = 0, 1, ... to see each value in turn."""
    integral: bool = False
    """`number` slots answer integers."""

    def label(self) -> str:
        parts = [f"salt={self.salt}"]
        if self.nulls != "none":
            parts.append(f"nulls={self.nulls}")
        if self.omit_optional != "none":
            parts.append(f"omit={self.omit_optional}")
        if self.edge != "none":
            parts.append(f"edge={self.edge}")
        if self.pick is not None:
            parts.append(f"pick={self.pick}")
        if self.integral:
            parts.append("integral")
        if self.fail_op:
            parts.append(f"fail={self.fail_op}#{self.fail_at}")
        if self.fail_llm_at:
            parts.append(f"llmfail#{self.fail_llm_at}")
        if self.invalid_llm_at:
            parts.append(f"llminvalid#{self.invalid_llm_at}")
        return ",".join(parts)


DEEP = 12
"""Past this depth of generated data, arrays take their fewest items and objects only
their required properties (so that a recursive schema gives a finite value)."""

_LONG = "a \"quoted\" ${data.inputs.x} {{ x }} line\nbreak caf\u00e9 \u2603 "
_PATTERN_CANDIDATES = ("", "a", "0", "abc", "A1", "0123456789abcdef", "abc123", "a-b", "a_b", "2024-01-01",
                       "2024-01-01T00:00:00Z", "a@b.invalid", "https://example.invalid/x", "v1.2.3")


class Generator:
    """Values from JSON Schemas, as a pure function of (seed, path): the order in
    which properties are listed does not change any value. Every value stays within
    the schema (the stubs check it): bounds, lengths, enums, patterns (from a few
    candidates), closed objects."""

    def __init__(self, config: StubConfig):
        self.config = config

    def _pick(self, mode: str, seed: Any, path: tuple, what: str) -> bool:
        if mode == "all":
            return True
        if mode == "mixed":
            return digest(self.config.salt, what, seed, list(path)) % 2 == 0
        return False

    def _choose(self, options: list, h: int) -> Any:
        k = self.config.pick if self.config.pick is not None else h
        return options[k % len(options)]

    def value(self, schema: Any, root: Any, seed: Any, path: tuple = ()) -> Any:
        schema = _resolve(schema, root)
        if schema is True or schema is None or schema == {}:
            return f"any:{path[-1] if path else 'root'}:{digest(seed, list(path)) % 65536:04x}"
        if schema is False:
            raise OracleBug("false schema")
        h = digest(self.config.salt, seed, list(path))
        if "const" in schema:
            return schema["const"]
        for key in ("anyOf", "oneOf"):
            if key in schema:
                branches = [_resolve(b, root) for b in schema[key]]
                nulls = [b for b in branches if isinstance(b, dict) and (b.get("type") == "null")]
                others = [b for b in branches if b not in nulls]
                if nulls and self._pick(self.config.nulls, seed, path, "null"):
                    return None
                if not others:
                    return None
                base = {k: v for k, v in schema.items() if k not in ("anyOf", "oneOf")}
                branch = others[0] if self.config.pick is None else self._choose(others, h)
                return self.value(_merge(base, branch) if isinstance(branch, dict) else branch, root, seed, path)
        if "allOf" in schema and schema["allOf"]:
            merged = {k: v for k, v in schema.items() if k != "allOf"}
            for part in schema["allOf"]:
                part = _resolve(part, root)
                merged = _merge(merged, part) if isinstance(part, dict) else merged
            return self.value(merged, root, seed, path)
        types = schema.get("type")
        if isinstance(types, str):
            types = [types]
        enum = schema.get("enum")
        nullable = (enum is None and types is not None and "null" in types) or (enum is not None and None in enum)
        if nullable and self._pick(self.config.nulls, seed, path, "null"):
            return None
        if enum is not None:
            options = [o for o in enum if o is not None]
            return self._choose(options, h) if options else None
        if types is None:
            if "properties" in schema:
                types = ["object"]
            elif "items" in schema:
                types = ["array"]
            else:
                return f"any:{path[-1] if path else 'root'}:{h % 65536:04x}"
        kinds = [t for t in types if t != "null"]
        if not kinds:
            return None
        kind = kinds[0] if self.config.pick is None else self._choose(kinds, h)
        edge = self.config.edge
        deep = len(path) >= DEEP  # a recursive schema: the least from here on
        if kind == "object":
            props = schema.get("properties") or {}
            required = set(schema.get("required") or [])
            out = {}
            for name, sub in props.items():
                if name not in required and (deep or self._pick(self.config.omit_optional, seed, path + (name,), "omit")):
                    continue
                out[name] = self.value(sub, root, seed, path + (name,))
            for name in sorted(required - set(props)):  # required without a property: anything
                out[name] = self.value({}, root, seed, path + (name,))
            extra = schema.get("additionalProperties", True)
            if edge == "high" and extra is not False and not schema.get("patternProperties") \
                    and schema.get("unevaluatedProperties", True) is not False:
                name = EXTRA if EXTRA not in props else EXTRA + "_2"
                out[name] = self.value(extra if isinstance(extra, dict) else {"type": "string"}, root, seed,
                                       path + (name,))
            return out
        if kind == "array":
            low = int(schema.get("minItems") or 0)
            high = schema.get("maxItems")
            if edge == "low" or deep:
                n = low
            elif edge == "high":
                n = int(high) if high is not None else max(low, 5)
            else:
                n = max(low, h % 4)
                if high is not None:
                    n = min(n, int(high))
            items = schema.get("items")
            prefix = schema.get("prefixItems") if isinstance(schema.get("prefixItems"), list) else []
            if isinstance(items, list):  # draft-07 tuple form
                prefix, items = items, schema.get("additionalItems", {})
            if items is None:
                items = {}
            if items is False:
                n = min(n, len(prefix))
            out = [self.value(prefix[i] if i < len(prefix) else items, root, seed, path + (i,)) for i in range(n)]
            if schema.get("uniqueItems") and len({canonical_json(v) for v in out}) != len(out):
                raise OracleBug(f"cannot generate {n} unique items at {list(path)}")
            return out
        if kind == "string":
            return self._string(schema, path, h)
        if kind in ("integer", "number"):
            return self._number(schema, kind, h)
        if kind == "boolean":
            if self.config.pick is not None:
                return bool(self.config.pick % 2)
            return bool(h % 2)
        raise OracleBug(f"cannot generate a {kind}")

    def _string(self, schema: dict, path: tuple, h: int) -> str:
        low = int(schema.get("minLength") or 0)
        high = schema.get("maxLength")
        label = next((str(p) for p in reversed(path) if isinstance(p, str)), "root")
        if self.config.edge == "low":
            text = "x" * low
        elif self.config.edge == "high":
            text = (_LONG * 4)[: int(high) if high is not None else 4 * len(_LONG)]
            text = text + "x" * max(0, low - len(text))
        else:
            text = f"{label}-{h % 16**6:06x}"
            text = text + "x" * max(0, low - len(text))
            if high is not None:
                text = text[: int(high)]
        pattern = schema.get("pattern")
        if isinstance(pattern, str):
            import re

            if not re.search(pattern, text):
                fits_length = [c for c in _PATTERN_CANDIDATES
                               if re.search(pattern, c) and low <= len(c) <= (high if high is not None else 10**9)]
                if not fits_length:
                    raise OracleBug(f"no string for pattern {pattern!r}")
                text = fits_length[h % len(fits_length)]
        return text

    def _number(self, schema: dict, kind: str, h: int) -> Any:
        integral = kind == "integer" or self.config.integral
        low, high = schema.get("minimum"), schema.get("maximum")
        xlow, xhigh = schema.get("exclusiveMinimum"), schema.get("exclusiveMaximum")
        step = 1 if integral else 0.25
        lows = [v for v in (low, None if xlow is None or isinstance(xlow, bool) else xlow + step) if v is not None]
        highs = [v for v in (high, None if xhigh is None or isinstance(xhigh, bool) else xhigh - step) if v is not None]
        lo = max(lows) if lows else None
        hi = min(highs) if highs else None
        if integral:
            lo = None if lo is None else math.ceil(lo)
            hi = None if hi is None else math.floor(hi)
        if self.config.edge == "low":
            value = lo if lo is not None else 0
        elif self.config.edge == "high":
            value = hi if hi is not None else (2**53 - 1 if integral else 1.5e300)
        else:
            value = h % 97 if integral else (h % 1000) / 4
            if lo is not None and value < lo:
                value = lo + (h % 7 if hi is None else 0)
            if hi is not None and value > hi:
                value = hi if lo is None else lo + (h % max(1, int(hi - lo) + 1)) * (1 if integral else 1)
                value = min(value, hi)
        multiple = schema.get("multipleOf")
        if multiple:
            value = math.ceil(value / multiple) * multiple
        return int(value) if integral else value


# ------------------------------------------------------------------ stubs


@dataclass
class Stubs:
    """The stubs of one run (one side of a comparison): the calls, in order."""

    catalog: CatalogIndex
    config: StubConfig = field(default_factory=StubConfig)
    calls: list[tuple] = field(default_factory=list)
    counts: Counter = field(default_factory=Counter)
    llm_count: int = 0
    unsound: list[str] = field(default_factory=list)
    """Typing soundness findings: requests that break their port's business type."""

    def operation(self, key: str, request: dict) -> Any:
        """The effective request (fixed inputs in) is validated against the operation's
        input schema, as the runtime does (catalog.md): a violation is a run-time failure,
        and one of the business type is also recorded as a typing finding (soundness.py)."""
        request = norm(request)
        self.calls.append(("op", key, canonical_json(request)))
        self.counts[key] += 1
        op = self.catalog.ops[key]
        typing, runtime = check_request(request, op.input)
        if typing:
            self.unsound.append(f"{key} request {canonical_json(request)[:300]}: " + "; ".join(typing[:3]))
        if typing or runtime:
            raise Failure(f"{key}: the request does not fit the input schema: " + "; ".join((typing + runtime)[:3]))
        if key == self.config.fail_op and self.counts[key] == self.config.fail_at:
            raise Failure(f"injected: {key} fails on call {self.config.fail_at}")
        if op.output is None:  # an opaque result: something of no declared shape
            return {"opaque": f"{key}-{digest(self.config.salt, key, request) % 16**6:06x}"}
        answer = norm(Generator(self.config).value(op.output, op.output, [key, request]))
        if not fits(answer, op.output):
            raise OracleBug(f"the stub of {key} answered outside its output schema ({self.config.label()}): "
                            f"{canonical_json(answer)[:300]}")
        return answer

    def model(self, objective: str, inputs: Any, schema: dict) -> Any:
        inputs = norm(inputs)
        self.calls.append(("llm", objective, canonical_json(inputs)))
        self.llm_count += 1
        if self.config.fail_llm_at == self.llm_count:
            raise Failure(f"injected: model call {self.llm_count} fails")
        value = norm(Generator(self.config).value(schema, schema, ["llm", objective, inputs]))
        if not fits(value, schema):
            raise OracleBug(f"the model stub answered outside its schema ({self.config.label()}): "
                            f"{canonical_json(value)[:300]}")
        if self.config.invalid_llm_at == self.llm_count:
            value = {**value, "__unexpected": 1} if isinstance(value, dict) else {"__unexpected": 1}
        return value
