"""The question page shows each citation's quote whole, as a reader should read it:
the file's characters (escaped once, never twice), markup of HTML and Markdown
cleaned, a table's lines kept."""

from __future__ import annotations

import json
import re

from django.urls import reverse

from citations.services import citations_record
from researchmind.models import Question

TABLE = "| option | default |\n|---|---|\n| `--jobs` | **4** |"


def test_the_sources_panel_shows_clean_whole_quotes(client_for, user, research, add_text):
    item = add_text(research, "Notes", f"Options:\n\n{TABLE}\n")
    folder = research.sandbox_path / str(item.id)
    (folder / "page.html").write_text("<p>Convert with <code>yq -y . &lt; in.json</code> first.</p>\n")
    lines = (folder / "notes.md").read_text().splitlines()
    first = lines.index("| option | default |") + 1
    block = [
        {"id": "c1", "source_file": f"{item.id}/notes.md", "source_type": "file",
         "location": {"line_start": first, "line_end": first + 2}, "excerpt": "`--jobs` | **4**"},
        {"id": "c2", "source_file": f"{item.id}/page.html", "source_type": "file",
         "location": {"line_start": 1, "line_end": 1}, "excerpt": "yq -y . &lt; in.json"},
    ]  # fmt: skip
    answer = "`--jobs` defaults to 4 [c1]. Convert with yq first [c2]."
    question = Question.objects.create(
        session=research,
        text="How?",
        engine="builtin",
        status=Question.Status.COMPLETE,
        answer=answer,
        answer_raw=f"{answer}\n<!-- CITATIONS: {json.dumps(block)} -->",
    )
    citations_record(question)
    page = client_for(user).get(reverse("question_detail", args=[research.pk, question.pk])).content.decode()
    quotes = re.findall(r'<blockquote class="excerpt">(.*?)</blockquote>', page, re.S)
    assert quotes == [
        "| option | default |\n|---|---|\n| --jobs | 4 |",  # lines kept, marks dropped
        "Convert with yq -y . &lt; in.json first.",  # tags gone; "<" escaped once for the page
    ]
    # The hover preview carries the same text.
    assert 'data-excerpt="Convert with yq -y . &lt; in.json first."' in page
