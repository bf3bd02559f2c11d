"""The sliding-window rate: parsing "requests/seconds", whether one more
request fits, and how long to wait when it does not."""

from __future__ import annotations

import pytest

from core.ratelimit import Rate, RateError, Verdict, judge, parse_rate


def test_rates_parse_with_units_and_off():
    assert parse_rate("60/10s") == Rate(60, 10.0)
    assert parse_rate("60/10") == Rate(60, 10.0)
    assert parse_rate(" 600 / 1m ") == Rate(600, 60.0)
    assert parse_rate("5000/1h") == Rate(5000, 3600.0)
    for off in ("", "0", "off", "OFF", "none"):
        assert parse_rate(off) is None


@pytest.mark.parametrize("text", ["sixty", "60", "60/0", "0/10", "-1/10", "60/10d", "60/10s/2"])
def test_a_malformed_rate_says_how_to_write_one(text):
    with pytest.raises(RateError) as error:
        parse_rate(text)
    assert text in str(error.value)


def test_requests_up_to_the_limit_fit():
    rate = Rate(10, 10.0)
    assert judge(rate, previous=0, current=10, elapsed=5.0) == Verdict(True)
    assert not judge(rate, previous=0, current=11, elapsed=5.0).allowed


def test_the_previous_window_counts_by_its_overlap():
    rate = Rate(10, 10.0)
    # 10 in the previous window, 4 s into this one: 6 of them still count.
    assert judge(rate, previous=10, current=4, elapsed=4.0).allowed  # 6 + 4
    refused = judge(rate, previous=10, current=5, elapsed=4.0)  # 6 + 5
    assert not refused.allowed
    # previous * (1 - t/10) + 5 <= 10 at t = 5 s: one second from now.
    assert refused.retry_after == pytest.approx(1.0)
    assert refused.retry_after_header == "1"


def test_a_full_window_waits_for_the_next_and_its_share_to_fade():
    rate = Rate(10, 10.0)
    refused = judge(rate, previous=0, current=11, elapsed=2.0)
    # 8 s to the next window; there 10 accepted * (1 - t/10) + 1 <= 10 at t = 1 s.
    assert refused.retry_after == pytest.approx(9.0)
    assert refused.retry_after_header == "9"


def test_retry_after_is_whole_seconds_and_at_least_one():
    assert Verdict(False, 0.01).retry_after_header == "1"
    assert Verdict(False, 2.2).retry_after_header == "3"


def test_waiting_retry_after_then_fits():
    """Sending the refused request again after Retry-After fits, whatever the counts."""
    rate = Rate(5, 3.0)
    for previous in range(0, 8):
        for current in range(1, 9):
            for tenth in range(0, 30):
                elapsed = tenth / 10
                verdict = judge(rate, previous=previous, current=current, elapsed=elapsed)
                if verdict.allowed:
                    continue
                later = elapsed + verdict.retry_after + 1e-9
                if later < rate.seconds:
                    assert judge(rate, previous=previous, current=current, elapsed=later).allowed
                else:  # in the next window: this window's accepted requests are the previous
                    again = judge(rate, previous=current - 1, current=1, elapsed=later - rate.seconds)
                    assert again.allowed, (previous, current, elapsed, verdict)
