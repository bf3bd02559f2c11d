from __future__ import annotations

import ipaddress

import pytest

from core.ingest import AddressRefused, IngestError, check_address, ingest_url, vet_url

SSRF_URLS = [
    "http://127.0.0.1/",
    "http://127.1/",
    "http://127.0.0.2:8080/admin",
    "https://127.0.0.1/",
    "http://localhost/",
    "http://localhost./",
    "http://LOCALHOST:80/",
    "http://2130706433/",  # decimal 127.0.0.1
    "http://0177.0.0.1/",  # octal
    "http://017700000001/",  # octal, one number
    "http://0x7f.0.0.1/",  # hex
    "http://0x7f000001/",
    "http://0x7f.1/",  # short form
    "http://[::1]/",
    "http://[::ffff:127.0.0.1]/",
    "http://[::ffff:7f00:1]/",
    "http://[0:0:0:0:0:ffff:127.0.0.1]/",
    "http://[::127.0.0.1]/",  # IPv4-compatible
    "http://0.0.0.0/",
    "http://0/",
    "http://[::]/",
    "http://10.0.0.1/",
    "http://10.255.255.254/",
    "http://012.0.0.1/",  # octal 10.0.0.1
    "http://172.16.0.1/",
    "http://172.31.255.254/",
    "http://192.168.0.1/",
    "http://3232235521/",  # decimal 192.168.0.1
    "http://169.254.169.254/latest/meta-data/",
    "http://[::ffff:a9fe:a9fe]/",  # mapped 169.254.169.254
    "http://[::ffff:169.254.169.254]/",
    "http://100.64.0.1/",
    "http://100.127.255.254/",
    "http://[fe80::1]/",
    "http://[fc00::1]/",
    "http://[fd12:3456::1]/",
    "http://[fec0::1]/",  # site-local
    "http://224.0.0.1/",
    "http://239.255.255.250/",
    "http://255.255.255.255/",
    "http://240.0.0.1/",
    "http://198.18.0.1/",
    "http://192.0.0.8/",
    "http://[64:ff9b::a00:1]/",  # NAT64 of 10.0.0.1
    "http://[64:ff9b::7f00:1]/",  # NAT64 of 127.0.0.1
    "http://[2002:a00:1::]/",  # 6to4 of 10.0.0.1
    "http://[2002:7f00:1::]/",  # 6to4 of 127.0.0.1
    "http://[2001:0:4136:e378:8000:63bf:f5ff:fffe]/",  # Teredo
    "http://[ff02::1]/",
]


@pytest.mark.parametrize("url", SSRF_URLS)
def test_non_public_address_is_refused_before_connecting(url, dest, leftovers, connections):
    """Every spelling of a loopback, private, link-local, shared or reserved
    address is refused at the vetting step: no socket is ever connected."""
    with pytest.raises(AddressRefused, match="not a public internet address"):
        ingest_url(dest, url)
    assert connections == []
    assert leftovers() == []


@pytest.mark.parametrize(
    "url",
    ["ftp://example.com/", "file:///etc/passwd", "gopher://127.0.0.1:70/", "javascript:alert(1)", "data:,hi"],
)
def test_non_http_scheme_is_refused(url, dest, connections):
    """Only http:// and https:// are fetched."""
    with pytest.raises(IngestError, match="Only http://, https:// URLs"):
        ingest_url(dest, url)
    assert connections == []


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("http://user:pw@example.com/", "user name or password"),
        ("http://example.com@127.0.0.1/", "user name or password"),
        ("http:///path", "no host"),
        ("http://exa mple.com/", "spaces"),
        ("http://[::1/", "not valid"),
    ],
)
def test_malformed_url_is_refused(url, message, dest, connections):
    """Credentials, missing hosts and broken URLs are refused with a reason."""
    with pytest.raises(IngestError, match=message):
        ingest_url(dest, url)
    assert connections == []


@pytest.mark.parametrize("address", ["8.8.8.8", "1.1.1.1", "2606:4700:4700::1111", "93.184.216.34"])
def test_public_address_is_allowed(address):
    """Ordinary internet addresses pass the check: a URL naming one is vetted to connect to it."""
    host = f"[{address}]" if ":" in address else address
    vetted = vet_url(f"http://{host}/page")
    assert vetted.address == address


@pytest.mark.parametrize("address", ["127.0.0.1", "127.8.9.10", "::1"])
def test_allow_loopback_permits_only_loopback(address):
    """The test switch opens 127.0.0.0/8 and ::1 (refused without it) …"""
    host = f"[{address}]" if ":" in address else address
    assert vet_url(f"http://{host}:8123/", allow_loopback=True).address == address
    with pytest.raises(AddressRefused):
        vet_url(f"http://{host}:8123/")


@pytest.mark.parametrize("address", ["10.0.0.1", "169.254.169.254", "::ffff:127.0.0.1", "0.0.0.0", "fe80::1"])
def test_allow_loopback_still_refuses_everything_else(address):
    """… and nothing else, not even loopback wrapped in IPv6."""
    with pytest.raises(AddressRefused):
        check_address(ipaddress.ip_address(address), allow_loopback=True)


def test_vetted_url_pins_the_checked_address():
    """The vetted URL carries the address to connect to and the Host to send."""
    vetted = vet_url("http://localhost:8123/a/b?q=1", allow_loopback=True)
    assert ipaddress.ip_address(vetted.address).is_loopback
    assert vetted.host_header == "localhost:8123"
    assert vetted.target == "/a/b?q=1"
