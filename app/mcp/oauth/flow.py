"""The `httpx2.Auth` for one MCP server: the `mcp` SDK's OAuth providers with Whimbrel's storage and sign-in.

The SDK does discovery, registration, PKCE, token exchange, refresh and step-up; a failed refresh
falls back to a full authorization, which is a new browser sign-in. Whimbrel adds: tokens on disk
(`store.TokenStore`), the localhost callback (`callback.CallbackServer`), the app's prompt
(`ClientHooks.authorization`) with a deadline, a status callback while a person is signing in, and the
last failure in words (`GuardedAuth.failure`) so the manager can say why a connection failed.
Imported on the connect path only: it imports the SDK.
"""

from __future__ import annotations

import asyncio
import warnings
from pathlib import Path
from typing import Any, AsyncGenerator, Callable
from urllib.parse import parse_qs, urlsplit

import httpx2
from mcp.client.auth import OAuthClientProvider, OAuthRegistrationError
from mcp.client.auth.extensions.client_credentials import (
    ClientCredentialsOAuthProvider, PrivateKeyJWTOAuthProvider, SignedJWTParameters,
)
from mcp.client.auth.extensions.identity_assertion import IdentityAssertionOAuthProvider
from mcp.shared.auth import (
    AuthorizationCodeResult, OAuthClientInformationFull, OAuthClientMetadata, OAuthMetadata, ProtectedResourceMetadata,
)

from app.mcp.features import AuthorizationRequest, ClientHooks, Declined
from app.mcp.oauth.callback import HOST, PATH, CallbackServer, SignInError, free_port, port_is_free
from app.settings.mcp_oauth import OAuthSettings
from app.mcp.oauth.steps import OAuthSteps
from app.mcp.oauth.store import TokenStore

OnWaiting = Callable[[bool, str], None]
"""`on_waiting(True, detail)` when a person must sign in; `on_waiting(False, outcome)` when that ends."""

CLIENT_NAME = "Whimbrel"


class SignIn:
    """Browser sign-ins of one server: the SDK's redirect and callback handlers.

    `redirect(url)` starts the localhost listener, reports 'waiting' and asks the app to show the URL;
    `result()` waits for the browser to come back. Both share one deadline (`timeout` seconds).
    """

    def __init__(self, server: str, port: int, timeout: float, hooks: ClientHooks, on_waiting: OnWaiting,
                 steps: OAuthSteps | None = None) -> None:
        self.server = server
        self.steps = steps or OAuthSteps()
        self.port = port
        self.timeout = timeout
        self.hooks = hooks
        self.on_waiting = on_waiting
        self.callback: CallbackServer | None = None
        self.request: AuthorizationRequest | None = None
        self._deadline = 0.0

    @property
    def redirect_uri(self) -> str:
        return f"http://{HOST}:{self.port}{PATH}"

    async def redirect(self, url: str) -> None:
        loop = asyncio.get_running_loop()
        self._deadline = loop.time() + self.timeout
        self.callback = CallbackServer(self.port, server_name=self.server)
        await self.callback.start()
        self.callback.expect(parse_qs(urlsplit(url).query).get("state", [""])[0])
        self.request = AuthorizationRequest(self.server, url, self.timeout, cancel=self.callback.cancel)
        self.steps.browser("authorization: sign in through the browser", url,
                           f"the browser comes back to {self.redirect_uri}")
        self.on_waiting(True, f"sign in through the browser (waiting up to {self.timeout:g}s)")
        try:
            await asyncio.wait_for(self.hooks.authorization(self.request), self.timeout)
        except Declined as exc:
            await self.end(f"sign-in declined: {exc}")
            raise SignInError(f"sign-in declined: {exc}") from None
        except asyncio.TimeoutError:
            await self.end(f"no sign-in within {self.timeout:g}s (timed out)")
            raise SignInError(f"no sign-in within {self.timeout:g}s (timed out)") from None
        except Exception as exc:  # noqa: BLE001 - a broken prompt ends the sign-in with words
            await self.end(f"the sign-in page could not be shown: {exc}")
            raise SignInError(f"the sign-in page could not be shown: {exc}") from None

    async def result(self) -> AuthorizationCodeResult:
        if self.callback is None:
            raise SignInError("no sign-in was started")
        remaining = max(0.0, self._deadline - asyncio.get_running_loop().time())
        try:
            got = await self.callback.wait(remaining)
        except SignInError as exc:
            await self.end(str(exc))
            raise
        except BaseException:
            await self.end("sign-in interrupted")
            raise
        await self.end("")
        self.steps.browser("authorization: the browser came back", self.redirect_uri,
                           f"an authorization code ({len(got.code or '')} characters) for state {got.state}")
        return AuthorizationCodeResult(code=got.code, state=got.state, iss=got.iss)

    def cancel(self, reason: str) -> None:
        """Abandon the sign-in in progress, if any (the app is stopping, the user reconnects)."""
        if self.callback is not None:
            self.callback.cancel(reason)

    async def end(self, outcome: str) -> None:
        """Close the listener, tell the app (dialog) and the manager (status) that the sign-in is over."""
        callback, self.callback = self.callback, None
        if callback is None:
            return
        await callback.close()
        request = self.request
        if request is not None and not request.finished.is_set():
            request.outcome = outcome
            request.finished.set()
        self.on_waiting(False, outcome)


