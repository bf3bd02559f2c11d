from __future__ import annotations

import os
import subprocess
import threading
from pathlib import Path

import pytest

from core.ingest import AddressRefused, IngestError, Limits, ingest_git
from core.ingest.gitsource import classify

GIT_ENV = {
    "GIT_AUTHOR_NAME": "Test",
    "GIT_AUTHOR_EMAIL": "test@example.invalid",
    "GIT_COMMITTER_NAME": "Test",
    "GIT_COMMITTER_EMAIL": "test@example.invalid",
    "GIT_CONFIG_NOSYSTEM": "1",
    "GIT_CONFIG_GLOBAL": os.devnull,
}


def git(*args: str, cwd: Path) -> None:
    subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, env={**os.environ, **GIT_ENV})


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    """A real repository with a file, a subfolder, links leading outside, and a hook."""
    (tmp_path / "secret").write_text("TOP SECRET outside the repo\n")
    source = tmp_path / "source repo"
    (source / "src").mkdir(parents=True)
    (source / "README.md").write_text("# Demo\n\nHello.\n")
    (source / "src" / "app.py").write_text("print('hi')\n")
    os.symlink("/etc/passwd", source / "passwd-link")
    os.symlink("../secret", source / "secret-link")
    os.symlink("/etc", source / "etc-dir-link")
    git("init", "-q", "-b", "main", cwd=source)
    git("add", "-A", cwd=source)
    git("commit", "-q", "-m", "initial", cwd=source)
    hook = source / ".git" / "hooks" / "post-checkout"
    hook.write_text(f"#!/bin/sh\ntouch '{tmp_path / 'hook-ran'}'\n")
    hook.chmod(0o755)
    return source


@pytest.fixture
def hostile_git_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A HOME and template folder that would make a plain `git clone` run a hook."""
    marker = tmp_path / "ambient-hook-ran"
    hooks = tmp_path / "ambient-hooks"
    hooks.mkdir()
    (hooks / "post-checkout").write_text(f"#!/bin/sh\ntouch '{marker}'\n")
    (hooks / "post-checkout").chmod(0o755)
    home = tmp_path / "home"
    home.mkdir()
    (home / ".gitconfig").write_text(f"[core]\n\thooksPath = {hooks}\n")
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("GIT_TEMPLATE_DIR", str(tmp_path / "no-such-templates"))
    monkeypatch.delenv("GIT_CONFIG_GLOBAL", raising=False)
    return marker


def test_repository_is_cloned_without_history(repo, dest):
    """The tree arrives, `.git` does not."""
    result = ingest_git(dest, str(repo))
    assert (dest / "README.md").read_text() == "# Demo\n\nHello.\n"
    assert (dest / "src" / "app.py").exists()
    assert not (dest / ".git").exists()
    assert result.files == ["README.md", "etc-dir-link", "passwd-link", "secret-link", "src/app.py"]
    assert result.title == "source repo"
    assert result.source_url is None


def test_symlinks_are_kept_as_text_never_followed(repo, dest):
    """Links to /etc/passwd and ../secret become small files holding the target path."""
    ingest_git(dest, str(repo))
    for name in ("passwd-link", "secret-link", "etc-dir-link"):
        assert not (dest / name).is_symlink()
        assert (dest / name).is_file()
    assert (dest / "passwd-link").read_text().strip() == "/etc/passwd"
    assert (dest / "secret-link").read_text().strip() == "../secret"
    everything = "".join(p.read_text() for p in dest.rglob("*") if p.is_file())
    assert "TOP SECRET" not in everything
    assert "root:" not in everything
    assert not any(p.is_symlink() for p in dest.rglob("*"))


def test_no_hook_runs_even_with_hostile_git_environment(repo, dest, tmp_path, hostile_git_environment):
    """Hooks from the repo, the user's config or templates never run during ingest."""
    ingest_git(dest, str(repo))
    assert not (tmp_path / "hook-ran").exists()
    assert not hostile_git_environment.exists()
    # Control: the same environment does run the hook for a plain clone.
    subprocess.run(
        ["git", "clone", "-q", str(repo), str(tmp_path / "plain")], check=True, capture_output=True
    )
    assert hostile_git_environment.exists()


def test_file_url_is_accepted(repo, dest):
    """A file:// URL to a local repository works like its path."""
    assert ingest_git(dest, repo.as_uri()).file_count == 5


def test_repository_over_size_cap_is_refused(repo, dest, leftovers):
    """A checkout larger than the total limit is refused and nothing remains."""
    (repo / "big.txt").write_text("x" * 5000)
    git("add", "big.txt", cwd=repo)
    git("commit", "-q", "-m", "big", cwd=repo)
    with pytest.raises(IngestError, match="larger than the limit"):
        ingest_git(dest, str(repo), limits=Limits(max_total_bytes=2000))
    assert leftovers() == []


def test_repository_with_too_many_files_is_refused(repo, dest, leftovers):
    """More files than the limit are refused."""
    with pytest.raises(IngestError, match="Too many files"):
        ingest_git(dest, str(repo), limits=Limits(max_files=3))
    assert leftovers() == []


