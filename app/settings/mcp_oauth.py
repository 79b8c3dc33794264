"""OAuth settings of one MCP server: `oauth = true|false` or an `[mcp.servers.<name>.oauth]` table.

HTTP and SSE servers get OAuth by default: nothing happens until a server answers 401 with a
`WWW-Authenticate` challenge, and then Whimbrel signs in through the browser (authorization code with
PKCE, dynamic client registration). `oauth = false` turns that off; a server with its own
`Authorization` header is left alone. A table configures a pre-registered client, scopes, a fixed
callback port, or a machine grant (client credentials with a secret or a private key).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Awaitable, Callable, Mapping

GRANTS = ("authorization_code", "client_credentials", "identity_assertion")
AUTH_METHODS = ("client_secret_basic", "client_secret_post", "none", "private_key_jwt")
DEFAULT_TIMEOUT = 300.0
# `.mcp.json` files written for other clients use camelCase names
_ALIASES = {"clientId": "client_id", "clientSecret": "client_secret", "callbackPort": "redirect_port",
            "redirectPort": "redirect_port", "scopes": "scope", "tokenEndpointAuthMethod": "token_endpoint_auth_method",
            "clientMetadataUrl": "client_metadata_url", "privateKeyFile": "private_key_file",
            "signingAlgorithm": "signing_algorithm"}
_KEYS = ("enabled", "grant", "client_id", "client_secret", "scope", "redirect_port", "issuer",
         "client_metadata_url", "token_endpoint_auth_method", "private_key_file", "signing_algorithm", "timeout")


@dataclass
class OAuthSettings:
    """How Whimbrel authorizes against one server. `grant`:

    - authorization_code: browser sign-in with PKCE; `client_id`/`client_secret` name a pre-registered
      client (else the client registers itself), `redirect_port` fixes the localhost callback port.
    - client_credentials: no browser; `client_id` with `client_secret`, or with `private_key_file`
      (private_key_jwt, signed with `signing_algorithm`).
    - identity_assertion: SEP-990 enterprise grant; needs `issuer`, `client_id`, `client_secret` and
      an `assertion` callable (programmatic only) that returns the IdP's ID-JAG.
    """

    enabled: bool = True
    grant: str = "authorization_code"
    client_id: str | None = None
    client_secret: str | None = None
    scope: str | None = None
    redirect_port: int | None = None
    issuer: str | None = None
    client_metadata_url: str | None = None
    token_endpoint_auth_method: str | None = None
    private_key_file: str | None = None
    private_key: str | None = None  # PEM text; programmatic alternative to private_key_file
    signing_algorithm: str = "RS256"
    timeout: float = DEFAULT_TIMEOUT  # seconds to wait for the browser sign-in
    assertion: Callable[[str, str], Awaitable[str]] | None = None  # (audience, resource) -> ID-JAG
    explicit: bool = False  # configured by the user (not the HTTP default)


class OAuthConfigError(ValueError):
    """The oauth setting of a server is unusable; the message names the server and the key."""


def parse_oauth(name: str, value: Any, where: str, expand: Callable[[str], str] = lambda s: s) -> OAuthSettings:
    """`oauth = true|false` or a table/object, with `${VAR}` expanded in its strings."""
    def fail(problem: str) -> OAuthConfigError:
        return OAuthConfigError(f"{where}: MCP server '{name}': oauth: {problem}")

    if isinstance(value, bool):
        return OAuthSettings(enabled=value, explicit=True)
    if not isinstance(value, Mapping):
        raise fail("must be true, false or a table")
    data = {_ALIASES.get(k, k): v for k, v in value.items()}
    unknown = [k for k in data if k not in _KEYS]
    if unknown:
        raise fail(f"unknown key(s) {', '.join(map(repr, unknown))} (known: {', '.join(_KEYS)})")
    settings = OAuthSettings(explicit=True)
    for key in ("grant", "client_id", "client_secret", "issuer", "client_metadata_url",
                "token_endpoint_auth_method", "private_key_file", "signing_algorithm"):
        if key in data:
            if not isinstance(data[key], str) or not data[key]:
                raise fail(f"'{key}' must be a non-empty string")
            setattr(settings, key, expand(data[key]))
    if "enabled" in data:
        settings.enabled = bool(data["enabled"])
    if "scope" in data:
        scope = data["scope"]
        if isinstance(scope, list) and all(isinstance(s, str) for s in scope):
            scope = " ".join(scope)
        if not isinstance(scope, str):
            raise fail("'scope' must be a string (space-separated) or a list of strings")
        settings.scope = expand(scope).strip() or None
    if "redirect_port" in data:
        port = data["redirect_port"]
        if isinstance(port, bool) or not isinstance(port, int) or not 1 <= port <= 65535:
            raise fail("'redirect_port' must be a port number (1-65535)")
        settings.redirect_port = port
    if "timeout" in data:
        timeout = data["timeout"]
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0:
            raise fail("'timeout' must be a positive number of seconds")
        settings.timeout = float(timeout)
    if settings.grant not in GRANTS[:2]:
        raise fail(f"'grant' must be one of {', '.join(GRANTS[:2])}, got {settings.grant!r}")
    if settings.token_endpoint_auth_method not in (None, *AUTH_METHODS):
        raise fail(f"'token_endpoint_auth_method' must be one of {', '.join(AUTH_METHODS)}")
    if settings.grant == "client_credentials":
        if not settings.client_id:
            raise fail("the client_credentials grant needs 'client_id'")
        if not (settings.client_secret or settings.private_key_file):
            raise fail("the client_credentials grant needs 'client_secret' or 'private_key_file'")
    elif settings.client_secret and not settings.client_id:
        raise fail("'client_secret' needs the 'client_id' it belongs to")
    return settings


def effective_oauth(transport: str, oauth: OAuthSettings | None, headers: Mapping[str, str]) -> OAuthSettings | None:
    """The settings that apply to a server, or None when OAuth is off for it.

    On by default for http/sse, except for a server that carries its own Authorization header.
    """
    if transport not in ("http", "sse"):
        return None
    if oauth is not None:
        return oauth if oauth.enabled else None
    if any(key.lower() == "authorization" for key in headers):
        return None
    return OAuthSettings()
