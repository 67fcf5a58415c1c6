"""A realistic big Lois du Cristal campaign: a party, sessions, fights, purchases, rests, notes.

Every event goes through the engine (``Campaign.execute``: decide, dice, append, fold, snapshots)
with the real commands of the ruleset, in the mix a long campaign has. Commands the rules refuse
(an attack out of turn, a purchase without the XP) are skipped, as a table would. Runs of commands
share one transaction per session to keep generation time reasonable.

    python benchmarks/generator.py --events 100000 --out /tmp/big.db
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any
from unittest import mock

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from cristal_events import init_campaign, service
from cristal_events.errors import CristalError
from cristal_events.rulesets.cristal import characters as C
from cristal_events.rulesets.cristal import fights as F
from cristal_events.service import Campaign, RecordNote

PARTY = [("thor", "Nain", "Guerrier", "FRC"), ("york", "Elfe", "Mage", "INT"), ("lya", "Humain", "Voleur", "DEX"),
         ("brom", "Nain", "Guerrier", "CON"), ("sela", "Elfe", "Voleur", "REF")]
BASE_PARTY = list(PARTY)
ITEMS = ["Épée longue", "Armure de cuir", "Fouet", "Hache de combat", "Robe élégante"]


def _try(camp, cmd, stats: Counter, faces=None) -> list:
    try:
        recs = camp.execute(cmd, faces=faces)
    except CristalError:
        stats["refused:" + type(cmd).__name__] += 1
        return []
    stats[type(cmd).__name__] += 1
    return recs


def _living(camp, stats: Counter) -> list[tuple[str, str, str, str]]:
    """The party's heroes alive now; each dead one is replaced by a newcomer (a new character)."""
    chars = camp.state().rules.characters
    out = []
    for i, (pid, race, cls, stat) in enumerate(PARTY):
        if chars[pid].dead:
            pid = f"{pid.rstrip('0123456789')}{stats['recruits'] + 2}"
            stats["recruits"] += 1
            _try(camp, C.CreateCharacter(id=pid, race=race, name=pid.capitalize(), gold=100), stats)
            PARTY[i] = (pid, race, cls, stat)
        out.append(PARTY[i])
    return out


def _fight(camp, rng: random.Random, n: int, stats: Counter) -> None:
    name = f"combat-{n}"
    monsters = [f"gobelin-{n}-{i}" for i in range(rng.randint(1, 2))]
    fighters = [p[0] for p in PARTY] + monsters
    stats_of = {m: {"PV": 8, "PVmax": 8, "REF": 2, "ATT": 4, "DP": 4, "DMG": 1} for m in monsters}
    if not _try(camp, F.StartCombat(combat=name, fighters=fighters, stats=stats_of), stats):
        return
    _try(camp, F.RollInitiative(combat=name), stats)
    party = [p[0] for p in PARTY]
    for _ in range(rng.randint(6, 14)):
        _try(camp, F.NextTurn(combat=name), stats)
        try:
            actor = F.whose_turn(camp.state().rules, name)
        except CristalError:
            break
        targets = monsters if actor in party else party
        if not _try(camp, F.Attack(combat=name, actor=actor, target=rng.choice(targets)), stats):
            _try(camp, F.PassTurn(combat=name, actor=actor), stats)
    _try(camp, F.EndCombat(combat=name), stats)


def generate(path: str | Path, events: int, *, seed: int = 1, quiet: bool = False, template: int = 20_000) -> Counter:
    """Write a campaign of at least ``events`` events to ``path``; return the command counts.

    The first ``template`` events are played through the engine's rules; the rest of a bigger
    campaign repeats those sessions as later "eras" (see :func:`extend`), because deciding a fight
    with the Lois du Cristal rules runs at about 1,500 events/s and a 1M-event campaign would take
    a quarter of an hour to play.
    """
    stats = play(path, min(events, template), seed=seed, quiet=quiet)
    if events > template:
        extend(path, events, quiet=quiet)
    return stats


