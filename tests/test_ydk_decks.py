""".ydk deck files (ygo_onto/decks.py): reading them, `ygo-onto deck check` against the goat format, `deck
export`, and `--decks` on duel, selfplay and the environment.  The ten reference decks of the GOAT pack
(examples/decks/goat/) must pass; illegal decks and bad files must be refused with exit 2 naming the problem."""
from __future__ import annotations

import csv
import json
from collections import Counter
from pathlib import Path

import pytest

from cli_runner import cli
from ygo_onto import resources
from ygo_onto.cards import catalog
from ygo_onto.decks import check_deck, duel_decks, read_ydk
from ygo_onto.duel import new_duel
from ygo_onto.errors import StateError

DECKS = resources.examples_dir() / "decks" / "goat"
PACK = resources.data_dir() / "goat"
REFERENCE = sorted(DECKS.glob("*.ydk"))
BENCHMARK = ("chaos-control", "warrior", "chaos-turbo", "chaos-warrior")


def _codes(path: Path) -> dict[str, list[int]]:
    """The passcodes of a .ydk per section, read here independently of decks.py."""
    out, section = {"#main": [], "#extra": [], "!side": []}, None
    for line in path.read_text().splitlines():
        if line.strip() in out:
            section = line.strip()
        elif line.strip().isdigit():
            out[section].append(int(line))
    return out


def _ydk(tmp_path, main=(), extra=(), side=(), name="deck.ydk") -> Path:
    path = tmp_path / name
    path.write_text("\n".join(["#test", "#main", *map(str, main), "#extra", *map(str, extra), "!side",
                               *map(str, side)]) + "\n")
    return path


def _pack_rows() -> list[dict]:
    return list(csv.DictReader((PACK / "cards.csv").open(encoding="utf-8")))


def test_the_ten_reference_decks_are_carried_and_match_the_packs_lists():
    assert len(REFERENCE) == 10
    listed = json.loads((PACK / "decks.json").read_text())["decks"]
    assert {Path(d["file"]).name for d in listed} == {p.name for p in REFERENCE}
    cat = catalog("goat")
    for entry in listed:
        deck = read_ydk(DECKS / Path(entry["file"]).name, "goat")
        for section, key in (("main", "main"), ("side", "side"), ("extra", "fusion")):
            want = Counter({name: n for n, name in entry.get(key, [])})
            got = Counter(cat.get(n).name for n in getattr(deck, section))
            want = Counter({cat.get(name).name: n for name, n in want.items()})
            assert got == want, f"{entry['file']} {section}"


@pytest.mark.parametrize("path", REFERENCE, ids=lambda p: p.stem)
def test_each_reference_deck_passes_deck_check(path):
    code, text = cli("deck", "check", path, "--ruleset", "goat")
    assert code == 0, text
    assert "legal in goat" in text and "Main Deck 40" in text and "Side Deck 15" in text


def test_goat_version_ids_read_as_the_card(tmp_path):
    """A .ydk of an EDOPro client in GOAT mode names 23 cards by their GOAT or pre-errata version id (and
    one card by an alternate artwork's id)."""
    rows = [r for r in _pack_rows() if r["goat_list_id"] != r["passcode"]]
    assert sum(1 for r in rows if r["goat_version"]) == 23
    ids = [(int(i), r["name"], r["kind"] == "Fusion Monster") for r in rows for i in r["goat_list_id"].split(";")]
    path = _ydk(tmp_path, main=[i for i, _, fusion in ids if not fusion], extra=[i for i, _, fusion in ids if fusion])
    deck = read_ydk(path, "goat")
    assert deck.main == [n for _, n, fusion in ids if not fusion]
    assert deck.extra == [n for _, n, fusion in ids if fusion]


def _limits() -> dict[int, int]:
    return {e["passcode"]: e["limit"] for e in json.loads((PACK / "forbidden-and-limited.json").read_text())["cards"]}


