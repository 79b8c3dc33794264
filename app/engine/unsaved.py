"""A turn whose writes the disk refused (full, a file-size limit, read-only) or the team store's server did
not take (unreachable): said in the transcript, in words, and the turn stops there; the app keeps running.
A prompt the unreachable store could not take goes back to the prompt box (`stop_turn`'s `unsent`).

While a reply streams, its periodic saves may fail first (`draft_failed`: the user is told at once that
the rest is not being saved); when the finished reply cannot be stored either, `reply_not_saved` says
how much of it the store holds (the draft's rows, marked interrupted), so the transcript never passes
off as saved a reply that is not. Any other write of the turn that fails (the prompt, a tool's result)
stops it with `words_for`'s sentence.
"""

from __future__ import annotations

from typing import Any

from app.storage.reachability import StoreUnavailable
from app.storage.write_failed import write_failure
from app.vocabulary.messages import Message


class NotSaved(Exception):
    """The turn stops: `words` tell the user what was not saved and why."""

    def __init__(self, words: str) -> None:
        super().__init__(words)
        self.words = words


def _why(session: Any, error: BaseException) -> str | None:
    return write_failure(error, getattr(session.store, "path", None))


def _unreachable(error: BaseException) -> bool:
    return isinstance(error, StoreUnavailable)


def words_for(session: Any, error: BaseException) -> str | None:
    """What the transcript says when `error` stopped the turn, or None when it is no refused write."""
    if isinstance(error, NotSaved):
        return error.words
    why = _why(session, error)
    if why is None:
        return None
    then = "send again once it is back" if _unreachable(error) else "free some space and send again"
    return f"Not saved: {why}. The turn stopped here; {then}."


def stop_turn(session: Any, error: Exception, unsent: str | None = None) -> None:
    """The turn stops with what was not saved and why; any other error is a bug and goes on up.

    `unsent`: the prompt, when it was the write that failed, because the store's server did not answer.
    Nothing was sent to the model: the prompt leaves the conversation and goes back to the user's
    prompt box (PromptReturned), never silently dropped."""
    if (words := words_for(session, error)) is None:
        raise error
    if unsent is not None and _unreachable(error):
        from app.engine import events as ev

        if session.messages and session.messages[-1].role == "user" and session.messages[-1].content == unsent:
            session.messages.pop()  # _persist keeps it first; it is not in the store
        session.emit(ev.Notice(f"Not sent: {_why(session, error)}. Nothing went to the model; the prompt is back "
                               "in the prompt box: send it again once the store is back.", level="error"))
        session.emit(ev.PromptReturned(unsent))
        session.emit(ev.StateChanged("idle"))
        session.emit(ev.TurnFinished("error"))
        return
    session._refused(words)


async def persist_reply(session: Any, message: Message, draft: Any) -> None:
    """Store the finished reply; raises NotSaved (its sentence for under the reply) when the disk refused."""
    try:
        await session._persist(message, draft)
    except Exception as error:
        if (stop := reply_not_saved(session, error, draft, message)) is None:
            raise
        if draft is not None:
            await draft.discard()  # no longer streaming, for a window following it
        raise stop from error


def draft_failed(session: Any, draft: Any, error: BaseException) -> bool:
    """A periodic save of the streaming reply failed: tell the user now (True), or False when `error` is
    no refused write (a bug, reported as such)."""
    why = _why(session, error)
    if why is None:
        return False
    from app.engine import events as ev

    then = ("It goes on streaming here; it is stored when it ends if the store is back by then."
            if _unreachable(error) else "It goes on streaming here, but is not being saved.")
    session.emit(ev.Notice(f"Saving this reply failed after {draft.saved:,} characters: {why}. {then}",
                           level="error"))
    return True


def reply_not_saved(session: Any, error: BaseException, draft: Any, message: Message) -> NotSaved | None:
    """The finished `message` could not be stored: what the transcript says under it, or None when
    `error` is no refused write."""
    why = _why(session, error)
    if why is None:
        return None
    total = len(message.content or "") + len(message.reasoning or "")
    stored = draft.saved if draft is not None and draft.message_id is not None else 0
    kept = (f"only its first {stored:,} of {total:,} characters are stored, marked interrupted" if stored
            else "none of it is stored")
    then = "The next turn is saved once the store is back" if _unreachable(error) else \
        "Free some space; the next turn is saved again once writes succeed"
    return NotSaved(f"Not saved: this reply is shown in full above, but {kept}: {why}. {then}.")
