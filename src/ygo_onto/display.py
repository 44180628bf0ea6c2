"""HTML views for Jupyter: the board of a state and what a reasoner inferred about it.

`state_html` only reads the state (and the card catalog, for ATK/DEF): it never runs a
reasoner, so a notebook can show any state at once.  `inference_html` runs (or reuses, the
runs are cached per state) the named backend.  Plain HTML with inline CSS; every text is
escaped with html.escape.
"""
from __future__ import annotations

from html import escape

from .actions import AREA_SHORT, ref_text
from .cards import catalog, official_based
from .errors import YgoError

POSITION_LABELS = {"attack": "ATK position", "defense": "DEF position", "face_down_defense": "face-down DEF",
                   "face_up": "face-up", "face_down": "face-down"}
PHASE_LABELS = {"draw": "Draw Phase", "standby": "Standby Phase", "main1": "Main Phase 1", "battle": "Battle Phase",
                "main2": "Main Phase 2", "end": "End Phase"}

_BOX = "font-family:sans-serif;font-size:12px;line-height:1.3;color:#222;"
_TABLE = "border-collapse:collapse;margin:2px 0;"
_CELL = ("border:1px solid #999;width:104px;height:52px;padding:3px;vertical-align:top;text-align:left;"
         "background:{bg};")
_TAG = "font-size:10px;color:#666;"
_PLAYER_BG = {"A": "#eef4ff", "B": "#fff1ee"}
_MONSTER_BG = {"attack": "#fde9c8", "defense": "#d9ecfb", "face_down_defense": "#c9c9c9"}
_SPELL_BG = {"face_up": "#d8f2e3", "face_down": "#c9c9c9"}
_EMPTY_BG = "#fafafa"


def _data(state) -> dict:
    return state.data if hasattr(state, "data") else state


def _card(ruleset: str, name: str):
    try:
        return catalog(ruleset).get(name)
    except YgoError:
        return None


def _zone_cell(ruleset: str, player: str, area: str, index: int, fc: dict | None, chosen: set) -> str:
    ref = f"{player}.{AREA_SHORT[area]}{index}"
    tag = f'<div style="{_TAG}">{escape(ref)}</div>'
    if fc is None:
        return f'<td style="{_CELL.format(bg=_EMPTY_BG)}">{tag}<span style="color:#bbb">empty</span></td>'
    card = _card(ruleset, fc["card"])
    position = fc["position"]
    bg = (_MONSTER_BG if card is not None and card.is_monster else _SPELL_BG).get(position, _EMPTY_BG)
    lines = [f"<b>{escape(fc['card'])}</b>", f"<i>{escape(POSITION_LABELS.get(position, position))}</i>"]
    if card is not None and card.is_monster and card.atk is not None:
        atk = card.atk + fc.get("atk_modifier", 0)
        dfn = (card.defense or 0) + fc.get("def_modifier", 0)
        lines.append(f"ATK {atk} / DEF {dfn}")
    if fc.get("owner") not in (None, player):
        lines.append(f"owner {escape(fc['owner'])}")
    border = "border:2px solid #d33;" if (player, area, index) in chosen else ""
    return f'<td style="{_CELL.format(bg=bg)}{border}">{tag}{"<br>".join(lines)}</td>'


def _zone_row(d: dict, player: str, area: str, label: str, chosen: set) -> str:
    zones = d["players"][player][area]
    cells = "".join(_zone_cell(d["ruleset"], player, area, i, fc, chosen) for i, fc in enumerate(zones))
    head = f'<th style="{_TAG}padding-right:4px;text-align:right;width:70px">{escape(label)}</th>'
    return f"<tr>{head}{cells}</tr>"


