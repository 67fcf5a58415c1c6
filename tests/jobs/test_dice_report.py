"""The fairness report (cristal dice report): the chi-square survival function against published and
closed-form values, fixed faces, pooling, streak probabilities against enumeration, and the report of a
sample campaign through the CLI."""

from __future__ import annotations

import itertools
import json
import math
from pathlib import Path

import pytest
from click.testing import CliRunner
from helpers import one_error
from pgcluster import module_target

from cristal_events.cli import cli
from cristal_events.cli.script import load
from cristal_events.cli.script import run as run_script
from cristal_events.jobs import dice_report as dr
from cristal_events.jobs import dice_stats

SAMPLES = Path(__file__).resolve().parents[2] / "sample_campaigns"

# NIST/SEMATECH e-Handbook of Statistical Methods, §1.3.6.7.4 "Critical Values of the Chi-Square
# Distribution" (https://www.itl.nist.gov/div898/handbook/eda/section3/eda3674.htm): the upper-tail
# critical values (P(X² ≥ x) = 0.05 and 0.01) and the lower-tail ones (P(X² ≥ x) = 0.95), printed
# to three decimals; they are the values scipy.stats.chi2.isf gives (e.g. chi2.isf(0.05, 5) = 11.0705).
NIST = [
    (5, 11.070, 0.05), (5, 15.086, 0.01), (5, 1.145, 0.95),
    (19, 30.144, 0.05), (19, 36.191, 0.01), (19, 10.117, 0.95),
    (99, 123.225, 0.05), (99, 134.642, 0.01), (99, 77.046, 0.95),
]


@pytest.mark.parametrize("df,x,p", NIST, ids=[f"df{d}-p{p}" for d, _, p in NIST])
def test_chi2_sf_meets_the_published_critical_values(df, x, p):
    # three printed decimals of x move p by at most the density times 0.0005: well under 1e-4
    assert dice_stats.chi2_sf(x, df) == pytest.approx(p, abs=1e-4)


