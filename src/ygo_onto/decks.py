"""Decks as players keep them: `.ydk` files (YGOPro/EDOPro) read and written, and a deck checked
against its ruleset's format (`ygo-onto deck check`).

A `.ydk` file is text: comment lines (`#...`), then `#main`, `#extra` and `!side`, each followed by
one passcode per copy.  A passcode is a card's `ygo:cardPasscode` in the ruleset's catalog, or one
of its numeric aliases (`goat`: the GOAT list's version ids, so a file written for an EDOPro client
in GOAT mode reads too).

The format's size rules and its Forbidden & Limited list are data: FORMATS below gives the sizes
of each ruleset; `goat`'s list is data/goat/forbidden-and-limited.json (tools/goat_catalog.py).
"""
from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from functools import lru_cache
from pathlib import Path

from . import resources
from .cards import Card, Catalog, catalog
from .errors import StateError

SECTIONS = {"#main": "main", "#extra": "extra", "!side": "side"}
MAX_YDK_BYTES = 1_000_000  # a deck file is a few hundred bytes; a bigger one is not a deck

# ruleset -> its deck rules: Main Deck (min, max), Side Deck max, Extra (Fusion) Deck max (None: no limit of its
# own), the copies of a card allowed where the list does not name it, the Forbidden & Limited list (data/ file)
FORMATS = {
    # rulebook v6.0 p. 2 (a Deck of at least 40 cards, at most 3 copies of a card); the official tournament
    # limits of 60 Main, 15 Side and 15 Extra Deck cards (docs/state-format.md's bounds)
    "official": {"main": (40, 60), "side": 15, "extra": 15, "copies": 3, "list": None},
    # the GOAT pack README, "Decks": Main 40-60, Side at most 15, no Fusion Deck limit; the list counts
    # the Main, Side and Fusion Decks together; only the listed pool may be played
    "goat": {"main": (40, 60), "side": 15, "extra": None, "copies": 3, "list": "goat/forbidden-and-limited.json"},
}
# the decks a `goat` duel plays when none are given: the first two of the four benchmark decks
DEFAULT_DECKS = {"goat": ("chaos-control", "warrior")}


@dataclass
class Deck:
    """A player's deck: card names (the catalog's) per section, in the file's order."""

    name: str
    main: list[str] = field(default_factory=list)
    extra: list[str] = field(default_factory=list)
    side: list[str] = field(default_factory=list)
    source: str = ""


@dataclass
class _Read:
    deck: Deck
    unknown: list[str]  # "FILE:LINE: ..." for each passcode not in the catalog (deck check reports them)


def _by_code(cat: Catalog) -> dict[int, Card]:
    out: dict[int, Card] = {}
    for card in cat:
        for alias in card.aliases:
            if alias.isdigit():
                out.setdefault(int(alias), card)
    for card in cat:
        if card.passcode is not None:
            out[card.passcode] = card
    return out


def _read(path, ruleset: str) -> _Read:
    path = Path(path)
    try:
        with path.open("rb") as f:
            data = f.read(MAX_YDK_BYTES + 1)
    except OSError as exc:
        raise StateError(f"{path}: expected a .ydk deck file, got {exc.strerror}") from None
    if len(data) > MAX_YDK_BYTES:
        raise StateError(f"{path}: expected a .ydk deck file (a few hundred bytes), got more than {MAX_YDK_BYTES:,} bytes")
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise StateError(f"{path}: expected a .ydk deck file (text), got bytes that are not UTF-8 text "
                         f"(byte {exc.start})") from None
    if "\x00" in text:
        raise StateError(f"{path}: expected a .ydk deck file (text), got binary data")
    cat = catalog(ruleset)
    codes = _by_code(cat)
    deck = Deck(name=path.stem, source=str(path))
    section = None
    unknown = []
    for n, raw in enumerate(text.splitlines(), start=1):
        line = raw.strip()
        where = f"{path}:{n}"
        if not line:
            continue
        if line.lower() in SECTIONS:
            section = SECTIONS[line.lower()]
            continue
        if line.startswith(("#", "!")):  # a comment (`#created by ...`)
            continue
        if not line.isdigit() or len(line) > 12:
            raise StateError(f"{where}: expected a passcode (digits), got {line[:40]!r}")
        if section is None:
            raise StateError(f"{where}: expected #main before the first passcode, got {line}")
        card = codes.get(int(line))
        if card is None:
            unknown.append(f"{where}: passcode {line} is not a card of the {ruleset} catalog ({len(cat)} cards)")
            continue
        if section == "extra" and not card.extra_deck:
            raise StateError(f"{where}: expected a Fusion or Synchro monster under #extra, got {card.name} ({line})")
        if section == "main" and card.extra_deck:
            raise StateError(f"{where}: expected a Main Deck card under #main, got the {card.kind_label} {card.name} "
                             f"({line}: it belongs under #extra)")
        getattr(deck, section).append(card.name)
    if "#main" not in [line.strip().lower() for line in text.splitlines()]:
        raise StateError(f"{path}: expected a #main line (a .ydk deck file), got none")
    return _Read(deck, unknown)


