"""Searching the catalog (catalog.md, Search) and "did you mean" for unknown operations.

Ranking, exactly as catalog.md says:

- text is normalised: Unicode NFKD with combining marks dropped (accents),
  identifiers split (camelCase, snake_case, kebab-case, dots, slashes, any
  punctuation), case-folded: `getPullRequest`, `get_pull_request` and
  `get-pull-request` all give `get pull request`;
- each operation has three bags of tokens: its name (the operation ID and its
  title) weighted 3, its declared field names (the top-level property names of
  its input and output schemas) weighted 2, its description weighted 1;
- a query token that occurs in a bag adds `idf(token) x weight` (token overlap:
  presence, not counts), with `idf(t) = ln(1 + N / df(t))` over the whole
  catalog (N operations, df(t) of them containing t in any bag); a repeated
  query token counts once;
- results: every operation with a positive score, best first, ties broken by
  operation ID (then version); eight a page.

`suggest(catalog, unknown_id, k)` combines that ranking (with the unknown ID as
the query) with string similarity of the IDs, so that typos and different
word choices both find the intended operation.
"""

from __future__ import annotations

import difflib
import math
import re
import unicodedata
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from taskplan.catalog.load import Catalog, Operation

PAGE_SIZE = 8
WEIGHT_NAME = 3
WEIGHT_FIELDS = 2
WEIGHT_DESCRIPTION = 1

_CAMEL_1 = re.compile(r"([a-z0-9])([A-Z])")
_CAMEL_2 = re.compile(r"([A-Z]+)([A-Z][a-z])")
_WORD = re.compile(r"[^\W_]+")


def normalise(text: str) -> str:
    """Accents dropped (NFKD without combining marks), camelCase split, case-folded;
    punctuation and separators kept for `tokens` to split on."""
    if text.isascii():
        stripped = text  # nothing to decompose: the common case, kept fast
    else:
        decomposed = unicodedata.normalize("NFKD", text)
        stripped = "".join(c for c in decomposed if not unicodedata.combining(c))
    stripped = _CAMEL_2.sub(r"\1 \2", _CAMEL_1.sub(r"\1 \2", stripped))
    return stripped.casefold()


_NAME_TOKENS: dict[str, tuple[str, ...]] = {}


def _name_tokens(name: str) -> tuple[str, ...]:
    """`tokens` of a field name, memoised (the same names recur across operations)."""
    found = _NAME_TOKENS.get(name)
    if found is None:
        if len(_NAME_TOKENS) > 100_000:
            _NAME_TOKENS.clear()
        found = _NAME_TOKENS[name] = tuple(tokens(name))
    return found


def tokens(text: str | None) -> list[str]:
    """`getPullRequest`, `get_pull_request`, `get-pull-request`, `Get Pull Request`
    -> [`get`, `pull`, `request`]; `github.get_pull_request` -> [`github`, `get`, ...]."""
    if not text:
        return []
    return _WORD.findall(normalise(text))


@dataclass(frozen=True, slots=True)
class Hit:
    """One search result."""

    operation: "Operation"
    score: float
    matched: tuple[str, ...]
    """The query tokens the operation contains, in query order."""


class SearchIndex:
    """An inverted index over one catalog: token -> [(operation position, weight)]."""

    def __init__(self, operations: tuple["Operation", ...]):
        self.operations = operations
        postings: dict[str, list[tuple[int, int]]] = {}
        for position, op in enumerate(operations):
            weights: dict[str, int] = {}
            for token in set(tokens(op.id)) | set(tokens(op.title)):
                weights[token] = weights.get(token, 0) + WEIGHT_NAME
            field_tokens: set[str] = set()
            for name in op.input_names + op.output_names:
                field_tokens.update(_name_tokens(name))
            for token in field_tokens:
                weights[token] = weights.get(token, 0) + WEIGHT_FIELDS
            for token in set(tokens(op.description)):
                weights[token] = weights.get(token, 0) + WEIGHT_DESCRIPTION
            for token, weight in weights.items():
                postings.setdefault(token, []).append((position, weight))
        self.postings = postings
        n = len(operations)
        self.idf = {t: math.log(1.0 + n / len(p)) for t, p in postings.items()}

    def scores(self, query: str) -> dict[int, tuple[float, list[str]]]:
        """Operation position -> (score, matched tokens) for every operation with a match."""
        wanted = list(dict.fromkeys(tokens(query)))
        out: dict[int, tuple[float, list[str]]] = {}
        for token in sorted(wanted):
            posting = self.postings.get(token)
            if not posting:
                continue
            idf = self.idf[token]
            for position, weight in posting:
                score, matched = out.get(position, (0.0, []))
                matched.append(token)
                out[position] = (score + idf * weight, matched)
        order = {t: i for i, t in enumerate(wanted)}
        for position, (score, matched) in out.items():
            matched.sort(key=order.__getitem__)
        return out

    def search(self, query: str) -> list[Hit]:
        hits = [
            Hit(self.operations[p], score, tuple(matched))
            for p, (score, matched) in self.scores(query).items()
            if score > 0
        ]
        hits.sort(key=_hit_key)
        return hits


