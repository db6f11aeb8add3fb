"""What a process keeps of its small tenants: copies within a budget, large tenants counted
again after a while."""

from __future__ import annotations

from salience.stores import tenancy
from salience.stores.tenancy import TenantCopies, key_of, small


def test_a_tenant_is_small_up_to_its_bound_and_a_quarter_of_the_store() -> None:
    assert small(1000, 4000)
    assert not small(1001, 4000)
    assert not small(tenancy.SMALL + 1, 10**9)
    assert key_of(["b", "a", "b"]) == ("a", "b")


def test_copies_past_the_budget_go_least_recently_used_first() -> None:
    copies: TenantCopies[bytes] = TenantCopies(budget=10, size=len)
    copies.keep(("a",), b"aaaa")
    copies.keep(("b",), b"bbbb")
    assert copies.find(("a",)) == (b"aaaa", False)  # (a is now the most recently used)
    copies.keep(("c",), b"cccc")
    assert copies.kept(["b"]) is None
    assert copies.kept(["a"]) == b"aaaa"
    copies.keep(("d",), b"d" * 50)  # (over the budget alone: the newest stays)
    assert [copies.kept([k]) for k in "acd"] == [None, None, b"d" * 50]


def test_a_large_tenant_is_counted_again_after_recheck_searches() -> None:
    copies: TenantCopies[bytes] = TenantCopies(budget=100, size=len)
    copies.keep(("a",), b"x")
    copies.large(("a",))
    assert copies.kept(["a"]) is None
    found = [copies.find(("a",)) for _ in range(tenancy.RECHECK)]
    assert found[: tenancy.RECHECK - 1] == [(None, True)] * (tenancy.RECHECK - 1)
    assert found[-1] == (None, False)  # (count it again)


def test_a_copy_replaced_only_if_still_the_one_kept() -> None:
    copies: TenantCopies[bytes] = TenantCopies(budget=100, size=len)
    first, second, third = b"1", b"2", b"3"
    copies.keep(("a",), first)
    assert copies.keep(("a",), second, instead_of=first)
    assert not copies.keep(("a",), third, instead_of=first)  # (another moved it on)
    assert copies.kept(["a"]) is second
    copies.forget(("a",), first)
    assert copies.kept(["a"]) is second
    copies.forget(("a",), second)
    assert copies.kept(["a"]) is None
    copies.keep(("b",), first)
    copies.large(("c",))
    copies.clear()
    assert copies.kept(["b"]) is None
    assert copies.find(("c",)) == (None, False)
