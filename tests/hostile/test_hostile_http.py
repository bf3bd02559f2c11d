"""Hostile input over HTTP (Django's test client, the real ingest, sandbox and
rendering): each is refused with a clear error, and nothing is lost or leaked."""

from __future__ import annotations

import io
import json
import os
import sys
import threading
import zipfile
from html.parser import HTMLParser
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest
from django.test import Client
from django.urls import reverse

from researchmind.models import ContentItem, Question
from tests.hostile.payloads import HIT, SSRF_URLS, TRAVERSAL_PATHS, XSS_PAYLOADS

SECRET = "root:x:0:0:do-not-leak"
_OPENED: list[str] = []
_WATCH: list[bool] = []


def _audit(event: str, args: tuple) -> None:
    # Every file opened (builtins.open, io.open, os.open) while a check runs.
    if _WATCH and event == "open" and args and isinstance(args[0], str | bytes | os.PathLike):
        _OPENED.append(os.fsdecode(args[0]))


sys.addaudithook(_audit)


class ActiveContent(HTMLParser):
    """Collects anything in a page that could run: inline handlers, scripts
    that are not our static files, hostile URLs, injected htmx attributes."""

    def __init__(self) -> None:
        super().__init__()
        self.found: list[str] = []

    def handle_starttag(self, tag, attrs):
        for name, value in attrs:
            value = value or ""
            if name.startswith("on") or name.startswith(("hx-on", "data-hx-on")):
                self.found.append(f"<{tag} {name}>")
            if HIT in value and (
                name.startswith(("hx-", "data-hx-", "ws-")) or name in {"href", "src", "action"}
            ):
                self.found.append(f"<{tag} {name}={value}>")
            if name in {"href", "src", "action", "data", "formaction"} and value.strip().lower().startswith(
                ("javascript:", "data:", "vbscript:")
            ):
                self.found.append(f"<{tag} {name}={value}>")
        if tag == "script" and not (dict(attrs).get("src") or "").startswith("/static/"):
            self.found.append("<script> inline")
        if (tag in {"iframe", "object", "embed", "base", "meta"} and tag != "meta") or (
            tag == "meta" and "http-equiv" in dict(attrs)
        ):
            self.found.append(f"<{tag}>")


def active_content(html: str) -> list[str]:
    parser = ActiveContent()
    parser.feed(html)
    return parser.found


@pytest.fixture
def alice(client_for, user):
    return client_for(user)


@pytest.fixture
def local_server():
    """A loopback HTTP server that records every request it gets."""
    hits: list[str] = []

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self):
            hits.append(self.path)
            if self.path.startswith("/redirect-private"):
                self.send_response(302)
                self.send_header("Location", "http://10.0.0.1/secret")
                self.end_headers()
                return
            body = b"<html><head><title>t</title></head><body>secret page</body></html>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, *args):
            pass

    httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield httpd.server_address[1], hits
    httpd.shutdown()
    httpd.server_close()


def _sandbox_files(settings) -> set[str]:
    root = settings.SANDBOX_ROOT
    return {str(p.relative_to(root)) for p in root.rglob("*")} if root.exists() else set()


# ---- XSS -----------------------------------------------------------------------------


def test_there_are_at_least_50_xss_payloads():
    assert len(set(XSS_PAYLOADS)) >= 50


def test_xss_in_session_titles_is_inert(alice, user, make_session):
    for payload in XSS_PAYLOADS:
        response = alice.post(reverse("session_create"), {"title": payload[:200], "engine": "builtin"})
        assert response.status_code == 302
        page = alice.get(response["Location"]).content.decode()
        assert active_content(page) == [], payload
    page = alice.get(reverse("sessions")).content.decode()
    assert active_content(page) == []
    assert page.count('class="card session-card"') == len(XSS_PAYLOADS)


