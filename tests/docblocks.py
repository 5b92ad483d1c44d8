"""The fenced code blocks of a Markdown page, for the tests that run what docs/ shows."""

from __future__ import annotations

from pathlib import Path


def fenced_blocks(page: Path, language: str) -> list[str]:
    """The fenced code blocks of `page` in `language` (`""` for plain ones), in order."""
    blocks: list[tuple[str, str]] = []
    fence: str | None = None
    body: list[str] = []
    for line in page.read_text(encoding="utf-8").splitlines(keepends=True):
        if fence is None and line.startswith("```"):
            fence, body = line[3:].strip(), []
        elif fence is not None and line.rstrip("\n") == "```":
            blocks.append((fence, "".join(body)))
            fence = None
        elif fence is not None:
            body.append(line)
    return [text for lang, text in blocks if lang == language]


def fenced_block(page: Path, language: str, containing: str) -> str:
    """The one block of `page` in `language` that contains `containing`."""
    (block,) = [b for b in fenced_blocks(page, language) if containing in b]
    return block
