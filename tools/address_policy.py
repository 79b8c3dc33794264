"""Which addresses web tools may reach: private, loopback, link-local, CGNAT, multicast and cloud
metadata addresses are refused unless a rule (a host name or a network) allows them."""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field

IpAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

CGNAT = ipaddress.ip_network("100.64.0.0/10")
METADATA = (ipaddress.ip_address("169.254.169.254"), ipaddress.ip_address("169.254.170.2"),
            ipaddress.ip_address("100.100.100.200"), ipaddress.ip_address("fd00:ec2::254"))


def classify(address: IpAddress) -> str | None:
    """Why `address` is not a public internet address ('loopback', 'private', …), or None if it is."""
    if isinstance(address, ipaddress.IPv6Address) and address.ipv4_mapped is not None:
        return classify(address.ipv4_mapped)
    if address in METADATA:
        return "cloud metadata"
    if address.is_loopback:
        return "loopback"
    if address.is_link_local:
        return "link-local"
    if address.is_multicast:
        return "multicast"
    if isinstance(address, ipaddress.IPv4Address) and address in CGNAT:
        return "carrier-grade NAT (CGNAT)"
    if address.is_unspecified:
        return "unspecified"
    if address.is_private or address.is_reserved or not address.is_global:
        return "private"
    return None


@dataclass(frozen=True)
class AddressPolicy:
    """The rules: `allow_hosts` may resolve anywhere (e.g. a local docs server); `allow_networks`
    (CIDR) are reachable from any host name. Cloud metadata needs an explicit network rule."""

    allow_hosts: tuple[str, ...] = ()
    allow_networks: tuple[str, ...] = ()
    networks: tuple[ipaddress.IPv4Network | ipaddress.IPv6Network, ...] = field(default=(), compare=False)

    def __post_init__(self) -> None:
        nets = tuple(ipaddress.ip_network(n, strict=False) for n in self.allow_networks)
        object.__setattr__(self, "networks", nets)
        object.__setattr__(self, "allow_hosts", tuple(h.lower().rstrip(".") for h in self.allow_hosts))

    def refusal(self, host: str, address: IpAddress) -> str | None:
        """Why connecting to `address` (resolved from `host`) is refused, or None when allowed."""
        kind = classify(address)
        if kind is None:
            return None
        if any(address in net for net in self.networks):
            return None
        if kind != "cloud metadata" and host.lower().rstrip(".") in self.allow_hosts:
            return None
        return (f"{host} resolves to {address}, a {kind} address; web tools may only reach public addresses "
                f"unless [tools] web_allow_hosts or web_allow_networks in the config allows it")
