import pytest

from salience.write.gates.signal import check_signal, is_generic, is_tool_output


@pytest.mark.parametrize(
    ("text", "kind", "rule"),
    [
        ("", "observation", "empty"),
        ("   ", "observation", "empty"),
        ("tests passed", "observation", "too short"),
        ("I will run the migrations and then check the logs", "observation", "self-talk"),
        ("Let me look at the failing integration test first", "observation", "self-talk"),
        ("I'm going to refactor the payment module next week", "observation", "self-talk"),
        ("I should remember this: staging is read-only on Fridays", "observation", "self-talk"),
        ("All the tests passed and the build succeeded.", "observation", "generic"),
        ("Fixed it, everything works now as expected!", "observation", "generic"),
        (
            "2026-01-01 10:00:01 INFO start\n2026-01-01 10:00:02 ERROR boom\n"
            "2026-01-01 10:00:03 INFO retry",
            "observation",
            "tool output",
        ),
        (
            'Traceback (most recent call last):\n  File "a.py", line 3, in <module>\n'
            "    x()\nNameError: name 'x' is not defined",
            "observation",
            "tool output",
        ),
        (
            "diff --git a/x.py b/x.py\nindex 83db48f..bf269f4 100644\n"
            "--- a/x.py\n+++ b/x.py\n@@ -1 +1 @@",
            "observation",
            "tool output",
        ),
        ('{\n  "id": 3,\n  "name": "x",\n  "ok": true\n}', "fact", "tool output"),
    ],
)
def test_each_rule_rejects_with_its_own_reason(text: str, kind: str, rule: str) -> None:
    verdict = check_signal(text, kind)
    assert verdict is not None
    assert verdict.rule == rule
    assert verdict.reason


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        ("The deployment pipeline uses GitHub Actions with a matrix build strategy", "observation"),
        ("I will always run migrations before tests in this repo", "heuristic"),
        ("I will check the lockfile first, then bump versions", "procedure"),
        ("Tests passed only after pinning numpy to 1.26 on Python 3.11", "observation"),
        ("Caroline went to the LGBTQ support group and felt welcomed there.", "observation"),
        ("- install deps\n- run make test\n- open a pull request", "procedure"),
    ],
)
def test_signal_passes(text: str, kind: str) -> None:
    assert check_signal(text, kind) is None


def test_generic_needs_a_claim_and_no_specifics() -> None:
    assert is_generic("it works")
    assert not is_generic("it works on port 8080")
    assert not is_generic("the tests and the build")  # nothing claimed


def test_mostly_symbols_is_tool_output() -> None:
    assert is_tool_output("=" * 40 + " 0x7ffd 0x0000 | ## || -- ++ " + "#" * 20)


@pytest.mark.parametrize(
    "text",
    [
        "It works fine now after the fix",
        "Everything is done and working well",
        "All tests pass without errors now",
        "The tests pass now, everything works",
    ],
)
def test_generic_claims_are_refused(text: str) -> None:
    verdict = check_signal(text, "observation")
    assert verdict is not None
    assert verdict.rule == "generic"


@pytest.mark.parametrize(
    "text",
    [
        "The build works after pinning numpy below 2",
        "Tests pass once REDIS_URL points at the local container",
        "Everything works with the staging profile in config/stage.toml",
    ],
)
def test_a_specific_claim_is_kept(text: str) -> None:
    assert check_signal(text, "observation") is None
