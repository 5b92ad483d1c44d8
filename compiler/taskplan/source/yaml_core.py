"""The YAML 1.2 core schema (https://yaml.org/spec/1.2.2/#1032-tag-resolution): how a
plain scalar resolves. One table for both YAML readers (`yaml_fast`, `yaml_reader`), so
that a document means the same whichever reader took it."""

from __future__ import annotations

import re
from typing import Any

WORDS: dict[str, Any] = {
    "": None, "~": None, "null": None, "Null": None, "NULL": None,
    "true": True, "True": True, "TRUE": True,
    "false": False, "False": False, "FALSE": False,
}
"""Plain scalars that are not strings and not numbers."""
NUMBER_START = frozenset("0123456789+-.")
"""The first characters of a plain scalar that may be a number."""
NUMBER = re.compile(
    r"""(?P<int>[-+]?[0-9]+)
      | 0o(?P<oct>[0-7]+)
      | 0x(?P<hex>[0-9a-fA-F]+)
      | (?P<float>[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?)
      | (?P<inf>[-+]?\.(?:inf|Inf|INF))
      | (?P<nan>\.(?:nan|NaN|NAN))""",
    re.X,
).fullmatch
"""A number of the core schema (the groups say which kind)."""
