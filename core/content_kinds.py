"""The kinds of content a session holds, and how each is added: the one list.

A content item's stored kind (``ContentItem.kind``, the manifest's ``kind``) and
the name it is added under (the add form's tab and URL, the JSON API's path,
``manage.py ingest``'s argument) are two spellings of the same kind; both, and
the labels, are derived from ``ContentKind``. Pure Python (no Django imports).
"""

from __future__ import annotations

from enum import StrEnum


class ContentKind(StrEnum):
    """A content item's kind; each member is its stored value (a str) and carries:

    - ``label``: its name in the model's choices, the admin and the session page;
    - ``added_as``: the name it is added under (form tab, URL, API path, command);
    - ``tab``: the add form's tab label.

    The members' order is the order of the model's choices and of the add form's tabs.
    """

    label: str
    added_as: str
    tab: str

    def __new__(cls, value: str, label: str, added_as: str, tab: str) -> ContentKind:
        member = str.__new__(cls, value)
        member._value_ = value
        member.label = label
        member.added_as = added_as
        member.tab = tab
        return member

    # value, label, added as, tab
    TEXT = "text", "Pasted text", "text", "Text"
    FILE = "file", "Uploaded files", "files", "Files"
    ARCHIVE = "archive", "Zip archive", "zip", "Zip"
    GIT_REPO = "git_repo", "Git repository", "git", "Git"
    URL_SCRAPE = "url_scrape", "Web page", "url", "Web page"


BY_ADDED_AS = {kind.added_as: kind for kind in ContentKind}
ADDED_AS = tuple(BY_ADDED_AS)  # "text", "files", "zip", "git", "url"
