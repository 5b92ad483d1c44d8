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
      | [-+][0-9_]+  # `-_0`: ruamel's 1.2 int is [-+]?[0-9_]+ (unsigned, only from a digit)
      | [-+]?0[xX][0-9a-fA-F_]+ | [-+]?0[oO]?[0-7_]+ | [-+]?0[bB][01_]+
      | [-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?
      | [-+]?\.?(?:inf|Inf|INF|infinity|Infinity|INFINITY) | \.?(?:nan|NaN|NAN)
      | [0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:(?:[Tt]|[ \t]+)[0-9]{1,2}:[0-9]{2}:[0-9]{2}(?:\.[0-9]*)?(?:[ \t]*(?:Z|[-+][0-9]{1,2}(?::[0-9]{2})?))?)?
      | <<|=
    )$""",
    re.VERBOSE,
)


_AMBIGUOUS_FIRST = frozenset("yYnNtTfFoOiI~-+.0123456789<=")
"""Every character an `_AMBIGUOUS` scalar can start with (a test checks it): most
strings of a workflow (`${...}`, `/pointers`, `__ids`) skip the regex."""


def needs_quotes(text: str) -> bool:
    """Whether a plain scalar `text` could be read as something other than this string."""
    return text == "" or (text[0] in _AMBIGUOUS_FIRST and _AMBIGUOUS.match(text) is not None)


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

    Styles: mappings and sequences in block style, keys in insertion order;
    multi-line strings as literal blocks; strings a YAML 1.1 or 1.2 reader could
    take for something else single-quoted (`needs_quotes`); numbers, booleans and
    null plain. An object that occurs twice is written twice (never an anchor and
    alias). The text is exactly what libyaml's C emitter writes for these events
    (`emit_yaml_events`, the reference): a compiled workflow (block collections of
    short plain or quoted scalars) is written directly by `_BlockWriter`, several
    times faster than feeding the C emitter one event object per node; anything
    the writer does not reproduce exactly (a root scalar, a non-string key, a key
    over 128 bytes, a string with a control or astral character, a literal block
    with trailing blank lines or one libyaml would double-quote, a non-JSON type)
    goes to the reference instead. Tests compare the two byte for byte."""
    try:
        with gc_paused():
            return _BlockWriter().document(data)
    except (_Unsupported, RecursionError):
        return emit_yaml_events(data)


def emit_yaml_events(data: Any) -> str:
    """`emit_yaml` through libyaml's C emitter: the reference implementation, and the
    path for whatever the block writer (`_BlockWriter`) does not handle.

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


class _Unsupported(Exception):
    """Something `_BlockWriter` does not reproduce exactly: the reference emitter writes it."""


# The characters libyaml writes as they are, in any style: its IS_PRINTABLE (with
# allow_unicode) minus U+2028 and U+2029, which it takes for line breaks.
_PRINTABLE_LINE = re.compile("[\x20-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd]*")
# A character outside IS_PRINTABLE (a tab, a control character, U+0080-U+009F, a BOM,
# an astral character): libyaml writes the whole string double-quoted, with escapes.
_SPECIAL = re.compile("[^\n\x20-\x7e\xa0-\ud7ff\ue000-\ufefe\uff00-\ufffd]")
# What a double-quoted scalar escapes: the above, line breaks, `"` and `\`.
_DOUBLE_ESCAPED = re.compile(r"[^\x20\x21\x23-\x5b\x5d-\x7e\xa0-\u2027\u202a-\ud7ff\ue000-\ufefe\uff00-\ufffd]")
_ESCAPES = {
    "\0": "\\0", "\a": "\\a", "\b": "\\b", "\t": "\\t", "\n": "\\n", "\v": "\\v", "\f": "\\f",
    "\r": "\\r", "\x1b": "\\e", '"': '\\"', "\\": "\\\\", "\x85": "\\N", "\u2028": "\\L", "\u2029": "\\P",
}


def _escape(match: re.Match[str]) -> str:
    char = match.group()
    escape = _ESCAPES.get(char)
    if escape is not None:
        return escape
    code = ord(char)
    if 0xD800 <= code <= 0xDFFF:  # a lone surrogate: no UTF-8 for it (the reference raises)
        raise _Unsupported
    return f"\\x{code:02X}" if code <= 0xFF else f"\\u{code:04X}" if code <= 0xFFFF else f"\\U{code:08X}"


def _double_quoted(text: str) -> str:
    """libyaml's double-quoted scalar, never folded (the width is unlimited)."""
    return '"' + _DOUBLE_ESCAPED.sub(_escape, text) + '"'


_LEADING_INDICATORS = frozenset("#,[]{}&*!|>'\"%@`")
_SIMPLE_KEY_BYTES = 128
"""libyaml writes a longer key (in UTF-8 bytes), or one with a line break, as an explicit `? key` entry."""
_LINE_BREAK = re.compile("[\n\r\x85\u2028\u2029]")
_SPACE_BREAK = re.compile(" [\n\r\x85\u2028\u2029]")


def _plain_allowed(text: str) -> bool:
    """libyaml's `block_plain_allowed` for a non-empty one-line printable string
    (yaml_emitter_analyze_scalar): no leading or trailing space, no indicator where
    a reader would take it for one."""
    first = text[0]
    if first in _LEADING_INDICATORS or first == " " or text[-1] == " ":
        return False
    if first in "?:-" and (len(text) == 1 or text[1] == " "):
        return False
    if text.startswith(("---", "...")):
        return False
    return ": " not in text and text[-1] != ":" and " #" not in text


