"""De-duplication and conflicts in aggregation (docs/FORMATS.md, Aggregation, step 2) on their
boundaries: the word-overlap threshold, what a merged finding keeps, which scopes a CLEAN sub-run
covers, and how inputs that are not protocol text are filed."""

from __future__ import annotations

from core.protocols import AgentResult, Finding, ResultMetadata, aggregate, parse_result
from core.protocols.dedupe import dedupe_key, merge_findings, same_issue
from tests.core.protocols.test_aggregate import consistency


def finding(description: str = "", **fields: object) -> Finding:
    values: dict[str, object] = {
        "id": "F1",
        "severity": "major",
        "type": "contradiction",
        "location": "a.md §2",
        "counter_location": None,
        "description": description,
        "suggestion": "",
    }
    values.update(fields)
    return Finding(**values)  # type: ignore[arg-type]


def test_dedupe_key_is_normalised_and_the_pair_sorted():
    """Markup, case and trailing punctuation do not count; a missing counter-location is empty;
    a pair is keyed the same either way round."""
    assert dedupe_key(finding(location="**A.md** §2.")) == ("a.md §2", "", "contradiction")
    assert dedupe_key(finding(location="b.md", counter_location="A.md")) == ("a.md", "b.md", "contradiction")
    assert dedupe_key(finding(location="Appendix")) == ("appendix", "", "contradiction")


def test_same_issue_threshold_is_three_in_five_shared_words():
    """Descriptions sharing 3 of the shorter one's 5 words (60 %) are one issue; 2 of 5 are not.
    Words of one or two letters and stopwords do not count; three-letter words do."""
    five = "timeout retries backoff jitter deadline"
    assert same_issue(finding(five), finding("timeout retries backoff alpha gamma"))
    assert not same_issue(finding(five), finding("timeout retries omega alpha gamma"))
    assert same_issue(finding("api key timeout"), finding("api key retries"))
    assert not same_issue(finding("ab cd ef timeout"), finding("ab cd ef retries"))


def test_a_finding_without_description_merges_with_any():
    """With no words on one side there is nothing to tell the findings apart, so they merge."""
    assert same_issue(finding(""), finding("Timeout differs"))
    assert same_issue(finding("Timeout differs"), finding("the and"))


def test_merged_finding_keeps_the_detailed_one_and_fills_gaps_from_the_others():
    """The most detailed finding gives id, text and location; the highest known severity wins over
    an unknown word; a missing suggestion or details come from another finding of the cluster;
    a finding without a sub-run label is named by its id alone."""
    merged, conflicts = merge_findings(
        [
            finding("Timeout differs", id="F1", severity="urgent", suggestion="Use 60 s", details=""),
            finding("Timeout differs between the two docs", id="F2", severity="minor", source="two"),
            finding("Timeout differs", id="F3", severity="minor", details="See §2.", source="three"),
        ]
    )
    assert [
        (m.id, m.severity, m.description, m.suggestion, m.details, m.sources, m.origins) for m in merged
    ] == [
        (
            "F2",
            "minor",
            "Timeout differs between the two docs",
            "Use 60 s",
            "See §2.",
            ("two", "three"),
            ("F1", "two:F2", "three:F3"),
        )
    ]
    assert [(c.kind, c.subject, c.assessments) for c in conflicts] == [
        ("severity", "a.md §2 (contradiction)", ("F1: urgent", "two:F2: minor", "three:F3: minor"))
    ]


def test_merged_finding_with_details_keeps_its_own_and_empty_stays_empty():
    """The detailed finding's own details are kept; no suggestion anywhere is an empty one."""
    merged, _ = merge_findings(
        [
            finding("Timeout differs a lot here", details="Mine."),
            finding("Timeout differs", id="F2", details="Other."),
        ]
    )
    assert [(m.details, m.suggestion) for m in merged] == [("Mine.", "")]
    merged, _ = merge_findings([finding("Timeout differs a lot here"), finding("Timeout differs", id="F2")])
    assert [(m.details, m.suggestion) for m in merged] == [("", "")]


def test_conflict_subject_names_missing_location_and_type():
    """A severity conflict on findings without location or type still says what it is about."""
    _, conflicts = merge_findings(
        [finding(location="", type="", severity="major"), finding(location="", type="", severity="minor")]
    )
    assert [c.subject for c in conflicts] == ["(no location) (untyped)"]
    _, conflicts = merge_findings(
        [
            finding(counter_location="b.md §1", severity="major"),
            finding(counter_location="b.md §1", severity="minor"),
        ]
    )
    assert [c.subject for c in conflicts] == ["a.md §2 vs b.md §1 (contradiction)"]


def test_sorted_by_severity_unknown_last_then_counter_location():
    """Unknown severities sort after known ones; findings that differ only in counter-location
    sort with none first."""
    report = aggregate(
        [
            (
                "one",
                consistency(
                    "a.md/b.md",
                    "| F1 | urgent | contradiction | a.md §2 | -- | Odd wording | Fix |\n"
                    "| F2 | minor | contradiction | a.md §2 | b.md §1 | Timeout differs | Fix |\n"
                    "| F3 | minor | contradiction | a.md §2 | -- | Retry count differs | Fix |\n",
                ),
            )
        ]
    )
    assert [(f.id, f.origins) for f in report.findings] == [
        ("G1", ("one:F3",)),
        ("G2", ("one:F2",)),
        ("G3", ("one:F1",)),
    ]


