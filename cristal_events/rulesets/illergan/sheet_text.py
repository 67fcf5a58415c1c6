"""The Illergan character sheet and roster as text lines: what ``cristal sheet`` and ``cristal
characters`` print, through the ruleset's ``render_sheet`` and ``party_line``."""

from __future__ import annotations

from typing import Any


def render(data: dict[str, Any]) -> list[str]:
    """The sheet as terminal lines."""
    lines = [f"{data['name']} ({data['id']}) — {data['race'] or data['kind']} {data['class']} {data['heritage']}".rstrip()]
    lines.append("Caractéristiques : " + ", ".join(f"{k} {v}" + (f" ({data['current'][k]})" if data['current'][k] != v else "")
                                                   for k, v in data["characteristics"].items()))
    lines.append(f"PV {data['pv']}/{data['pv_max']}  PM {data['pm']}/{data['pm_max']}  RN {data['rn']}%  "
                 f"FP {data['fp']}  dé de puissance {data['power_die'] or '?'} (rang {data['power_rank']})")
    if data["kind"] == "hero":
        lines.append(f"Points de destin {data['destiny_points']}  Don : {data['gift']} ({data['gift_effect']})")
        lines.append(f"xp {data['xp']} (total {data['xp_total']}, héritage restant {data['heritage_xp']})")
        if data["cult"]:
            lines.append(f"Culte {data['cult']}{' (' + data['god'] + ')' if data['god'] else ''} : niveau de foi "
                         f"{data['faith_level']}, PF {data['pf']}/{data['pf_per_day']} par jour, PFb {data['pfb']}"
                         + (f" ; pouvoirs divins : {', '.join(data['divine_powers'])}" if data["divine_powers"] else ""))
        if data["magics"]:
            lines.append("Magies : " + ", ".join(f"{k} niveau {v['level']} ({v['pp']} pp)" for k, v in data["magics"].items())
                         + (f" ; sorts : {', '.join(data['spells'])}" if data["spells"] else ""))
        lines.append("Compétences : " + ", ".join(f"{k} {v['pct']}%" + (" (rang 0)" if v.get("fixed") else "")
                                                for k, v in data["skills"].items()))
        enc = data["encumbrance"]
        load = (f"charges {enc['charges']}/{enc['max_charges']}" + (" ENCOMBRÉ" if enc["encumbered"] else "")
                + (f" ({', '.join(enc['over_slots'])} au-delà de la limite)" if enc["over_slots"] else "")
                if enc["charges"] is not None else f"charges ?/{enc['max_charges']} ({enc['missing']})")
        lines.append(f"Starls {data['starls']}  {load}")
    alc = data["alcohol"]
    if alc["thresholds"]:
        lines.append(f"Alc {alc['alc']} (minimum {alc['alc_min']}, {alc['band'] or 'sobre'}) ; seuils "
                     + ", ".join(f"{k} {round(v, 2):g}" for k, v in alc["thresholds"].items()))
    gear = [f"{k} {data[k]}" for k in ("weapon", "armour", "shield") if data[k]]
    gear += [f"{piece} {armour}" for piece, armour in data.get("pieces", {}).items()]
    if gear:
        lines.append("Équipement : " + ", ".join(gear))
    if data.get("shield_ps") is not None:
        lines.append(f"Bouclier : {data['shield_ps']} PS")
    if data["conditions"]:
        lines.append("État : " + ", ".join(data["conditions"]))
    for a in data.get("afflictions", []):
        lines.append(f"{a['name']} ({a['fight']}, tours {a['first_turn']} à {a['last_turn']})"
                     + (f" : −{a['pv_per_turn']} PV par tour" if a["pv_per_turn"] else "")
                     + (f" : −{a['dex_malus']} Dex" if a["dex_malus"] else ""))
    if data["limbs_lost"] or data["dead"]:
        lines.append(("MORT " if data["dead"] else "") + ", ".join(f"{z} perdu" for z in data["limbs_lost"]))
    return lines


def party_cells(r: dict[str, Any]) -> list[tuple[str, str]]:
    """One hero or creature as ``(header, value)`` cells, its name first (``cristal characters`` lays
    them out: :func:`cristal_events.cli.views.party_lines`)."""
    return [("Nom", str(r["name"])), ("Id", str(r["id"])), ("Type", str(r["kind"])), ("Classe", str(r["class"] or "-")),
            ("PV", f"{r['pv']}/{r['pv_max']}"), ("PM", str(r["pm"])), ("XP", str(r["xp"])),
            ("Destin", str(r["destiny_points"])), ("État", "MORT" if r["dead"] else "")]


def party_line(r: dict[str, Any]) -> str:
    """One hero or creature on one line."""
    return (f"{r['id']:<12} {r['name']:<16} {r['kind']:<9} {r['class']:<12} PV {r['pv']}/{r['pv_max']}  "
            f"PM {r['pm']}  xp {r['xp']}  destin {r['destiny_points']}{'  MORT' if r['dead'] else ''}")