_PLAIN_FIRST = frozenset(map(chr, range(0x21, 0x7F))) - _LEADING_INDICATORS - _AMBIGUOUS_FIRST - set("?:-.")
"""First characters of a printable ASCII string that libyaml may write plain (no
indicator, no `---`/`...`) and that no ambiguous scalar starts with."""


def _one_line(text: str) -> str:
    """A string without `\\n` as libyaml writes it: plain; single-quoted when asked to be
    or when plain is not allowed; double-quoted when it has a non-printable character.
    _Unsupported for U+2028 or U+2029 in a string written otherwise (libyaml breaks the
    line there)."""
    if text.isascii():
        if not text.isprintable():
            return _double_quoted(text)
    elif not _PRINTABLE_LINE.fullmatch(text):
        if _SPECIAL.search(text):
            return _double_quoted(text)
        raise _Unsupported
    if needs_quotes(text) or not _plain_allowed(text):
        return "'" + text.replace("'", "''") + "'"
    return text


def _literal(text: str, pad: str) -> str:
    """A string with `\\n` as libyaml writes it: a literal block (` |`, ` |-`, with `2`
    when it starts with a space or a line break), its lines after `pad` (a line break
    and the content's indentation), blank lines without indentation, the final line
    break (clip) left to whatever follows; double-quoted when a line ends in a space or
    it has a non-printable character. _Unsupported for trailing blank lines (`|+`, which
    also makes libyaml end the document with `...`) and for U+2028 or U+2029."""
    if text[-1] == " " or _SPACE_BREAK.search(text) or _SPECIAL.search(text):
        return " " + _double_quoted(text)
    if "\u2028" in text or "\u2029" in text:
        raise _Unsupported
    if text[-1] == "\n":
        if len(text) == 1 or text[-2] == "\n":
            raise _Unsupported
        chomp, body = "", text[:-1]
    else:
        chomp, body = "-", text
    head = " |2" if text[0] in " \n" else " |"
    return head + chomp + "".join(pad + line if line else "\n" for line in body.split("\n"))


class _BlockWriter:
    """The block-style YAML text libyaml's emitter writes for emit_yaml's events, written
    directly: a mapping's keys and a sequence's dashes at its indentation, a nested
    mapping two columns deeper, a sequence under a key at the key's own column
    (indentless), a collection in a sequence item starting on the dash's line, empty
    collections as `{}` / `[]`, a scalar's lines two columns deeper than its collection.
    Each entry starts with `lead`: a line break and the indentation, or (for the first
    entry of a collection in a sequence item) the space after the dash."""

    __slots__ = ("out", "values", "keys")

    def __init__(self) -> None:
        self.out: list[str] = []
        self.values: dict[str, str] = {}
        """One-line string -> ` ` + the scalar: most values of a workflow repeat."""
        self.keys: dict[str, str] = {}
        """Key -> the scalar + `:`."""

    def document(self, data: Any) -> str:
        t = type(data)
        if t is dict and data:
            self.mapping(data, "\n", "")
        elif t is list and data:
            self.sequence(data, "\n", "")
        else:  # a root scalar or empty collection: libyaml adds document markers
            raise _Unsupported
        self.out.append("\n")
        return "".join(self.out)

    def key(self, key: Any) -> str:
        if type(key) is not str or _LINE_BREAK.search(key) or (
            len(key) > _SIMPLE_KEY_BYTES // 4 and len(key.encode("utf-8")) > _SIMPLE_KEY_BYTES
        ):
            raise _Unsupported
        text = self.keys[key] = _one_line(key) + ":"
        return text

    def string(self, value: str, pad: str) -> str:
        if "\n" in value:
            return _literal(value, pad)
        if (
            value[:1] in _PLAIN_FIRST
            and value.isascii()
            and value.isprintable()
            and value[-1] not in " :"
            and ": " not in value
            and " #" not in value
        ):  # the common case (`${...}`, pointers, IDs), `_one_line` in one expression
            text = " " + value
        else:
            text = " " + _one_line(value)
        self.values[value] = text
        return text

    def mapping(self, data: dict, pad: str, lead: str) -> None:
        w = self.out.append
        keys, values = self.keys, self.values
        inner = pad + "  "
        for k, v in data.items():
            if type(k) is not str:  # the cache below matches by equality, not type
                raise _Unsupported
            w(lead)
            w(keys.get(k) or self.key(k))
            t = type(v)
            if t is str:
                w(values.get(v) or self.string(v, inner))
            elif t is dict:
                if v:
                    self.mapping(v, inner, inner)
                else:
                    w(" {}")
            elif t is list:
                if v:
                    self.sequence(v, pad, pad)
                else:
                    w(" []")
            else:
                w(_plain(v, t))
            lead = pad

    def sequence(self, data: list, pad: str, lead: str) -> None:
        w = self.out.append
        values = self.values
        inner = pad + "  "
        for v in data:
            w(lead)
            w("-")
            t = type(v)
            if t is str:
                w(values.get(v) or self.string(v, inner))
            elif t is dict:
                if v:
                    self.mapping(v, inner, " ")
                else:
                    w(" {}")
            elif t is list:
                if v:
                    self.sequence(v, inner, " ")
                else:
                    w(" []")
            else:
                w(_plain(v, t))
            lead = pad


def _plain(value: Any, t: type) -> str:
    """` ` + a null, boolean or number as a plain scalar; _Unsupported for any other type
    (the reference raises its TypeError)."""
    if value is None:
        return " null"
    if t is bool:
        return " true" if value else " false"
    if t is int:
        return " " + str(value)
    if t is float:
        return " " + float_text(value)
    raise _Unsupported


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