@contextmanager
def _seeded_secrets(seed: int) -> Iterator[None]:
    """The engine's secrets (each session's dice secret, the dice keys) drawn from ``seed`` instead of
    ``os.urandom``: a session's dice come from its secret, so with fresh secrets the same seed played
    different fights on every generation (the 1M campaign had 1,000,394 events in one session's run,
    1,000,753 in the next, and 2,286 or 2,343 characters). At the table the secrets stay fresh."""
    draw = random.Random(f"secrets-{seed}")
    with mock.patch.object(service, "_random_hex", lambda nbytes: draw.randbytes(nbytes).hex()):
        yield


def play(path: str | Path, events: int, *, seed: int = 1, quiet: bool = False) -> Counter:
    """Play sessions through ``Campaign.execute`` until the log holds ``events`` events; the same
    ``seed`` plays the same campaign (its dice, its secrets: :func:`_seeded_secrets`)."""
    with _seeded_secrets(seed):
        return _play(path, events, seed=seed, quiet=quiet)


def _play(path: str | Path, events: int, *, seed: int, quiet: bool) -> Counter:
    rng = random.Random(seed)
    PARTY[:] = BASE_PARTY
    camp = init_campaign(path, name="La longue campagne", ruleset="cristal", seed=seed)
    stats: Counter = Counter()
    for pid, race, _, _ in PARTY:
        _try(camp, C.CreateCharacter(id=pid, race=race, name=pid.capitalize(), gold=200), stats)
    session = fights = 0
    t0 = time.perf_counter()
    while camp.store.last_position() < events:
        session += 1
        with camp.store.transaction():
            camp.start_session(title=f"Session {session}")
            for _ in range(rng.randint(40, 80)):
                r = rng.random()
                who = rng.choice(_living(camp, stats))
                if r < 0.25:
                    fights += 1
                    _fight(camp, rng, fights, stats)
                elif r < 0.45:
                    _try(camp, C.AwardXp(characters=tuple(p[0] for p in PARTY), amount=rng.randint(5, 40),
                                         reason="fin de combat"), stats)
                elif r < 0.55:
                    _try(camp, C.BuyLevel(character=who[0], class_name=who[2], stat=who[3]), stats)
                elif r < 0.65:
                    _try(camp, C.AddItem(character=who[0], item=rng.choice(ITEMS)), stats)
                    _try(camp, C.ChangeGold(character=who[0], amount=-rng.randint(1, 30), reason="achat"), stats)
                elif r < 0.75:
                    _try(camp, C.ChangeGold(character=who[0], amount=rng.randint(1, 50), reason="butin"), stats)
                elif r < 0.85:
                    _try(camp, C.Damage(character=who[0], amount=rng.randint(1, 6), reason="piège"), stats)
                    _try(camp, C.Heal(character=who[0], amount=rng.randint(1, 6), source="repos", reason="soins"), stats)
                elif r < 0.92:
                    _try(camp, C.Rest(all=True, days=1), stats)
                else:
                    _try(camp, RecordNote(text=f"Le MJ note : scène {rng.randint(1, 999)}", topic="récit"), stats)
            camp.end_session()
        if not quiet and session % 20 == 0:
            done = camp.store.last_position()
            rate = done / (time.perf_counter() - t0)
            print(f"\r  generating: {done:>9,} events, {rate:,.0f} events/s", end="", file=sys.stderr, flush=True)
    if not quiet:
        print(file=sys.stderr)
    camp.close()
    return stats


