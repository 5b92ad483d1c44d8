"""What every subcommand that reports diagnostics shares: the `--format` and
`--color` options, the renderer registry, writing to stdout/stderr, exit codes,
and the guard that turns a bug into exit code 3 instead of a traceback.

A command reads its inputs through the API and ends with `emit(...)`:

    @click.command()
    @click.argument("plans", nargs=-1, required=True)
    @format_option()
    @color_option()
    @guard
    def check(plans, fmt, color):
        run = api.check_plans(plans)
        report_unreadable(run.input_errors, color)
        emit(run.diagnostics, fmt=fmt, color=color, documents=run.documents, files=run.checked)
        return run.exit_code
"""

from __future__ import annotations

import functools
import importlib
import os
import shlex
import sys
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import IO, TYPE_CHECKING, Any

import click

from taskplan.api import EXIT_ERRORS, EXIT_INTERNAL, EXIT_OK, EXIT_USAGE, UnreadableInput

if TYPE_CHECKING:
    from taskplan.diagnostics import Diagnostic
    from taskplan.diagnostics.stale import StaleWorkflow
    from taskplan.source.document import SourceDocument

__all__ = [
    "EXIT_ERRORS",
    "EXIT_INTERNAL",
    "EXIT_OK",
    "EXIT_USAGE",
    "RENDERERS",
    "InputFiles",
    "color_option",
    "compile_command",
    "emit",
    "format_option",
    "guard",
    "ignore_option",
    "refuse_overwriting_inputs",
    "renderer",
    "report_unreadable",
    "stale_message",
    "use_color",
    "write",
]

RENDERERS: dict[str, str] = {
    "text": "taskplan.diagnostics.render_text:render",
    "json": "taskplan.diagnostics.render_json:render",
    "sarif": "taskplan.diagnostics.render_sarif:render",
    "github": "taskplan.diagnostics.render_github:render",
}
"""`--format` name -> "module:function". A renderer is one module whose function takes
`(diagnostics, *, documents, files, unreadable, color, noun, stale) -> str`; adding a
format (sarif, github) is that module and one line here."""


def renderer(name: str) -> Callable[..., str]:
    module_name, attr = RENDERERS[name].split(":")
    return getattr(importlib.import_module(module_name), attr)


def format_option(default: str = "text") -> Callable:
    """`--format text|json|...` (every registered renderer), stored as `fmt`."""
    return click.option(
        "--format",
        "fmt",
        type=click.Choice(list(RENDERERS)),
        default=default,
        show_default=True,
        help="How to write the diagnostics.",
    )


def color_option() -> Callable:
    """`--color auto|always|never`, stored as `color`."""
    return click.option(
        "--color",
        type=click.Choice(["auto", "always", "never"]),
        default="auto",
        show_default=True,
        help="Colour the text output: auto = only on a terminal and when NO_COLOR is not set.",
    )


def ignore_option() -> Callable:
    """`--ignore CODE` (repeatable), stored as `ignore`: warning codes to silence, added to
    `ignore` of [tool.taskplan]. An unknown code or an error's code is bad usage."""

    def check(ctx: click.Context, param: click.Parameter, values: tuple[str, ...]) -> tuple[str, ...]:
        from taskplan.project import ignore_problem

        for code in values:
            problem = ignore_problem(code)
            if problem is not None:
                message, hint = problem
                raise click.BadParameter(message + (f" ({hint})" if hint else ""), ctx=ctx, param=param)
        return values

    return click.option(
        "--ignore",
        "ignore",
        multiple=True,
        metavar="CODE",
        callback=check,
        help="Silence a warning code (repeatable; adds to `ignore` of [tool.taskplan]). Errors cannot be silenced.",
    )


def use_color(choice: str, stream: IO[Any] | None = None) -> bool:
    """Whether to colour output on `stream` (stdout by default). `auto` colours only a
    terminal, and never when NO_COLOR is set to any value; an explicit
    `--color always|never` wins, as no-color.org asks of command-line flags."""
    if choice == "always":
        return True
    if choice == "never" or "NO_COLOR" in os.environ:
        return False
    stream = stream if stream is not None else sys.stdout
    try:
        return bool(stream.isatty())
    except (AttributeError, ValueError):
        return False


def write(text: str, *, err: bool = False) -> None:
    """Write `text` as UTF-8 whatever the locale (a lone surrogate is escaped, never
    fatal). A closed pipe (`taskplan check ... | head`) ends the output quietly."""
    stream = sys.stderr if err else sys.stdout
    try:
        binary = getattr(stream, "buffer", None)
        if binary is None:  # a replaced stream without bytes underneath
            stream.write(text)
            stream.flush()
        else:
            stream.flush()
            binary.write(text.encode("utf-8", "backslashreplace"))
            binary.flush()
    except BrokenPipeError:
        # Python would complain again when flushing at exit: point stdout at nothing.
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, (sys.stderr if err else sys.stdout).fileno())
        except (OSError, ValueError, AttributeError):
            pass
        finally:
            os.close(devnull)