DIGEST_CLEAN_DOC = "RESULT: CLEAN | Type: digest | Doc: a.md | Sections: 3 | Entities: 5 | Cross-refs: 1\n"
DIGEST_FINDINGS = (
    "RESULT: FINDINGS | Type: digest | Doc: other.md | Sections: 3 | Entities: 5 | Cross-refs: 1\n\n"
    "| ID | Severity | Type | Location | Counter-location | Description | Suggestion |\n|---|---|---|---|---|---|---|\n"
    "| F1 | major | stale-content | a.md §4 | -- | Stale | Update |\n"
)


def _status_conflicts(*results: tuple[str, object]) -> list[tuple[str, tuple[str, ...]]]:
    return [(c.subject, c.assessments) for c in aggregate(list(results)).conflicts if c.kind == "status"]


def test_clean_digest_covers_its_doc():
    """A CLEAN digest of a.md conflicts with findings located in a.md from another digest."""
    assert _status_conflicts(("clean", DIGEST_CLEAN_DOC), ("found", DIGEST_FINDINGS)) == [
        ("a.md", ("clean: CLEAN", "found: FINDINGS (F1)"))
    ]


def test_clean_run_covers_the_documents_of_its_metadata_scope():
    """Without a pair or doc on its RESULT line, a CLEAN sub-run covers the documents its
    metadata Scope lists (split on commas, semicolons and "and")."""
    clean = (
        "RESULT: CLEAN | Type: digest | Sections: 3 | Entities: 5 | Cross-refs: 1\n**Scope**: a.md and b.md\n"
    )
    found = (
        "RESULT: FINDINGS | Type: digest | Doc: c.md | Sections: 3 | Entities: 5 | Cross-refs: 1\n\n"
        "| ID | Severity | Type | Location | Counter-location | Description | Suggestion |\n|---|---|---|---|---|---|---|\n"
        "| F1 | major | contradiction | a.md §4 | b.md §1 | Differs | Align |\n"
        "| F2 | major | contradiction | a.md §5 | c.md §1 | Differs too | Align |\n"
    )
    assert _status_conflicts(("clean", clean), ("found", found)) == [
        ("a.md and b.md", ("clean: CLEAN", "found: FINDINGS (F1)"))
    ]


def test_runs_without_any_scope_do_not_conflict():
    """A CLEAN and a FINDINGS sub-run that name no scope at all share none."""
    clean = "RESULT: CLEAN | Type: digest | Sections: 3 | Entities: 5 | Cross-refs: 1\n"
    found = "RESULT: FINDINGS | Type: digest | Sections: 3 | Entities: 5 | Cross-refs: 1\n"
    assert _status_conflicts(("clean", clean), ("found", found)) == []


def test_clean_pair_covers_its_two_documents_whatever_its_metadata_scope_says():
    """The documents of a CLEAN pair come from its Pair, not from a looser metadata Scope; a
    pair with two slashes is not a pair, and its metadata Scope is used instead."""
    clean = consistency("a.md/b.md", "", status="CLEAN").replace(
        "**Scope**: a.md, b.md", "**Scope**: both docs"
    )
    found = consistency("c.md/d.md", "| F1 | major | contradiction | a.md §1 | b.md §2 | X | Y |\n")
    assert _status_conflicts(("clean", clean), ("found", found)) == [
        ("a.md/b.md", ("clean: CLEAN", "found: FINDINGS (F1)"))
    ]
    nested = consistency("docs/a.md/b.md", "", status="CLEAN").replace(
        "**Scope**: docs, a.md, b.md", "**Scope**: e.md"
    )
    elsewhere = consistency("c.md/d.md", "| F1 | major | contradiction | docs a.md | b.md | X | Y |\n")
    assert _status_conflicts(("clean", nested), ("found", elsewhere)) == []


def test_inputs_that_are_not_text_are_filed_with_their_text():
    """None is "no response"; another object is read as its text; a result that is not conformant
    and says no problem gets the standard reason."""
    bare = AgentResult(
        status="PARTIAL",
        result_type=None,
        metrics={},
        metadata=ResultMetadata(),
        findings=[],
        details={},
        raw="text",
    )
    report = aggregate([("none", None), ("number", 42), ("bare", bare)])
    assert [(e.label, e.bucket, e.raw, e.reason) for e in report.buckets["unparseable"]] == [
        ("none", "unparseable", "", "No response was received."),
        ("number", "unparseable", "42", "The response has no RESULT line; it is treated as PARTIAL."),
        ("bare", "unparseable", "text", "The response has no RESULT line."),
    ]


