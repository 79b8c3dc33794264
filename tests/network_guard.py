"""A pytest plugin that keeps tests off the network: in the pytest process, looking up a name or
connecting to an address that is not this machine fails at once, as it would offline, and the test
that tried fails, naming what it tried to reach.

Only the pytest process is guarded; the servers that tests start are real programs, kept local by
their arguments (127.0.0.1 URLs). Unix sockets and loopback addresses pass untouched.
"""

from __future__ import annotations

import errno
import ipaddress
import socket
from collections.abc import Iterator

import pytest

_real_getaddrinfo = socket.getaddrinfo
_real_connect = socket.socket.connect
_real_connect_ex = socket.socket.connect_ex
_attempts: list[str] = []


def is_local(host: object) -> bool:
    """True for this machine: localhost, a loopback or unspecified address, or no host (a passive bind)."""
    if isinstance(host, bytes):
        host = host.decode(errors="replace")
    if host in (None, "", "localhost"):
        return True
    try:
        address = ipaddress.ip_address(str(host).split("%")[0])
        return address.is_loopback or address.is_unspecified
    except ValueError:
        return str(host).endswith(".localhost")


def _getaddrinfo(host, *args, **kwargs):
    if not is_local(host):
        _attempts.append(f"a name lookup of {host!r}")
        raise socket.gaierror(socket.EAI_NONAME, f"tests may not reach the network (name lookup of {host!r})")
    return _real_getaddrinfo(host, *args, **kwargs)


def _remote(sock: socket.socket, address: object) -> bool:
    """True (and recorded) when `sock` would connect past this machine."""
    if sock.family in (socket.AF_INET, socket.AF_INET6) and isinstance(address, tuple) and not is_local(address[0]):
        _attempts.append(f"a connection to {address[0]}:{address[1]}")
        return True
    return False


def _connect(self, address):
    if _remote(self, address):
        raise ConnectionRefusedError(errno.ECONNREFUSED, f"tests may not reach the network ({address[0]}:{address[1]})")
    return _real_connect(self, address)


def _connect_ex(self, address):
    return errno.ECONNREFUSED if _remote(self, address) else _real_connect_ex(self, address)


def pytest_configure(config: pytest.Config) -> None:
    socket.getaddrinfo = _getaddrinfo
    socket.socket.connect = _connect
    socket.socket.connect_ex = _connect_ex


def pytest_unconfigure(config: pytest.Config) -> None:
    socket.getaddrinfo = _real_getaddrinfo
    socket.socket.connect = _real_connect
    socket.socket.connect_ex = _real_connect_ex


@pytest.fixture(autouse=True)
def _stays_off_the_network() -> Iterator[None]:
    """Fail the test (at teardown) when it tried to reach past this machine, whatever it caught."""
    before = len(_attempts)
    yield
    tried = sorted(set(_attempts[before:]))
    if tried:
        pytest.fail(f"this test tried to reach the network: {', '.join(tried)}", pytrace=False)