def extend(path: str | Path, events: int, *, quiet: bool = False) -> None:
    """Grow the campaign to ``events`` by replaying its sessions as new eras with renamed heroes.

    Era k renames every character id and combat name ``x`` to ``x~k`` (in streams and payloads),
    renumbers the sessions and gives each event a new id; rows are appended with the store's
    ``append_rows`` (re-chained and re-hashed), then the state snapshots are written every
    ``SNAPSHOT_EVERY`` positions exactly as commands would have written them.
    """
    import re

    from cristal_events import open_campaign
    from cristal_events.service import snapshot_spacing
    from cristal_events.store import new_event_ids

    camp = open_campaign(path)
    store = camp.store
    rows = [r for r in store.read_all(decode=False) if r.type != "campaign.created"]
    names = sorted({r.stream.split(":", 1)[1] for r in rows if r.stream.startswith(("character:", "combat:"))},
                   key=len, reverse=True)
    pattern = re.compile('"(' + "|".join(re.escape(n) for n in names) + ')"')
    sessions = max((r.session or 0) for r in rows)
    era = 1
    while store.last_position() < events:
        era += 1
        versions: dict[str, int] = {}
        batch = []
        corr: dict[str, str] = {}
        for i, r in enumerate(rows):
            kind, _, name = r.stream.partition(":")
            stream = f"{kind}:{name}~{era}" if kind in ("character", "combat") else r.stream
            payload = pattern.sub(lambda m, era=era: f'"{m.group(1)}~{era}"', r.payload)
            session = r.session + (era - 1) * sessions if r.session is not None else None
            if r.type in ("session.started", "session.ended"):
                payload = re.sub(r'"number":\d+', f'"number":{session}', payload)
            if stream not in versions:
                versions[stream] = store.stream_version(stream)
            versions[stream] += 1
            batch.append({"event_id": new_event_ids(1)[0], "stream": stream, "version": versions[stream], "type": r.type,
                          "schema_version": r.schema_version, "payload": payload, "recorded_at": r.recorded_at,
                          "session": session, "actor": r.actor, "causation_id": None,
                          "correlation_id": corr.setdefault(r.correlation_id or "", new_event_ids(1)[0])})
            # a batch ends only where a command ends: cutting one would keep its rolls without the
            # dice record the service appends as its last event (and verify --rolls would say so)
            last_of_command = i + 1 == len(rows) or not r.correlation_id or rows[i + 1].correlation_id != r.correlation_id
            if len(batch) >= 1000 and last_of_command:
                store.append_rows(batch)
                batch = []
                if store.last_position() >= events:
                    break
        if batch and store.last_position() < events:
            store.append_rows(batch)
        if not quiet:
            print(f"\r  extending: {store.last_position():>9,} events", end="", file=sys.stderr, flush=True)
    if not quiet:
        print(file=sys.stderr)
    # the snapshots commands would have left: every SNAPSHOT_EVERY positions, thinned as the log
    # grew to snapshot_spacing(last) (see service.SNAPSHOT_KEEP)
    spacing = snapshot_spacing(store.last_position())
    store.conn.execute("DELETE FROM snapshots")
    world = camp._initial()
    for rec in store.read_all():
        world = camp.fold(world, rec)
        if rec.position % spacing == 0:
            with store.transaction():
                camp.write_snapshot(world)
    with store.transaction():
        camp.write_snapshot(world)
    camp.close()


def one_more_session(path: str | Path, events: int, *, seed: int = 1) -> int:
    """Play one more session of at least ``events`` events on the campaign at ``path`` through the
    engine's commands (``Campaign.execute``: decide, dice, append, fold, read models), as a game night
    adds to a long campaign: fights, XP, purchases, wounds and care, rests, notes, with up to five
    living characters (new ones recruited when fewer live); a session left open is ended first;
    returns the number of events added."""
    from cristal_events import open_campaign

    rng = random.Random(seed)
    said, Campaign.on_warning = Campaign.on_warning, None  # the night's warnings recorded, not printed
    try:
        return _one_more_session(open_campaign(path), events, rng)
    finally:
        Campaign.on_warning = said


