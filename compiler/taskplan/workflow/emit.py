"""Plain data -> workflow YAML text, deterministically; and atomic writes.

`emit_yaml(data)` writes block-style YAML with ruamel's safe representer and
libyaml's C emitter:

- mapping keys in insertion order (the order *is* the order: never sorted);
- a wide line width, so long expressions never fold;
- multi-line strings as literal blocks (`|`, `|-`, `|+`), unless the emitter
  cannot represent them so (then double-quoted);
- any string that a YAML 1.1 or 1.2 reader could take for something else
  (`yes`, `on`, `~`, `null`, `1e-07`, `0x1F`, `012`, `.5`, `1_000`, `12:30`,
  `2024-01-01`, `<<`, `=`, ...) single-quoted; the emitter itself quotes what
  its own rules need (leading `*`, `&`, `!`, `#`, `: `, ...);
- UTF-8 text, `\\n` line ends, one trailing newline.

`write_atomic(path, text)` writes through a temporary file in the same
directory, fsyncs it and renames it over `path`: a reader sees the old file or
the new one, never half of one, and a failure leaves the old file untouched.
"""

from __future__ import annotations

import gc
import io
import os
import re
import stat
import tempfile
from typing import Any

from ruamel.yaml.cyaml import CEmitter
from ruamel.yaml.nodes import MappingNode, ScalarNode, SequenceNode
from ruamel.yaml.representer import SafeRepresenter
from ruamel.yaml.resolver import VersionedResolver
from ruamel.yaml.tag import Tag

WIDTH = 1 << 30
"""Effectively no folding (libyaml's width is a C int)."""

# Plain scalars that some YAML reader (1.1 or 1.2, any common schema) resolves to a
# non-string: booleans, nulls, numbers of every base and spelling, sexagesimals,
# timestamps, merge and value keys. Deliberately broad: quoting a string that
# needed none costs two characters; failing to quote one changes its type.
_AMBIGUOUS = re.compile(
    r"""^(?:
        [yYnN]|[yY]es|YES|[nN]o|NO|[tT]rue|TRUE|[fF]alse|FALSE|[oO]n|ON|[oO]ff|OFF
      | ~|[nN]ull|NULL
      | [-+]?\.?[0-9][0-9_]*(?:[.:][0-9_]*)*(?:[eE][-+]?[0-9_]+)?
      | [-+]?\.[0-9_]+(?:[eE][-+]?[0-9]+)?
      | [-+]?0[xX][0-9a-fA-F_]+ | [-+]?0[oO]?[0-7_]+ | [-+]?0[bB][01_]+
      | [-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?
      | [-+]?\.?(?:inf|Inf|INF|infinity|Infinity|INFINITY) | \.?(?:nan|NaN|NAN)
      | [0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?)?
      | <<|=
    )$""",
    re.VERBOSE,
)


def needs_quotes(text: str) -> bool:
    """Whether a plain scalar `text` could be read as something other than this string."""
    return text == "" or bool(_AMBIGUOUS.match(text))


# One Tag object per tag, shared by every node: ruamel would otherwise make a Tag per
# node and decode its URI character by character (most of the emitter's time).
_STR = Tag(suffix="tag:yaml.org,2002:str")
_FLOAT = Tag(suffix="tag:yaml.org,2002:float")
_INT = Tag(suffix="tag:yaml.org,2002:int")
_BOOL = Tag(suffix="tag:yaml.org,2002:bool")
_NULL = Tag(suffix="tag:yaml.org,2002:null")
_SEQ = Tag(suffix="tag:yaml.org,2002:seq")
_MAP = Tag(suffix="tag:yaml.org,2002:map")


def _represent_str(representer: SafeRepresenter, data: str) -> Any:
    if "\n" in data:
        return representer.represent_scalar(_STR, data, style="|")
    if needs_quotes(data):
        return representer.represent_scalar(_STR, data, style="'")
    return representer.represent_scalar(_STR, data)


def float_text(value: float) -> str:
    """A float as YAML 1.1 and 1.2 readers both take it: a dot in the mantissa and a
    signed exponent (`1.0e-07`, not `1e-07`, which YAML 1.1 reads as a string)."""
    if value != value:
        return ".nan"
    if value in (float("inf"), float("-inf")):
        return ".inf" if value > 0 else "-.inf"
    text = repr(value).lower()
    mantissa, e, exponent = text.partition("e")
    if "." not in mantissa:
        mantissa += ".0"
    if e and exponent[0] not in "+-":
        exponent = "+" + exponent
    return mantissa + (e + exponent if e else "")


def _represent_float(representer: SafeRepresenter, data: float) -> Any:
    return representer.represent_scalar(_FLOAT, float_text(data))


def _represent_int(representer: SafeRepresenter, data: int) -> Any:
    return representer.represent_scalar(_INT, str(data))


def _represent_bool(representer: SafeRepresenter, data: bool) -> Any:
    return representer.represent_scalar(_BOOL, "true" if data else "false")


def _represent_none(representer: SafeRepresenter, data: None) -> Any:
    return representer.represent_scalar(_NULL, "null")


def _represent_list(representer: SafeRepresenter, data: list) -> Any:
    return representer.represent_sequence(_SEQ, data)


def _represent_dict(representer: SafeRepresenter, data: dict) -> Any:
    # insertion order, never sorted
    return representer.represent_mapping(_MAP, data.items())


