"""web_fetch against a real local site: readable text, questions answered by a model, and SSRF refusals."""

from __future__ import annotations

import asyncio
import ipaddress
from typing import Iterator

import pytest

from tests.tools.helpers import run
from tests.tools.web_site import LocalSite
from tools.address_policy import AddressPolicy, classify
from tools.context import ToolContext
from tools.pinned_fetch import FetchLimits, WebAccess
from tools.registry import ToolRegistry


@pytest.fixture(scope="module")
def site() -> Iterator[LocalSite]:
    with LocalSite() as served:
        yield served


@pytest.fixture
def fresh_site(site: LocalSite) -> LocalSite:
    site.redirect_target = "/docs"
    site.hosts.clear()
    return site


def resolver_for(answers: dict[str, list[list[str]]]):
    """A DNS seam: each lookup of a name pops its next answer (the last one repeats)."""
    async def resolve(host: str, _port: int) -> list[str]:
        queue = answers[host]
        return queue.pop(0) if len(queue) > 1 else queue[0]
    return resolve


def context(workspace, policy=AddressPolicy(), limits=FetchLimits(), resolver=None, ask_model=None) -> ToolContext:
    web = WebAccess(policy=policy, limits=limits, **({"resolver": resolver} if resolver else {}))
    return ToolContext(workspace=workspace, web=web, ask_model=ask_model)


LOOPBACK_OK = AddressPolicy(allow_networks=("127.0.0.1/32",))


@pytest.mark.parametrize("address, kind", [
    ("127.0.0.1", "loopback"), ("10.1.2.3", "private"), ("192.168.0.10", "private"), ("172.16.5.4", "private"),
    ("169.254.169.254", "cloud metadata"), ("169.254.1.1", "link-local"), ("100.64.0.1", "carrier-grade NAT (CGNAT)"),
    ("224.0.0.1", "multicast"), ("::1", "loopback"), ("fe80::1", "link-local"), ("fc00::1", "private"),
    ("::ffff:127.0.0.1", "loopback"), ("0.0.0.0", "unspecified"), ("8.8.8.8", None), ("2606:4700::1111", None)])
def test_addresses_are_classified(address: str, kind: str | None) -> None:
    assert classify(ipaddress.ip_address(address)) == kind


def test_metadata_needs_an_explicit_network_rule() -> None:
    metadata = ipaddress.ip_address("169.254.169.254")
    assert AddressPolicy(allow_hosts=("169.254.169.254",)).refusal("169.254.169.254", metadata)
    assert AddressPolicy(allow_networks=("169.254.169.254/32",)).refusal("169.254.169.254", metadata) is None


async def test_a_local_docs_page_comes_back_as_readable_text(registry: ToolRegistry, fresh_site: LocalSite,
                                                             workspace) -> None:
    ctx = context(workspace, LOOPBACK_OK)
    text, is_error = await run(registry, ctx, "web_fetch", {"url": fresh_site.url("/docs")})
    assert not is_error, text
    assert "5,000 km" in text and "Numenius phaeopus" in text and "Whimbrel field guide" in text
    assert "SCRIPT-NOISE" not in text and "<p>" not in text and "color: red" not in text


async def test_a_question_is_answered_by_the_model_from_the_page(registry, fresh_site, workspace) -> None:
    prompts: list[str] = []

    async def ask(prompt: str) -> str:
        prompts.append(prompt)
        return "It flies 5,000 km non-stop."

    ctx = context(workspace, LOOPBACK_OK, ask_model=ask)
    text, is_error = await run(registry, ctx, "web_fetch", {"url": fresh_site.url("/docs"),
                                                            "question": "How far does it fly?"})
    assert not is_error and text.endswith("It flies 5,000 km non-stop.")
    assert "Numenius phaeopus" not in text  # the page itself stays out of the context
    assert "How far does it fly?" in prompts[0] and "5,000 km" in prompts[0]


async def test_loopback_is_refused_by_default(registry, fresh_site, workspace) -> None:
    text, is_error = await run(registry, context(workspace), "web_fetch", {"url": fresh_site.url("/docs")})
    assert is_error and "127.0.0.1, a loopback address" in text and "web_allow_hosts" in text
    assert fresh_site.hosts == []  # never connected