def test_xss_in_content_titles_markdown_and_question_is_inert(alice, research, add_text):
    for payload in XSS_PAYLOADS:
        add_text(research, payload, f"# {payload}\n\n{payload}\n")
        Question.objects.create(session=research, text=payload, engine="builtin")
    response = alice.post(
        reverse("content_add", args=[research.id, "text"]),
        {"title": XSS_PAYLOADS[0], "markdown": "\n\n".join(XSS_PAYLOADS)},
    )
    assert response.status_code == 302
    page = alice.get(reverse("session_detail", args=[research.id])).content.decode()
    assert active_content(page) == []
    assert research.content_items.filter(status="ready").count() == len(XSS_PAYLOADS) + 1
    for question in research.questions.all():
        html = alice.get(reverse("question_detail", args=[research.id, question.pk])).content.decode()
        assert active_content(html) == [], question.text


@pytest.mark.parametrize("payload", XSS_PAYLOADS)
def test_answer_markdown_is_sanitised(payload):
    from core.citations.rendering import markdown_to_html

    assert active_content(markdown_to_html(f"Before {payload} after [c1]\n\n{payload}\n")) == []


@pytest.mark.parametrize("tag", ["<textarea>", "<select>", "<object data=x>", "<style>"])
def test_an_unclosed_tag_in_an_answer_does_not_swallow_the_rest(tag):
    from core.citations.rendering import markdown_to_html

    html = markdown_to_html(f"First claim {tag}\n\nSecond claim survives.\n")
    assert "Second claim survives." in html


# ---- traversal -----------------------------------------------------------------------


@pytest.fixture
def sandboxed(research, add_text, settings, tmp_path):
    """Notes in the sandbox, a secret beside the sandbox root, and a symlink
    inside a content folder pointing out of it."""
    item = add_text(research, "Notes", "# Notes\n\nline\n")
    secret = settings.SANDBOX_ROOT / "secret.txt"
    secret.write_text(SECRET)
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "passwd").write_text(SECRET)
    os.symlink(outside, research.sandbox_path / str(item.id) / "link-out")
    return item


@pytest.mark.parametrize("path", TRAVERSAL_PATHS)
@pytest.mark.parametrize("view", ["file_viewer", "file_raw"])
def test_traversal_on_the_viewer_is_404_and_leaks_nothing(alice, research, sandboxed, view, path):
    url = reverse(view, args=[research.id, sandboxed.id, "x"])[:-1] + path
    response = alice.get(url)
    assert response.status_code in (404, 400), url
    assert SECRET.encode() not in response.content


@pytest.mark.parametrize(
    "path",
    [
        "../../etc/passwd",
        "../secret.txt",
        "/etc/passwd",
        "{cid}/link-out/passwd",
        "{cid}/../../secret.txt",
        "{cid}/..\\..\\secret.txt",
        "{cid}/notes.md\x00/../../secret.txt",
    ],
)
def test_citation_of_a_path_outside_the_sandbox_is_refused_unread(research, sandboxed, monkeypatch, path):
    """A CITATIONS block citing a path out of the sandbox is ``outside_sandbox``
    (or missing), never verified, and the file behind it is never opened."""
    import json

    from core.citations import verification as verify_mod
    from core.citations.parsing import parse_citations

    cited = path.format(cid=sandboxed.id)
    block = [
        {
            "id": "c1",
            "source_file": cited,
            "source_type": "file",
            "location": {"line_start": 1, "line_end": 1},
            "excerpt": SECRET,
        }
    ]
    parsed = parse_citations(
        f"Claim [c1].\n<!-- CITATIONS: {json.dumps(block)} -->", content_ids=[str(sandboxed.id)]
    )
    assert parsed.citations
    _OPENED.clear()
    _WATCH.append(True)
    try:
        (result,) = verify_mod.verify_citations(
            research.sandbox_path, parsed.citations, content_ids=[str(sandboxed.id)]
        )
    finally:
        _WATCH.clear()
    assert result.status in {"outside_sandbox", "missing_file"}, (cited, result)
    assert not [p for p in _OPENED if "secret" in p or "passwd" in p or "outside" in p], _OPENED


