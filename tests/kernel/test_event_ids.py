"""``log_rows.new_event_ids``: time-ordered UUIDs of version 7 (RFC 9562) with 62 random bits."""

import collections
import uuid

from cristal_events.log_rows import new_event_id, new_event_ids


def test_ids_are_version_7_uuids_in_order_of_time_and_counter():
    ids = new_event_ids(3000)
    parsed = [uuid.UUID(i) for i in ids]
    assert all(str(u) == i for u, i in zip(parsed, ids))  # the canonical lowercase text
    assert all(u.version == 7 and u.variant == uuid.RFC_4122 for u in parsed)
    assert len(set(ids)) == len(ids)
    assert uuid.UUID(new_event_id()).version == 7
    assert new_event_ids(0) == []


def test_the_variant_digit_keeps_its_two_random_bits():
    seen = collections.Counter(i[19] for i in new_event_ids(4000))
    assert set(seen) == set("89ab") and min(seen.values()) > 800  # about 1,000 each
