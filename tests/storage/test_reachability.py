"""StoreLink's rules without a server: a lost store is probed with doubling waits up to the longest,
`retry_now` cuts a wait short, and the first probe that answers makes it reachable again (once)."""

from __future__ import annotations

import asyncio

from app.storage.reachability import StoreLink, StoreUnavailable


async def test_probes_back_off_and_the_first_answer_ends_the_outage() -> None:
    answers = [StoreUnavailable("still down 1"), StoreUnavailable("still down 2"), StoreUnavailable("still down 3")]
    waits: list[float] = []  # each wait before a probe, as the link set it
    states: list[bool] = []

    async def probe() -> None:
        if answers:
            raise answers.pop(0)

    link = StoreLink(probe, backoff=(0.01, 0.02))

    def changed() -> None:
        states.append(link.reachable)
        if link.next_try is not None:
            waits.append(round(link.next_try - link._clock(), 2))

    link.on_change = changed
    link.lost(StoreUnavailable("cannot reach the PostgreSQL store postgresql://a:***@h/db: refused"))
    assert not link.reachable and link.outages == 1 and "refused" in link.reason
    link.lost(StoreUnavailable("a second failure meanwhile"))  # no second outage, the newest reason kept
    assert link.outages == 1 and link.reason == "a second failure meanwhile"
    for _ in range(1000):
        if link.reachable:
            break
        await asyncio.sleep(0.005)
    assert link.reachable and link.reason == "" and link.retry_in() is None
    assert waits == [0.01, 0.02, 0.02, 0.02], "doubling, capped at the longest"
    assert states[0] is False and states[-1] is True and states.count(True) == 1


async def test_retry_now_probes_at_once_and_a_new_outage_counts_again() -> None:
    probed = asyncio.Event()

    async def probe() -> None:
        probed.set()

    link = StoreLink(probe, backoff=(600.0, 600.0))
    link.lost(StoreUnavailable("down"))
    await asyncio.sleep(0)
    assert link.retry_in() in (599, 600)
    link.retry_now()
    await asyncio.wait_for(probed.wait(), 10)
    for _ in range(100):
        if link.reachable:
            break
        await asyncio.sleep(0.01)
    assert link.reachable
    link.lost(StoreUnavailable("down again"))
    assert link.outages == 2 and not link.reachable
    link.close()