def test_traversal_file_names_in_uploads_stay_inside(alice, research, settings):
    files = [io.BytesIO(b"# evil\n"), io.BytesIO(b"# evil2\n")]
    files[0].name = "../../escaped.md"
    files[1].name = "..\\..\\escaped2.md"
    response = alice.post(reverse("content_add", args=[research.id, "files"]), {"files": files})
    assert response.status_code == 302
    assert not (settings.SANDBOX_ROOT.parent / "escaped.md").exists()
    assert not (settings.SANDBOX_ROOT / "escaped.md").exists()
    for p in settings.SANDBOX_ROOT.rglob("*escaped*"):
        assert research.sandbox_path in p.parents


# ---- archives ------------------------------------------------------------------------


def _zip(entries: dict[str, bytes], *, symlink: str | None = None) -> io.BytesIO:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in entries.items():
            zf.writestr(name, data)
        if symlink:
            info = zipfile.ZipInfo("docs/link")
            info.external_attr = 0o120777 << 16
            zf.writestr(info, symlink)
    buf.seek(0)
    buf.name = "upload.zip"
    return buf


@pytest.mark.parametrize(
    ("name", "archive", "message"),
    [
        ("zip-slip", lambda: _zip({"ok.md": b"fine\n", "../../evil.md": b"evil\n"}), "outside"),
        ("zip-slip-absolute", lambda: _zip({"/tmp/evil-abs.md": b"evil\n"}), ""),
        ("symlink", lambda: _zip({"ok.md": b"fine\n"}, symlink="/etc/passwd"), "link"),
        ("zip-bomb", lambda: _zip({"bomb.txt": b"0" * (60 * 1024 * 1024)}), "bomb"),
        ("not-a-zip", lambda: io.BytesIO(b"this is not a zip"), "zip"),
    ],
)
def test_hostile_archives_fail_clearly_and_leave_nothing(alice, research, settings, name, archive, message):
    before = _sandbox_files(settings)
    data = archive()
    data.name = "upload.zip"
    response = alice.post(reverse("content_add", args=[research.id, "zip"]), {"title": name, "archive": data})
    assert response.status_code == 302
    item = ContentItem.objects.get(session=research, title=name)
    assert item.status == "failed", item.error
    assert message.lower() in item.error.lower()
    assert item.error.endswith(".")
    assert not (research.sandbox_path / str(item.id)).exists(), "a failed ingest leaves nothing behind"
    added = _sandbox_files(settings) - before
    assert all(not p.startswith(str(research.id) + "/" + str(item.id)) for p in added)
    assert not (settings.SANDBOX_ROOT.parent / "evil.md").exists()
    page = alice.get(reverse("session_detail", args=[research.id])).content.decode()
    assert "Failed:" in page


# ---- SSRF ----------------------------------------------------------------------------


def test_there_are_at_least_30_ssrf_urls():
    assert len(SSRF_URLS) >= 30


@pytest.mark.parametrize("template", SSRF_URLS)
def test_ssrf_urls_are_refused_and_nothing_is_fetched(alice, research, settings, local_server, template):
    port, hits = local_server
    settings.INGEST_ALLOW_LOOPBACK = (
        "redirect-private" in template
    )  # so the redirect itself is what's refused
    url = template.format(port=port)
    response = alice.post(reverse("content_add", args=[research.id, "url"]), {"url": url})
    item = ContentItem.objects.filter(session=research).first()
    if item is None:  # refused by the form itself
        assert response.status_code == 302
        page = alice.get(reverse("session_detail", args=[research.id])).content.decode()
        assert "Enter a valid URL." in page, page
    else:
        assert item.status == "failed", (url, item.status)
        assert any(
            word in item.error
            for word in (
                "Refused",
                "not a public",
                "Only",
                "Could not find",
                "not valid",
                "refused",
                "redirect",
            )
        ), item.error
        assert not (research.sandbox_path / str(item.id)).exists()
    if "redirect-private" in template:
        assert hits == ["/redirect-private"]  # the first hop only; 10.0.0.1 never contacted
    else:
        assert hits == [], f"{url} was fetched"