def _one_more_session(camp: Any, events: int, rng: random.Random) -> int:
    start = camp.store.last_position()
    stats: Counter = Counter()
    alive = [cid for cid, c in camp.state().rules.characters.items() if not c.dead][-5:]
    while len(alive) < 5:
        cid = f"recrue-{start}-{len(alive)}"
        _try(camp, C.CreateCharacter(id=cid, race="Humain", name=f"Recrue {len(alive) + 1}", gold=100), stats)
        alive.append(cid)
    PARTY[:] = [(cid, "Humain", "Guerrier", "FRC") for cid in alive]
    if camp.state().core.session is not None:  # the last night was left open: it ends first
        camp.end_session()
    camp.start_session(title="Une nuit de plus")
    fights = 0
    while camp.store.last_position() - start < events:
        r = rng.random()
        who = rng.choice(alive)
        if r < 0.35:
            fights += 1
            _fight(camp, rng, 10_000_000 + start + fights, stats)
        elif r < 0.55:
            _try(camp, C.AwardXp(characters=tuple(alive), amount=rng.randint(5, 40), reason="fin de combat"), stats)
        elif r < 0.65:
            _try(camp, C.AddItem(character=who, item=rng.choice(ITEMS)), stats)
            _try(camp, C.ChangeGold(character=who, amount=-rng.randint(1, 30), reason="achat"), stats)
        elif r < 0.8:
            _try(camp, C.Damage(character=who, amount=rng.randint(1, 3), reason="piège"), stats)
            _try(camp, C.Heal(character=who, amount=rng.randint(1, 6), source="repos", reason="soins"), stats)
        elif r < 0.9:
            _try(camp, C.Rest(all=True, days=1), stats)
        else:
            _try(camp, RecordNote(text=f"Le MJ note : scène {rng.randint(1, 999)}", topic="récit"), stats)
    camp.end_session()
    from cristal_events.projections import runner

    runner.catch_up(camp)  # as a table's commands leave them (cli.common.catch_up): the export reads the ledger
    added = camp.store.last_position() - start
    camp.close()
    return added


CACHE = Path(tempfile.gettempdir()) / "cristal-bench-campaigns"


def cached(events: int, *, seed: int = 1, template: int = 20_000, quiet: bool = False) -> str:
    """The path of a generated campaign of ``events`` events, generated once per size and seed and kept
    under the temporary directory (``CACHE``), so that a benchmark run (or the next one) does not
    generate the same campaign twice. A campaign bigger than ``template`` starts from a copy of the
    cached template (the played part) and is extended from there, as :func:`generate` would do.
    The caller copies the file before writing to it."""
    CACHE.mkdir(parents=True, exist_ok=True)
    path = CACHE / f"seed{seed}-{events}.db"
    if path.exists():
        with_read_models(path)
        return str(path)
    part = CACHE / f"seed{seed}-{events}.part.db"
    for suffix in ("", "-wal", "-shm"):
        Path(str(part) + suffix).unlink(missing_ok=True)
    if events > template:
        shutil.copyfile(cached(template, seed=seed, template=template, quiet=quiet), part)
        extend(part, events, quiet=quiet)
    else:
        play(part, events, seed=seed, quiet=quiet)

    with_read_models(part)
    os.replace(part, path)
    return str(path)


def with_read_models(path: str | Path) -> None:
    """Build the read models of the campaign at ``path`` unless they are built (a campaign played at a
    table has them: its commands catch them up) and fold the WAL into the file, so that one file is
    the whole campaign and a copy of it starts its first command without a rebuild."""
    from cristal_events.projections import runner

    from cristal_events import open_campaign

    camp = open_campaign(path)
    if camp.store.checkpoint("timeline") is None:
        runner.rebuild(camp)
    camp.store.checkpoint_wal()
    camp.close()


if __name__ == "__main__":
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--events", type=int, default=10_000)
    ap.add_argument("--out", required=True)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    counts = generate(a.out, a.events, seed=a.seed)
    print(dict(counts.most_common()))
