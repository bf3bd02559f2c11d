"""Fetch one web page safely: vetted addresses only, manual redirects,
timeouts, a size cap and an allow-list of content types.

We connect to the IP address ``netguard`` checked (sending the real Host
header, and for HTTPS checking the certificate against the real host name),
so a DNS answer that changes after the check cannot redirect us inside.
"""

from __future__ import annotations

import http.client
import ssl
import time
from collections.abc import Collection
from dataclasses import dataclass, field
from email.message import Message
from pathlib import PurePosixPath
from urllib.parse import unquote, urljoin, urlsplit

from .common import IngestError, Limits, Progress, human_size
from .netguard import VettedURL, vet_url

ALLOWED_TYPES = ("text/html", "text/plain", "text/markdown", "application/xhtml+xml")
# Documents a URL may serve, by content type → the extension they are converted as.
DOCUMENT_TYPES = {
    "application/pdf": ".pdf",
    "application/vnd.openxmlformats-officedocument.wordprocessingml.document": ".docx",
    "application/vnd.openxmlformats-officedocument.presentationml.presentation": ".pptx",
    "application/vnd.openxmlformats-officedocument.spreadsheetml.sheet": ".xlsx",
    "application/vnd.oasis.opendocument.text": ".odt",
    "application/epub+zip": ".epub",
    "application/x-ipynb+json": ".ipynb",
}
# Types servers give any file: a document only when the URL's path names one (".../deck.pptx").
GENERIC_TYPES = (
    "application/octet-stream",
    "binary/octet-stream",
    "application/zip",
    "application/x-zip-compressed",
    "application/json",
)
REDIRECTS = {301, 302, 303, 307, 308}
USER_AGENT = "ResearchMind/0.1 (+content ingest)"


@dataclass
class Page:
    """A fetched page: the body exactly as received and how we got it."""

    url: str
    final_url: str
    status: int
    content_type: str
    charset: str | None
    body: bytes
    redirects: list[str] = field(default_factory=list)
    document: str | None = None  # the document's extension (".pdf" …) when it is one, not a page


class _PinnedHTTPSConnection(http.client.HTTPSConnection):
    """HTTPS to a fixed IP address, verifying the certificate for ``server_hostname``."""

    def __init__(self, address: str, port: int, *, server_hostname: str, timeout: float) -> None:
        super().__init__(address, port, timeout=timeout, context=ssl.create_default_context())
        self._server_hostname = server_hostname

    def connect(self) -> None:
        http.client.HTTPConnection.connect(self)
        self.sock = self._context.wrap_socket(self.sock, server_hostname=self._server_hostname)


def _connect(vetted: VettedURL, timeout: float) -> http.client.HTTPConnection:
    """Connect to the first checked address that answers (a host may resolve
    to ::1 and 127.0.0.1, or to several public addresses)."""
    failure: OSError | None = None
    for address in vetted.addresses:
        if vetted.scheme == "https":
            connection: http.client.HTTPConnection = _PinnedHTTPSConnection(
                address, vetted.port, server_hostname=vetted.host, timeout=timeout
            )
        else:
            connection = http.client.HTTPConnection(address, vetted.port, timeout=timeout)
        try:
            connection.connect()
            return connection
        except OSError as exc:
            connection.close()
            failure = exc
    raise IngestError(f"Could not connect to {vetted.url}: {failure}.")


def _content_type(header: str | None) -> tuple[str, str | None]:
    """``"text/html; charset=UTF-8"`` → ``("text/html", "UTF-8")``. Parsed by
    hand: ``email.message`` would turn a malformed type into text/plain."""
    if not header:
        return "", None
    message = Message()
    message["content-type"] = header
    charset = message.get_param("charset")
    return header.split(";", 1)[0].strip().lower(), charset if isinstance(charset, str) else None


def document_suffix(content_type: str, url: str, suffixes: Collection[str]) -> str | None:
    """The extension of the document ``url`` serves as ``content_type``, when
    it is one of ``suffixes``: by its content type, or by its path when the
    type is a generic one."""
    if content_type in DOCUMENT_TYPES:
        suffix = DOCUMENT_TYPES[content_type]
    elif content_type in GENERIC_TYPES:
        suffix = PurePosixPath(unquote(urlsplit(url).path)).suffix.lower()
    else:
        return None
    return suffix if suffix in suffixes else None


