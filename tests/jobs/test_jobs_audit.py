"""The XP audit over the ledger contract (docs/architecture.md): rows in, report and anomalies out."""

from __future__ import annotations

import pytest

from cristal_events.jobs.audit import audit_rows, text_lines


def row(position, kind, amount, balance, *, character="thor", session=1, reason="", what="", charged=None,
        required=None, amends=None, flags=None, actor="GM"):
    return {"position": position, "character": character, "session": session, "recorded_at": "2026-05-01T20:00:00",
            "actor": actor, "kind": kind, "amount": amount, "what": what, "reason": reason, "cost_charged": charged,
            "cost_required": required, "balance_after": balance, "amends": amends, "flags": flags or []}


CLEAN = [
    row(5, "award", 600, 600, reason="Victoire sur York"),
    row(6, "spend", -100, 500, what="global level 1 (Guerrier 1, +1 FRC)", charged=100, required=100),
    row(9, "award", 60, 560, reason="Gobelins", session=2),
    row(10, "correction", -540, 20, reason="600 au lieu de 60", amends=5, session=2),
    row(12, "award", 175, 175, character="lyra", reason="Énigme du sphinx", session=2),
]


def test_a_clean_ledger_has_no_anomaly_and_nests_corrections_beside_what_they_amend():
    report = audit_rows(CLEAN, names={"thor": "Thor", "lyra": "Lyra"})
    assert report.ok
    thor = next(c for c in report.characters if c.id == "thor")
    assert [e.position for e in thor.entries] == [5, 6, 9]
    assert [c.position for c in thor.entries[0].corrections] == [10]
    assert [(t.session, t.earned, t.spent, t.corrected) for t in thor.sessions] == [(1, 600, 100, 0), (2, 60, 0, -540)]
    assert (thor.earned, thor.spent, thor.corrected, thor.balance) == (660, 100, -540, 20)
    assert list(text_lines(report)) == [
        "XP of Lyra (lyra)",
        "  pos    sess  amount  balance  what [by]",
        "  #12    s2      +175      175  award: Énigme du sphinx  [GM]",
        "  Total session 2: earned 175, spent 0",
        "  Overall: earned 175, spent 0; balance 175 XP",
        "",
        "XP of Thor (thor)",
        "  pos    sess  amount  balance  what [by]",
        "  #5     s1      +600      600  award: Victoire sur York  [GM]",
        "    ↳ #10    s2      -540       20  correction of #5: 600 au lieu de 60  [GM]",
        "  #6     s1      -100      500  spend: global level 1 (Guerrier 1, +1 FRC) (charged 100, rule 100)  [GM]",
        "  #9     s2       +60      560  award: Gobelins  [GM]",
        "  Total session 1: earned 600, spent 100",
        "  Total session 2: earned 60, spent 0, corrected -540",
        "  Overall: earned 660, spent 100, corrected -540; balance 20 XP",
        "",
        "No anomaly: every charge matches the rules.",
    ]


ANOMALIES = [
    ("cost-mismatch", row(6, "spend", -90, 510, what="level", charged=90, required=100), "cost_mismatch",
     "charged 90 XP where the rules required 100"),
    ("negative-balance", row(6, "spend", -700, -100, what="level", charged=700, required=700), "negative_balance",
     "the balance fell to -100 XP"),
    ("no-reason", row(6, "award", 10, 610, reason="  "), "no_reason", "an award with no reason"),
    ("past-level-limit", row(6, "spend", -100, 500, what="level 17", charged=100, required=100,
                             flags=["past_level_limit"]), "past_level_limit",
     "the purchase goes past the race's level limit"),
    ("dead-character", row(6, "spend", -100, 500, what="spell", charged=100, required=100, flags=["dead_character"]),
     "dead_character", "a dead character bought something"),
]


@pytest.mark.parametrize("bad, code, message", [a[1:] for a in ANOMALIES], ids=[a[0] for a in ANOMALIES])
def test_each_anomaly_is_found_once_with_its_sentence(bad, code, message):
    report = audit_rows([CLEAN[0], bad])
    assert not report.ok
    assert [(a.position, a.character, a.code, a.message) for a in report.anomalies] == [(6, "thor", code, message)]
    assert list(text_lines(report))[-2:] == ["1 anomaly:", f"  #6 thor: {message} ({code})"]


def test_flags_stored_as_json_text_are_read_and_not_doubled():
    bad = row(6, "spend", -90, 510, charged=90, required=100)
    bad["flags"] = '["cost_mismatch"]'
    assert [a.code for a in audit_rows([bad]).anomalies] == ["cost_mismatch"]


def test_one_character_only_and_an_unknown_one():
    report = audit_rows(CLEAN, names={"thor": "Thor", "lyra": "Lyra", "brok": "Brok"}, character="lyra")
    assert [c.id for c in report.characters] == ["lyra"]
    assert [c.id for c in audit_rows(CLEAN, names={"brok": "Brok"}, character="brok").characters] == ["brok"]
    with pytest.raises(Exception, match="No character 'nobody' in this campaign."):
        audit_rows(CLEAN, character="nobody")
