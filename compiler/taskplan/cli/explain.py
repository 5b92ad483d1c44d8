"""`taskplan explain CODE [--format text|json]` and `taskplan explain --list`."""

from __future__ import annotations

import difflib
import json
import textwrap

import click

from taskplan.cli._common import EXIT_OK, EXIT_USAGE, guard, write
from taskplan.diagnostics.docs import codes_by_family, owner_text
from taskplan.diagnostics.registry import REGISTRY, CodeInfo
from taskplan.diagnostics.render_text import clean


@click.command()
@click.argument("code", required=False)
@click.option("--list", "list_", is_flag=True, help="List every code with its title.")
@click.option(
    "--format", "fmt", type=click.Choice(["text", "json"]), default="text", show_default=True, help="Output format."
)
@guard
def explain(code: str | None, list_: bool, fmt: str) -> int:
    """Explain a diagnostic code: what it means, a wrong and a right example."""
    if list_:
        if code is not None:
            raise click.UsageError("give either a CODE or --list, not both")
        write(_list(fmt))
        return EXIT_OK
    if code is None:
        raise click.UsageError("missing CODE (or --list to see them all)")
    wanted = code.strip().upper()
    info = REGISTRY.get(wanted)
    if info is None:
        message = f"error: unknown diagnostic code `{clean(code)}`"
        close = difflib.get_close_matches(wanted, list(REGISTRY), n=3, cutoff=0.6)
        if not close and len(wanted) >= 3:
            close = [c for c in REGISTRY if wanted in c][:3]
        if close:
            names = [f"`{c}`" for c in close]
            options = names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]
            message += f"\n  = help: did you mean {options}?"
        message += "\n  = note: `taskplan explain --list` lists every code\n"
        write(message, err=True)
        return EXIT_USAGE
    write(_json(info) if fmt == "json" else _text(info))
    return EXIT_OK


def _as_dict(info: CodeInfo) -> dict[str, str]:
    return {
        "code": info.code,
        "title": info.title,
        "family": info.family,
        "owner": info.owner,
        "severity": info.severity.value,
        "explanation": info.explanation,
        "wrong": info.wrong,
        "right": info.right,
        "catalog": info.catalog,
    }


def _json(info: CodeInfo) -> str:
    return json.dumps(_as_dict(info), ensure_ascii=False, indent=2) + "\n"


def _text(info: CodeInfo) -> str:
    out = [
        f"{info.code}: {info.title}",
        "",
        f"family: {info.family}; reported by {owner_text(info.owner)}; severity: {info.severity.value}",
        "",
        textwrap.fill(" ".join(info.explanation.split()), width=80),
    ]
    for label, body in (("Wrong", info.wrong), ("Right", info.right), ("Catalog used by the examples", info.catalog)):
        if body:
            out += ["", f"{label}:", "", textwrap.indent(body.rstrip("\n"), "    ", lambda _line: True)]
    if not (info.wrong or info.right):
        out += ["", "(No example yet.)"]
    return "\n".join(out) + "\n"


def _list(fmt: str) -> str:
    grouped = codes_by_family()
    if fmt == "json":
        rows = [{"code": i.code, "title": i.title, "family": family} for family, infos in grouped for i in infos]
        return json.dumps(rows, ensure_ascii=False, indent=2) + "\n"
    width = max((len(code) for code in REGISTRY), default=0)
    out: list[str] = []
    for family, infos in grouped:
        if out:
            out.append("")
        out.append(f"{family}:")
        out += [f"  {i.code:<{width}}  {i.title}" for i in infos]
    return "\n".join(out) + "\n"
