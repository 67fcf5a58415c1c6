"""The Lois du Cristal character sheet and party as text lines (French labels, as on the Feuille de
Personnage): what ``cristal sheet`` and ``cristal characters`` print, through the ruleset's
``render_sheet`` and ``party_line``."""

from __future__ import annotations

from typing import Any

#: the sheet's status in the book's words
STATUS_FR = {"conscious": "conscient", "unconscious": "inconscient", "dead": "mort"}

#: the keys of a sheet one line of the party shows (and ``characters --json`` gives)
PARTY_KEYS = ("id", "name", "race", "global_level", "classes", "variable", "stable", "gold", "status")


def render(s: dict[str, Any]) -> list[str]:
    """The sheet as terminal lines (French labels, as on the Feuille de Personnage)."""
    st, var = s["stable"], s["variable"]
    classes = ", ".join(f"{k} {v}" for k, v in s["classes"].items()) or "aucune"
    lines = [
        *(["En création : PV = PVmax et PM = PMmax jusqu'à 'character ready' ou la première session (L1482)"]
          if s.get("creating") else []),
        f"{s['name']} ({s['id']}) — {s['race']}{' ' + s['sex'] if s['sex'] else ''}, Niveau Global {s['global_level']}"
        f" ({classes})",
        f"Alignement {s['alignment']:+d}   Chance {s['luck']}   Or {s['gold']} PO   État : {STATUS_FR.get(s['status'], s['status'])}",
        "États fixes : " + "  ".join(f"{k} {v:+d}" for k, v in s["fixed"].items()),
    ]
    for a in s["alterations"]:
        lines.append(f"  altération (pos. {a['since']}) : {a['stat']} {a['delta']:+d} jusqu'à {a['until'] or '?'}"
                     f" — {a['reason']}")
    lines += [
        "Tables : " + "  ".join(f"{t['state']} {t['column']} {t['value']}" for t in s.get("fixed_tables", [])),
        "Sens : " + "  ".join(f"{k} {v:+d}" for k, v in s["senses"].items())
        + (f"   ({', '.join(s['specials'])})" if s["specials"] else ""),
        f"États stables : DP {st['DP']}  DM {st['DM']}  ATT {st['ATT']}  DMG {st['DMG']}  CNC {st['CNC']}"
        f"  PVmax {st['PVmax']}  PMmax {st['PMmax']}" + (f"  (arme : {st['weapon']})" if st["weapon"] else ""),
        f"États variables : PV {var['PV']}/{st['PVmax']}  PM {var['PM']}/{st['PMmax']}  XP {var['XP']}  IT {var['IT']}"
        f"   régénération {s['regeneration']} PV/jour",
    ]
    for w in s["weapons"]:
        lines.append(f"  arme {w['name']} : ATT {w['ATT']}  DMG {w['DMG']}  IT {w['IT']}")
    if s["vol"]["max"]:
        lines.append(f"Vol* {s['vol']['left']}/{s['vol']['max']}")
    lines.append("Techniques : " + (", ".join(f"{k} {v}" for k, v in s["techniques"].items()) or "aucune"))
    lines.append("Sorts : " + (", ".join(s["spells"]) or "aucun"))
    lines.append("Équipement :" + ("" if s["items"] else " rien"))
    for i in s["items"]:
        lines.append(f"  {'[EQ] ' if i['equipped'] else '     '}{i['name']} × {i['qty']} ({i['category']},"
                     f" {i['weight_kg']} kg)")
        if i.get("gm_allowed"):
            pen = "  ".join(f"{k} {v:+d}" for k, v in i["penalties"].items()) or "aucune"
            lines.append(f"       permis par le MJ malgré le handicap (L871) : {i['gm_allowed']} ; pénalités {pen}")
    for mi in s.get("magic_items", []):  # L851, L1143-L1145
        kind = "automatique" if mi["activation"] == "automatic" else (
            "manuel, compris" if mi["understood"] else "manuel, non compris")
        lines.append(f"  objet magique {mi['name']} : MAG {mi['mag']}  DM propre {mi['own_dm']}  ({kind})")
    for c in s.get("crystals", []):  # the Cristal Magique section (L917-L923)
        stored = "détruit" if c["destroyed"] else (f"{c['spell']} ({c['pm']} PM)" if c["spell"] else "vide")
        price = "spéciale" if c["price_po"] is None else f"{c['price_po']} PO"
        size = "spéciale" if c["size_cm3"] is None else f"{c['size_cm3']} cm3"
        lines.append(f"  cristal {c['name']} : PM max. {c['pm_max']}  sort : {stored}  ({price}, {size})")
    enc = s["encumbrance"]
    lines.append(f"Charge : {enc['weight_kg']} kg / Encom. {enc['encumbrance_kg']} kg / Max. {enc['max_kg']} kg"
                 f" ({enc['status']})")
    return lines


def party_cells(r: dict[str, Any]) -> list[tuple[str, str]]:
    """One character of the party as ``(header, value)`` cells, its name first (``cristal characters``
    lays them out: :func:`cristal_events.cli.views.party_lines`)."""
    classes = ", ".join(f"{k} {v}" for k, v in r["classes"].items()) or "-"
    return [("Nom", str(r["name"])), ("Id", str(r["id"])), ("Race", str(r["race"])), ("Niv.", f"N{r['global_level']}"),
            ("Classes", classes), ("PV", f"{r['variable']['PV']}/{r['stable']['PVmax']}"),
            ("PM", f"{r['variable']['PM']}/{r['stable']['PMmax']}"), ("XP", str(r["variable"]["XP"])),
            ("État", str(r["status"]))]


def party_line(r: dict[str, Any]) -> str:
    """One character of the party on one line."""
    classes = ", ".join(f"{k} {v}" for k, v in r["classes"].items()) or "-"
    return (f"{r['id']:<12} {r['name']:<16} {r['race']:<8} N{r['global_level']:<3} {classes:<20} "
            f"PV {r['variable']['PV']}/{r['stable']['PVmax']}  PM {r['variable']['PM']}/{r['stable']['PMmax']}"
            f"  XP {r['variable']['XP']}  {r['status']}")