def read_ydk(path, ruleset: str) -> Deck:
    """The deck of a .ydk file, its passcodes looked up in the ruleset's catalog.

    :raises StateError: not a text file, no #main, a line that is not a passcode, a passcode the catalog
        lacks, a card in the wrong section (the message names the file and line)."""
    got = _read(path, ruleset)
    if got.unknown:
        raise StateError(got.unknown[0])
    return got.deck


def ydk_text(deck: Deck, ruleset: str) -> str:
    """A .ydk file of a deck (each card by its passcode)."""
    cat = catalog(ruleset)
    lines = [f"#{deck.name}: written by ygo-onto deck export ({ruleset})"]
    for header, cards in (("#main", deck.main), ("#extra", deck.extra), ("!side", deck.side)):
        lines.append(header)
        for name in cards:
            card = cat.get(name, f"deck {deck.name}")
            if card.passcode is None:
                raise StateError(f"deck {deck.name}: {card.name} has no passcode in the {ruleset} catalog "
                                 "(a .ydk names cards by passcode)")
            lines.append(str(card.passcode))
    return "\n".join(lines) + "\n"


@lru_cache(maxsize=None)
def format_list(ruleset: str) -> dict:
    """The ruleset's Forbidden & Limited list as {passcode: (name, limit)} (every list id of a card too)."""
    spec = FORMATS.get(ruleset, {}).get("list")
    if spec is None:
        return {}
    data = json.loads(resources.read_data(spec))
    out = {}
    for entry in data["cards"]:
        for code in (entry["passcode"], *entry["list_ids"]):
            out[code] = (entry["name"], entry["limit"])
    return out


def check_deck(path, ruleset: str) -> tuple[Deck, list[str]]:
    """(the deck, its problems): the sizes, the limit of each card counted over Main, Side and Extra Decks,
    and cards outside the ruleset's pool (an unknown passcode: a card of the list's Forbidden ones is named).

    :raises StateError: the file is not a .ydk deck (not text, no #main, a line that is not a passcode)."""
    if ruleset not in FORMATS:
        raise StateError(f"--ruleset: expected one of {', '.join(FORMATS)} (the rulesets with a deck format), got {ruleset!r}")
    spec = FORMATS[ruleset]
    got = _read(path, ruleset)
    deck, problems = got.deck, []
    listed = format_list(ruleset)
    for message in got.unknown:
        code = int(message.split("passcode ", 1)[1].split()[0])
        if code in listed and listed[code][1] == 0:
            name = listed[code][0]
            message = f"{message.split(': passcode', 1)[0]}: {name} ({code}) is Forbidden in {ruleset}"
        problems.append(message)
    lo, hi = spec["main"]
    if not lo <= len(deck.main) <= hi:
        problems.append(f"{path}: the Main Deck has {len(deck.main)} cards; expected {lo} to {hi}")
    if len(deck.side) > spec["side"]:
        problems.append(f"{path}: the Side Deck has {len(deck.side)} cards; expected at most {spec['side']}")
    if spec["extra"] is not None and len(deck.extra) > spec["extra"]:
        problems.append(f"{path}: the Extra Deck has {len(deck.extra)} cards; expected at most {spec['extra']}")
    cat = catalog(ruleset)
    counts = Counter(deck.main + deck.side + deck.extra)
    for name, n in counts.items():
        card = cat.get(name)
        limit = listed.get(card.passcode, (name, spec["copies"]))[1] if listed else spec["copies"]
        if n > limit:
            kind = {0: "Forbidden", 1: "Limited", 2: "Semi-limited"}.get(limit, f"limited to {limit}")
            problems.append(f"{path}: {name} ({card.passcode}) has {n} copies in the Main, Side and Extra Decks; "
                            f"it is {kind} ({limit} allowed) in {ruleset}")
    return deck, problems