async def test_a_redirect_to_127_0_0_1_is_refused_with_the_reason(registry, fresh_site, workspace) -> None:
    """The docs host is allowed by name; its redirect to 127.0.0.1 is checked again and refused."""
    fresh_site.redirect_target = fresh_site.url("/docs")
    resolver = resolver_for({"docs.test": [["127.0.0.1"]]})
    ctx = context(workspace, AddressPolicy(allow_hosts=("docs.test",)), resolver=resolver)
    text, is_error = await run(registry, ctx, "web_fetch", {"url": fresh_site.url("/redirect", "docs.test")})
    assert is_error
    assert "redirected to http://127.0.0.1:" in text and "which was refused" in text and "loopback" in text
    assert fresh_site.hosts == []
    fresh_site.redirect_target = "/docs"  # a redirect within the allowed host is followed
    text, is_error = await run(registry, ctx, "web_fetch", {"url": fresh_site.url("/redirect", "docs.test")})
    assert not is_error and "5,000 km" in text and "redirected to" in text


async def test_a_hostname_resolving_to_a_private_address_is_refused(registry, workspace) -> None:
    resolver = resolver_for({"intranet.example.com": [["10.0.0.7"]]})
    text, is_error = await run(registry, context(workspace, resolver=resolver), "web_fetch",
                               {"url": "http://intranet.example.com/admin"})
    assert is_error and "intranet.example.com resolves to 10.0.0.7, a private address" in text


async def test_an_answer_mixing_public_and_private_addresses_is_refused(registry, workspace) -> None:
    resolver = resolver_for({"mixed.example.com": [["93.184.216.34", "127.0.0.1"]]})
    text, is_error = await run(registry, context(workspace, resolver=resolver), "web_fetch",
                               {"url": "http://mixed.example.com/"})
    assert is_error and "127.0.0.1, a loopback address" in text


async def test_dns_that_changes_between_lookups_cannot_move_the_connection(registry, fresh_site, workspace) -> None:
    """The first answer is checked and pinned: a later lookup would say 127.0.0.2 (nothing listens
    there, and it is not allowed), so the page arriving proves no second lookup was made."""
    resolver = resolver_for({"rebind.test": [["127.0.0.1"], ["127.0.0.2"]]})
    ctx = context(workspace, LOOPBACK_OK, resolver=resolver)
    text, is_error = await run(registry, ctx, "web_fetch", {"url": fresh_site.url("/docs", "rebind.test")})
    assert not is_error and "5,000 km" in text
    assert fresh_site.hosts == [f"rebind.test:{fresh_site.port}"]  # the name is kept in the Host header


async def test_an_oversized_body_is_cut_at_the_cap(registry, fresh_site, workspace) -> None:
    ctx = context(workspace, LOOPBACK_OK, limits=FetchLimits(max_bytes=200_000, timeout=30))
    text, is_error = await run(registry, ctx, "web_fetch", {"url": fresh_site.url("/endless")})
    assert not is_error and "cut at 200,000 bytes" in text.splitlines()[0]


async def test_a_slow_body_stops_at_the_deadline(registry, fresh_site, workspace) -> None:
    ctx = context(workspace, LOOPBACK_OK, limits=FetchLimits(timeout=1.0))
    text, is_error = await asyncio.wait_for(run(registry, ctx, "web_fetch", {"url": fresh_site.url("/slow")}), 30)
    assert is_error and "did not finish within 1 s" in text


@pytest.mark.parametrize("path, words", [("/missing", "HTTP 404"), ("/image", "image/png, not text")])
async def test_errors_are_words(registry, fresh_site, workspace, path, words) -> None:
    text, is_error = await run(registry, context(workspace, LOOPBACK_OK), "web_fetch", {"url": fresh_site.url(path)})
    assert is_error and words in text


async def test_bad_urls_are_refused_before_any_request(registry, workspace) -> None:
    text, is_error = await run(registry, context(workspace), "web_fetch", {"url": "file:///etc/passwd"})
    assert is_error and "Invalid arguments for web_fetch" in text
    text, is_error = await run(registry, context(workspace), "web_fetch", "http://[::1]:1/")
    assert is_error and "loopback" in text


async def test_a_question_without_a_model_says_so(registry, fresh_site, workspace) -> None:
    text, is_error = await run(registry, context(workspace, LOOPBACK_OK), "web_fetch",
                               {"url": fresh_site.url("/plain"), "question": "what?"})
    assert is_error and "no model is available" in text


def test_a_large_page_is_read_in_one_pass_without_scripts() -> None:
    from tools.readable import LARGE_HTML, readable

    filler = "<p>" + "é " * 50 + "</p>"
    page = ("<html><head><script>var SECRET_NOISE = 1;</script></head><body><h2>Results</h2>"
            + filler * (LARGE_HTML // len(filler) + 10) + "<style>.x{}</style><p>the last line</p></body></html>")
    text = readable("text/html; charset=utf-8", page.encode())
    assert text.startswith("## Results\n") and "SECRET_NOISE" not in text and ".x{}" not in text
    assert "\ufffd" not in text and "é é" in text  # multi-byte characters across read chunks stay whole
