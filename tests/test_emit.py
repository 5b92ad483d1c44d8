"""The emitter: deterministic, readable YAML that YAML 1.1 and 1.2 readers read back
as the same data (adversarial strings included); and atomic writes."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
import warnings
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from ruamel.yaml import YAML

from taskplan.diagnostics import Diagnostics
from taskplan.passes.validate import validate_text
from taskplan.source.read import WORKFLOW_CODES, read_document
from taskplan.workflow.emit import emit_yaml, float_text, needs_quotes, write_atomic

ROOT = Path(__file__).resolve().parents[1]

ADVERSARIAL = [
    "${data.inputs.token}", "$${data.inputs.token}", "${", "}", "$", "a ${b} c",
    "yes", "no", "on", "off", "y", "n", "Y", "N", "true", "False", "NULL", "null", "~", "",
    "1e-07", "1e3", "0x1F", "012", "0o17", "0b101", ".5", "-.5", "+1", "1_000", "12:30", "190:20:30",
    "2024-01-01", "2001-12-14t21:59:43.10-05:00", ".inf", "-.inf", ".nan", "NaN", "inf", "Infinity",
    "*alias", "&anchor", "!tag", "!!str", "#comment", "x #y", "a: b", "a:", "- x", "-", "?", ": ", ",x",
    "[a]", "{a}", "|", ">", "'quoted'", '"double"', "%YAML", "@x", "`x", "<<", "=", "---", "...",
    "multi\nline", "trailing\n", "two\n\n", "\n", "  leading", "trailing ", "\ttab", "a\tb",
    "a\r\nb", "nul\x00byte", "bell\x07", "é ünïcödé", "emoji 🎉", "\u2028sep", "\ufeffbom", "x" * 500,
    "line with : colon and # hash\nsecond: line\n  indented",
]


def _load(text: str, version=None):
    yaml = YAML(typ="safe", pure=True)
    if version:
        yaml.version = version
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return yaml.load(text)


@pytest.mark.parametrize("text", ADVERSARIAL)
def test_adversarial_strings_round_trip(text):
    data = {"k": text, text or "empty": [text, {"v": text}]}
    out = emit_yaml(data)
    assert _load(out) == data
    assert _load(out, (1, 1)) == data


def test_read_document_reads_it_back():
    data = {"list": ADVERSARIAL, "floats": [0.1, 1e-07, 1e16, -0.0, 2.5], "ints": [0, -1, 2**53], "b": [True, False, None]}
    out = emit_yaml(data)
    sink = Diagnostics()
    document = read_document(out.encode("utf-8"), "out.yaml", sink, codes=WORKFLOW_CODES)
    assert document.ok, [d.message for d in sink.sorted()]
    assert document.tree == data


def test_ambiguous_scalars_are_quoted():
    for text in ["yes", "on", "1e-07", "0x1F", "012", ".5", "null", "~", "2024-01-01", "12:30", "<<"]:
        assert needs_quotes(text), text
        assert emit_yaml([text]).strip() == f"- '{text}'"
    for text in ["hello", "mcp.call", "__a.b", "${data.item}", "v1.2.3", "sha256:abc"]:
        assert not needs_quotes(text), text


def test_floats_read_as_floats_in_yaml_1_1():
    assert float_text(1e-07) == "1.0e-07"
    assert float_text(1e16) == "1.0e+16"
    assert float_text(2.5) == "2.5"
    assert float_text(float("inf")) == ".inf"
    out = emit_yaml([1e-07, 1e16])
    assert _load(out, (1, 1)) == [1e-07, 1e16]


def test_block_style_order_and_width():
    long = "${" + " and ".join(["data.inputs.flag"] * 40) + "}"
    data = {"zeta": 1, "alpha": {"b": 2, "a": [1, {"y": 1, "x": 2}]}, "expr": long, "text": "a\nb\n"}
    out = emit_yaml(data)
    assert out == (
        "zeta: 1\n"
        "alpha:\n"
        "  b: 2\n"
        "  a:\n"
        "  - 1\n"
        "  - 'y': 1\n"  # `y` is a YAML 1.1 boolean: quoted, even as a key
        "    x: 2\n"
        f"expr: {long}\n"
        "text: |\n"
        "  a\n"
        "  b\n"
    )


def test_emit_is_deterministic_across_hash_seeds():
    code = (
        "from taskplan.workflow.emit import emit_yaml;"
        "import sys; sys.stdout.write(emit_yaml({'s': {'b', 'a'} and sorted({'b', 'a', 'c'}), 'd': {str(i): i for i in range(50)}}))"
    )
    outputs = {
        subprocess.run([sys.executable, "-c", code], env={**os.environ, "PYTHONHASHSEED": seed},
                       capture_output=True, text=True, check=True).stdout
        for seed in ("0", "1", "12345")
    }
    assert len(outputs) == 1


@settings(max_examples=200, deadline=None)
@given(
    st.recursive(
        st.one_of(st.none(), st.booleans(), st.integers(-(2**60), 2**60),
                  st.floats(allow_nan=False), st.text(max_size=30)),
        lambda children: st.one_of(st.lists(children, max_size=4), st.dictionaries(st.text(max_size=8), children, max_size=4)),
        max_leaves=20,
    )
)
def test_any_json_round_trips(data):
    out = emit_yaml({"data": data})
    assert _load(out) == {"data": data}
    assert _load(out, (1, 1)) == {"data": data}


@pytest.mark.parametrize("path", sorted((ROOT / "fixtures" / "workflows" / "valid").glob("*.yaml")), ids=lambda p: p.name)
def test_emitted_valid_fixtures_still_validate(path):
    tree = YAML(typ="safe", pure=False).load(path.read_text(encoding="utf-8"))
    out = emit_yaml(tree)
    result = validate_text(out.encode("utf-8"), "emitted.yaml")
    assert result.ok, [f"{d.code} {d.location.pointer}: {d.message}" for d in result.diagnostics]
    assert result.document.tree == tree
    assert emit_yaml(result.document.tree) == out


# --- write_atomic ------------------------------------------------------------------------------

def test_write_atomic_writes_and_replaces(tmp_path):
    target = tmp_path / "out.workflow.yaml"
    write_atomic(target, "a: 1\n")
    assert target.read_text() == "a: 1\n"
    os.chmod(target, 0o640)
    write_atomic(target, "a: 2\n")
    assert target.read_text() == "a: 2\n"
    assert stat.S_IMODE(target.stat().st_mode) == 0o640
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.workflow.yaml"]


def test_write_atomic_new_file_gets_umask_mode(tmp_path):
    target = tmp_path / "new.yaml"
    old = os.umask(0o022)
    try:
        write_atomic(target, "x: 1\n")
    finally:
        os.umask(old)
    assert stat.S_IMODE(target.stat().st_mode) == 0o644


def test_write_atomic_failure_leaves_old_file(tmp_path, monkeypatch):
    target = tmp_path / "out.yaml"
    target.write_text("old: true\n")

    def boom(src, dst):
        raise OSError("disk on fire")

    monkeypatch.setattr(os, "replace", boom)
    with pytest.raises(OSError):
        write_atomic(target, "new: true\n")
    assert target.read_text() == "old: true\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["out.yaml"]


def test_write_atomic_replaces_a_symlink_not_its_target(tmp_path):
    elsewhere = tmp_path / "elsewhere.yaml"
    elsewhere.write_text("keep: me\n")
    link = tmp_path / "out.yaml"
    link.symlink_to(elsewhere)
    write_atomic(link, "new: 1\n")
    assert elsewhere.read_text() == "keep: me\n"
    assert not link.is_symlink() and link.read_text() == "new: 1\n"


def test_write_atomic_into_missing_directory_fails_cleanly(tmp_path):
    with pytest.raises(OSError):
        write_atomic(tmp_path / "missing" / "out.yaml", "x: 1\n")
    assert list(tmp_path.iterdir()) == []


def test_shared_objects_are_written_twice_never_as_aliases():
    shared = {"type": "string"}
    out = emit_yaml({"a": shared, "b": [shared, shared]})
    assert "&" not in out and "*" not in out
    sink = Diagnostics()
    document = read_document(out.encode(), "w.yaml", sink, codes=WORKFLOW_CODES)
    assert document.ok and document.tree == {"a": shared, "b": [shared, shared]}


def test_emitting_leaves_ruamel_defaults_alone():
    from ruamel.yaml.representer import SafeRepresenter

    emit_yaml({"yes": [1e-07]})
    assert SafeRepresenter.yaml_representers[str] is SafeRepresenter.represent_str


def _reference_emit(data):
    """The same data through ruamel's own C dumper (its representer, serializer and
    general resolver), with the styles emit_yaml promises: the reference it must match."""
    import io

    from ruamel.yaml import YAML as _YAML
    from ruamel.yaml.representer import SafeRepresenter

    from taskplan.workflow import emit as E

    class Ref(SafeRepresenter):
        def ignore_aliases(self, data):
            return True

    def represent_str(rep, text):
        style = "|" if "\n" in text else ("'" if E.needs_quotes(text) else None)
        return rep.represent_scalar("tag:yaml.org,2002:str", text, style=style)

    Ref.add_representer(str, represent_str)
    Ref.add_representer(float, lambda rep, x: rep.represent_scalar("tag:yaml.org,2002:float", E.float_text(x)))
    Ref.add_representer(dict, lambda rep, d: rep.represent_mapping("tag:yaml.org,2002:map", d.items()))
    yaml = _YAML(typ="safe", pure=False)
    yaml.Representer = Ref
    yaml.default_flow_style = False
    yaml.width = E.WIDTH
    yaml.allow_unicode = True
    stream = io.StringIO()
    yaml.dump(data, stream)
    return stream.getvalue()


def test_fast_resolver_and_nodes_match_ruamel():
    data = {"list": ADVERSARIAL, "numbers": [0, -7, 2**70, 1.5, 1e-07, -0.0, float("inf")], "b": [True, False, None],
            "nested": {"yes": {"on": ["1", "1.0", "-1", "+1", "1e5", ".inf", "true", "null"]}},
            # a sign then digits or underscores only: an int to ruamel's YAML 1.2 resolver
            # (`[-+]?[0-9_]+`); found by the property below
            "signed": ["-_", "+_", "-_0", "+__9", "-0_", "_0", "_"]}
    assert emit_yaml(data) == _reference_emit(data)


@settings(max_examples=150, deadline=None)
@given(
    st.recursive(
        st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False),
                  st.text(alphabet="0123456789.eE+-:_ xyYnNtrufalsobn~#*&!'\"\n|>", max_size=12)),
        lambda children: st.one_of(st.lists(children, max_size=3), st.dictionaries(st.text(max_size=6), children, max_size=3)),
        max_leaves=15,
    )
)
def test_fast_emitter_matches_ruamel_on_any_data(data):
    assert emit_yaml({"d": data}) == _reference_emit({"d": data})
