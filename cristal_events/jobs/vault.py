"""The recap as an Obsidian vault: one Markdown note per session, character and fight.

Each note starts with YAML front matter (every value written as JSON, which YAML reads as is):
``cristal_recap`` (``CAMPAIGN_ID/VIEW``: the key by which the recap knows the notes it wrote),
``kind``, ``title``, the session's number, in-game date, real dates and receipt, and the ids it
concerns. Notes link each other with ``[[file|label]]`` wikilinks.

**File names** are the slug of the name and a stable id: ``l-auberge-du-pendu--s1.md`` (session 1),
``thor--thor.md`` (character ``thor``), ``pendu--f20.md`` (the fight that started at position 20).

**Nothing else is overwritten.** A file of that name that the recap did not write (no ``cristal_recap``
key of this campaign and this view: someone's own note, the other view's, another campaign's, a
symbolic link) is left alone, named in the result, and the notes link to it as plain text, so every
link of the vault leads to a note it wrote. A note the recap wrote is rewritten only when its text
changed. A character's note lists every session and fight note of the vault that names it, so the
vault grows session by session.

Python API::

    result = write_vault(recap, "vault/")     # VaultResult: written, unchanged, left_alone
"""

from __future__ import annotations

import os
import re
import unicodedata
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import msgspec

from ..display import visible
from ..errors import CristalError
from ..i18n import _
from .exports import md
from .recap import VIEW_LABEL, Fight, Person, Recap, numbers_text, real_span

OWNER_KEY = "cristal_recap"


def slug(text: str, fallback: str) -> str:
    """Lower-case ASCII words joined by ``-`` (accents dropped), at most 60 characters."""
    plain = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode().lower()
    out = re.sub(r"[^a-z0-9]+", "-", plain).strip("-")[:60].strip("-")
    return out or fallback


def session_stem(recap_or_title: Any, number: int | None = None) -> str:
    if isinstance(recap_or_title, Recap):
        return f"{slug(recap_or_title.title, 'session')}--s{recap_or_title.number}"
    return f"{slug(str(recap_or_title), 'session')}--s{number}"


def person_stem(p: Person) -> str:
    return f"{slug(p.name, 'personnage')}--{slug(p.id, 'id')}"


def fight_stem(f: Fight) -> str:
    return f"{slug(f.name, 'combat')}--{f.key}"


def owner(recap: Recap) -> str:
    return f"{recap.campaign_id}/{recap.view}"


def front_matter(path: Path) -> dict[str, Any] | None:
    """The front matter of a note this module writes (``key: JSON`` lines between ``---``), or None."""
    try:
        if path.is_symlink() or not path.is_file():
            return None
        with open(path, encoding="utf-8", errors="replace") as fh:
            if fh.readline().rstrip("\n") != "---":
                return None
            out: dict[str, Any] = {}
            for _ in range(64):
                line = fh.readline()
                if not line or line.rstrip("\n") == "---":
                    return out
                key, sep, value = line.rstrip("\n").partition(": ")
                if sep:
                    try:
                        out[key] = msgspec.json.decode(value)
                    except msgspec.DecodeError:
                        out[key] = value
    except OSError:
        return None
    return None


def _shown(value: Any) -> Any:
    """A front-matter value with the control characters of its texts shown visibly, as in every text output."""
    if isinstance(value, str):
        return visible(value)
    if isinstance(value, list):
        return [_shown(v) for v in value]
    return value


def _yaml(meta: dict[str, Any]) -> str:
    # JSON is YAML: a string is double-quoted with its escapes, a list is a flow sequence
    lines = [f"{k}: {msgspec.json.encode(_shown(v)).decode()}" for k, v in meta.items()]
    return "---\n" + "\n".join(lines) + "\n---\n"


def _label(text: str) -> str:
    """A wikilink's label: no character that would end or split the link, nor any markup."""
    return re.sub(r"[\[\]|#^<>&]", " ", visible(text)).strip() or "?"


@dataclass
class VaultResult:
    dir: str
    written: list[str] = field(default_factory=list)
    unchanged: list[str] = field(default_factory=list)
    left_alone: list[str] = field(default_factory=list)


