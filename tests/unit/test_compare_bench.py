"""scripts/compare_bench.py: two bench reports compared leaf by leaf, timings left out."""

import importlib.util
import json
from pathlib import Path

_PATH = Path(__file__).resolve().parents[2] / "scripts" / "compare_bench.py"
_SPEC = importlib.util.spec_from_file_location("compare_bench", _PATH)
compare_bench = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(compare_bench)

REPORT = {
    "schema": "kgmem.bench.locomo/1",
    "git_commit": "abc",
    "rows": [
        {
            "name": "shipped",
            "metrics": {"all": {"all_at": {"10": 0.757}, "latency_p50_ms": 3.1}},
            "latency_ms": {"read_path": {"p50": 2.0, "p95": 4.0}},
        }
    ],
    "ingest": {"c1": {"seconds": {"extract": 1.5}, "turns": 10, "ms": 12}},
}


def _write(tmp_path: Path, name: str, data: dict) -> str:
    path = tmp_path / name
    path.write_text(json.dumps(data), encoding="utf-8")
    return str(path)


def _changed(**edits) -> dict:
    data = json.loads(json.dumps(REPORT))
    for mutate in edits.values():
        mutate(data)
    return data


def test_identical_reports_pass_whatever_the_timings(tmp_path, capsys):
    after = _changed(
        t=lambda d: d["rows"][0]["metrics"]["all"].update(latency_p50_ms=9.9),
        l=lambda d: d["rows"][0]["latency_ms"]["read_path"].update(p50=7.0),
        s=lambda d: d["ingest"]["c1"]["seconds"].update(extract=9.0),
        g=lambda d: d.update(git_commit="def"),
    )
    code = compare_bench.main(
        [_write(tmp_path, "a.json", REPORT), _write(tmp_path, "b.json", after)]
    )
    assert code == 0
    assert "identical" in capsys.readouterr().out


def test_a_changed_metric_fails_and_is_named(tmp_path, capsys):
    after = _changed(m=lambda d: d["rows"][0]["metrics"]["all"]["all_at"].update({"10": 0.758}))
    code = compare_bench.main(
        [_write(tmp_path, "a.json", REPORT), _write(tmp_path, "b.json", after)]
    )
    assert code == 1
    assert "$.rows[0].metrics.all.all_at.10: 0.757 != 0.758" in capsys.readouterr().out


def test_tolerance_admits_float_noise_only():
    noisy = 0.757 + 1e-12
    after = _changed(m=lambda d: d["rows"][0]["metrics"]["all"]["all_at"].update({"10": noisy}))
    assert list(compare_bench.differences(REPORT, after, tolerance=1e-9)) == []
    assert len(list(compare_bench.differences(REPORT, after))) == 1


def test_missing_keys_list_items_and_types_differ():
    assert list(compare_bench.differences({"a": 1}, {"b": 1})) == [
        ("$.a", 1, "<missing>"),
        ("$.b", "<missing>", 1),
    ]
    assert list(compare_bench.differences([1, 2], [1])) == [("$[1]", 2, "<missing>")]
    assert list(compare_bench.differences({"x": True}, {"x": 1})) == [("$.x", True, 1)]
    assert list(compare_bench.differences({"x": [1]}, {"x": 1})) == [("$.x", [1], 1)]
    assert list(compare_bench.differences({"ranked": ["b1", "a1"]}, {"ranked": ["a1", "b1"]}))


def test_ignored_keys_and_extra_ignores():
    assert compare_bench.ignored("embedding_ms") and compare_bench.ignored("turns_per_s")
    assert not compare_bench.ignored("mrr")
    assert list(compare_bench.differences({"n": 1}, {"n": 2}, extra_ignored=frozenset({"n"}))) == []


def test_unreadable_input_exits_2(tmp_path):
    bad = tmp_path / "bad.json"
    bad.write_text("{", encoding="utf-8")
    assert compare_bench.main([str(bad), str(bad)]) == 2


def test_unordered_keys_compare_as_multisets():
    before = {"checks": [{"entities": ["Pia", "jazz"], "ranked": ["a1", "b1"]}]}
    same = {"checks": [{"entities": ["jazz", "Pia"], "ranked": ["a1", "b1"]}]}
    other = {"checks": [{"entities": ["jazz", "Kai"], "ranked": ["a1", "b1"]}]}
    keys = frozenset({"entities"})
    assert list(compare_bench.differences(before, same, unordered=keys)) == []
    assert len(list(compare_bench.differences(before, same))) == 2
    assert len(list(compare_bench.differences(before, other, unordered=keys))) == 1