def test_findings_keep_the_label_they_already_have():
    """A parsed result whose findings name their sub-run keeps that name when filed under another
    label; only a finished sub-run's Reason is not a gap reason."""
    parsed = parse_result(
        consistency("a.md/b.md", "| F1 | minor | stale-content | a.md | -- | Old | Update |\n").replace(
            "Minor: 0", "Minor: 0 | Reason: none needed"
        ),
        source="pair-7",
    )
    report = aggregate([("run", parsed)])
    assert report.findings[0].origins == ("pair-7:F1",)
    assert parsed.reason == "none needed"
    assert report.coverage["run"].reason is None


TWO_ROWS = "| F1 | major | contradiction | a.md §1 | b.md §2 | X | Y |\n| F2 | major | gap | a.md §3 | b.md §4 | Z | W |\n"


def _conflicts(*results: tuple[str, object]) -> list[tuple[str, str, tuple[str, ...]]]:
    return [(c.kind, c.subject, c.assessments) for c in aggregate(list(results)).conflicts]


def test_clean_listed_after_the_findings_still_conflicts_naming_every_id():
    """The CLEAN sub-run may come after the one with findings; all flagged ids are named."""
    assert _conflicts(
        ("found", consistency("a.md/b.md", TWO_ROWS)), ("ok", consistency("a.md/b.md", "", status="CLEAN"))
    ) == [("status", "a.md/b.md", ("ok: CLEAN", "found: FINDINGS (F1, F2)"))]


def test_two_clean_runs_do_not_conflict_with_each_other():
    """A CLEAN sub-run listing findings contradicts itself, not another CLEAN sub-run."""
    other = consistency("a.md/b.md", TWO_ROWS).replace("RESULT: FINDINGS", "RESULT: CLEAN")
    assert _conflicts(("ok", consistency("a.md/b.md", "", status="CLEAN")), ("other", other)) == [
        ("self", "other", ("other: CLEAN", "other: lists findings F1, F2"))
    ]


def test_findings_without_a_table_on_the_same_pair_conflict_as_no_table():
    """FINDINGS on the same pair without any table still contradicts CLEAN."""
    assert _conflicts(
        ("ok", consistency("a.md/b.md", "", status="CLEAN")), ("nf", consistency("a.md/b.md", ""))
    ) == [("status", "a.md/b.md", ("ok: CLEAN", "nf: FINDINGS (no table)"))]


def test_a_sub_run_of_another_type_in_between_is_skipped_not_the_rest():
    """A sub-run of another type is passed over and the ones after it are still compared."""
    digest = "RESULT: FINDINGS | Type: digest | Doc: a.md | Sections: 1 | Entities: 1 | Cross-refs: 1\n"
    assert _conflicts(
        ("ok", consistency("a.md/b.md", "", status="CLEAN")),
        ("dig", digest),
        ("found", consistency("b.md/a.md", TWO_ROWS)),
    ) == [("status", "a.md/b.md", ("ok: CLEAN", "found: FINDINGS (F1, F2)"))]


def test_severity_conflict_names_the_first_spelling_and_unknown_severity():
    """The conflict's subject is the location as the first finding wrote it; a blank severity is
    "unknown"."""
    rows = "| F1 | | gap | a.md §1 | -- | Timeout | Y |\n| F2 | minor | gap | A.md  §1 | -- | Timeout | Y |\n"
    assert _conflicts(("one", consistency("a.md/b.md", rows))) == [
        ("severity", "a.md §1 (gap)", ("one:F1: unknown", "one:F2: minor"))
    ]


def test_different_issues_from_one_sub_run_are_not_unsure():
    """Two issues at one location from the same sub-run are two findings, not a doubtful pair."""
    rows = (
        "| F1 | major | gap | a.md §1 | -- | Timeout values | Y |\n"
        "| F2 | major | gap | a.md §1 | -- | Header names | Y |\n"
    )
    report = aggregate([("one", consistency("a.md/b.md", rows))])
    assert [(f.id, f.origins, f.unsure) for f in report.findings] == [
        ("G1", ("one:F2",), False),
        ("G2", ("one:F1",), False),
    ]


def test_unlabelled_inputs_are_named_result_and_keep_their_text():
    """Inputs without a label are "result", "result #2"; a filed result keeps its raw text."""
    report = aggregate([("", "RESULT: CLEAN | Type: digest"), ("", "x"), ("a", None)])
    assert list(report.coverage) == ["result", "result #2", "a"]
    assert [e.raw for e in report.buckets["CLEAN"]] == ["RESULT: CLEAN | Type: digest"]


def test_severity_counts_include_unknown_and_other_words():
    """A blank severity counts as unknown; another word counts under itself."""
    rows = (
        "| F1 | | gap | a.md §1 | -- | A | Y |\n| F2 | urgent | gap | a.md §2 | -- | B | Y |\n"
        "| F3 | minor | gap | a.md §3 | -- | C | Y |\n| F4 | | gap | a.md §4 | -- | D | Y |\n"
    )
    report = aggregate([("one", consistency("a.md/b.md", rows))])
    assert report.stats.by_severity == {"critical": 0, "major": 0, "minor": 1, "unknown": 2, "urgent": 1}
