"""Auto-titles: one small model call names a workstream after its first exchange."""

from __future__ import annotations

from app.vocabulary.messages import Message
from app.providers.base import ProviderError

TITLE_INSTRUCTION = (
    "Give this conversation a short title of 3 to 8 words. Reply with the title only: "
    "no quotes, no punctuation at the end."
)


def _clean(title: str) -> str:
    title = " ".join(title.strip().strip("\"'`*#").split())
    words = title.split()
    if len(words) > 8:
        title = " ".join(words[:8])
    return title.rstrip(".:;!,")[:60]


async def generate_title(provider, messages: list[Message], max_tokens: int = 24) -> str | None:
    """A 3-8 word title from the first user and assistant messages; None if the call fails."""
    first_user = next((m.content for m in messages if m.role == "user"), "")
    first_answer = next((m.content for m in messages if m.role == "assistant" and m.content), "")
    if not first_user:
        return None
    prompt = [
        Message(role="system", content=TITLE_INSTRUCTION),
        Message(role="user", content=f"User: {first_user[:1500]}\n\nAssistant: {first_answer[:1500]}"),
    ]
    try:
        title = _clean(await provider.complete(prompt, max_tokens=max_tokens))
    except ProviderError:  # a failed title is not worth an error in the user's face
        return None
    return title if len(title.split()) >= 1 else None