# ---- other users, CSRF, sizes ---------------------------------------------------------


def _owned_urls(research, item, question, citation_id):
    sid, qid = research.id, question.pk
    gets = [
        reverse("session_detail", args=[sid]),
        reverse("content_list", args=[sid]),
        reverse("question_detail", args=[sid, qid]),
        reverse("question_answer", args=[sid, qid]),
        reverse("file_viewer", args=[sid, item.id, "notes.md"]),
        reverse("file_raw", args=[sid, item.id, "notes.md"]),
        reverse("fanout_ask", args=[sid]),
        reverse("content_original", args=[sid, item.id]),
    ]
    posts = [
        reverse("session_delete", args=[sid]),
        reverse("content_add", args=[sid, "text"]),
        reverse("content_delete", args=[sid, item.id]),
        reverse("question_ask", args=[sid]),
        reverse("question_cancel", args=[sid, qid]),
        reverse("question_retry", args=[sid, qid]),
        reverse("fanout_ask", args=[sid]),
    ]
    if citation_id:
        posts.append(reverse("citation_feedback", args=[citation_id]))
    return gets, posts


def test_another_users_ids_are_404_everywhere(client_for, other_user, research, add_text):
    item = add_text(research, "Notes", "# Notes\n\nSecret plans.\n")
    question = Question.objects.create(session=research, text="Mine", engine="builtin")
    from citations.models import Citation

    citation = Citation.objects.create(
        question=question, cid="c1", source_type="file", source_path=f"{item.id}/notes.md"
    )
    mallory = client_for(other_user)
    gets, posts = _owned_urls(research, item, question, citation.pk)
    for url in gets:
        response = mallory.get(url)
        assert response.status_code == 404, url
        assert b"Secret plans" not in response.content
    for url in posts:
        response = mallory.post(url, {"title": "x", "markdown": "x", "text": "x", "verdict": "wrong"})
        assert response.status_code == 404, url
    assert ContentItem.objects.filter(session=research).count() == 1
    assert research.questions.count() == 1
    assert not citation.feedback.exists()


def test_post_without_csrf_token_is_403(user, research):
    client = Client(enforce_csrf_checks=True)
    client.force_login(user)
    for url, data in [
        (reverse("session_create"), {"title": "x", "engine": "builtin"}),
        (reverse("content_add", args=[research.id, "text"]), {"title": "x", "markdown": "y"}),
        (reverse("question_ask", args=[research.id]), {"text": "q"}),
        (reverse("session_delete", args=[research.id]), {}),
    ]:
        response = client.post(url, data)
        assert response.status_code == 403, url
    assert research.content_items.count() == 0 and research.questions.count() == 0
    research.refresh_from_db()


def test_oversized_uploads_fail_with_a_clear_error(alice, research, settings):
    settings.MAX_UPLOAD_BYTES = 1000
    big = io.BytesIO(b"x" * 5000)
    big.name = "big.md"
    response = alice.post(
        reverse("content_add", args=[research.id, "files"]), {"files": big}, headers={"HX-Request": "true"}
    )
    assert response.status_code == 422
    assert b"too large" in response.content
    archive = _zip({"a.md": os.urandom(4000)})
    response = alice.post(
        reverse("content_add", args=[research.id, "zip"]),
        {"archive": archive},
        headers={"HX-Request": "true"},
    )
    assert response.status_code == 422
    assert b"too large" in response.content
    big.seek(0)
    response = alice.post(reverse("content_add", args=[research.id, "files"]), {"files": big}, follow=True)
    assert b"too large" in response.content
    assert research.content_items.count() == 0


HOSTILE_URLS = [
    "javascript:alert(1)",
    "JaVaScRiPt:alert(1)",
    " javascript:alert(1)",
    "\tjavascript:alert(1)",
    "java\nscript:alert(1)",
    "data:text/html,<script>alert(1)</script>",
    "vbscript:msgbox(1)",
    "//evil.example/x",
    "https:evil.example",
    "file:///etc/passwd",
]