def test_clone_reports_progress(repo, dest):
    """git's own progress lines reach the callback."""
    calls = []
    ingest_git(dest, str(repo), progress=lambda *a: calls.append(a))
    assert any(message == "Receiving objects" for _, _, message in calls)
    assert calls[-1] == (5, 5, "Repository ready")


def test_folder_that_is_not_a_repository_fails_cleanly(tmp_path, dest, leftovers):
    """git's failure becomes a readable error and nothing is left behind."""
    (tmp_path / "plain").mkdir()
    with pytest.raises(IngestError, match="git could not clone the repository"):
        ingest_git(dest, str(tmp_path / "plain"))
    assert leftovers() == []


@pytest.mark.parametrize(
    ("address", "message"),
    [
        ("--upload-pack=touch /tmp/rm-pwned", "may not start with '-'"),
        ("-uhelp", "may not start with '-'"),
        ("ext::sh -c touch% /tmp/rm-pwned", "transport helpers"),
        ("file::/tmp", "transport helpers"),
        ("fd::3", "transport helpers"),
        ("ssh://git@example.com/repo.git", "not ssh://"),
        ("git@github.com:owner/repo.git", "SSH addresses"),
        ("ftp://example.com/repo.git", "not ftp://"),
        ("file://otherhost/srv/repo", "must name a folder"),
        ("https://user:token@127.0.0.1/repo.git", "user name or password"),
        ("/no/such/folder", "no folder"),
    ],
)
def test_unsafe_repository_address_is_refused(dest, leftovers, address, message):
    """Option injection, transport helpers, SSH and odd schemes never reach git."""
    with pytest.raises(IngestError, match=message):
        ingest_git(dest, address)
    assert not Path("/tmp/rm-pwned").exists()
    assert leftovers() == []


@pytest.mark.parametrize(
    "url",
    [
        "http://127.0.0.1/repo.git",
        "https://[::1]/repo.git",
        "http://10.0.0.1/repo.git",
        "https://169.254.169.254/repo.git",
        "git://192.168.1.1/repo.git",
        "http://2130706433/repo.git",
        "https://[::ffff:10.0.0.1]/repo.git",
    ],
)
def test_private_repository_host_is_refused(dest, leftovers, connections, url):
    """Remote URLs pass the same address guard as web pages, before git runs."""
    with pytest.raises(AddressRefused):
        ingest_git(dest, url)
    assert connections == []
    assert leftovers() == []


def test_local_folder_refused_when_not_allowed(repo, dest):
    """With allow_local=False a folder on the server cannot be cloned."""
    with pytest.raises(IngestError, match="not allowed"):
        ingest_git(dest, str(repo), allow_local=False)


@pytest.mark.parametrize("text", ["not a url", "owner/project", "example.org"])
def test_text_that_is_no_url_is_named_so(text):
    """Words where a URL belongs are "not a repository URL", not a refused folder on the server."""
    with pytest.raises(IngestError, match="is not a repository URL") as caught:
        classify(text, allow_local=False)
    assert "folder" not in str(caught.value)
    if "/" not in text:  # words are no folder either, even where folders may be cloned
        with pytest.raises(IngestError, match="is not a repository URL"):
            classify(text, allow_local=True)


def test_hanging_server_is_stopped_by_timeout(dest, leftovers):
    """A server that never answers is given up on after the git timeout."""
    import socket

    listener = socket.create_server(("127.0.0.1", 0))
    accepted: list[socket.socket] = []
    stop = threading.Event()

    def accept_and_hang() -> None:
        listener.settimeout(0.2)
        while not stop.is_set():
            try:
                accepted.append(listener.accept()[0])
            except TimeoutError:
                continue

    thread = threading.Thread(target=accept_and_hang, daemon=True)
    thread.start()
    try:
        url = f"http://127.0.0.1:{listener.getsockname()[1]}/repo.git"
        with pytest.raises(IngestError, match=r"longer than the time limit \(1 s\)"):
            ingest_git(dest, url, allow_loopback=True, limits=Limits(git_timeout=1))
    finally:
        stop.set()
        thread.join()
        for connection in accepted:
            connection.close()
        listener.close()
    assert accepted, "git should have connected to the pinned loopback address"
    assert leftovers() == []


def test_tree_flattening_replaces_real_symlinks_and_special_files(tmp_path):
    """Should a checkout ever contain real links or pipes, they are neutralised, never followed."""
    from core.ingest.common import Budget
    from core.ingest.gitrepo import flatten_tree

    root = tmp_path / "tree"
    (root / ".git" / "objects").mkdir(parents=True)
    (root / "docs").mkdir()
    (root / "docs" / "a.md").write_text("a")
    os.symlink("/etc/passwd", root / "docs" / "passwd")
    os.symlink("/etc", root / "etc")
    os.mkfifo(root / "pipe")
    files = flatten_tree(root, Budget(Limits()))
    assert files == ["docs/a.md", "docs/passwd", "etc"]
    assert not (root / ".git").exists() and not (root / "pipe").exists()
    assert (root / "docs" / "passwd").read_text() == "/etc/passwd\n"
    assert (root / "etc").read_text() == "/etc\n"
    assert not any(p.is_symlink() for p in root.rglob("*"))
