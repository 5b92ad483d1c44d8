"""One policy for CPython's cyclic garbage collector during a compile.

Every pass allocates tens or hundreds of thousands of long-lived container
objects (document trees, source-map positions, models, IR nodes, graph steps)
over a live heap that grows with the plan. The generational collector then runs
full collections that traverse the whole heap again and again, costing more
than the passes themselves and making time grow faster than the plan. So the
collector is paused while a pipeline runs.

Pausing is not free of consequences: the IRs are cyclic (parent links, passes
that hold their tables), so what a pipeline leaves behind is cyclic garbage,
and objects moved to the oldest generation at once (see `gc_paused`) are not
counted by the collector's own trigger for full collections. A process that
runs many pipelines (`check_plans`, a planning loop, a long-lived service)
would then grow without bound. So the policy keeps its own count: the objects
its pauses handed to the oldest generation since the last full collection it
ran; when a pause starts and that count exceeds both a floor and the number of
objects that survived that collection, it runs one full collection first. Each
collection traverses at most about twice what the pipelines since the last one
allocated, so the cost stays linear in the work done, and a single compile (a
`taskplan compile` process) never pays for one.

The API runs the whole pipeline inside `gc_paused()`; the readers, passes and
the emitter use it too, so they stay fast when called on their own (benchmarks,
tests). Nested pauses are no-ops.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager

COLLECT_FLOOR = 250_000
"""Objects handed to the oldest generation before a full collection is worth running
(about 30-50 MB of small objects)."""

_pending = 0
"""Objects the pauses moved to the oldest generation since the last full collection."""
_survivors = 0
"""Objects tracked by the collector after the last full collection this policy ran."""


def _on_collect(phase: str, info: dict[str, int]) -> None:
    """A full collection run by anyone (the process's own `gc.collect()`, the collector's
    trigger) has freed what the pauses left: start counting again."""
    global _pending
    if phase == "stop" and info.get("generation") == 2:
        _pending = 0


gc.callbacks.append(_on_collect)


@contextmanager
def gc_paused() -> Iterator[None]:
    """Pause the cyclic collector; on exit restore it, with what was built moved to the
    oldest generation at once (freeze then unfreeze merges every generation into it),
    so the next allocation does not traverse it all as young objects. Before pausing,
    collect the garbage earlier pauses left once there is enough of it (module docstring)."""
    global _pending, _survivors
    was_enabled = gc.isenabled()
    if was_enabled:
        if _pending > COLLECT_FLOOR and _pending > _survivors:
            gc.collect()  # resets _pending through _on_collect
            _survivors = len(gc.get_objects())
        gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            _pending += gc.get_count()[0]  # tracked objects allocated (net) while paused
            gc.freeze()
            gc.unfreeze()
            gc.enable()