def _read_body(
    response: http.client.HTTPResponse, limits: Limits, deadline: float, report: Progress, url: str
) -> bytes:
    declared = response.getheader("Content-Length")
    total = int(declared) if declared and declared.isdigit() else None
    if total is not None and total > limits.max_page_bytes:
        raise IngestError(
            f"The page is {human_size(total)}, more than the limit of {human_size(limits.max_page_bytes)}."
        )
    chunks: list[bytes] = []
    received = 0
    while True:
        # Each read waits at most the socket timeout; a server that drips
        # bytes to stay under it still hits this overall deadline.
        if time.monotonic() > deadline:
            raise IngestError(f"Fetching {url} took longer than {limits.total_timeout:g} seconds.")
        chunk = response.read1(64 * 1024)
        if not chunk:
            break
        received += len(chunk)
        if received > limits.max_page_bytes:
            raise IngestError(f"The page is larger than the limit of {human_size(limits.max_page_bytes)}.")
        chunks.append(chunk)
        report(received, total, "Downloading the page")
    return b"".join(chunks)


def fetch_page(
    url: str,
    *,
    limits: Limits,
    report: Progress,
    allow_loopback: bool = False,
    documents: Collection[str] = (),
) -> Page:
    """GET ``url`` following up to ``limits.max_redirects`` redirects, each
    re-vetted. A page or text, or a document whose extension is among
    ``documents`` (see ``document_suffix``); anything else is refused."""
    deadline = time.monotonic() + limits.total_timeout
    current, redirects = url, []
    for _hop in range(limits.max_redirects + 1):
        vetted = vet_url(current, allow_loopback=allow_loopback)
        connection = _connect(vetted, timeout=limits.connect_timeout)
        try:
            try:
                connection.request(
                    "GET",
                    vetted.target,
                    headers={
                        "Host": vetted.host_header,
                        "User-Agent": USER_AGENT,
                        "Accept": ", ".join(ALLOWED_TYPES) + ";q=0.9, */*;q=0.1",
                        # No gzip: a compressed body could expand past what we counted.
                        "Accept-Encoding": "identity",
                    },
                )
                response = connection.getresponse()
            except TimeoutError as exc:
                raise IngestError(f"Fetching {current} timed out.") from exc
            except (OSError, http.client.HTTPException) as exc:
                raise IngestError(f"Could not fetch {current}: {exc}.") from exc
            if response.status in REDIRECTS:
                location = response.getheader("Location")
                if not location:
                    raise IngestError(f"{current} redirects without saying where to.")
                redirects.append(current)
                current = urljoin(current, location.strip())
                continue
            if response.status >= 400 or response.status < 200:
                raise IngestError(f"The server answered {response.status} {response.reason} for {current}.")
            content_type, charset = _content_type(response.getheader("Content-Type"))
            document = document_suffix(content_type, current, documents)
            if content_type not in ALLOWED_TYPES and document is None:
                shown = content_type or "no content type"
                kinds = "web pages, text (HTML, plain text, Markdown)"
                if documents:
                    kinds += " and documents (" + ", ".join(sorted({s.lstrip(".") for s in documents})) + ")"
                raise IngestError(f"{current} is {shown}; only {kinds} can be added.")
            encoding = (response.getheader("Content-Encoding") or "identity").strip().lower()
            if encoding != "identity":
                # We asked for identity; a compressed body would slip past the size count.
                raise IngestError(f"{current} sent {encoding}-compressed content, which is not accepted.")
            try:
                body = _read_body(response, limits, deadline, report, current)
            except (OSError, http.client.HTTPException) as exc:
                if isinstance(exc, TimeoutError):
                    raise IngestError(f"Fetching {current} timed out.") from exc
                raise IngestError(f"The connection broke while reading {current}: {exc}.") from exc
            return Page(url, current, response.status, content_type, charset, body, redirects, document)
        finally:
            connection.close()
    raise IngestError(f"{url} redirects more than {limits.max_redirects} times.")
