"""The environment's observation does not grow with the card pool: cards by their features and a stable id."""
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pettingzoo")
pytest.importorskip("gymnasium")

from ygo_onto.cards import RULESETS, catalog  # noqa: E402
from ygo_onto.env import (ATTRIBUTES, CARD_ID_RANGE, MONSTER_TYPES, SLOT_FEATURES, SUBTYPES, card_id,  # noqa: E402
                          card_ids, encode_observation, env, observation_size)
from ygo_onto.selfplay import run_batch  # noqa: E402

GOAT = Path(__file__).resolve().parent.parent / "examples" / "decks" / "goat"
GOAT_DECKS = f"{GOAT / 'goat-control.ydk'},{GOAT / 'chaos-return.ydk'}"


def test_the_observation_has_one_size_for_every_ruleset():
    sizes = {r: env(ruleset=r, seed=0).observation_space("A")["observation"].shape for r in ("official", "simplified")}
    sizes["goat"] = env(ruleset="goat", seed=0, decks=GOAT_DECKS).observation_space("A")["observation"].shape
    assert set(sizes.values()) == {(observation_size(),)}, sizes
    assert len({len(catalog(r)) for r in RULESETS}) == len(RULESETS)  # the catalogs differ in size; the vector does not


def test_card_ids_are_stable_distinct_and_in_range():
    names = {c.name for r in RULESETS for c in catalog(r)}
    ids = {n: card_id(n) for n in names}
    assert len(set(ids.values())) == len(names), "two cards share an id"
    assert all(1 <= i < CARD_ID_RANGE for i in ids.values())
    for r in RULESETS:  # a card has one id in every catalog that holds it
        assert card_ids(r) == {c.name: ids[c.name] for c in catalog(r)}
    shared = {c.name for c in catalog("official")} & {c.name for c in catalog("goat")}
    assert shared, "the official and goat catalogs share cards"
    # exact in float32, as docs/env.md says: the agent multiplies by CARD_ID_RANGE to read it back
    assert all(round(float(np.float32(i / CARD_ID_RANGE)) * CARD_ID_RANGE) == i for i in ids.values())


def test_every_card_of_every_catalog_fits_the_feature_one_hots():
    for r in RULESETS:
        for c in catalog(r):
            assert c.subtype in SUBTYPES or c.is_token, (r, c.name, c.subtype)  # (a token: no subtype one-hot)
            assert c.attribute is None or c.attribute in ATTRIBUTES, (r, c.name, c.attribute)
            assert c.monster_type is None or c.monster_type in MONSTER_TYPES, (r, c.name, c.monster_type)


def test_a_card_reads_the_same_in_two_rulesets():
    """A card the official and goat catalogs share gives the same card slot in either (its id and printed features)."""
    from ygo_onto.duel import new_duel

    shared = sorted({c.name for c in catalog("official")} & {c.name for c in catalog("goat")})
    state = new_duel("official", 0).to_dict()
    for p in ("A", "B"):  # only the shared cards where the observation shows them
        state["players"][p].update(hand=[], extra_deck=[], graveyard=[], banished=[])
    state["players"]["A"]["hand"] = shared[:5]
    goat = dict(state, ruleset="goat")
    a, b = encode_observation(state, "A"), encode_observation(goat, "A")
    assert np.array_equal(a[33:33 + 5 * len(SLOT_FEATURES)], b[33:33 + 5 * len(SLOT_FEATURES)])
    assert a[33 + SLOT_FEATURES.index("card_id")] * CARD_ID_RANGE == card_id(shared[0])


@pytest.mark.parametrize("ruleset,decks", [("goat", GOAT_DECKS), ("official", None)])
def test_pettingzoo_api_test(ruleset, decks):
    from pettingzoo.test import api_test

    api_test(env(ruleset=ruleset, seed=5, decks=decks), num_cycles=100, verbose_progress=False)


def test_greedy_and_search_agents_play_goat_decks():
    decks = [str(GOAT / f"{n}.ydk") for n in ("goat-control", "chaos-return", "warrior")]
    batch = run_batch(4, ("greedy", "search"), "goat", workers=1, seed=1, decks=decks)
    assert [r.get("error") for r in batch.records] == [None] * 4
    assert all(r["winner"] in ("A", "B", "draw") for r in batch.records)
    assert {r["agents"]["A"] for r in batch.records} == {"greedy", "search"}
    assert all(r["actions"] > 10 for r in batch.records)