@pytest.mark.django_db
def test_citation_urls_become_links_only_when_http(research, user, client_for, admin_client):
    """A citation's URL is a link only when it is absolute http(s): anything
    else is kept as text, verified as unverifiable with the reason, and no
    page or admin view turns it into a link."""
    from citations.models import Citation
    from citations.services import citations_record
    from researchmind.models import Question

    entries = [
        {"id": f"c{n}", "source_file": url, "source_type": "url", "excerpt": "x", "relevance": "direct"}
        for n, url in enumerate([*HOSTILE_URLS, "https://ok.example/page"], start=1)
    ]
    answer = " ".join(f"Claim [c{n}]." for n in range(1, len(entries) + 1))
    raw = f"{answer}\n\n<!-- CITATIONS: {json.dumps(entries)} -->"
    question = Question.objects.create(
        session=research, text="q", status="complete", answer=answer, answer_raw=raw
    )
    assert citations_record(question) == len(entries)
    rows = list(Citation.objects.filter(question=question).order_by("position"))
    kept = {row.url for row in rows}
    assert {url.strip() for url in HOSTILE_URLS} <= {url.strip() for url in kept}  # nothing dropped
    for row in rows[:-1]:
        assert row.verification == "unverifiable", (row.url, row.verification)
        assert row.verification_detail.startswith("Only http(s) URLs are sources"), row.url
    assert rows[-1].verification == "unverifiable"  # a web page that is no content item
    assert "not one of the session's content items" in rows[-1].verification_detail

    page = client_for(user).get(reverse("question_detail", args=[research.id, question.pk])).content.decode()
    pages = {
        "question page": page,
        "citation list": admin_client.get("/admin/citations/citation/").content.decode(),
    }
    for row in rows:
        pages[f"admin {row.cid}"] = admin_client.get(
            f"/admin/citations/citation/{row.pk}/change/"
        ).content.decode()
    for name, html in pages.items():
        found = active_content(html)
        if name != "question page":  # Django's own admin pages carry an inline script of theirs
            found = [f for f in found if f != "<script> inline"]
        assert found == [], name
        assert 'href="//evil' not in html and 'href="https:evil' not in html and 'href="file:' not in html, (
            name
        )
    assert 'href="https://ok.example/page"' in pages["question page"]
    assert 'href="https://ok.example/page"' in pages[f"admin {rows[-1].cid}"]


@pytest.mark.django_db
def test_the_viewer_confines_each_file_to_its_own_item(alice, research, add_text):
    """A symlink inside one content item that reaches another item or the
    session manifest (an engine with a shell could plant one) is a 404 in the
    viewer and the raw download, like one that leaves the sandbox; the item's
    own files still open."""
    mine = add_text(research, "Mine", "# Mine\n\nMy own line.\n")
    other = add_text(research, "Other", "# Other\n\nSECRET-OF-ANOTHER-ITEM\n")
    (other_file,) = [p for p in other.folder.rglob("*.md")]
    (mine.folder / "to-other.md").symlink_to(other_file)
    (mine.folder / "to-manifest.json").symlink_to(research.sandbox_path / "_content_manifest.json")
    (mine.folder / "other-dir").symlink_to(other.folder, target_is_directory=True)
    (own,) = [p for p in mine.folder.rglob("*.md") if not p.is_symlink()]
    hostile = ["to-other.md", "to-manifest.json", f"other-dir/{other_file.name}"]
    for view in ("file_viewer", "file_raw"):
        for name in hostile:
            response = alice.get(reverse(view, args=[research.id, mine.id, name]))
            assert response.status_code == 404, (view, name)
            assert b"SECRET-OF-ANOTHER-ITEM" not in response.content
        ok = alice.get(reverse(view, args=[research.id, mine.id, own.relative_to(mine.folder).as_posix()]))
        assert ok.status_code == 200 and b"My own line." in ok.content, view
