"""The Illergan character sheet and roster as text lines: what ``cristal sheet`` and ``cristal
characters`` print, through the ruleset's ``render_sheet`` and ``party_line``, in the current language
(the ruleset's catalog; the French lines are those the sheet always printed)."""

from __future__ import annotations

from typing import Any

from .texts import _


def render(data: dict[str, Any]) -> list[str]:
    """The sheet as terminal lines."""
    lines = [f"{data['name']} ({data['id']}) — {data['race'] or data['kind']} {data['class']} {data['heritage']}".rstrip()]
    lines.append(_("Characteristics: {list}").format(list=", ".join(
        f"{k} {v}" + (f" ({data['current'][k]})" if data['current'][k] != v else "")
        for k, v in data["characteristics"].items())))
    lines.append(_("PV {pv}/{pv_max}  PM {pm}/{pm_max}  RN {rn}%  FP {fp}  power die {die} (rank {rank})").format(
        pv=data['pv'], pv_max=data['pv_max'], pm=data['pm'], pm_max=data['pm_max'], rn=data['rn'], fp=data['fp'],
        die=data['power_die'] or '?', rank=data['power_rank']))
    if data["kind"] == "hero":
        lines.append(_("Destiny points {n}  Gift: {gift} ({effect})").format(
            n=data['destiny_points'], gift=data['gift'], effect=data['gift_effect']))
        lines.append(_("xp {xp} (total {total}, heritage left {heritage})").format(
            xp=data['xp'], total=data['xp_total'], heritage=data['heritage_xp']))
        if data["cult"]:
            cult = data['cult'] + (' (' + data['god'] + ')' if data['god'] else '')
            lines.append(_("Cult {cult}: faith level {level}, PF {pf}/{per_day} a day, PFb {pfb}").format(
                cult=cult, level=data['faith_level'], pf=data['pf'], per_day=data['pf_per_day'], pfb=data['pfb'])
                + (_("; divine powers: {list}").format(list=", ".join(data['divine_powers']))
                   if data["divine_powers"] else ""))
        if data["magics"]:
            lines.append(_("Magics: {list}").format(list=", ".join(
                _("{magic} level {level} ({pp} pp)").format(magic=k, level=v['level'], pp=v['pp'])
                for k, v in data["magics"].items()))
                + (_("; spells: {list}").format(list=", ".join(data['spells'])) if data["spells"] else ""))
        lines.append(_("Skills: {list}").format(list=", ".join(
            f"{k} {v['pct']}%" + (_(" (rank 0)") if v.get("fixed") else "") for k, v in data["skills"].items())))
        enc = data["encumbrance"]
        load = (_("charges {charges}/{max}").format(charges=enc['charges'], max=enc['max_charges'])
                + (_(" ENCUMBERED") if enc["encumbered"] else "")
                + (_(" ({slots} beyond the limit)").format(slots=", ".join(enc['over_slots'])) if enc["over_slots"] else "")
                if enc["charges"] is not None
                else _("charges ?/{max} ({missing})").format(max=enc['max_charges'], missing=enc['missing']))
        lines.append(f"Starls {data['starls']}  {load}")
    alc = data["alcohol"]
    if alc["thresholds"]:
        lines.append(_("Alc {alc} (minimum {minimum}, {band}); thresholds {list}").format(
            alc=alc['alc'], minimum=alc['alc_min'], band=alc['band'] or _("sober"),
            list=", ".join(f"{k} {round(v, 2):g}" for k, v in alc["thresholds"].items())))
    gear = [f"{k} {data[k]}" for k in ("weapon", "armour", "shield") if data[k]]
    gear += [f"{piece} {armour}" for piece, armour in data.get("pieces", {}).items()]
    if gear:
        lines.append(_("Equipment: {list}").format(list=", ".join(gear)))
    if data.get("shield_ps") is not None:
        lines.append(_("Shield: {ps} PS").format(ps=data['shield_ps']))
    if data["conditions"]:
        lines.append(_("Condition: {list}").format(list=", ".join(data["conditions"])))
    for a in data.get("afflictions", []):
        lines.append(_("{name} ({fight}, turns {first} to {last})").format(
            name=a['name'], fight=a['fight'], first=a['first_turn'], last=a['last_turn'])
                     + (_(": −{pv} PV a turn").format(pv=a['pv_per_turn']) if a["pv_per_turn"] else "")
                     + (_(": −{dex} Dex").format(dex=a['dex_malus']) if a["dex_malus"] else ""))
    if data["limbs_lost"] or data["dead"]:
        lines.append((_("DEAD ") if data["dead"] else "")
                     + ", ".join(_("{limb} lost").format(limb=z) for z in data["limbs_lost"]))
    return lines


def party_cells(r: dict[str, Any]) -> list[tuple[str, str]]:
    """One hero or creature as ``(header, value)`` cells, its name first (``cristal characters`` lays
    them out: :func:`cristal_events.cli.views.party_lines`)."""
    return [(_("Name"), str(r["name"])), ("Id", str(r["id"])), (_("Type"), str(r["kind"])),
            (_("Class"), str(r["class"] or "-")), ("PV", f"{r['pv']}/{r['pv_max']}"), ("PM", str(r["pm"])),
            ("XP", str(r["xp"])), (_("Destiny"), str(r["destiny_points"])),
            (_("Condition"), _("DEAD") if r["dead"] else "")]


def party_line(r: dict[str, Any]) -> str:
    """One hero or creature on one line."""
    return (f"{r['id']:<12} {r['name']:<16} {r['kind']:<9} {r['class']:<12} PV {r['pv']}/{r['pv_max']}  "
            + _("PM {pm}  xp {xp}  destiny {destiny}").format(pm=r['pm'], xp=r['xp'], destiny=r['destiny_points'])
            + ("  " + _("DEAD") if r['dead'] else ""))