def write_vault(recap: Recap, directory: str | os.PathLike[str]) -> VaultResult:
    """Write (or update) the notes of ``recap`` in ``directory`` (created when missing)."""
    root = Path(directory)
    if root.exists() and not root.is_dir():
        raise CristalError(_("{folder} is not a folder; --out needs the vault's folder; nothing was written.").format(
            folder=root))
    if not root.exists():
        if not root.parent.is_dir():
            raise CristalError(_("The folder {folder} does not exist; nothing was written.").format(folder=root.parent))
        root.mkdir()
    me = owner(recap)
    ours: dict[str, dict[str, Any]] = {}  # stem -> front matter of every note of ours already there
    for path in root.glob("*.md"):
        meta = front_matter(path)
        if meta is not None and meta.get(OWNER_KEY) == me:
            ours[path.stem] = meta

    people = list(recap.people.values())
    notes: dict[str, tuple[str, Any]] = {session_stem(recap): ("session", recap)}
    notes.update({person_stem(p): ("character", p) for p in people})
    notes.update({fight_stem(f): ("fight", f) for f in recap.fights})
    result = VaultResult(dir=str(root))
    writable = set()
    for stem in notes:
        path = root / f"{stem}.md"
        if (path.exists() or path.is_symlink()) and stem not in ours:
            result.left_alone.append(path.name)
        else:
            writable.add(stem)
    linkable = writable | set(ours)

    def link(stem: str, label: str) -> str:
        return f"[[{stem}|{_label(label)}]]" if stem in linkable else md(label)

    base = {OWNER_KEY: me, "view": recap.view, "campaign": recap.campaign}
    session_meta = {"session": recap.number, "in_game_date": recap.in_game_date,
                    "real_date": recap.real_start[:10], "real_start": recap.real_start, "real_end": recap.real_end,
                    "receipt": recap.receipt}
    s_stem = session_stem(recap)
    texts: dict[str, str] = {}
    for stem, (kind, obj) in notes.items():
        if stem not in writable:
            continue
        if kind == "session":
            meta = {**base, "kind": "session", "title": recap.name, **session_meta,
                    "characters": list(recap.people), "fights": [fight_stem(f) for f in recap.fights]}
            body = _session_body(recap, link)
        elif kind == "character":
            sessions = sorted({s: m for s, m in ours.items() if m.get("kind") == "session"
                               and obj.id in (m.get("characters") or [])}.items(),
                              key=lambda kv: kv[1].get("session", 0))
            sessions = [(s, m) for s, m in sessions if s != s_stem]
            fights = sorted((s, m) for s, m in ours.items() if m.get("kind") == "fight"
                            and obj.id in (m.get("characters") or []) and s not in notes)
            meta = {**base, "kind": "character", "title": obj.name, "id": obj.id, "foe": obj.foe,
                    "player": obj.player, **session_meta}
            body = _character_body(recap, obj, link, sessions, fights)
        else:
            meta = {**base, "kind": "fight", "title": _("Fight « {name} »").format(name=obj.name), **session_meta,
                    "characters": obj.participants, "start": obj.start, "end": obj.end}
            body = _fight_body(recap, obj, link)
        texts[stem] = _yaml(meta) + body
    for stem, text in texts.items():
        path = root / f"{stem}.md"
        if path.exists():
            try:
                if path.read_text(encoding="utf-8") == text:
                    result.unchanged.append(path.name)
                    continue
            except (OSError, UnicodeDecodeError):
                pass
        _replace(path, text)
        result.written.append(path.name)
    return result