class _Remembers:
    """Mixin: what the SDK alone forgets across restarts.

    Stored tokens come back with what is left of their lifetime, so an expired access token is refreshed
    before it is sent (the SDK treats a loaded token as never expiring). The discovered authorization
    server metadata is kept next to the tokens, so that refresh goes to the real token endpoint (the SDK
    would guess `<server origin>/token` and, when that is wrong, fall back to a new browser sign-in).
    """

    context: Any

    async def _initialize(self) -> None:
        await super()._initialize()  # type: ignore[misc]
        context = self.context
        tokens = context.current_tokens
        if tokens is not None and tokens.expires_in is not None:
            context.update_token_expiry(tokens)
        found = await context.storage.get_discovery()
        try:
            if context.oauth_metadata is None and found.get("oauth_metadata"):
                context.oauth_metadata = OAuthMetadata.model_validate(found["oauth_metadata"])
            if context.protected_resource_metadata is None and found.get("protected_resource_metadata"):
                context.protected_resource_metadata = ProtectedResourceMetadata.model_validate(
                    found["protected_resource_metadata"])
        except ValueError:  # stale or hand-edited: discovery runs again on the next 401
            context.oauth_metadata = context.protected_resource_metadata = None
        if context.auth_server_url is None and isinstance(found.get("auth_server_url"), str):
            context.auth_server_url = found["auth_server_url"]

    async def _handle_token_response(self, response: httpx2.Response) -> None:
        await super()._handle_token_response(response)  # type: ignore[misc]
        context = self.context
        found = {"oauth_metadata": context.oauth_metadata,
                 "protected_resource_metadata": context.protected_resource_metadata}
        await context.storage.set_discovery({
            **{key: model.model_dump(mode="json", exclude_none=True) for key, model in found.items() if model},
            "auth_server_url": context.auth_server_url})


