"""Which cards a flip face-up makes due (primitives.flip_watchers: the cards with an onFlip effect, the ontology's
data): every Flip Effect Monster of each catalog is one of them, so the driver needs no second test of a card's kind."""
from __future__ import annotations

import pytest

from ygo_onto.cards import catalog
from ygo_onto.knowledge import knowledge
from ygo_onto.primitives import flip_watchers


@pytest.mark.parametrize("ruleset", ["official", "simplified", "goat"])
def test_every_flip_effect_monster_names_an_on_flip_effect(ruleset):
    flips = {c.name for c in catalog(ruleset).cards if c.flip}
    missing = flips - flip_watchers(ruleset, knowledge(ruleset).vocabulary)
    assert not missing, f"Flip Effect Monsters with no onFlip effect in the {ruleset} catalog: {sorted(missing)}"
    if ruleset != "simplified":  # (the simplified catalog has no Flip Effect Monster)
        assert flips