def test_deck_check_names_each_problem_of_an_illegal_deck(tmp_path):
    cat = catalog("goat")
    pot, asura = cat.get("Pot of Greed").passcode, cat.get("Asura Priest").passcode
    raigeki = 12580477  # on the list as Forbidden, outside the pool
    free = [c.passcode for c in cat if not c.extra_deck and _limits().get(c.passcode, 3) == 3 and c.passcode != asura]
    assert len(free) >= 48
    main = [pot, raigeki] + [asura] * 3 + free[:34]  # 38 cards read (Raigeki is outside the pool)
    side = [pot, asura] + free[34:48]  # 16 cards
    path = _ydk(tmp_path, main=main, side=side)
    code, text = cli("deck", "check", path, "--ruleset", "goat")
    text = " ".join(text.split())
    assert code == 2
    assert f"{path}:4: Raigeki (12580477) is Forbidden in goat" in text
    assert "the Main Deck has 38 cards; expected 40 to 60" in text
    assert "the Side Deck has 16 cards; expected at most 15" in text
    assert "Pot of Greed (55144522) has 2 copies in the Main, Side and Extra Decks; it is Limited (1 allowed)" in text
    assert "Asura Priest (2134346) has 4 copies" in text
    assert "5 problems (goat)" in text


def test_a_deck_at_its_limits_is_legal(tmp_path):
    """60 Main (each card at most its limit), 15 Side, a Fusion Deck of 30: goat has no Fusion Deck limit."""
    cat = catalog("goat")
    limits = _limits()
    pool = [c for c in cat if not c.extra_deck]
    main = []
    for c in pool:
        main += [c.passcode] * limits.get(c.passcode, 3)
    main, side = main[:60], main[60:75]
    fusions = [c.passcode for c in cat if c.extra_deck]
    extra = (fusions * 2)[:30]
    deck, problems = check_deck(_ydk(tmp_path, main=main, extra=extra, side=side), "goat")
    assert problems == [] and len(deck.main) == 60 and len(deck.side) == 15 and len(deck.extra) == 30
    deck, problems = check_deck(_ydk(tmp_path, main=main + main[:1], extra=extra, side=side), "goat")
    assert any("the Main Deck has 61 cards" in p for p in problems)


@pytest.mark.parametrize("content, message", [
    (b"#main\n55144522\n99999\n", "deck.ydk:3: passcode 99999 is not a card of the goat catalog"),
    (b"#extra\n63519819\n", "deck.ydk: expected a #main line"),
    (b"55144522\n#main\n", "deck.ydk:1: expected #main before the first passcode"),
    (b"#main\nPot of Greed\n", "deck.ydk:2: expected a passcode (digits), got 'Pot of Greed'"),
    (b"#main\n63519819\n", "deck.ydk:2: expected a Main Deck card under #main"),
    (b"#main\n#extra\n55144522\n", "deck.ydk:3: expected a Fusion or Synchro monster under #extra"),
    (b"\x89PNG\r\n\x1a\n\x00\x00\xff\xfe", "deck.ydk: expected a .ydk deck file (text)"),
])
def test_a_bad_ydk_is_exit_2_naming_the_file_and_line(tmp_path, content, message):
    path = tmp_path / "deck.ydk"
    path.write_bytes(content)
    good = DECKS / "warrior.ydk"
    for args in (("deck", "check", path, "--ruleset", "goat"),
                 ("duel", "--ruleset", "goat", "--decks", f"{path},{good}", "--max-actions", "1")):
        code, text = cli(*args)
        assert code == 2, (args, text)
        assert message in " ".join(text.split()), text


def test_decks_option_needs_two_files():
    code, text = cli("duel", "--ruleset", "goat", "--decks", str(DECKS / "warrior.ydk"))
    assert code == 2 and "expected two deck files A.ydk,B.ydk" in text
    code, text = cli("duel", "--ruleset", "simplified", "--decks", f"{DECKS / 'warrior.ydk'},{DECKS / 'warrior.ydk'}")
    assert code == 2 and "simplified" in text


