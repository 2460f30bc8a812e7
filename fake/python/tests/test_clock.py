"""The fake's clock in the test's hands: read, set, advanced, frozen and let run."""

from datetime import datetime, timedelta, timezone

import pytest

from conftest import START
from dynalease_fake import ControlError


def test_the_manual_clock_stands_at_its_start_time_in_utc(dynalease_fake, dynamodb):
    now = dynalease_fake.now()
    assert now == START
    assert now.tzinfo is not None and now.utcoffset() == timedelta(0)
    dynamodb.list_tables()
    assert dynalease_fake.now() == START, "a request does not move a frozen clock"
    assert dynalease_fake.requests()[-1]["Time"] == "2026-01-01T00:00:00.000Z"


def test_advance_takes_seconds_a_timedelta_or_larger_units(dynalease_fake):
    assert dynalease_fake.advance(90) == START + timedelta(seconds=90)
    assert dynalease_fake.advance(timedelta(minutes=1), hours=1) == START + timedelta(hours=1, minutes=2, seconds=30)
    assert dynalease_fake.advance(minutes=0.5, days=1) == START + timedelta(days=1, hours=1, minutes=3)


def test_set_time_moves_the_clock_forward_to_an_aware_datetime(dynalease_fake):
    later = datetime(2026, 3, 1, 12, 30, tzinfo=timezone(timedelta(hours=2)))
    assert dynalease_fake.set_time(later) == later
    assert dynalease_fake.now() == later
    with pytest.raises(ControlError, match="the clock only moves forward") as refused:
        dynalease_fake.set_time(START)
    assert refused.value.status == 400
    with pytest.raises(ValueError, match="no time zone"):
        dynalease_fake.set_time(datetime(2027, 1, 1))
    assert dynalease_fake.now() == later, "a refused change changes nothing"


def test_a_clock_let_run_moves_on_until_it_is_frozen_again(dynalease_fake):
    resumed = dynalease_fake.run()
    assert START <= resumed < START + timedelta(minutes=1)
    assert not dynalease_fake.is_frozen()
    frozen = dynalease_fake.freeze()
    assert frozen >= resumed
    assert dynalease_fake.is_frozen()
    assert dynalease_fake.now() == frozen
