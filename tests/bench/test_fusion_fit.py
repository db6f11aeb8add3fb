"""bench/fusion_fit.py: the held-out split, the fits and the re-ranked metrics."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "bench"))

import fusion_fit


def _lists(rng: np.random.Generator, questions: int = 60, count: int = 20) -> tuple:
    """Candidates whose gold one has the larger first feature; the second is noise."""
    x = rng.normal(size=(questions * count, 2))
    y = np.zeros(questions * count)
    for q in range(questions):
        rows = slice(q * count, (q + 1) * count)
        y[q * count + int(np.argmax(x[rows, 0]))] = 1
    groups = [(q * count, count, 1.0) for q in range(questions)]
    return x, y, groups


def test_the_listwise_fit_learns_which_signal_ranks() -> None:
    x, y, groups = _lists(np.random.default_rng(1))
    coef = fusion_fit.fit_lists(x, y, 0.1, groups)
    assert coef[0] > 5 * abs(coef[1])
    assert coef[-1] == 0.0


def test_the_pointwise_fit_learns_which_signal_ranks() -> None:
    x, y, _ = _lists(np.random.default_rng(2))
    coef = fusion_fit.fit(x, y, 0.1, np.ones(len(y)))
    assert coef[0] > 5 * abs(coef[1])


def test_coefficients_apply_to_the_raw_inputs() -> None:
    """Standardising is undone: the logit of raw x equals the standardised model's."""
    rng = np.random.default_rng(3)
    x = rng.normal(loc=5.0, scale=3.0, size=(400, 2))
    y = (x[:, 0] + rng.normal(size=400) > 5.0).astype(float)
    coef = fusion_fit.fit(x, y, 0.0, np.ones(400))
    p = 1 / (1 + np.exp(-(x @ coef[:-1] + coef[-1])))
    assert abs(float(p.mean()) - float(y.mean())) < 1e-6  # the intercept's score equation


def test_locomo_metrics_of_an_order() -> None:
    q = {"set": "locomo", "gold_turns": 3}
    gold = np.array([False, True, False, True])
    found = fusion_fit.metrics(q, np.array([3, 0, 1, 2]), gold, np.zeros(4, dtype=int))
    assert found["R@5"] == pytest.approx(2 / 3)
    assert (found["any@10"], found["all@10"]) == (1.0, 0.0)


def test_longmemeval_session_metrics_count_distinct_sessions() -> None:
    q = {"set": "longmemeval", "gold_turns": 1, "gold_sessions": [7]}
    gold = np.array([False, False, True])
    sessions = np.array([1, 1, 7])
    found = fusion_fit.metrics(q, np.array([0, 1, 2]), gold, sessions)
    assert found["turn any@5"] == 1.0
    assert found["session all@10"] == 1.0
    assert found["session nDCG@10"] == pytest.approx(1 / np.log2(3))


def _collected(rng: np.random.Generator) -> dict:
    """Signals of a few LoCoMo-like and LongMemEval-like questions, gold where the full-text
    signal is best."""
    from salience.search import rerank

    questions, rows, gold, sessions = [], [], [], []
    at = 0
    for q in range(30):
        n = 12
        x = rng.uniform(size=(n, len(rerank.SIGNALS)))
        y = np.zeros(n, dtype=bool)
        y[int(np.argmax(x[:, 0]))] = True
        s = rng.integers(0, 4, size=n)
        locomo = q % 2 == 0
        meta = {
            "set": "locomo" if locomo else "longmemeval",
            "group": f"conv-{q % 3}" if locomo else ("fit" if q % 4 == 1 else "held"),
            "type": "1 multi-hop" if locomo else "multi-session",
            "gold_turns": 1,
            "start": at,
            "count": n,
        }
        if not locomo:
            meta["gold_sessions"] = [int(s[y][0])]
        questions.append(meta)
        rows.append(x)
        gold.append(y)
        sessions.append(s)
        at += n
    return {
        "x": np.concatenate(rows),
        "gold": np.concatenate(gold),
        "session": np.concatenate(sessions),
        "signals": list(rerank.SIGNALS),
        "questions": questions,
        "depth": 12,
        "sources": ["a.json", "b.json.gz"],
    }


def test_a_fit_is_measured_held_out_and_written_as_recall_loads_it(tmp_path: Path) -> None:
    from salience.search import rerank

    data = _collected(np.random.default_rng(4))
    result = fusion_fit.evaluate(data, 1.0, "list")
    assert result["held_out"]["1-4"]["R@10"] == 100.0  # the top 10 of 12 hold the gold one
    assert result["held_out"]["1-4"]["R@5"] > result["today"]["1-4"]["R@5"]
    path = tmp_path / "rerank.json"
    fusion_fit.write_model(path, result, data["depth"], data["sources"])
    model = rerank.load(path)
    assert model.depth == 12
    assert len(model.weights) == len(rerank.FEATURES)
    assert model.weights[rerank.FEATURE_NAMES.index("lexical")] > 0


def test_dropping_a_signal_drops_every_feature_of_it() -> None:
    data = _collected(np.random.default_rng(5))
    result = fusion_fit.evaluate(data, 1.0, "list", drop=["pool"])
    assert result["features"]
    assert not [f for f in result["features"] if "pool" in f.split("*")]
    with pytest.raises(SystemExit, match="not signals"):
        fusion_fit.evaluate(data, 1.0, "list", drop=["bogus"])


