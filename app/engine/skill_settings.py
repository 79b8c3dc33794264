"""A skill's session settings, applied to the workstream it starts: model, temperature,
permission mode and token budget. Each setting that cannot apply is said in words, never dropped
silently. The token budget is prompt + completion tokens over the workstream's requests, as for
sub-agents; once spent, the next request is not sent."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from app.engine import events as ev

if TYPE_CHECKING:
    from app.engine.session_view import SessionView


async def apply_skill_settings(session: SessionView, settings: dict[str, Any], *,
                               restoring: bool = False) -> tuple[list[str], list[str]]:
    """(what applied, what did not and why) for `settings` on `session`.

    On resume (`restoring`) the model and mode come back by themselves (stored with the workstream),
    so only the temperature and token budget are applied again."""
    applied: list[str] = []
    refused: list[str] = []
    if "model" in settings and not restoring:
        _report(await _apply_model(session, str(settings["model"])), f"model={settings['model']}", applied, refused)
    if "temperature" in settings:
        _report(_apply_temperature(session, float(settings["temperature"])), f"temperature={settings['temperature']}",
                applied, refused)
    if "permission_mode" in settings and not restoring:
        _report(await _apply_mode(session, str(settings["permission_mode"])),
                f"permission_mode={settings['permission_mode']}", applied, refused)
    if "token_budget" in settings:
        session.token_budget = int(settings["token_budget"])
        if restoring:  # what it spent before it was resumed counts too
            session.tokens_before = await _stored_tokens(session)
        applied.append(f"token_budget={session.token_budget:,}")
    return applied, refused


def _report(why_not: str | None, label: str, applied: list[str], refused: list[str]) -> None:
    (refused if why_not else applied).append(f"{label} ({why_not})" if why_not else label)


async def _apply_model(session: SessionView, alias: str) -> str | None:
    if session.models is None or alias not in session.models:
        return "no such model in [models] of config.toml"
    await session.set_model(alias)
    return None


def _apply_temperature(session: SessionView, temperature: float) -> str | None:
    if session.models is None or session.model_alias not in session.models:
        return "the model does not come from [models], so its settings cannot change"
    session.provider = session.models.own_provider(session.model_alias, temperature=temperature)
    return None


async def _apply_mode(session: SessionView, mode: str) -> str | None:
    gate = session.guard.gate
    if gate.mode == "bypass":
        return "bypass mode was chosen on the command line"
    gate.mode = mode
    session.emit(ev.ModeChanged(mode))
    if session.store is not None and session.workstream_id:
        await session.store.set_config(session.workstream_id, "policy_mode", mode)
    return None


async def _stored_tokens(session: SessionView) -> int:
    if session.store is None or not session.workstream_id or not hasattr(session.store, "list_usage"):
        return 0
    rows = await session.store.list_usage(session.workstream_id)
    return sum(row.prompt_tokens + row.completion_tokens for row in rows)


def budget_spent(session: SessionView) -> str | None:
    """Why the next request may not be sent (the token budget is used up), else None."""
    budget = getattr(session, "token_budget", None)
    used = session.tokens_before + session.usage.session_tokens
    if budget is None or used < budget:
        return None
    return (f"This workstream's token budget ({budget:,} tokens, from its skill) is spent "
            f"({used:,} used), so nothing more was sent. Start a new workstream to go on.")