def deck_summary(deck: Deck) -> str:
    return (f"{deck.source or deck.name}: Main Deck {len(deck.main)}, Extra Deck {len(deck.extra)}, "
            f"Side Deck {len(deck.side)} cards ({len(set(deck.main + deck.extra + deck.side))} distinct)")


def example_deck(ruleset: str, name: str) -> Path:
    """examples/decks/RULESET/NAME.ydk (the reference decks the package carries)."""
    return resources.examples_dir() / "decks" / ruleset / f"{name}.ydk"


def duel_decks(ruleset: str, spec: str | None) -> tuple[Deck, Deck] | None:
    """The two decks of a duel: `A.ydk,B.ydk` (files), else the ruleset's default decks (None: the ruleset
    deals its decks itself: the official sample decks, simplified's random 20)."""
    if spec is None:
        names = DEFAULT_DECKS.get(ruleset)
        return None if names is None else tuple(read_ydk(example_deck(ruleset, n), ruleset) for n in names)
    if ruleset == "simplified":
        raise StateError("--decks: the simplified ruleset deals 20 random cards to each player; it reads no deck file")
    paths = [p.strip() for p in str(spec).split(",")]
    if len(paths) != 2 or not all(paths):
        raise StateError(f"--decks: expected two deck files A.ydk,B.ydk, got {spec!r}")
    return tuple(read_ydk(p, ruleset) for p in paths)


def deck_from_file(path, ruleset: str | None, player: str = "A") -> tuple[Deck, str]:
    """(a deck, its ruleset) from a .ydk file, a deck JSON ({"main": [names], "extra": [...], "side": [...]})
    or a state file (the cards `player` owns: Main Deck cards wherever they are, and the Extra Deck)."""
    from .state import PLAYERS, check_json, decode_json_bytes, loads

    path = Path(path)
    if path.suffix.lower() == ".ydk":
        ruleset = ruleset or "goat"
        return read_ydk(path, ruleset), ruleset
    try:
        data = loads(decode_json_bytes(path.read_bytes(), str(path)), str(path))
    except OSError as exc:
        raise StateError(f"{path}: expected a .ydk, deck JSON or state file, got {exc.strerror}") from None
    if not isinstance(data, dict):
        raise StateError(f"{path}: expected a JSON object (a deck or a state), got {type(data).__name__}")
    if "players" in data:
        from .state import normalize

        state = normalize(data, str(path))
        ruleset = ruleset or state["ruleset"]
        if ruleset != state["ruleset"]:
            raise StateError(f"--ruleset: expected {state['ruleset']!r} (the state's), got {ruleset!r}")
        if player not in PLAYERS:
            raise StateError(f"--player: expected A or B, got {player!r}")
        side = state["players"][player]
        cat = catalog(ruleset)
        owned = [n for area in ("deck", "hand", "graveyard", "banished") for n in side[area]]
        owned += [fc["card"] for q in PLAYERS for fc in [*state["players"][q]["monster_zones"],
                  *state["players"][q]["spell_trap_zones"], state["players"][q]["field_zone"]]
                  if fc is not None and fc["owner"] == player and not cat.get(fc["card"]).is_token]  # (not a card)
        main = [n for n in owned if not cat.get(n).extra_deck]
        extra = list(side["extra_deck"]) + [n for n in owned if cat.get(n).extra_deck]
        return Deck(name=f"{path.stem}-{player}", main=main, extra=extra, source=str(path)), ruleset
    check_json(data, source=str(path))
    ruleset = ruleset or "goat"
    unknown = set(data) - {"main", "extra", "side", "name"}
    if unknown or "main" not in data:
        raise StateError(f"{path}: expected a deck object with the keys main, extra, side (lists of card names), "
                         f"got {', '.join(sorted(data)) or 'none'}")
    cat = catalog(ruleset)
    lists = {}
    for key in ("main", "extra", "side"):
        names = data.get(key, [])
        if not isinstance(names, list):
            raise StateError(f"{path}: {key}: expected a list of card names, got {type(names).__name__}")
        lists[key] = [cat.get(n, f"{path}: {key}[{i}]").name for i, n in enumerate(names)]
        for i, n in enumerate(lists[key]):
            if cat.get(n).is_token:  # state-format.md "Tokens": a token is not a card, no Deck holds it
                raise StateError(f"{path}: {key}[{i}]: expected a card name, got the token {n!r}")
    return Deck(name=str(data.get("name", path.stem)), source=str(path), **lists), ruleset