def _replace(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.part-{os.urandom(4).hex()}")
    try:
        with open(tmp, "x", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)
        raise CristalError(_("Cannot write {path}: {reason}; the notes before it were written.").format(
            path=path, reason=exc.strerror)) from None


def _who(recap: Recap, link: Any, ids: list[str]) -> str:
    return ", ".join(link(person_stem(recap.people[c]), recap.people[c].name) for c in ids if c in recap.people)


def _session_body(recap: Recap, link: Any) -> str:
    out = ["# " + _("Session {number}: {title}").format(number=recap.number, title=md(recap.name)), ""]
    out.append(f"*{md(recap.campaign)} — {md(_(VIEW_LABEL[recap.view]))}*")
    out.append("")
    if recap.in_game_date:
        out.append(f"- **{_('In-game date:')}** {md(recap.in_game_date)}")
    out.append(f"- **{_('Played on:')}** {md(real_span(recap))}")
    out.append(f"- **{_('Receipt:')}** `{recap.receipt}`" if recap.receipt
               else f"- **{_('Receipt:')}** {_('session under way')}")
    pcs = [c for c, p in recap.people.items() if not p.foe]
    foes = [c for c, p in recap.people.items() if p.foe]
    if pcs:
        out.append(f"- **{_('Characters:')}** {_who(recap, link, pcs)}")
    if foes:
        out.append(f"- **{_('Foes:')}** {_who(recap, link, foes)}")
    if recap.fights:
        out.append(f"- **{_('Fights:')}** " + ", ".join(link(fight_stem(f), _("Fight « {name} »").format(name=f.name)) for f in recap.fights))
    out += ["", "## " + _("What happened"), ""]
    shown_fight: set[str] = set()
    for line in recap.lines:
        if line.fight is not None:
            if line.fight not in shown_fight:
                f = next(f for f in recap.fights if f.key == line.fight)
                out.append(f"- `#{line.position}` {link(fight_stem(f), _('Fight « {name} »').format(name=f.name))} "
                           + _("({count} events)").format(count=len(f.lines)))
                shown_fight.add(line.fight)
            continue
        out.append(f"- `#{line.position}` {md(line.text)}")
    return "\n".join(out) + "\n"


def _character_body(recap: Recap, p: Person, link: Any, earlier: list[tuple[str, dict[str, Any]]],
                    fights: list[tuple[str, dict[str, Any]]]) -> str:
    role = _("Foe") if p.foe else _("Player character")
    out = [f"# {md(p.name)}", "", f"- **{_('Role:')}** {role}"
           + (_(", played by {player}").format(player=md(p.player)) if p.player else ""),
           f"- **{_('Id:')}** `{md(p.id)}`"]
    if p.numbers:
        out.append("- **" + _("At the end of session {number}:").format(number=recap.number)
                   + f"** {md(numbers_text(p.numbers))}")
    out += ["", "## Sessions", ""]
    for stem, meta in earlier:
        out.append(f"- {link(stem, str(meta.get('title', stem)))}")
    out.append(f"- {link(session_stem(recap), recap.name)}")
    mine = [f for f in recap.fights if p.id in f.participants]
    if mine or fights:
        out += ["", "## " + _("Fights"), ""]
        out += [f"- {link(stem, str(meta.get('title', stem)))}" for stem, meta in fights]
        out += [f"- {link(fight_stem(f), _('Fight « {name} »').format(name=f.name))} "
                + _("(session {number})").format(number=recap.number) for f in mine]
    return "\n".join(out) + "\n"


def _fight_body(recap: Recap, f: Fight, link: Any) -> str:
    out = ["# " + _("Fight « {name} »").format(name=md(f.name)), "", f"- **{_('Session:')}** {link(session_stem(recap), recap.name)}",
           f"- **{_('Positions:')}** #{f.start}–#{f.end}",
           f"- **{_('Participants:')}** {_who(recap, link, f.participants)}", "", "## " + _("What happened"), ""]
    out += [f"- `#{line.position}` {md(line.text)}" for line in f.lines]
    if f.table:
        who = f.participants
        head = [_("IT before {name}").format(name=md(recap.shown(c))) for c in who]
        head += [_("Turn of"), _("Action"), _("Duration")]
        head += [_("IT after {name}").format(name=md(recap.shown(c))) for c in who]
        out += ["", "## " + _("Time Index"), "", "| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
        for _pos, actor, summary, duration, before, after in f.table:
            cells = [str(before.get(c, "")) for c in who] + [md(recap.shown(actor)), md(summary), f"+{duration}"]
            cells += [str(after.get(c, "")) for c in who]
            out.append("| " + " | ".join(cells) + " |")
    return "\n".join(out) + "\n"
