"""Paths into plain data trees, for the tests that mutate workflow documents at random
(test_validate_accept, test_validate_fast_paths, test_validate_fuzz, test_workflow_schema)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any


def tree_paths(node: Any, path: tuple = ()) -> Iterator[tuple]:
    """Every path of `node` in document order (keys and list indexes), the root's `()` first."""
    yield path
    if isinstance(node, dict):
        for k, v in node.items():
            yield from tree_paths(v, path + (k,))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from tree_paths(v, path + (i,))


def node_at(tree: Any, path: tuple | list) -> Any:
    """The node of `tree` at `path` (a path `tree_paths` gives); `path[:-1]` for its parent."""
    for token in path:
        tree = tree[token]
    return tree
