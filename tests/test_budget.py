"""Budgets: every limit stops the work with an error naming its setting, and the budget the
work runs in is the one its code finds."""

from __future__ import annotations

from dataclasses import replace

import pytest

from salience import budget
from salience.budget import MB, Budget, Limits, active, spending
from salience.config import Config
from salience.errors import OverLimitError, SalienceError

ROOMY = Limits(
    seconds=60.0,
    rows=10,
    read_bytes=4 * MB,
    unpacked_bytes=8 * MB,
    unpack_ratio=50,
    memory_bytes=1 << 40,
)


def _over(action: object) -> OverLimitError:
    with pytest.raises(OverLimitError) as caught:
        action()  # type: ignore[operator]
    return caught.value


def test_the_limits_are_the_settings() -> None:
    config = Config(
        home="/nonexistent",
        job_seconds=30,
        job_rows=7,
        job_read_mb=2,
        job_unpacked_mb=3,
        job_unpack_ratio=9,
        job_memory_mb=100,
    )
    limits = Limits.of(config)
    assert limits == Limits(30.0, 7, 2 * MB, 3 * MB, 9, 100 * MB)
    assert Limits.of(config, timed=False).seconds is None
    assert limits.value_bytes == 2 * MB  # (no value larger than the whole read)
    assert replace(limits, read_bytes=1 << 40).value_bytes == budget.VALUE_BYTES


def test_records_past_the_limit_stop_the_work_naming_the_setting() -> None:
    spend = Budget(ROOMY)
    spend.row(10)  # at the limit: still fine
    error = _over(spend.row)
    assert error.field == "job_rows"
    assert "more than 10 records" in str(error)
    assert "job_rows" in str(error)
    assert spend.tripped is error


def test_bytes_read_past_the_limit() -> None:
    spend = Budget(ROOMY)
    spend.bytes_read(4 * MB)
    assert _over(lambda: spend.bytes_read(1)).field == "job_read_mb"


def test_an_archive_is_checked_member_by_member_before_unpacking() -> None:
    spend = Budget(ROOMY)
    spend.archive([("a.md", 2 * MB, 100_000), ("b.md", 100, 50)])  # 20x and tiny: fine
    bomb = _over(lambda: spend.archive([("ok.md", 10, 10), ("CLAUDE.md", 200 * MB, 600_000)]))
    assert bomb.field == "job_unpack_ratio"
    assert "'CLAUDE.md'" in str(bomb)
    many = _over(lambda: spend.archive([(f"{n}.md", 3 * MB, MB) for n in range(3)]))
    assert many.field == "job_unpacked_mb"


def test_bytes_unpacked_are_held_to_the_total() -> None:
    spend = Budget(ROOMY)
    spend.bytes_unpacked(8 * MB)
    assert _over(lambda: spend.bytes_unpacked(1)).field == "job_unpacked_mb"


def test_time_is_checked_at_every_step(monkeypatch: pytest.MonkeyPatch) -> None:
    clock = [1000.0]
    monkeypatch.setattr(budget, "monotonic", lambda: clock[0])
    spend = Budget(ROOMY)
    spend.check()
    clock[0] += 60.0
    spend.check()  # (exactly the limit)
    clock[0] += 0.5
    error = _over(spend.check)
    assert error.field == "job_seconds"
    assert "60 seconds" in str(error)
    untimed = Budget(replace(ROOMY, seconds=None))
    clock[0] += 1e6
    untimed.check()


def test_memory_is_checked(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(budget, "resident_bytes", lambda: 300 * MB)
    assert _over(Budget(replace(ROOMY, memory_bytes=200 * MB)).check).field == "job_memory_mb"
    Budget(replace(ROOMY, memory_bytes=400 * MB)).check()


def test_the_process_memory_is_read() -> None:
    assert 10 * MB < budget.resident_bytes() < 100_000 * MB


def test_a_stop_ends_the_work_with_its_own_error() -> None:
    class Stopped(SalienceError):
        pass

    stopping = [False]

    def stop() -> None:
        if stopping[0]:
            raise Stopped("cancelled")

    spend = Budget(ROOMY, stop=stop)
    spend.row()
    stopping[0] = True
    with pytest.raises(Stopped):
        spend.row()


def test_a_callback_that_may_not_raise_asks_interrupts() -> None:
    spend = Budget(replace(ROOMY, rows=1))
    assert not spend.interrupts()
    with pytest.raises(OverLimitError):
        spend.row(2)
    assert spend.interrupts()  # (once tripped, every later check stops too)


def test_the_active_budget_is_the_works_and_none_outside() -> None:
    assert active().limits == budget.UNLIMITED
    job = Budget(ROOMY)
    with spending(job):
        assert active() is job
        with spending(Config(home="/nonexistent")) as kept:  # (inside a job: the job's)
            assert kept is job
    assert active().limits == budget.UNLIMITED
    with spending(Config(home="/nonexistent", job_rows=3)) as made:
        assert made.limits.rows == 3
        assert made.limits.seconds is None
