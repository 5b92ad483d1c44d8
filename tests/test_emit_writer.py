"""emit_yaml's block writer against its reference, libyaml's C emitter fed events
(`emit_yaml_events`): byte for byte on compiled workflows and on random data built
to reach every branch of libyaml's scalar analysis; what the writer does not
handle goes to the reference."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from taskplan.workflow import emit as E
from taskplan.workflow.emit import emit_yaml, emit_yaml_events

# Characters around every decision libyaml makes about a scalar: indicators at the
# start and inside, spaces and line breaks at either end and next to each other,
# quotes, non-printable, non-ASCII, astral and separator characters, letters and
# digits that make YAML 1.1 booleans and numbers.
TRICKY = " \n\t\r:#-?.'\"|>!&*%@`,[]{}$~+=<_yYnNoOtTfFeEiI0179xé\xa0\x85\u2028\u2029\ufeff\ufffd\ue000\x00\x7f🎉"

tricky_text = st.text(alphabet=TRICKY, max_size=10)
# multi-line strings (literal blocks): lines of mostly ordinary text, some empty, some
# starting or ending with a space, and now and then a tricky character
lines = st.one_of(st.just(""), st.text(alphabet="ab :#-' ", max_size=6), st.text(alphabet=TRICKY.replace("\n", ""), max_size=4))
multi_line = st.builds(lambda ls, end: "\n".join(ls) + end, st.lists(lines, min_size=2, max_size=5), st.sampled_from(["", "\n", "\n\n"]))
texts = st.one_of(
    tricky_text,
    multi_line,
    st.text(max_size=12),
    st.sampled_from(["yes", "No", "~", "null", "1e3", ".5", "12:30", "2024-01-01", "<<", "=", "---", "...", "- x",
                     "a: b", "a:", "x #y", "${data.steps.a.value}", '${data.steps["__a.b"].value}', "/root/tasks/0"]),
    # around libyaml's 128-byte limit on a simple key (UTF-8 bytes, not characters)
    st.builds(lambda n, c: c * n, st.integers(40, 130), st.sampled_from(["a", "é", "€"])),
)
scalars = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(), texts)
trees = st.recursive(
    scalars,
    lambda children: st.one_of(st.lists(children, max_size=4), st.dictionaries(texts, children, max_size=4)),
    max_leaves=25,
)


def _writer(data):
    """The block writer alone: its text, or None where it hands the data to the reference."""
    try:
        return E._BlockWriter().document(data)
    except E._Unsupported:
        return None


@settings(max_examples=600, deadline=None)
@given(trees)
@example({"k": "a\n\n"})
@example({"k": ["\nq\n", " y\nz", "x\n", "a\n\nb\n", "a \nb", "a\n b"]})
@example([[], {}, [[1, [2, "x\ny"]]], {"a": [{"b": [{"c": "l1\nl2"}]}]}])
@example({"é" * 42: 1, "é" * 43: 2, "a" * 128: 3, "a" * 129: 4})
def test_writer_matches_libyaml(data):
    reference = emit_yaml_events(data)
    assert emit_yaml(data) == reference
    fast = _writer(data)
    assert fast is None or fast == reference


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(texts, trees, min_size=1, max_size=4))
def test_writer_matches_libyaml_under_a_mapping(data):
    """Mostly the shape of a workflow: a root mapping."""
    assert emit_yaml(data) == emit_yaml_events(data)


@pytest.mark.parametrize("value", [1, "x", None, [], {}, {1: "a"}, {"a": (1, 2)}, {"a": 1.5j}, [b"x"]])
def test_unusual_data_goes_to_the_reference(value):
    assert _writer(value) is None
    try:
        expected = emit_yaml_events(value)
    except TypeError:
        with pytest.raises(TypeError):
            emit_yaml(value)
    else:
        assert emit_yaml(value) == expected


def test_str_subclasses_are_not_taken_for_strings():
    class Name(str):
        pass

    for data in ({Name("a"): 1}, {"a": 1, "b": {Name("a"): 1}}, {"a": Name("x")}):
        assert _writer(data) is None
        with pytest.raises(TypeError):
            emit_yaml(data)


SNAPSHOTS = sorted((Path(__file__).resolve().parent / "__snapshots__" / "test_snapshots").glob("*.yaml"))


@pytest.mark.parametrize("path", SNAPSHOTS, ids=lambda p: p.name)
def test_snapshots_are_written_by_the_writer(path):
    """Every compiled workflow of the snapshot tests, read back: the writer alone writes it
    again, byte for byte (the snapshot tests compare emit_yaml's output with the files)."""
    text = path.read_text(encoding="utf-8")
    tree = YAML(typ="safe", pure=False).load(text)
    assert _writer(tree) == emit_yaml_events(tree) == text


@settings(max_examples=500, deadline=None)
@given(st.from_regex(E._AMBIGUOUS))
def test_ambiguous_first_characters(text):
    """needs_quotes skips the regex for a string whose first character no ambiguous scalar starts with."""
    assert text == "" or text[0] in E._AMBIGUOUS_FIRST