def _hit_key(hit: Hit) -> tuple:
    from taskplan.catalog.load import version_key

    return (-hit.score, hit.operation.id, version_key(hit.operation.version))


def index_of(catalog: "Catalog") -> SearchIndex:
    """The catalog's search index, built once."""
    index = getattr(catalog, "_index", None)
    if index is None:
        index = SearchIndex(catalog.operations)
        catalog._index = index
    return index


def search(catalog: "Catalog", query: str) -> list[Hit]:
    """Every operation matching `query`, best first (ties by ID)."""
    return index_of(catalog).search(query)


def page(hits: list[Hit], number: int, size: int = PAGE_SIZE) -> list[Hit]:
    """Page `number` (1-based) of `hits`: eight results a page."""
    if number < 1:
        return []
    return hits[(number - 1) * size : number * size]


def page_count(total: int, size: int = PAGE_SIZE) -> int:
    return max(1, -(-total // size))


SIMILARITY_WEIGHT = 0.7
RANK_WEIGHT = 0.3
SUGGEST_THRESHOLD = 0.45


def similarity(a: str, b: str) -> float:
    """String similarity of two IDs in [0, 1]: the better of the whole IDs and of their
    last segments (`github.get_pr` vs `get_pull_request`), on normalised text."""
    na, nb = " ".join(tokens(a)), " ".join(tokens(b))
    best = difflib.SequenceMatcher(None, na, nb, autojunk=False).ratio()
    ta, tb = _tail(a), _tail(b)
    if ta != a or tb != b:
        tail = difflib.SequenceMatcher(None, " ".join(tokens(ta)), " ".join(tokens(tb)), autojunk=False).ratio()
        best = max(best, tail * 0.95)
    return best


def _tail(op_id: str) -> str:
    cut = max(op_id.rfind("."), op_id.rfind("/"), op_id.rfind(":"))
    return op_id[cut + 1 :] if cut >= 0 else op_id


def suggest(catalog: "Catalog", unknown_id: str, k: int = 3) -> list[str]:
    """Up to `k` operation IDs close to `unknown_id`, best first (ties by ID): a blend of
    ID similarity (typos) and the search ranking with the unknown ID's words as the
    query (synonymous wording); only IDs above a closeness threshold."""
    from taskplan.catalog.load import split_ref

    unknown_id = split_ref(unknown_id)[0]
    if k <= 0 or not catalog.operations:
        return []
    index = index_of(catalog)
    ranked = index.scores(unknown_id)
    best_rank: dict[str, float] = {}
    for position, (score, _) in ranked.items():
        op_id = index.operations[position].id
        best_rank[op_id] = max(best_rank.get(op_id, 0.0), score)
    top = max(best_rank.values(), default=0.0)
    scored: list[tuple[float, str]] = []
    for op_id in catalog.ids():
        rank = best_rank.get(op_id, 0.0) / top if top > 0 else 0.0
        sim = similarity(unknown_id, op_id)
        combined = SIMILARITY_WEIGHT * sim + RANK_WEIGHT * rank
        if combined >= SUGGEST_THRESHOLD:
            scored.append((combined, op_id))
    scored.sort(key=lambda s: (-s[0], s[1]))
    return [op_id for _, op_id in scored[:k]]