def _names(names: list[str], chosen: set, player: str, area: str) -> str:
    if not names:
        return '<span style="color:#999">none</span>'
    parts = []
    for i, name in enumerate(names):
        text = f'<span style="{_TAG}">{escape(player)}.{escape(AREA_SHORT[area])}{i}</span> {escape(name)}'
        if (player, area, i) in chosen:
            text = f'<span style="outline:2px solid #d33">{text}</span>'
        parts.append(text)
    return ", ".join(parts)


def _player_html(d: dict, p: str, chosen: set) -> str:
    side = d["players"][p]
    status = []
    if d["turn_player"] == p:
        status.append("turn player")
    if d["priority"] == p:
        status.append("priority")
    if d["winner"] == p:
        status.append("WINNER")
    status_text = f" ({escape(', '.join(status))})" if status else ""
    gy = side["graveyard"]
    gy_text = f"{len(gy)}" + (f" (top: {escape(gy[-1])})" if gy else "")
    info = [f'<b style="font-size:14px">Player {escape(p)}</b>{status_text}',
            f'<b>LP {escape(str(side["life_points"]))}</b>',
            f"deck {len(side['deck'])}", f"graveyard {gy_text}"]
    if side["banished"]:
        info.append(f"banished {len(side['banished'])}")
    if side["extra_deck"]:
        info.append(f"extra deck {len(side['extra_deck'])}")
    info.append("Normal Summon used" if side["normal_summon_used"] else "Normal Summon available")
    header = f'<div style="margin:2px 0">{" &middot; ".join(info)}</div>'
    monsters = _zone_row(d, p, "monster_zones", "Monster Zones", chosen)
    spells = _zone_row(d, p, "spell_trap_zones", "Spell & Trap Zones", chosen)
    rows = [spells, monsters] if p == "B" else [monsters, spells]  # the back row lies farthest from the middle
    table = f'<table style="{_TABLE}">{"".join(rows)}</table>'
    extra = []
    if official_based(d["ruleset"]):
        fz = side["field_zone"]
        fz_text = "empty" if fz is None else f"{escape(fz['card'])} ({escape(POSITION_LABELS.get(fz['position'], fz['position']))})"
        extra.append(f"<div>Field Zone: {fz_text}</div>")
    hand = f'<div>Hand ({len(side["hand"])}): {_names(side["hand"], chosen, p, "hand")}</div>'
    parts = [header, hand, table, *extra] if p == "B" else [header, table, *extra, hand]
    return f'<div style="background:{_PLAYER_BG[p]};padding:4px 6px;margin:3px 0;border-radius:4px">{"".join(parts)}</div>'


def _pending_html(d: dict) -> str:
    pending = d["pending"]
    if not pending:
        return ""
    action = pending["action"]
    what = action.get("type", "?").replace("_", " ")
    if action.get("card"):
        what += f" of {action['card']}"
    chosen = ", ".join(ref_text(r) for r in pending["chosen"]) or "none yet"
    return (f'<div style="background:#fff7cc;border:1px solid #e0c000;padding:3px 6px;margin:3px 0">'
            f"<b>Pending selection:</b> {escape(what)} &mdash; choose {escape(str(pending['needed']))} "
            f"card(s) as {escape(pending['purpose'])}; chosen so far: {escape(chosen)}</div>")


def _chain_html(d: dict) -> str:
    if not d["chain"]:
        return ""
    links = "; ".join(f"{i + 1}. {link['card']} ({link['player']})" for i, link in enumerate(d["chain"]))
    return f'<div style="margin:3px 0"><b>Chain:</b> {escape(links)}</div>'


