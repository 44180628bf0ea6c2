"""Duels that once crashed play to the end with every invariant of the playouts (tests/playout_checks.py).

Seed 3142: `ygo-onto duel --seed 3142 --agents random,random` offered a Ritual Summon with all 5 Monster
Zones full and only tributes from the hand ("internal: no free monster_zones for ..."), at action ~300.

Four games of a 1,000-game goat round robin of the ten reference decks (`selfplay --ruleset goat --decks
examples/decks/goat/*.ydk --games 1000`, random agents): three offered a Monarch's Tribute Summon or Set with all 5
Monster Zones full and only the opponent's monster marked by Soul Exchange to Tribute; one gave a replay's right to
an attacker that Sakuretsu Armor destroyed in the step its target left the field.
"""
from pathlib import Path

import pytest

from playout_checks import play_checked
from ygo_onto.decks import read_ydk
from ygo_onto.selfplay import Job, play_job

CRASHED = [("official", 3142, ("random", "random"))]


@pytest.mark.parametrize("ruleset,seed,agents", CRASHED, ids=[f"{r}-{s}" for r, s, _ in CRASHED])
def test_a_duel_that_crashed_plays_to_the_end(ruleset, seed, agents):
    report = play_checked(ruleset, seed, agents, max_actions=1000)
    assert not report.get("crashed") and not report["problems"], report["problems"]
    assert report["winner"] is not None, f"no winner after {report['actions']} actions"


GOAT_DECKS = Path(__file__).resolve().parent.parent / "examples" / "decks" / "goat"
# (game, seed, A's deck, B's deck) of the round robin's records
CRASHED_IN_THE_ROUND_ROBIN = [(15, 1782504806, "soul-control", "chaos-control"),
                              (261, 1814841365, "soul-control", "panda-burn"),
                              (538, 1219400152, "warrior", "soul-control"),
                              (809, 860184530, "warrior", "soul-control")]


@pytest.mark.parametrize("game,seed,deck_a,deck_b", CRASHED_IN_THE_ROUND_ROBIN,
                         ids=[f"goat-game-{g}" for g, *_ in CRASHED_IN_THE_ROUND_ROBIN])
def test_a_round_robin_game_that_crashed_plays_to_the_end(game, seed, deck_a, deck_b):
    decks = tuple(read_ydk(GOAT_DECKS / f"{name}.ydk", "goat") for name in (deck_a, deck_b))
    record = play_job(Job(game, seed, ("random", "random"), "goat", "fast", 2000, decks))
    assert "error" not in record, record.get("traceback")
    assert record["winner"] is not None, f"no winner after {record['actions']} actions"
