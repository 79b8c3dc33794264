"""The event store of `whimbrel mcp serve --http`: SSE event ids, so a client can resume a broken stream.

With it the SDK's streamable HTTP transport does what the MCP spec (2025-11-25) recommends: each SSE stream
opens with a priming event (an id, empty data) carrying `retry:`, so a client whose connection drops knows
when and from where to reconnect (`Last-Event-ID`), and the events it missed are replayed. Kept in memory,
bounded: the oldest streams and events are forgotten first.
"""

from __future__ import annotations

import itertools
from collections import OrderedDict, deque
from typing import Any

from mcp.server.streamable_http import EventCallback, EventMessage, EventStore

RETRY_MS = 1000  # the reconnection delay suggested to clients
STREAMS = 200  # streams remembered
EVENTS_PER_STREAM = 100  # events remembered per stream


class MemoryEventStore(EventStore):
    """Events by stream, in memory; an id is `<stream number>-<event number>`, unique for the process."""

    def __init__(self, streams: int = STREAMS, per_stream: int = EVENTS_PER_STREAM) -> None:
        self._streams: OrderedDict[str, deque[tuple[str, Any]]] = OrderedDict()
        self._where: dict[str, str] = {}  # event id -> stream id
        self._counter = itertools.count(1)
        self._limit, self._per_stream = streams, per_stream

    async def store_event(self, stream_id: str, message: Any) -> str:
        events = self._streams.get(stream_id)
        if events is None:
            events = self._streams[stream_id] = deque()
            while len(self._streams) > self._limit:
                _old, dropped = self._streams.popitem(last=False)
                for event_id, _message in dropped:
                    self._where.pop(event_id, None)
        event_id = f"{next(self._counter)}"
        events.append((event_id, message))
        self._where[event_id] = stream_id
        while len(events) > self._per_stream:
            self._where.pop(events.popleft()[0], None)
        return event_id

    async def replay_events_after(self, last_event_id: str, send_callback: EventCallback) -> str | None:
        stream_id = self._where.get(last_event_id)
        if stream_id is None:
            return None
        after = False
        for event_id, message in list(self._streams.get(stream_id, ())):
            if after and message is not None:  # a priming event (no message) is not replayed
                await send_callback(EventMessage(message, event_id))
            after = after or event_id == last_event_id
        return stream_id
