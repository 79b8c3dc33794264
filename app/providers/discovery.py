"""First-run discovery: API keys in the environment, local model servers on their usual ports,
and writing the user's choice into config.toml (tomlkit keeps comments and formatting).

Probing uses plain asyncio sockets with a short timeout, so it imports nothing heavy and a
frontend can run it in a worker without ever blocking its UI.
"""

from __future__ import annotations

import asyncio
import json
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Mapping

import tomlkit

KEYS = (  # env var, provider, suggested model, label
    ("OPENAI_API_KEY", "openai", "gpt-4.1", "OpenAI"),
    ("ANTHROPIC_API_KEY", "anthropic", "claude-sonnet-4-6", "Anthropic"),
    ("GEMINI_API_KEY", "google", "gemini-2.5-flash", "Google Gemini"),
)
LOCAL_SERVERS = (  # name, port, alias
    ("Ollama", 11434, "ollama"),
    ("llama.cpp", 8080, "llamacpp"),
    ("vLLM", 8000, "vllm"),
    ("LM Studio", 1234, "lmstudio"),
)


@dataclass
class Candidate:
    """A model the user could pick: from an API key or a local server."""

    label: str
    alias: str
    provider: str
    model: str
    base_url: str | None = None
    api_key_env: str | None = None
    models: list[str] = field(default_factory=list)  # what a local server offers
    source: str = "env"  # "env" | "local"


def detect_keys(env: Mapping[str, str] = os.environ) -> list[Candidate]:
    """One candidate per provider whose API key is set."""
    out = []
    for var, provider, model, label in KEYS:
        if env.get(var):
            out.append(Candidate(f"{label} ({var} is set)", provider if provider != "openai" else "openai",
                                 provider, model, api_key_env=var, models=[model]))
    return out


async def http_get_json(host: str, port: int, path: str, timeout: float) -> object | None:
    """GET http://host:port/path and decode its JSON body; None on any failure or timeout."""
    async def fetch() -> object | None:
        reader, writer = await asyncio.open_connection(host, port)
        try:
            writer.write(f"GET {path} HTTP/1.1\r\nHost: {host}:{port}\r\nAccept: application/json\r\n"
                         "Connection: close\r\n\r\n".encode())
            await writer.drain()
            data = b""  # headers and body may arrive in separate reads: read to the end (capped)
            while len(data) < 1 << 20 and (piece := await reader.read(65536)):
                data += piece
        finally:
            writer.close()
        head, _, body = data.partition(b"\r\n\r\n")
        if b" 200 " not in head.split(b"\r\n", 1)[0] + b" ":
            return None
        if b"chunked" in head.lower():
            body = _dechunk(body)
        return json.loads(body.decode("utf-8", "replace"))

    try:
        return await asyncio.wait_for(fetch(), timeout)
    except (OSError, asyncio.TimeoutError, ValueError):
        return None


def _dechunk(body: bytes) -> bytes:
    out, rest = b"", body
    while rest:
        size_line, _, rest = rest.partition(b"\r\n")
        try:
            size = int(size_line.split(b";")[0], 16)
        except ValueError:
            break
        if size == 0:
            break
        out, rest = out + rest[:size], rest[size + 2:]
    return out


def _model_ids(payload: object) -> list[str]:
    """Model names from an OpenAI /v1/models or Ollama /api/tags body."""
    if not isinstance(payload, dict):
        return []
    items = payload.get("data") or payload.get("models") or []
    names = []
    for item in items if isinstance(items, list) else []:
        if isinstance(item, dict):
            name = item.get("id") or item.get("name") or item.get("model")
            if isinstance(name, str):
                names.append(name)
    return names


async def probe_local(host: str = "127.0.0.1", timeout: float = 0.6,
                      servers: tuple[tuple[str, int, str], ...] = LOCAL_SERVERS) -> list[Candidate]:
    """Probe every local server at once; those answering /v1/models (or /api/tags) are returned."""
    async def probe(name: str, port: int, alias: str) -> Candidate | None:
        payload = await http_get_json(host, port, "/v1/models", timeout)
        if payload is None and name == "Ollama":
            payload = await http_get_json(host, port, "/api/tags", timeout)
        if payload is None:
            return None
        models = _model_ids(payload)
        return Candidate(f"{name} on port {port}", alias, "openai", models[0] if models else "",
                         base_url=f"http://{host}:{port}/v1", models=models, source="local")

    found = await asyncio.gather(*(probe(*server) for server in servers))
    return [c for c in found if c is not None]


def write_model_choice(path: Path, *, alias: str, provider: str, model: str,
                       base_url: str | None = None, api_key_env: str | None = None,
                       context_window: int | None = None, make_default: bool = True) -> None:
    """Add or replace `[models.<alias>]` (and set `[model] default`) in the config at `path`.

    Everything else in the file — comments, order, formatting — is kept as it was.
    """
    from app.settings.config_edit import edit_config

    edit_config(path, lambda doc: _add_model(doc, alias=alias, provider=provider, model=model, base_url=base_url,
                                             api_key_env=api_key_env, context_window=context_window,
                                             make_default=make_default))


def _add_model(doc, *, alias: str, provider: str, model: str, base_url: str | None, api_key_env: str | None,
               context_window: int | None, make_default: bool) -> None:
    entry = tomlkit.table()
    if provider != "openai":
        entry["provider"] = provider
    if base_url:
        entry["base_url"] = base_url
    if api_key_env:
        entry["api_key_env"] = api_key_env
    entry["model"] = model
    if context_window:
        entry["context_window"] = context_window
    entry.add(tomlkit.nl())
    if make_default:
        if "model" in doc:
            doc["model"]["default"] = alias
        else:
            section = tomlkit.table()
            section["default"] = alias
            section.add(tomlkit.nl())
            keys = list(doc.keys())
            if "models" in keys:  # keep [model] above [models.*], as the README shows it
                doc._insert_at(keys.index("models"), "model", section)
            else:
                doc.add("model", section)
    if "models" not in doc:
        doc.add("models", tomlkit.table(is_super_table=True))
    doc["models"][alias] = entry