def closed_form_sf(x: float, df: int) -> float:
    """The chi-square survival function in closed form (an independent computation): for even df,
    e^(-x/2) Σ_{i<df/2} (x/2)^i / i!; for odd df, erfc(√(x/2)) + √(2x/π) e^(-x/2) Σ x^(i-1) / (1·3·…·(2i-1))."""
    if df % 2 == 0:
        return math.exp(-x / 2) * sum((x / 2) ** i / math.factorial(i) for i in range(df // 2))
    total, term = 0.0, 1.0
    for i in range(1, (df - 1) // 2 + 1):
        term = 1.0 if i == 1 else term * x / (2 * i - 1)
        total += term
    return math.erfc(math.sqrt(x / 2)) + math.sqrt(2 * x / math.pi) * math.exp(-x / 2) * total


@pytest.mark.parametrize("df", [1, 2, 3, 4, 5, 10, 19, 20])
@pytest.mark.parametrize("x", [0.1, 0.9, 3.0, 7.3, 18.5, 40.0, 120.0])
def test_chi2_sf_matches_the_closed_forms(df, x):
    assert dice_stats.chi2_sf(x, df) == pytest.approx(closed_form_sf(x, df), rel=1e-9, abs=1e-300)


def test_fixed_faces_perfectly_uniform_and_all_ones():
    fair = dr.group(6, "table", [f for f in range(1, 7) for _ in range(10)])
    assert (fair.chi_square, fair.df, fair.p_value, fair.pooled) == (0.0, 5, 1.0, False)
    ones = dr.group(6, "table", [1] * 60)
    # (60 − 10)²/10 + 5 × (0 − 10)²/10 = 250 + 50 = 300, i.e. 5 n for n rolls of one face of a d6
    assert (ones.chi_square, ones.df) == (300.0, 5)
    assert ones.p_value == pytest.approx(closed_form_sf(300.0, 5), rel=1e-5)
    assert ones.p_value < 1e-60
    same, maxima, minima = ones.streaks
    assert (same.longest, same.face, maxima.longest, minima.longest) == (60, 1, 0, 60)
    assert same.p_at_least < 1e-40 and maxima.p_at_least == 1.0


def test_too_few_rolls_are_pooled_and_then_untested():
    pooled = dr.group(20, "engine", [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12])  # 0.6 expected a face
    assert pooled.pooled and pooled.df == 1
    assert [(b.low, b.high, b.observed, b.expected) for b in pooled.bins] == [(1, 9, 9, 5.4), (10, 20, 3, 6.6)]
    assert pooled.chi_square == pytest.approx((9 - 5.4) ** 2 / 5.4 + (3 - 6.6) ** 2 / 6.6)
    assert pooled.note == "faces pooled into 2 bins (1–9, 10–20): a face is expected 0.60 times, under 5"
    assert dr.verdict(pooled).startswith("chi-square 4.364, 1 degrees of freedom, p = 0.03671 (faces pooled")
    few = dr.group(20, "engine", [3, 7, 7])
    assert (few.chi_square, few.p_value, few.df) == (None, None, None)
    assert few.note == "too few rolls for a chi-square test: 3 of d20, at least 10 needed"


def brute_tail(n: int, run: int, sides: int, hit) -> float:
    """P(some run ≥ run) over every sequence of n faces (exhaustive enumeration)."""
    good = 0
    for seq in itertools.product(range(1, sides + 1), repeat=n):
        best = cur = 0
        for i in range(len(seq)):
            cur = cur + 1 if hit(seq, i) else 0
            best = max(best, cur)
        good += best >= run
    return good / sides ** n


def test_run_probabilities_match_enumeration():
    # maxima of a d4 in 8 rolls: runs of "face == 4"
    for run in (1, 2, 3):
        assert dice_stats.run_tail(8, run, 1 / 4) == pytest.approx(brute_tail(8, run, 4, lambda s, i: s[i] == 4))
    # the same face three times in a row among 6 rolls of a d3: two repeats in a row among the 5 pairs
    repeat = brute_tail(6, 2, 3, lambda s, i: i > 0 and s[i] == s[i - 1])
    assert dice_stats.run_tail(5, 2, 1 / 3) == pytest.approx(repeat)
    assert dice_stats.run_tail(10, 3, 0.5) == 520 / 1024
    # the mean longest run of heads in 12 flips, by enumeration
    mean = sum(max((len(r) for r in "".join(map(str, s)).split("0")), default=0)
               for s in itertools.product((0, 1), repeat=12)) / 2 ** 12
    assert dice_stats.expected_longest_run(12, 0.5) == pytest.approx(mean, abs=1e-8)


def test_the_run_recurrence_gives_the_floats_of_the_plain_loop():
    """no_run_probability reads A(m-run-1) through an iterator: the very floats of the recurrence
    written with indexes (the site's fairness report must stay the same bytes)."""
    def plain(n, run, p):  # the function as it was written before, its early 0 included
        if p < 1 and (n // run) * math.log1p(-(p ** run)) < -41.5:
            return 0.0
        a = [1.0] * run + [1.0 - p ** run]
        k = (1.0 - p) * p ** run
        for m in range(run + 1, n + 1):
            a.append(a[m - 1] - k * a[m - run - 1])
        return max(0.0, min(1.0, a[n]))

    cases = [(n, run, 1 / sides) for sides in (2, 6, 10, 20, 100) for n in (1, 5, 37, 1_000, 25_000)
             for run in (1, 2, 3, 5, 8, 13) if n >= run]
    for n, run, p in cases:
        assert dice_stats.no_run_probability.__wrapped__(n, run, p) == plain(n, run, p), (n, run, p)
    assert dice_stats.no_run_probability(190_171, 9, 1 / 6) == plain(190_171, 9, 1 / 6)


def cristal(db, *args):
    return CliRunner().invoke(cli, ["--db", str(db), *args], catch_exceptions=False)


@pytest.fixture(scope="module", params=["sqlite", "postgres"])
def compagnie(request, tmp_path_factory):
    """The Compagnie sample on each backend (an SQLite file, a PostgreSQL campaign)."""
    with module_target(request, tmp_path_factory.mktemp("compagnie"), "compagnie") as db:
        run_script(load(SAMPLES / "compagnie_du_cristal.toml"), db)
        yield db


GROUP_KEYS = {"sides", "source", "rolls", "counts", "expected", "bins", "pooled", "chi_square", "df", "p_value",
              "note", "streaks"}


def test_report_of_the_sample_through_the_cli(compagnie):
    res = cristal(compagnie, "dice", "report", "--json")
    assert res.exit_code == 0, res.output
    report = json.loads(res.output)
    assert set(report) == {"session", "character", "commands", "dice", "sealed", "groups"}
    # the table's dice of the book's fights: #23 (d20, d8), #26, #32 (d20), #35 (d4), #39 (4d6), #62 (d20,
    # 2d6), #69 (d20, d6)
    assert (report["commands"], report["dice"], report["sealed"]) == (7, 14, 0)
    assert [(g["sides"], g["source"], g["rolls"]) for g in report["groups"]] == [
        (4, "table", 1), (6, "table", 7), (8, "table", 1), (20, "table", 5)]
    d20 = report["groups"][-1]
    assert set(d20) == GROUP_KEYS
    assert {f: c for f, c in d20["counts"].items() if c} == {"4": 1, "8": 1, "12": 1, "13": 2}
    assert d20["chi_square"] is None and d20["note"].startswith("too few rolls")
    assert [s["kind"] for s in d20["streaks"]] == ["same_face", "maxima", "minima"]

    thor = json.loads(cristal(compagnie, "dice", "report", "--character", "thor", "--json").output)
    assert (thor["character"], thor["commands"], thor["dice"]) == ("thor", 2, 3)  # his attack, his search
    york = json.loads(cristal(compagnie, "dice", "report", "--character", "york", "--session", "1", "--json").output)
    assert (york["commands"], york["dice"]) == (3, 6)  # a fighter known by his numbers only
    s3 = json.loads(cristal(compagnie, "dice", "report", "--session", "3", "--json").output)
    assert (s3["session"], s3["commands"], s3["dice"]) == (3, 2, 5)

    text = cristal(compagnie, "dice", "report", "--session", "1").output
    assert text.startswith("Dice fairness, session 1: 9 dice in 5 command(s).")
    assert "d6, table: 4 roll(s)" in text
    assert one_error(cristal(compagnie, "dice", "report", "--character", "nobody")) == \
        "Error: No character 'nobody' in this campaign."
    assert one_error(cristal(compagnie, "dice", "report", "--session", "9")) == \
        "Error: Session 9 has no events in this campaign."


def test_engine_dice_are_tested_apart_from_the_tables(tmp_path):
    db = tmp_path / "e.db"
    for args in (["init", str(db), "--name", "E", "--seed", "3"], ["session", "start"],
                 ["character", "create", "thor", "--race", "Humain", "--name", "Thor", "--player", "Alice"]):
        assert cristal(db, *args).exit_code == 0
    for _ in range(36):
        assert cristal(db, "check", "sur-effort", "thor", "FRC", "--reason", "x").exit_code == 0
    for face in (6, 6, 6, 6):
        assert cristal(db, "check", "sur-effort", "thor", "FRC", "--reason", "x", "--dice", str(face)).exit_code == 0
    report = json.loads(cristal(db, "dice", "report", "--json").output)
    engine, table = report["groups"]
    assert (engine["sides"], engine["source"], engine["rolls"]) == (6, "engine", 36)
    assert (table["source"], table["rolls"], table["counts"]["6"]) == ("table", 4, 4)
    counts = list(engine["counts"].values())
    assert sum(counts) == 36 and not engine["pooled"]  # 6 expected a face: no pooling
    assert engine["chi_square"] == pytest.approx(sum((c - 6) ** 2 / 6 for c in counts))
    assert engine["p_value"] == pytest.approx(closed_form_sf(engine["chi_square"], 5), rel=1e-5)
    maxima = table["streaks"][1]
    assert (maxima["longest"], maxima["p_at_least"]) == (4, pytest.approx(1 / 6 ** 4, rel=1e-5))


def test_a_sealed_record_is_left_out_through_the_one_hook(compagnie, monkeypatch):
    from cristal_events.service import Campaign

    with Campaign.open(compagnie, readonly=True) as camp:
        records = list(camp.store.read_all())
    assert dr.sealed_positions(records) == set()  # no secret roll in the log yet
    monkeypatch.setattr(dr, "sealed_positions", lambda records: {23})  # the record of Thor's attack
    report = dr.dice_report(records)
    assert (report.commands, report.dice, report.sealed) == (6, 12, 1)


@pytest.mark.french  # reads the French texts of the output
def test_the_markdown_export_carries_the_report_and_the_html_section_stands_alone(compagnie):
    md = cristal(compagnie, "export", "timeline", "--format", "md").output
    assert "## Dés : équité" in md and "### d20, table : 5 jet(s)" in md
    assert "| observés | 0 | 0 | 0 | 1 | 0 | 0 | 0 | 1 | 0 | 0 | 0 | 1 | 2 |" in md
    report = dr.dice_report(_records(compagnie))
    section = dr.html_section(report)
    assert section.startswith('<section id="dice-fairness">') and section.endswith("</section>")
    assert section.count('<svg class="chart dice-chart"') == 4  # d4, d6, d8, d20
    assert "<script" not in section and "<style" not in section and "http://" not in section.replace(
        'xmlns="http://www.w3.org/2000/svg"', "")
    assert "<title>13 : 2</title>" in section  # the d20's bar of face 13


def _records(db):
    from cristal_events.service import Campaign

    with Campaign.open(db, readonly=True) as camp:
        return list(camp.store.read_all())