def test_features_recall_does_not_read_yet_are_tried_then_put_back() -> None:
    from salience.search import rerank

    data = _collected(np.random.default_rng(6))
    before = rerank.FEATURES
    with fusion_fit.trying([("hop",), ("hop_other", "lexical")]):
        result = fusion_fit.evaluate(data, 1.0, "list")
    assert result["features"][-2:] == ["hop", "hop_other*lexical"]
    assert len(result["model"]["weights"]) == len(before) + 2
    assert before == rerank.FEATURES
    assert len(rerank.FEATURE_NAMES) == len(before)
    with pytest.raises(SystemExit, match="bogus"), fusion_fit.trying([("bogus",)]):
        pass
    assert before == rerank.FEATURES


def test_gold_sessions_mark_the_candidates_of_answer_sessions() -> None:
    questions = [
        {"set": "longmemeval", "start": 0, "count": 3, "gold_sessions": [2]},
        {"set": "locomo", "start": 3, "count": 3},
    ]
    gold = np.array([0, 0, 0, 1, 0, 0], dtype=float)
    sess = np.array([1, 2, 2, 5, 5, 6])
    marked = fusion_fit.gold_sessions(questions, gold, sess)
    assert marked.tolist() == [0, 1, 1, 1, 1, 0]


def test_lbfgs_finds_a_quadratics_minimum() -> None:
    a = np.array([[3.0, 1.0], [1.0, 2.0]])
    b = np.array([1.0, -4.0])

    def f(p: np.ndarray) -> tuple[float, np.ndarray]:
        return float(0.5 * p @ a @ p - b @ p), a @ p - b

    found = fusion_fit.lbfgs(f, np.zeros(2))
    assert found == pytest.approx(np.linalg.solve(a, b), abs=1e-4)


def _interaction(rng: np.random.Generator, questions: int = 80, count: int = 10) -> tuple:
    """Gold where the first feature is largest in questions whose second feature is
    positive (the same for every candidate), and the smallest where it is negative: no
    weight per feature ranks both kinds."""
    x = rng.normal(size=(questions * count, 2))
    y = np.zeros(questions * count)
    for q in range(questions):
        rows = slice(q * count, (q + 1) * count)
        x[rows, 1] = 1.0 if q % 2 else -1.0
        pick = np.argmax(x[rows, 0]) if q % 2 else np.argmin(x[rows, 0])
        y[q * count + int(pick)] = 1
    groups = [(q * count, count, 1.0) for q in range(questions)]
    return x, y, groups


def _top1(net: fusion_fit.Net, x: np.ndarray, y: np.ndarray, groups: list) -> float:
    return float(np.mean([y[a + int(np.argmax(net(x[a : a + n])))] for a, n, _ in groups]))


def test_hidden_units_learn_what_a_linear_fit_cannot() -> None:
    x, y, groups = _interaction(np.random.default_rng(6))
    coef = fusion_fit.fit_lists(x, y, 0.1, groups)
    linear = fusion_fit.Net(coef[:-1], coef[-1])
    net = fusion_fit.fit_net(x, y, groups, 4, 0.1, 0.1, 0, ["first", "kind"])
    assert _top1(linear, x, y, groups) < 0.7
    assert _top1(net, x, y, groups) > 0.95
    assert len(net.names) == 4
    assert all("first" in name for name in net.names)


def test_the_mean_of_nets_is_one_net_of_their_mean_logits() -> None:
    rng = np.random.default_rng(7)
    nets = [
        fusion_fit.Net(
            rng.normal(size=3),
            float(rng.normal()),
            rng.normal(size=(2, 3)),
            rng.normal(size=2),
            rng.normal(size=2),
            ["a", "b"],
        )
        for _ in range(3)
    ]
    x = rng.normal(size=(5, 3))
    mean = fusion_fit.Net.mean(nets)
    assert mean(x) == pytest.approx(sum(n(x) for n in nets) / 3)
    assert len(mean.out) == 6


def test_a_fit_with_hidden_units_is_written_as_recall_loads_it(tmp_path: Path) -> None:
    from salience.search import rerank

    data = _collected(np.random.default_rng(8))
    result = fusion_fit.evaluate(data, 1.0, "list", hidden=2, l2_hidden=1.0, seeds=2)
    assert result["held_out"]["1-4"]["R@10"] == 100.0
    path = tmp_path / "rerank.json"
    fusion_fit.write_model(path, result, data["depth"], data["sources"])
    model = rerank.load.__wrapped__(path)
    assert len(model.units) == 4  # (two fits of two units, side by side)
    inputs = rerank.features(data["x"][:12])
    fitted = result["model"]
    net = fusion_fit.Net(
        np.array(fitted["weights"]),
        fitted["bias"],
        np.array([u["weights"] for u in fitted["units"]]),
        np.array([u["bias"] for u in fitted["units"]]),
        np.array([u["out"] for u in fitted["units"]]),
    )
    assert model.logits(inputs) == pytest.approx(net(inputs), abs=1e-9)


def test_a_net_fitted_on_sessions_too_ranks_their_candidates_higher() -> None:
    x, y, groups = _lists(np.random.default_rng(9))
    sessions = (x[:, 1] > 0.5).astype(float)  # (the noise feature marks "gold sessions")
    plain = fusion_fit.fit_net(x, y, groups, 2, 0.1, 1.0, 0, ["a", "b"])
    both = fusion_fit.fit_net(x, y, groups, 2, 0.1, 1.0, 0, ["a", "b"], sessions, 5.0)

    def lift(net: fusion_fit.Net) -> float:
        scores = net(x)
        return float(scores[sessions > 0].mean() - scores[sessions == 0].mean())

    assert lift(both) > lift(plain) + 0.5
