"""The scrolling conversation of one workstream."""

from __future__ import annotations

from textual.containers import VerticalScroll
from textual.widget import Widget

from app.engine.messages import Message
from widgets.messages import AssistantMessage, Notice, UserMessage
from widgets.tool_card import ToolCard


class Transcript(VerticalScroll):
    """Holds message widgets; follows the bottom while the user has not scrolled up."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.cards: dict[str, ToolCard] = {}

    async def add(self, widget: Widget) -> Widget:
        follow = self.is_vertical_scroll_end or self.max_scroll_y == 0
        await self.mount(widget)
        if follow:
            self.scroll_end(animate=False)
        return widget

    async def add_user(self, text: str) -> None:
        await self.add(UserMessage(text))

    async def add_notice(self, text: str, level: str = "info") -> None:
        await self.add(Notice(text, level))

    async def start_assistant(self) -> AssistantMessage:
        message = AssistantMessage()
        await self.add(message)
        return message

    async def add_tool_card(self, card: ToolCard) -> ToolCard:
        self.cards[card.call_id] = card
        await self.add(card)
        return card

    def follow(self) -> None:
        """Keep the newest output in view unless the user scrolled away."""
        if self.is_vertical_scroll_end or self.max_scroll_y - self.scroll_y < 3:
            self.scroll_end(animate=False)

    async def show_history(self, messages: list[Message]) -> None:
        """Rebuild the view of a stored conversation, tool calls and their results included."""
        results = {m.tool_call_id: m for m in messages if m.role == "tool"}
        widgets: list[Widget] = []
        for message in messages:
            if message.role == "user":
                widgets.append(UserMessage(message.content))
            elif message.role == "assistant":
                if message.content or message.reasoning:
                    widgets.append(AssistantMessage(message.content, message.reasoning))
                for call in message.tool_calls:
                    result = results.get(call.id)
                    status = "pending" if result is None else ("error" if result.is_error else "done")
                    card = ToolCard(call.id, call.name, _preview(call.name, call.arguments), status=status,
                                    output=result.content if result else "(interrupted: no result)",
                                    collapsed=True)
                    self.cards[call.id] = card
                    widgets.append(card)
                if message.interrupted:
                    widgets.append(Notice("This response was interrupted.", "warning"))
        if widgets:
            await self.mount_all(widgets)
        self.scroll_end(animate=False)


def _preview(name: str, arguments: str) -> str:
    from tools.preview import preview_text
    import json

    try:
        args = json.loads(arguments) if arguments.strip() else {}
    except ValueError:
        return arguments
    return preview_text(name, args) if isinstance(args, dict) else arguments
