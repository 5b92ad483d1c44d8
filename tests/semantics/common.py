"""What the interpreter, the executor and the stubs share: failures, the
canonical form of values, deterministic hashing, a YAML 1.2 core reader."""

from __future__ import annotations

import hashlib
import json
import re
from typing import Any

import yaml


class Failure(Exception):
    """A run-time failure of a task or step (what a runtime would report): the
    plan or workflow fails, cleanup still runs."""


class OracleBug(Exception):
    """Something the interpreter or executor cannot do, or a state that a valid
    plan / compiled workflow should never reach (never a plan failure)."""


def norm(value: Any) -> Any:
    """The canonical form of a JSON value: integral floats are integers (the
    language: a number is an integer when integral), tuples are lists."""
    if isinstance(value, bool) or value is None or isinstance(value, str):
        return value
    if isinstance(value, float):
        if value.is_integer() and abs(value) < 2**63:
            return int(value)
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, dict):
        return {str(k): norm(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [norm(v) for v in value]
    raise OracleBug(f"not a JSON value: {value!r}")


def canonical_json(value: Any) -> str:
    """The deterministic JSON text of a value (the `json` value kind, the `json()`
    function): keys sorted, no spaces, integral numbers as integers. One function for
    both sides, since neither document fixes the text beyond "deterministic"."""
    return json.dumps(norm(value), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def digest(*parts: Any) -> int:
    """A deterministic 64-bit hash of JSON-able parts."""
    text = canonical_json(list(parts))
    return int.from_bytes(hashlib.sha256(text.encode()).digest()[:8], "big")


def equal(a: Any, b: Any) -> bool:
    """JSON equality: booleans are not numbers, 1 == 1.0, deep."""
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(equal(a[k], b[k]) for k in a)
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(equal(x, y) for x, y in zip(a, b))
    if type(a) is not type(b):
        return False
    return a == b


def is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def order(op: str, a: Any, b: Any) -> bool:
    """`<`, `<=`, `>`, `>=` on two numbers or two strings (else a failure)."""
    if not ((is_number(a) and is_number(b)) or (isinstance(a, str) and isinstance(b, str))):
        raise Failure(f"cannot order {a!r} and {b!r}")
    return {"<": a < b, "<=": a <= b, ">": a > b, ">=": a >= b}[op]


# ----------------------------------------------------------- YAML 1.2 core


class CoreLoader(yaml.SafeLoader):
    """PyYAML's safe loader with the YAML 1.2 core schema's plain-scalar resolution
    (the language reads YAML 1.2: `yes`, `on`, `2024-01-01` are strings)."""


CoreLoader.yaml_implicit_resolvers = {}
CoreLoader.add_implicit_resolver(
    "tag:yaml.org,2002:null", re.compile(r"^(?:~|null|Null|NULL|)$"), ["~", "n", "N", ""])
CoreLoader.add_implicit_resolver(
    "tag:yaml.org,2002:bool", re.compile(r"^(?:true|True|TRUE|false|False|FALSE)$"), list("tTfF"))
CoreLoader.add_implicit_resolver(
    "tag:yaml.org,2002:int", re.compile(r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$"), list("-+0123456789"))
CoreLoader.add_implicit_resolver(
    "tag:yaml.org,2002:float",
    re.compile(r"^(?:[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?|[-+]?\.(?:inf|Inf|INF)|\.(?:nan|NaN|NAN))$"),
    list("-+0123456789."))


def _core_int(loader: CoreLoader, node: yaml.Node) -> int:
    text = loader.construct_scalar(node)
    if text.startswith("0o"):
        return int(text[2:], 8)
    if text.startswith("0x"):
        return int(text[2:], 16)
    return int(text, 10)


def _core_float(loader: CoreLoader, node: yaml.Node) -> float:
    text = loader.construct_scalar(node).lower()
    if text.endswith("inf"):
        return float("-inf") if text.startswith("-") else float("inf")
    return float(text)


CoreLoader.add_constructor("tag:yaml.org,2002:int", _core_int)
CoreLoader.add_constructor("tag:yaml.org,2002:float", _core_float)


def load_text(text: str | bytes, *, json_text: bool = False) -> Any:
    if json_text:
        return json.loads(text)
    return yaml.load(text, Loader=CoreLoader)  # noqa: S506 - a safe loader
