"""The Lois du Cristal character sheet and party as text lines (in French, the labels of the Feuille de
Personnage; in English, their translation): what ``cristal sheet`` and ``cristal characters`` print, through the ruleset's
``render_sheet`` and ``party_line``."""

from __future__ import annotations

from typing import Any

from .texts import N_, _

#: the sheet's status in the book's words (translated where shown)
STATUS_FR = {"conscious": N_("conscious"), "unconscious": N_("unconscious"), "dead": N_("dead")}

#: the keys of a sheet one line of the party shows (and ``characters --json`` gives)
PARTY_KEYS = ("id", "name", "race", "global_level", "classes", "variable", "stable", "gold", "status")


def _signed(values: dict[str, int]) -> str:
    return "  ".join(f"{k} {v:+d}" for k, v in values.items())


def render(s: dict[str, Any]) -> list[str]:
    """The sheet as terminal lines (in French, the labels of the Feuille de Personnage)."""
    st, var = s["stable"], s["variable"]
    classes = ", ".join(f"{k} {v}" for k, v in s["classes"].items())
    who = {"name": s["name"], "id": s["id"], "race": s["race"], "sex": " " + s["sex"] if s["sex"] else "",
           "level": s["global_level"]}
    status = STATUS_FR.get(s["status"])
    lines = [
        *([_("In creation: PV = PVmax and PM = PMmax until 'character ready' or the first session (L1482)")]
          if s.get("creating") else []),
        (_("{name} ({id}) — {race}{sex}, Global Level {level} ({classes})").format(classes=classes, **who) if classes
         else _("{name} ({id}) — {race}{sex}, Global Level {level} (no class)").format(**who)),
        _("Alignment {alignment:+d}   Chance {luck}   Gold {gold} PO   Status: {status}").format(
            alignment=s["alignment"], luck=s["luck"], gold=s["gold"], status=_(status) if status else s["status"]),
        _("Fixed states: {states}").format(states=_signed(s["fixed"])),
    ]
    for a in s["alterations"]:
        lines.append("  " + _("alteration (pos. {since}): {stat} {delta:+d} until {until} — {reason}").format(
            since=a["since"], stat=a["stat"], delta=a["delta"], until=a["until"] or "?", reason=a["reason"]))
    lines += [
        _("Tables: {tables}").format(tables="  ".join(f"{t['state']} {t['column']} {t['value']}"
                                                      for t in s.get("fixed_tables", []))),
        _("Senses: {senses}").format(senses=_signed(s["senses"]))
        + (f"   ({', '.join(s['specials'])})" if s["specials"] else ""),
        _("Stable states: DP {dp}  DM {dm}  ATT {att}  DMG {dmg}  CNC {cnc}  PVmax {pvmax}  PMmax {pmmax}").format(
            dp=st["DP"], dm=st["DM"], att=st["ATT"], dmg=st["DMG"], cnc=st["CNC"], pvmax=st["PVmax"], pmmax=st["PMmax"])
        + (_("  (weapon: {weapon})").format(weapon=st["weapon"]) if st["weapon"] else ""),
        _("Variable states: PV {pv}/{pvmax}  PM {pm}/{pmmax}  XP {xp}  IT {it}   regeneration {regeneration} PV/day"
          ).format(pv=var["PV"], pvmax=st["PVmax"], pm=var["PM"], pmmax=st["PMmax"], xp=var["XP"], it=var["IT"],
                   regeneration=s["regeneration"]),
    ]
    for w in s["weapons"]:
        lines.append("  " + _("weapon {name}: ATT {att}  DMG {dmg}  IT {it}").format(
            name=w["name"], att=w["ATT"], dmg=w["DMG"], it=w["IT"]))
    if s["vol"]["max"]:
        lines.append(f"Vol* {s['vol']['left']}/{s['vol']['max']}")
    techniques = ", ".join(f"{k} {v}" for k, v in s["techniques"].items())
    lines.append(_("Techniques: {techniques}").format(techniques=techniques) if techniques else _("Techniques: none"))
    lines.append(_("Spells: {spells}").format(spells=", ".join(s["spells"])) if s["spells"] else _("Spells: none"))
    lines.append(_("Equipment:") if s["items"] else _("Equipment: nothing"))
    for i in s["items"]:
        lines.append(f"  {'[EQ] ' if i['equipped'] else '     '}{i['name']} × {i['qty']} ({i['category']},"
                     f" {i['weight_kg']} kg)")
        if i.get("gm_allowed"):
            pen = _signed(i["penalties"])
            lines.append("       " + (
                _("allowed by the GM despite the handicap (L871): {reason}; penalties {penalties}").format(
                    reason=i["gm_allowed"], penalties=pen) if pen else
                _("allowed by the GM despite the handicap (L871): {reason}; no penalties").format(reason=i["gm_allowed"])))
    for mi in s.get("magic_items", []):  # L851, L1143-L1145
        kind = _("automatic") if mi["activation"] == "automatic" else (
            _("manual, understood") if mi["understood"] else _("manual, not understood"))
        lines.append("  " + _("magic item {name}: MAG {mag}  own DM {own_dm}  ({kind})").format(
            name=mi["name"], mag=mi["mag"], own_dm=mi["own_dm"], kind=kind))
    for c in s.get("crystals", []):  # the Cristal Magique section (L917-L923)
        stored = _("destroyed") if c["destroyed"] else (f"{c['spell']} ({c['pm']} PM)" if c["spell"] else _("empty"))
        price = _("special") if c["price_po"] is None else f"{c['price_po']} PO"
        size = _("special") if c["size_cm3"] is None else f"{c['size_cm3']} cm3"
        lines.append("  " + _("crystal {name}: PM max. {pm_max}  spell: {stored}  ({price}, {size})").format(
            name=c["name"], pm_max=c["pm_max"], stored=stored, price=price, size=size))
    enc = s["encumbrance"]
    lines.append(_("Load: {weight} kg / Encumb. {encumbrance} kg / Max. {max} kg ({status})").format(
        weight=enc["weight_kg"], encumbrance=enc["encumbrance_kg"], max=enc["max_kg"], status=enc["status"]))
    return lines


def party_cells(r: dict[str, Any]) -> list[tuple[str, str]]:
    """One character of the party as ``(header, value)`` cells, its name first (``cristal characters``
    lays them out: :func:`cristal_events.cli.views.party_lines`)."""
    classes = ", ".join(f"{k} {v}" for k, v in r["classes"].items()) or "-"
    return [(_("Name"), str(r["name"])), ("Id", str(r["id"])), (_("Race"), str(r["race"])),
            (_("Lvl."), f"N{r['global_level']}"), (_("Classes"), classes),
            ("PV", f"{r['variable']['PV']}/{r['stable']['PVmax']}"),
            ("PM", f"{r['variable']['PM']}/{r['stable']['PMmax']}"), ("XP", str(r["variable"]["XP"])),
            (_("Status"), str(r["status"]))]


def party_line(r: dict[str, Any]) -> str:
    """One character of the party on one line."""
    classes = ", ".join(f"{k} {v}" for k, v in r["classes"].items()) or "-"
    return (f"{r['id']:<12} {r['name']:<16} {r['race']:<8} N{r['global_level']:<3} {classes:<20} "
            f"PV {r['variable']['PV']}/{r['stable']['PVmax']}  PM {r['variable']['PM']}/{r['stable']['PMmax']}"
            f"  XP {r['variable']['XP']}  {r['status']}")
