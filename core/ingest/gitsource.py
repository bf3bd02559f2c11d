"""Decide what a "git repository" address really is before git sees it.

git accepts far more than URLs: ``ext::sh -c …`` runs a command,
``--upload-pack=…`` is an option, ``user@host:repo`` is SSH, ``file::``
picks a transport helper. We accept only http(s):// and git:// URLs whose
host is public (pinned to the address we checked), and, when allowed, a
local folder.
"""

from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass, field
from pathlib import Path
from urllib.parse import unquote, urlsplit, urlunsplit

from .common import IngestError
from .netguard import vet_url

_HELPER = re.compile(r"^[A-Za-z0-9+.\-]+::")
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.\-]*://")
_SCP_LIKE = re.compile(r"^[^/]*:")
REMOTE_SCHEMES = ("http", "https", "git")


@dataclass(frozen=True)
class GitSource:
    """What to hand to ``git clone``, and the extra ``-c`` settings it needs."""

    clone_from: str
    title: str
    is_local: bool
    config: list[str] = field(default_factory=list)


def _title_from(path: str) -> str:
    name = path.rstrip("/").rsplit("/", 1)[-1]
    return (name.removesuffix(".git") or name or "repository").strip() or "repository"


def _local(path: Path, allow_local: bool) -> GitSource:
    if not allow_local:
        raise IngestError("Cloning from a folder on the server is not allowed here; give an https:// URL.")
    real = path.resolve()
    if not real.is_dir():
        raise IngestError(f"There is no folder at {str(path)!r} to clone.")
    # file:// (not a bare path) so git honours --depth and never hardlinks
    # files out of the source folder.
    return GitSource(clone_from=real.as_uri(), title=real.name, is_local=True)


def _bracketed(address: str) -> str:
    return f"[{address}]" if ipaddress.ip_address(address).version == 6 else address


def _remote(url: str, allow_loopback: bool) -> GitSource:
    vetted = vet_url(url, allow_loopback=allow_loopback, schemes=REMOTE_SCHEMES)
    pinned_addresses = [_bracketed(address) for address in vetted.addresses]
    title = _title_from(urlsplit(url).path) or vetted.host
    if vetted.scheme == "git":
        # git:// has no pinning option: connect to the checked address itself.
        parts = urlsplit(url)
        pinned = urlunsplit(("git", f"{pinned_addresses[0]}:{vetted.port}", parts.path, parts.query, ""))
        return GitSource(clone_from=pinned, title=title, is_local=False)
    # libcurl uses these addresses for the host instead of asking DNS again.
    resolve = f"http.curloptResolve={vetted.host}:{vetted.port}:{','.join(pinned_addresses)}"
    return GitSource(clone_from=url, title=title, is_local=False, config=["-c", resolve])


def classify(url_or_path: str, *, allow_local: bool = True, allow_loopback: bool = False) -> GitSource:
    """Check the address a person gave and turn it into a safe clone source."""
    text = (url_or_path or "").strip()
    if not text:
        raise IngestError("Give a repository URL or folder.")
    if any(ord(ch) < 32 or ord(ch) == 127 for ch in text):
        raise IngestError("The repository address contains control characters.")
    if text.startswith("-"):
        raise IngestError("The repository address may not start with '-' (it would be read as a git option).")
    if _HELPER.match(text):
        raise IngestError(
            f"{text.split('::', 1)[0]}:: addresses run git transport helpers and are refused; "
            "give an https:// URL."
        )
    if _URL.match(text):
        scheme = text.split("://", 1)[0].lower()
        if scheme == "file":
            parts = urlsplit(text)
            if parts.netloc not in ("", "localhost"):
                raise IngestError("file:// addresses must name a folder on this server.")
            return _local(Path(unquote(parts.path)), allow_local)
        if scheme not in REMOTE_SCHEMES:
            raise IngestError(
                f"Only https://, http:// and git:// repository URLs are accepted, not {scheme}://."
            )
        return _remote(text, allow_loopback)
    if _SCP_LIKE.match(text):
        raise IngestError("SSH addresses (user@host:repo) are not supported; give an https:// URL.")
    if "/" not in text or (not allow_local and not text.startswith(("/", "~"))):
        # Neither a URL nor a folder: say so, rather than talk about folders on the server.
        raise IngestError(
            f"{text!r} is not a repository URL; give one such as https://example.org/owner/project.git."
        )
    return _local(Path(text), allow_local)