class BrowserProvider(_Remembers, OAuthClientProvider):
    """Authorization code with PKCE; `client_info` is a pre-registered client (no registration)."""

    def __init__(self, *args: Any, client_info: OAuthClientInformationFull | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self._fixed_client = client_info

    async def _initialize(self) -> None:
        await super()._initialize()
        if self._fixed_client is not None:
            self.context.client_info = self._fixed_client


class SecretClientProvider(_Remembers, ClientCredentialsOAuthProvider):
    """client_credentials with client_id + client_secret."""


class KeyClientProvider(_Remembers, PrivateKeyJWTOAuthProvider):
    """client_credentials with a private_key_jwt assertion."""


class GuardedAuth(httpx2.Auth):
    """Wraps an SDK provider: remembers the last failure of the flow and never leaves a listener open."""

    def __init__(self, inner: httpx2.Auth, sign_in: SignIn | None, interactive: bool,
                 steps: OAuthSteps | None = None) -> None:
        self.inner = inner
        self.steps = steps if steps is not None else OAuthSteps()  # every exchange, for the inspector
        self.sign_in = sign_in
        self.interactive = interactive  # a retry would prompt a person again
        self.requires_request_body = inner.requires_request_body
        self.requires_response_body = inner.requires_response_body
        self.failure: BaseException | None = None

    async def async_auth_flow(self, request: httpx2.Request) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        flow = self.inner.async_auth_flow(request)
        try:
            outgoing = await flow.__anext__()
            in_sign_in = False  # once a step of this flow is recorded, the rest of it are steps too
            while True:
                response = yield outgoing
                if self.steps.is_step(outgoing, response, auth_only=not in_sign_in):
                    if "event-stream" not in response.headers.get("content-type", ""):
                        await response.aread()  # (the provider reads these answers too; a stream stays unread)
                    in_sign_in = self.steps.exchange(outgoing, response)
                outgoing = await flow.asend(response)
        except StopAsyncIteration:
            return
        except Exception as exc:
            self.failure = self._explain(exc)
            raise
        finally:
            await flow.aclose()
            if self.sign_in is not None:
                await self.sign_in.end("sign-in interrupted")

    def _explain(self, exc: Exception) -> Exception:
        """A 401 from a server that publishes no OAuth metadata and takes no registration is not an
        OAuth server: say what the user can do instead of quoting the failed registration."""
        context = getattr(self.inner, "context", None)
        if isinstance(exc, OAuthRegistrationError) and context is not None \
                and context.oauth_metadata is None and context.protected_resource_metadata is None:
            return SignInError("the server answered 401 Unauthorized but offers no OAuth sign-in (no "
                               "authorization metadata, no client registration); give it credentials in "
                               "'headers', or set oauth = false")
        return exc


def _callback_port(settings: OAuthSettings, store: TokenStore) -> int:
    """The configured port, else the one the stored registration names, else a free one.

    A registration names its redirect URI, so moving to another port drops the registration (the
    client registers again with the new URI).
    """
    if settings.redirect_port:
        return settings.redirect_port
    port = store.registered_port()
    if port and port_is_free(port):
        return port
    if port:
        store.forget_client()
    return free_port()


def _read_key(settings: OAuthSettings) -> str:
    if settings.private_key:
        return settings.private_key
    path = Path(settings.private_key_file or "").expanduser()
    try:
        return path.read_text(encoding="utf-8")
    except OSError as exc:
        raise SignInError(f"cannot read oauth private_key_file {path}: {exc.strerror or exc}") from None


def build_auth(server: str, url: str, settings: OAuthSettings, store: TokenStore, hooks: ClientHooks,
               on_waiting: OnWaiting, steps: OAuthSteps | None = None) -> GuardedAuth:
    """The auth for one connection attempt; `steps` records each step of it (app/mcp/oauth/steps.py).
    Raises SignInError/ValueError for unusable settings."""
    scope = settings.scope
    with warnings.catch_warnings():
        # the SDK warns when `issuer` is left out; the configuration may do that, the terminal must not show it
        warnings.simplefilter("ignore")
        if settings.grant == "identity_assertion":
            if not (settings.issuer and settings.client_id and settings.client_secret and settings.assertion):
                raise SignInError("the identity_assertion grant needs issuer, client_id, client_secret and an "
                                  "assertion provider")
            method = settings.token_endpoint_auth_method or "client_secret_post"
            inner: httpx2.Auth = IdentityAssertionOAuthProvider(
                url, store, settings.client_id, settings.client_secret, settings.issuer, settings.assertion,
                scope=scope, token_endpoint_auth_method=method)  # type: ignore[arg-type]
            return GuardedAuth(inner, None, interactive=False, steps=steps)
        if settings.grant == "client_credentials":
            if settings.private_key or settings.private_key_file:
                signer = SignedJWTParameters(issuer=settings.client_id or "", subject=settings.client_id or "",
                                             signing_key=_read_key(settings),
                                             signing_algorithm=settings.signing_algorithm)
                inner = KeyClientProvider(url, store, settings.client_id or "", signer.create_assertion_provider(),
                                          scope=scope, issuer=settings.issuer)
            else:
                method = settings.token_endpoint_auth_method or "client_secret_basic"
                inner = SecretClientProvider(url, store, settings.client_id or "", settings.client_secret or "",
                                             token_endpoint_auth_method=method,  # type: ignore[arg-type]
                                             scope=scope, issuer=settings.issuer)
            return GuardedAuth(inner, None, interactive=False, steps=steps)
    sign_in = SignIn(server, _callback_port(settings, store), settings.timeout, hooks, on_waiting, steps)
    redirect_uris = [sign_in.redirect_uri]
    metadata = OAuthClientMetadata(
        client_name=CLIENT_NAME, redirect_uris=redirect_uris, grant_types=["authorization_code", "refresh_token"],
        response_types=["code"], scope=scope, software_id="whimbrel",
        token_endpoint_auth_method=settings.token_endpoint_auth_method)  # type: ignore[arg-type]
    fixed = None
    if settings.client_id:
        fixed = OAuthClientInformationFull(
            client_id=settings.client_id, client_secret=settings.client_secret, redirect_uris=redirect_uris,
            grant_types=["authorization_code", "refresh_token"], scope=scope,
            token_endpoint_auth_method=settings.token_endpoint_auth_method
            or ("client_secret_basic" if settings.client_secret else "none"))
    inner = BrowserProvider(url, metadata, store, sign_in.redirect, sign_in.result,
                            client_metadata_url=settings.client_metadata_url, client_info=fixed)
    return GuardedAuth(inner, sign_in, interactive=True, steps=steps)