_STR_TAG = "tag:yaml.org,2002:str"
_INT_TAG = "tag:yaml.org,2002:int"
_FLOAT_TAG = "tag:yaml.org,2002:float"
_BOOL_TAG = "tag:yaml.org,2002:bool"
_NULL_TAG = "tag:yaml.org,2002:null"
_SEQ_TAG = "tag:yaml.org,2002:seq"
_MAP_TAG = "tag:yaml.org,2002:map"


_PLAIN_INT = re.compile(r"[-+]?[0-9]+")
_PLAIN_FLOAT = re.compile(r"[-+]?(?:[0-9]+\.[0-9]*(?:[eE][-+][0-9]+)?|\.(?:inf|nan))")


class _Resolver(VersionedResolver):
    """What tag a scalar written plain would have, for the texts this emitter writes
    plain: its strings (never ambiguous: `needs_quotes` quotes those), `true`/`false`,
    `null`, and its own int and float texts. The C serializer asks twice per scalar;
    ruamel's general resolver is most of the emitter's time. Tests compare the output
    with ruamel's own resolver."""

    def resolve(self, kind: Any, value: Any, implicit: Any) -> Any:
        if kind is ScalarNode:
            if not implicit[0]:
                return _STR_TAG
            if value == "true" or value == "false":
                return _BOOL_TAG
            if value == "null":
                return _NULL_TAG
            if _PLAIN_INT.fullmatch(value):
                return _INT_TAG
            if _PLAIN_FLOAT.fullmatch(value):
                return _FLOAT_TAG
            return _STR_TAG
        if kind is SequenceNode:
            return _SEQ_TAG
        return _MAP_TAG

    def descend_resolver(self, current_node: Any, current_index: Any) -> None:
        return None

    def ascend_resolver(self) -> None:
        return None


class _Representer(SafeRepresenter):
    """The safe representer with our own rules (a subclass, so that ruamel's global
    SafeRepresenter stays as it is for everyone else)."""

    def ignore_aliases(self, data: Any) -> bool:
        # An object that occurs twice in the data (a shared schema dict) is written
        # twice: never as an anchor and alias, which the compiler's readers refuse.
        return True

    def represent_data(self, data: Any) -> Any:
        """Plain data straight to nodes, with the same styles as the representers below
        (which remain for any other type): ruamel's generic dispatch and alias
        bookkeeping cost more than the nodes themselves."""
        t = type(data)
        if t is str:
            if "\n" in data:
                return ScalarNode(_STR, data, style="|")
            return ScalarNode(_STR, data, style="'" if needs_quotes(data) else None)
        if t is dict:
            represent = self.represent_data
            return MappingNode(_MAP, [(represent(k), represent(v)) for k, v in data.items()], flow_style=False)
        if t is list:
            represent = self.represent_data
            return SequenceNode(_SEQ, [represent(v) for v in data], flow_style=False)
        if t is bool:
            return ScalarNode(_BOOL, "true" if data else "false")
        if t is int:
            return ScalarNode(_INT, str(data))
        if t is float:
            return ScalarNode(_FLOAT, float_text(data))
        if data is None:
            return ScalarNode(_NULL, "null")
        return super().represent_data(data)


for _type, _fn in ((str, _represent_str), (float, _represent_float), (int, _represent_int), (bool, _represent_bool),
                   (type(None), _represent_none), (list, _represent_list), (dict, _represent_dict)):
    _Representer.add_representer(_type, _fn)


class _Dumper(CEmitter, _Representer, _Resolver):  # type: ignore[misc]
    """libyaml's C emitter with our representer and resolver, assembled the way ruamel
    assembles its own C dumper (whose resolver cannot be replaced)."""

    def __init__(self, stream: Any) -> None:
        CEmitter.__init__(self, stream, width=WIDTH, allow_unicode=True)
        self._emitter = self._serializer = self._representer = self
        _Representer.__init__(self, default_style=None, default_flow_style=False)
        _Resolver.__init__(self)


def emit_yaml(data: Any) -> str:
    """`data` (dict, list, str, int, float, bool, None) as YAML text."""
    stream = io.StringIO()
    # Hundreds of thousands of nodes for a large workflow, over which CPython's collector
    # would run full collections again and again. None of them is cyclic garbage.
    collecting = gc.isenabled()
    gc.disable()
    try:
        dumper = _Dumper(stream)
        dumper.open()
        dumper.represent(data)
        dumper.close()
    finally:
        if collecting:
            gc.enable()
    return stream.getvalue()


def write_atomic(path: str | os.PathLike[str], text: str) -> None:
    """Write `text` (UTF-8) to `path` atomically: a temporary file beside it, fsync,
    then `os.replace`. On any failure the temporary file is removed, the previous
    file is untouched, and the error (an OSError) propagates. An existing file's
    permission bits are kept; a new file gets 0o666 minus the umask, like `open`.
    A symlink at `path` is replaced by the file, never written through."""
    target = os.fspath(path)
    directory = os.path.dirname(target) or "."
    base = os.path.basename(target)
    if not base:
        raise IsADirectoryError(f"not a file path: {target!r}")
    data = text.encode("utf-8")
    try:
        mode: int | None = stat.S_IMODE(os.lstat(target).st_mode) if not os.path.islink(target) else None
    except FileNotFoundError:
        mode = None
    if mode is None:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    fd, tmp = tempfile.mkstemp(prefix=f".{base}.", suffix=".tmp", dir=directory)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.chmod(tmp, mode)
        os.replace(tmp, target)
    except BaseException:
        try:
            os.unlink(tmp)
        except FileNotFoundError:
            pass
        raise
    _fsync_directory(directory)


def _fsync_directory(directory: str) -> None:
    """Make the rename durable (POSIX); a best effort where directories cannot be opened."""
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
