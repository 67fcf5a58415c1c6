"""``cristal dice report``: the faces of the log's dice against fair dice (:mod:`cristal_events.jobs.dice_report`)."""

from __future__ import annotations

import click

from ..jobs import dice_report as dr
from ..jobs.walk import check_character, session_range
from .common import POSITION, echo, emit_json, json_option, open_campaign


@click.group("dice")
def dice_group() -> None:
    """The dice of the log: how fair they look.

    Example: cristal dice report --session 2
    """


@dice_group.command("report")
@click.option("--session", type=POSITION, default=None, help="Only the dice of this session.")
@click.option("--character", default=None, metavar="ID", help="Only the rolls of commands acting for this character.")
@json_option
@click.pass_context
def report_cmd(ctx: click.Context, session: int | None, character: str | None, as_json: bool) -> None:
    """Per die size and source (engine, table), the faces rolled against a fair die's: counts, a
    chi-square statistic with its p-value (faces pooled where fewer than 5 are expected per face, and
    said so), and the longest runs of one face, of maxima and of minima against the run expected in
    that many rolls. A command's character is the one its first event acts for (attacker, caster,
    character). Reads the log only (docs/verifiable-dice.md, "The fairness report").

    Example: cristal dice report --character thor --json
    """
    camp = open_campaign(ctx, readonly=True)
    if session is not None:
        session_range(camp, session)  # an unknown session is one sentence
    report = dr.dice_report(camp.store.read_all(), session=session, character=character)
    if character is not None and not report.commands:
        check_character(camp, character)  # a fighter known by its numbers only (york) has commands, not a stream
    if as_json:
        emit_json(dr.report_json(report))
        return
    for line in dr.text_lines(report):
        echo(line)


COMMANDS = [dice_group]
