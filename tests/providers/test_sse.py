"""The SSE decoder the providers share: event framing, line ends, reads that split events."""

from __future__ import annotations

from typing import AsyncIterator

import pytest

from app.providers.sse import sse_events


async def decode(*reads: bytes) -> list[dict]:
    async def chunks() -> AsyncIterator[bytes]:
        for read in reads:
            yield read

    return [event async for event in sse_events(chunks())]


async def test_event_names_comments_and_done() -> None:
    body = (b": keep-alive\n\nevent: message_start\ndata: {\"type\": \"a\"}\n\n"
            b"event: ping\ndata: {\"type\": \"ping\"}\n\nid: 3\nretry: 10\n\ndata: [DONE]\n\ndata: {\"late\": 1}\n\n")
    assert await decode(body) == [{"type": "a"}, {"type": "ping"}]


@pytest.mark.parametrize("size", [1, 2, 3, 7, 1000])
async def test_reads_may_split_anywhere_and_crlf_is_accepted(size: int) -> None:
    body = b'event: x\r\ndata: {"n": 1}\r\n\r\ndata: {"n":\ndata:  2}\n\ndata: {"n": 3}\r\r'
    reads = [body[i:i + size] for i in range(0, len(body), size)]
    assert await decode(*reads) == [{"n": 1}, {"n": 2}, {"n": 3}]


async def test_a_last_event_without_its_blank_line_still_counts() -> None:
    assert await decode(b'data: {"n": 1}\n\ndata: {"n": 2}') == [{"n": 1}, {"n": 2}]


async def test_data_that_is_not_json_raises() -> None:
    with pytest.raises(ValueError):
        await decode(b"data: <html>oops</html>\n\n")