def test_duel_plays_the_given_decks():
    a, b = (DECKS / f"{n}.ydk" for n in ("chaos-turbo", "earth-beat"))
    start = new_duel("goat", 5, "fast", duel_decks("goat", f"{a},{b}"))
    for p, path in zip("AB", (a, b)):
        side = start.data["players"][p]
        deck = read_ydk(path, "goat")
        assert Counter(side["deck"] + side["hand"]) == Counter(deck.main)
        assert side["extra_deck"] == deck.extra
    code, text = cli("duel", "--ruleset", "goat", "--decks", f"{a},{b}", "--seed", 5, "--agents", "aggressive,aggressive")
    assert code == 0 and "Result: winner" in text


def test_selfplay_and_the_env_take_decks(tmp_path):
    a, b = (DECKS / f"{n}.ydk" for n in ("chaos-control", "chaos-warrior"))
    out = tmp_path / "records.jsonl"
    code, text = cli("selfplay", "--ruleset", "goat", "--decks", f"{a},{b}", "--games", 2, "--workers", 1,
                     "--agents", "aggressive,aggressive", "--out", out, "--no-progress", "--json")
    assert code == 0, text
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(records) == 2 and all("error" not in r for r in records)
    assert all(r["decks"] == {"A": "chaos-control", "B": "chaos-warrior"} and r["ruleset"] == "goat" for r in records)
    from ygo_onto.env import raw_env

    env = raw_env("goat", seed=3, decks=f"{a},{b}")
    env.reset()
    hand_and_deck = env.state_.data["players"]["B"]
    assert Counter(hand_and_deck["deck"] + hand_and_deck["hand"]) == Counter(read_ydk(b, "goat").main)
    obs = env.observe(env.agent_selection)
    assert obs["observation"].shape == env.observation_space("A")["observation"].shape
    assert obs["action_mask"].sum() >= 1


def test_deck_export_writes_a_ydk_that_reads_back(tmp_path):
    # a .ydk written again: the GOAT version ids become the real passcodes, the deck the same
    src = DECKS / "chaos-control.ydk"
    out = tmp_path / "out.ydk"
    code, text = cli("deck", "export", src, "-o", out, "--ruleset", "goat")
    assert code == 0, text
    assert read_ydk(out, "goat").main == read_ydk(src, "goat").main
    assert _codes(out) == _codes(src)
    # a deck JSON and a state's player
    deck_json = tmp_path / "deck.json"
    deck_json.write_text(json.dumps({"main": ["Sangan", "Sangan", "Pot of Greed"], "extra": ["Ojama King"],
                                     "side": ["Jinzo"]}))
    code, text = cli("deck", "export", deck_json, "-o", out, "--ruleset", "goat")
    assert code == 0, text
    assert _codes(out) == {"#main": [26202165, 26202165, 55144522], "#extra": [90140980], "!side": [77585513]}
    state = tmp_path / "state.json"
    state.write_text(json.dumps(new_duel("official", 2).to_dict()))
    code, text = cli("deck", "export", state, "-o", out, "--player", "B")
    assert code == 0, text
    back = read_ydk(out, "official")
    side = new_duel("official", 2).data["players"]["B"]
    assert Counter(back.main) == Counter(side["deck"] + side["hand"]) and back.extra == side["extra_deck"]
    code, text = cli("deck", "export", deck_json, "-o", out, "--ruleset", "official")
    assert code == 2 and "expected a card name of the official catalog" in text


def test_a_card_outside_the_pool_is_refused_by_a_goat_state_too():
    from ygo_onto import GameState

    with pytest.raises(StateError, match="expected a card name of the goat catalog"):
        GameState.from_dict({"format": "ygo-onto.state/1", "ruleset": "goat",
                             "players": {"A": {"hand": ["Raigeki"]}, "B": {}}})