def state_html(state) -> str:
    """A compact HTML board of a GameState (or of its data dict). Runs no reasoner."""
    d = _data(state)
    pending = d.get("pending")
    chosen = {(r["player"], r["area"], r["index"]) for r in pending["chosen"]} if pending else set()
    winner = d["winner"]
    status = [f"<b>Turn {escape(str(d['turn']))}</b>", escape(PHASE_LABELS.get(d["phase"], d["phase"])),
              f"turn player {escape(d['turn_player'])}", f"priority {escape(d['priority'])}",
              f"ruleset {escape(d['ruleset'])}"]
    if winner is not None:
        status.append(f'<b style="color:#b00">winner: {escape("draw (no winner)" if winner == "draw" else winner)}</b>')
    bar = f'<div style="padding:3px 6px;border-top:1px solid #bbb;border-bottom:1px solid #bbb">{" &middot; ".join(status)}</div>'
    return (f'<div style="{_BOX}">{_player_html(d, "B", chosen)}{bar}{_pending_html(d)}{_chain_html(d)}'
            f'{_player_html(d, "A", chosen)}</div>')


def _condition_comments(ruleset: str) -> dict[str, str]:
    from rdflib.namespace import RDFS

    from .knowledge import YGO, knowledge

    k = knowledge(ruleset)
    out = {}
    for name, classes in k.vocabulary.individuals.items():
        if "Condition" in classes:
            comment = k.tbox.value(YGO[name], RDFS.comment)
            out[name] = str(comment) if comment is not None else ""
    return out


def inference_html(state, reasoner: str | None = None) -> str:
    """The fulfilled conditions and the allowed actions of a state, with the size and time of the run."""
    from . import reasoning
    from .abox import state_facts

    reasoner = reasoner or reasoning.DEFAULT
    inference = state.infer(reasoner)
    actions = state.allowed_actions(reasoner)
    d = _data(state)
    th = 'style="border:1px solid #999;padding:2px 6px;background:#eee;text-align:left"'
    td = 'style="border:1px solid #ccc;padding:2px 6px;text-align:left;vertical-align:top"'

    comments = _condition_comments(d["ruleset"])
    fulfilled = sorted(f[1] for f in inference.facts if len(f) == 3 and f[0] == "fulfilled" and f[2] is True)
    cond_rows = "".join(f"<tr><td {td}><code>{escape(c)}</code></td><td {td}>{escape(comments.get(c, ''))}</td></tr>"
                        for c in fulfilled) or f'<tr><td {td} colspan="2"><i>none</i></td></tr>'
    unfulfilled = sorted(set(comments) - set(fulfilled))
    not_text = (f'<div style="{_TAG}">not fulfilled: {escape(", ".join(unfulfilled))}</div>' if unfulfilled else "")

    act_rows = []
    for a in actions:
        ad = a.to_dict()
        detail = []
        if ad.get("target"):
            detail.append(f"target {ad['target']}")
        if ad.get("to"):
            detail.append(f"to {ad['to']}")
        if ad.get("purpose"):
            detail.append(f"as {ad['purpose']}")
        act_rows.append(f"<tr><td {td}><code>{escape(a.id)}</code></td><td {td}>{escape(ad['type'])}</td>"
                        f"<td {td}>{escape(ad.get('card') or '')}</td><td {td}>{escape(', '.join(detail))}</td></tr>")
    act_body = "".join(act_rows) or f'<tr><td {td} colspan="4"><i>none</i></td></tr>'

    asserted = set(state_facts(d, lean=True))
    new = len(inference.facts - asserted)
    summary = (f"<b>{escape(inference.reasoner)}</b>: {len(inference.facts)} facts about the named individuals "
               f"({new} not asserted in the state's ABox) in {inference.elapsed_ms:.0f} ms")
    return (f'<div style="{_BOX}"><div style="margin:3px 0">{summary}</div>'
            f'<div style="display:flex;gap:16px;align-items:flex-start;flex-wrap:wrap">'
            f'<div><table style="{_TABLE}"><tr><th {th}>fulfilled condition</th><th {th}>meaning</th></tr>'
            f"{cond_rows}</table>{not_text}</div>"
            f'<div><table style="{_TABLE}"><tr><th {th}>allowed action ({len(actions)}, player '
            f'{escape(d["priority"])})</th><th {th}>type</th><th {th}>card</th><th {th}>detail</th></tr>'
            f"{act_body}</table></div></div></div>")