def emit(
    diagnostics: Sequence["Diagnostic"],
    *,
    fmt: str,
    color: str = "auto",
    documents: Mapping[str, "SourceDocument"] | None = None,
    files: int = 0,
    unreadable: int = 0,
    noun: str = "plan",
    stale: Sequence["StaleWorkflow"] | None = None,
    err: bool = False,
) -> None:
    """Render `diagnostics` (and the `stale` workflows of a command that compares them)
    in format `fmt` to stdout (`err`: to stderr)."""
    text = renderer(fmt)(
        diagnostics,
        documents=documents or {},
        files=files,
        unreadable=unreadable,
        color=use_color(color, sys.stderr if err else None),
        noun=noun,
        stale=stale,
    )
    write(text, err=err)


def compile_command(
    plan: str,
    *,
    catalogs: Iterable[str | os.PathLike[str]] = (),
    auto: bool = False,
    choose: Mapping[str, str] | None = None,
    output: str | None = None,
) -> str:
    """The `taskplan compile` command line that writes the same workflow, shell-quoted:
    every option that changes its bytes (the catalogs given on the command line, the
    configured ones being read again; `--auto`; `--choose`) and `-o OUT` (None: the
    configured `output-dir` places it). Run from the same directory (the plan's path is
    recorded as given)."""
    options: list[str] = []
    for catalog in catalogs:
        options += ["--catalog", os.fspath(catalog)]
    if auto:
        options.append("--auto")
    for choice, alternative in (choose or {}).items():
        options += ["--choose", f"{choice}={alternative}"]
    if output is not None:
        options += ["-o", output]
    if plan.startswith("-"):  # not an option: after `--`
        return shlex.join(["taskplan", "compile", *options, "--", plan])
    return shlex.join(["taskplan", "compile", plan, *options])


def stale_message(state: str, workflow: str, command: str) -> str:
    """What `compile --check` and `gate` say about a stale or missing workflow."""
    if state == "missing":
        return f"{workflow} does not exist: compile it with `{command}`"
    return f"{workflow} is stale: recompile it with `{command}` and review the change"


class InputFiles:
    """The files a command reads (plan, catalogs, project configuration, tools list), so
    that its output never replaces one of them: the same path, or the same file through a
    symlink or a hard link. Each input is stat'ed once; `clash` costs one stat."""

    __slots__ = ("_ids", "_paths")

    def __init__(self, inputs: Iterable[tuple[str | os.PathLike[str], str]] = ()):
        self._ids: dict[tuple[int, int], str] = {}
        self._paths: dict[str, str] = {}
        for path, role in inputs:
            self.add(path, role)

    def add(self, path: str | os.PathLike[str], role: str) -> None:
        """`role` names the input in a message: `the plan itself`, `the catalog c.yaml`."""
        identity = _identity(path)
        if identity is not None:
            self._ids.setdefault(identity, role)
        self._paths.setdefault(_path_key(path), role)

    def clash(self, output: str | os.PathLike[str]) -> str | None:
        """The role of the input that writing `output` would replace, or None."""
        identity = _identity(output)
        if identity is not None and identity in self._ids:
            return self._ids[identity]
        return self._paths.get(_path_key(output))


def _identity(path: str | os.PathLike[str]) -> tuple[int, int] | None:
    try:
        st = os.stat(path)  # through a symlink
    except (OSError, ValueError):
        return None
    if st.st_ino == 0:  # no inode numbers here: compare paths only
        return None
    return st.st_dev, st.st_ino


def _path_key(path: str | os.PathLike[str]) -> str:
    try:
        return os.path.normcase(os.path.abspath(path))
    except ValueError:  # an embedded NUL
        return os.fspath(path)


def refuse_overwriting_inputs(output: str, inputs: InputFiles, what: str, hint: str = "choose another -o") -> None:
    """Bad usage (exit 2, nothing written) when writing `output` would replace an input:
    `the workflow would overwrite the plan itself (OUT): choose another -o`."""
    role = inputs.clash(output)
    if role is not None:
        raise click.UsageError(f"{what} would overwrite {role} ({output}): {hint}")


def report_unreadable(errors: Iterable[UnreadableInput], color: str = "auto") -> None:
    """`error: cannot read plans/x.yaml: no such file`, one line per input, on stderr."""
    coloured = use_color(color, sys.stderr)
    head = "\x1b[1;31merror\x1b[0m" if coloured else "error"
    for error in errors:
        write(f"{head}: cannot read {error.path}: {error.reason}\n", err=True)


def guard(command: Callable[..., int]) -> Callable[..., None]:
    """Wrap a command body that returns an exit code: exit with it, and turn an
    unexpected exception (a bug of ours) into a one-line message and exit code 3
    (Ctrl-C: exit code 130, no traceback)."""

    @functools.wraps(command)
    def wrapper(*args: Any, **kwargs: Any) -> None:
        try:
            code = command(*args, **kwargs)
        except (click.exceptions.ClickException, click.exceptions.Exit, click.exceptions.Abort):
            raise
        except KeyboardInterrupt:  # Ctrl-C: stop quietly, as shells expect
            write("\ninterrupted\n", err=True)
            code = 130
        except Exception as exc:  # noqa: BLE001
            from taskplan.api import internal_error

            diagnostic = internal_error("<taskplan>", "command-line", exc)
            write(f"error[{diagnostic.code}]: {diagnostic.message}\n  = help: {diagnostic.hint}\n", err=True)
            code = EXIT_INTERNAL
        raise click.exceptions.Exit(code)

    return wrapper
