"""Server-side request forgery guard: a URL may only lead to a public address.

We never trust how a host is written (``2130706433``, ``0177.0.0.1``,
``0x7f.1``, ``[::ffff:127.0.0.1]``, a name whose DNS points inside): we
resolve it with ``getaddrinfo``, check every address it resolves to, and the
caller then connects to the address we checked, so DNS cannot change between
the check and the connection. Every redirect goes through here again.
"""

from __future__ import annotations

import ipaddress
import socket
from dataclasses import dataclass
from urllib.parse import urlsplit

from .common import IngestError

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

_NAT64 = ipaddress.ip_network("64:ff9b::/96")
_NAT64_LOCAL = ipaddress.ip_network("64:ff9b:1::/48")
_CGNAT = ipaddress.ip_network("100.64.0.0/10")
_IPV6_LOOPBACK = ipaddress.IPv6Address("::1")
_DEFAULT_PORTS = {"http": 80, "https": 443, "git": 9418}


class AddressRefused(IngestError):
    """The URL leads to an address we never connect to (private, loopback …)."""


@dataclass(frozen=True)
class VettedURL:
    """A URL whose host resolved only to allowed addresses; connect to ``address``."""

    url: str
    scheme: str
    host: str  # as written in the URL (lower case, no brackets): for Host and SNI
    port: int
    addresses: tuple[str, ...]  # every address the host resolved to, all checked
    target: str  # path and query to request

    @property
    def address(self) -> str:
        """The first checked address (the one to try first)."""
        return self.addresses[0]

    @property
    def host_header(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return host if self.port == _DEFAULT_PORTS.get(self.scheme) else f"{host}:{self.port}"


def _embedded_ipv4(ip: ipaddress.IPv6Address) -> list[ipaddress.IPv4Address]:
    """IPv4 addresses an IPv6 address smuggles: mapped, compatible, 6to4,
    Teredo, NAT64. Each must pass the IPv4 checks on its own."""
    found: list[ipaddress.IPv4Address] = []
    if ip.ipv4_mapped is not None:
        found.append(ip.ipv4_mapped)
    packed = int(ip)
    if packed >> 32 == 0 and packed > 1:  # ::a.b.c.d (deprecated "compatible")
        found.append(ipaddress.IPv4Address(packed & 0xFFFFFFFF))
    if ip.sixtofour is not None:
        found.append(ip.sixtofour)
    if ip.teredo is not None:
        found.extend(ip.teredo)
    if ip in _NAT64 or ip in _NAT64_LOCAL:
        found.append(ipaddress.IPv4Address(packed & 0xFFFFFFFF))
    return found


def is_public(ip: IPAddress) -> bool:
    """True only for globally routable unicast addresses."""
    if (
        ip.is_private
        or ip.is_loopback
        or ip.is_link_local
        or ip.is_multicast
        or ip.is_reserved
        or ip.is_unspecified
        or not ip.is_global
    ):
        return False
    if isinstance(ip, ipaddress.IPv4Address):
        return ip not in _CGNAT and ip != ipaddress.IPv4Address("255.255.255.255")
    if ip.is_site_local or ip in _NAT64_LOCAL:
        return False
    return all(is_public(inner) for inner in _embedded_ipv4(ip))


def check_address(ip: IPAddress, *, allow_loopback: bool = False) -> None:
    """Raise ``AddressRefused`` unless ``ip`` may be connected to.

    ``allow_loopback`` lets tests reach their own server: plain 127.0.0.0/8
    and ::1 only, never another private range nor a loopback address wrapped
    in IPv6.
    """
    # Python counts ::ffff:127.0.0.1 as loopback too; only the plain forms pass.
    if allow_loopback and ip.is_loopback and (ip.version == 4 or ip == _IPV6_LOOPBACK):
        return
    if not is_public(ip):
        raise AddressRefused(
            f"Refused to connect to {ip}: it is not a public internet address "
            "(loopback, private, link-local, shared or reserved addresses are never fetched)."
        )


def resolve(host: str, port: int, *, allow_loopback: bool = False) -> list[str]:
    """Resolve ``host`` and check every address; all must be allowed."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (socket.gaierror, UnicodeError) as exc:
        raise IngestError(f"Could not find the server {host!r} (DNS lookup failed).") from exc
    addresses: list[str] = []
    for _family, _type, _proto, _name, sockaddr in infos:
        text = str(sockaddr[0]).split("%", 1)[0]
        check_address(ipaddress.ip_address(text), allow_loopback=allow_loopback)
        if text not in addresses:
            addresses.append(text)
    if not addresses:
        raise IngestError(f"Could not find the server {host!r} (no addresses).")
    return addresses


def vet_url(
    url: str, *, allow_loopback: bool = False, schemes: tuple[str, ...] = ("http", "https")
) -> VettedURL:
    """Parse ``url``, check its form, resolve its host and check the addresses."""
    if not isinstance(url, str) or any(ord(ch) < 33 or ord(ch) == 127 for ch in url.strip()):
        raise IngestError("The URL contains spaces or control characters.")
    url = url.strip()
    try:
        parts = urlsplit(url)
        port = parts.port
    except ValueError as exc:
        raise IngestError(f"The URL {url!r} is not valid: {exc}.") from exc
    scheme = parts.scheme.lower()
    if scheme not in schemes:
        allowed = ", ".join(f"{s}://" for s in schemes)
        raise IngestError(f"Only {allowed} URLs can be fetched, not {url!r}.")
    if parts.username is not None or parts.password is not None:
        raise IngestError("URLs with a user name or password are not accepted.")
    host = (parts.hostname or "").rstrip(".")
    if not host:
        raise IngestError(f"The URL {url!r} has no host name.")
    port = port or _DEFAULT_PORTS[scheme]
    addresses = resolve(host, port, allow_loopback=allow_loopback)
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return VettedURL(url=url, scheme=scheme, host=host, port=port, addresses=tuple(addresses), target=target)
