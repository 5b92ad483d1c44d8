"""RFC 6901 JSON Pointers."""

from __future__ import annotations

from collections.abc import Iterable

SUFFIXES = 64
"""How many positions the suffix tables below hold."""
INPUT_VALUE = tuple(f"/inputs/{i}/value" for i in range(SUFFIXES))
OUTPUT_VALUE = tuple(f"/outputs/{i}/value" for i in range(SUFFIXES))
MEMBER = tuple(f"/members/{i}" for i in range(SUFFIXES))
MEMBER_VALUE = tuple(f"/members/{i}/value" for i in range(SUFFIXES))
ITEM = tuple(f"/items/{i}" for i in range(SUFFIXES))
TASK = tuple(f"/tasks/{i}" for i in range(SUFFIXES))
ALWAYS = tuple(f"/always/{i}" for i in range(SUFFIXES))
OUTPUT = tuple(f"/outputs/{i}" for i in range(SUFFIXES))
BRANCH = tuple(f"/branches/{i}" for i in range(SUFFIXES))
DEPENDS_ON = tuple(f"/dependsOn/{i}" for i in range(SUFFIXES))
FIELD = tuple(f"/fields/{i}" for i in range(SUFFIXES))
INDEX = tuple(str(i) for i in range(SUFFIXES))
"""The pointer suffixes of a plan's commonest positions (and `INDEX`, the positions as text), made once: the scope, types and
lower passes build a pointer for every task and value they read, and an f-string that
formats an int costs about three times a concatenation of two strings. A position past them
is formatted."""


def escape(token: str | int) -> str:
    text = str(token)
    if "~" in text or "/" in text:
        text = text.replace("~", "~0").replace("/", "~1")
    return text


def unescape(token: str) -> str:
    if "~" in token:
        token = token.replace("~1", "/").replace("~0", "~")
    return token


def join(base: str, *tokens: str | int) -> str:
    """`join("/root", "tasks", 0)` -> `/root/tasks/0`."""
    for token in tokens:
        base = f"{base}/{escape(token)}"
    return base


def split(pointer: str) -> list[str]:
    """`/a/b~1c` -> `["a", "b/c"]`; the empty pointer (the whole document) -> `[]`."""
    if not pointer:
        return []
    if not pointer.startswith("/"):
        raise ValueError(f"not a JSON pointer: {pointer!r}")
    return [unescape(t) for t in pointer[1:].split("/")]


def from_path(path: Iterable[str | int]) -> str:
    return join("", *path)


def parent(pointer: str) -> str:
    return pointer[: pointer.rfind("/")] if pointer else ""
