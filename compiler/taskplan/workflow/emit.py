"""Plain data -> workflow YAML text, deterministically; and atomic writes.

`emit_yaml(data)` writes block-style YAML through libyaml's C emitter (ruamel's
C extension), fed events directly:

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

import errno
import io
import os
import re
import stat
import tempfile
from taskplan.gcpause import gc_paused
from typing import Any

from _ruamel_yaml import CEmitter
from ruamel.yaml.events import (
    DocumentEndEvent,
    DocumentStartEvent,
    MappingEndEvent,
    MappingStartEvent,
    ScalarEvent,
    SequenceEndEvent,
    SequenceStartEvent,
    StreamEndEvent,
    StreamStartEvent,
)

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


_STR = (True, True)
"""A string: written plain when libyaml may (it quotes what its own rules need), else quoted."""
_PLAIN = (True, False)
"""A null, boolean or number: written plain, so that a reader resolves it to its type."""


def emit_yaml(data: Any) -> str:
    """`data` (dict, list, str, int, float, bool, None) as YAML text.

    The events go straight to libyaml's C emitter: ruamel's representer and
    serializer (a node per value, a tag object per node, alias bookkeeping) cost
    several times what the emitting itself does. Styles: mappings and sequences in
    block style, keys in insertion order; multi-line strings as literal blocks;
    strings a YAML 1.1 or 1.2 reader could take for something else single-quoted
    (`needs_quotes`); numbers, booleans and null plain. An object that occurs twice
    is written twice (never an anchor and alias). Tests compare the output with
    ruamel's own dumper, byte for byte."""
    stream = io.StringIO()
    emitter = CEmitter(stream, width=WIDTH, allow_unicode=True)
    emit = emitter.emit
    scalar = ScalarEvent
    # The emitter only reads events, so one event serves every occurrence of a short
    # string (keys, step types, common values): most scalars of a workflow repeat.
    strings: dict[str, ScalarEvent] = {}
    start_map = MappingStartEvent(None, None, True, flow_style=False)
    start_seq = SequenceStartEvent(None, None, True, flow_style=False)
    end_map, end_seq = MappingEndEvent(), SequenceEndEvent()

    def string(text: str) -> ScalarEvent:
        event = strings.get(text)
        if event is None:
            if "\n" in text:
                event = scalar(None, None, _STR, text, style="|")
            elif needs_quotes(text):
                event = scalar(None, None, _STR, text, style="'")
            else:
                event = scalar(None, None, _STR, text)
            if len(text) <= 64:
                strings[text] = event
        return event

    def node(value: Any) -> None:
        t = type(value)
        if t is str:
            emit(string(value))
        elif t is dict:
            emit(start_map)
            for k, v in value.items():
                node(k)
                node(v)
            emit(end_map)
        elif t is list:
            emit(start_seq)
            for v in value:
                node(v)
            emit(end_seq)
        elif value is None:
            emit(scalar(None, None, _PLAIN, "null"))
        elif t is bool:
            emit(scalar(None, None, _PLAIN, "true" if value else "false"))
        elif t is int:
            emit(scalar(None, None, _PLAIN, str(value)))
        elif t is float:
            emit(scalar(None, None, _PLAIN, float_text(value)))
        else:
            raise TypeError(f"cannot emit a {t.__name__} as workflow YAML")

    # Hundreds of thousands of events for a large workflow: none is cyclic garbage.
    with gc_paused():
        emit(StreamStartEvent(encoding=None))
        emit(DocumentStartEvent(explicit=False))
        node(data)
        emit(DocumentEndEvent(explicit=False))
        emit(StreamEndEvent())
    return stream.getvalue()


def write_atomic(path: str | os.PathLike[str], text: str) -> None:
    """Write `text` (UTF-8) to `path` atomically: a temporary file beside it, fsync,
    then `os.replace`. On any failure the temporary file is removed, the previous
    file is untouched, and the error (an OSError) propagates. An existing file's
    permission bits are kept; a new file gets 0o666 minus the umask, like `open`.
    A symlink at `path` is replaced by the file, never written through; a special
    file there (a device, a named pipe, a socket) is refused with an OSError, never
    replaced (as root, `-o /dev/null` would otherwise replace the device)."""
    target = os.fspath(path)
    directory = os.path.dirname(target) or "."
    base = os.path.basename(target)
    if not base:
        raise IsADirectoryError(f"not a file path: {target!r}")
    data = text.encode("utf-8")
    try:
        st: os.stat_result | None = os.lstat(target)
    except FileNotFoundError:
        st = None
    if st is not None and not (stat.S_ISREG(st.st_mode) or stat.S_ISLNK(st.st_mode)):
        raise OSError(errno.EINVAL, "not a regular file", target)
    mode: int | None = stat.S_IMODE(st.st_mode) if st is not None and stat.S_ISREG(st.st_mode) else None
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
