"""New KINDS of move: operation properties added to an exported ontology as data, and
effect cards that use them, as an ontology engineer adds them in Protégé (tests/test_moves_from_ontology.py).

Neither the operations nor the cards are in the project's sources: they live only in the file these
helpers write.  An operation property is an object property (card -> player) annotated, like the TBox's
own moves (opToHand, opSendToGraveyard, ...), with `ygo:primitive "move"` and where the card goes:
`ygo:destinationArea` (an area of the state format) and, in a list, `ygo:destinationPlace`.

- opBanishFromField: to the player's banished cards (state-format.md `banished`).
- opShuffleIntoDeck: into the player's Deck, which is then shuffled (from the duel's seeded RNG).

(A move to the top of the Deck is the TBox's own: opToDeckTop, destinationPlace start.)

The cards (their texts as printed):

- Dimensional Prison (Normal Trap): "When an opponent's monster declares an attack: Target that
  attacking monster; banish that target."
- The Transmigration Prophecy (Quick-Play Spell): "Target 2 cards in any Graveyard(s); shuffle them
  into the Deck."
- Rush Recklessly (Quick-Play Spell): "Target 1 face-up monster on the field; it gains 700 ATK until
  the End Phase." (no new operation: the TBox's opSetAtkUntilEndPhase, primitive set_counter)
"""
from __future__ import annotations

from effect_cards_onto import YGO, add_cards
from rdflib import Graph, Literal, URIRef
from rdflib.namespace import OWL, RDF, RDFS, XSD

# name -> (comment, destinationArea, destinationPlace or None)
NEW_MOVES = {
    "opBanishFromField": ("Banish the card: it goes to the banished cards of the player given (its owner).", "banished", None),
    "opShuffleIntoDeck": ("Shuffle the card into the Deck of the player given (its owner).", "deck", "shuffled"),
}

# a selection requirement of two targets (the TBox has chooseOneTarget): data, as the TBox's own
NEW_REQUIREMENTS = {"chooseTwoTargets": ("Target 2 cards.", 2)}

NEW_CARDS = {
    "Dimensional Prison": {
        "kind": "NormalTrap",
        "description": "When an opponent's monster declares an attack: Target that attacking monster; banish that "
                       "target.",
        "passcode": 70342110,
        "activation": "chooseOneTarget",
        "rules": [
            ("Dimensional Prison (card text: \"When an opponent's monster declares an attack: Target that attacking "
             "monster\"): its target is the attacking monster of the opponent, before the Damage Step (rulebook v6.0 "
             "p. 19 \"Trap Cards\": Set first, activated from the next turn on, official/chain.swrl).",
             "DimensionalPrison(?c), controlledBy(?c, ?p), opponentOf(?p, ?o), Duel(?d), attackingMonster(?d, ?a), "
             "controlledBy(?a, ?o), damageStep(?d, false) -> selectable(?c, ?a)"),
            ("Dimensional Prison: it can be activated when there is a target (an attack was declared).",
             "DimensionalPrison(?c), selectable(?c, ?t) -> ActivationConditionMet(?c)"),
            ("Dimensional Prison resolves (card text: \"banish that target\"): its target, if still in a Monster Zone, "
             "is banished; a card leaving the field goes to its owner's (rulebook v6.0 p. 43 \"Control\").",
             "ResolvingLink(?l), linkNegated(?l, false), linkCard(?l, ?c), DimensionalPrison(?c), linkTarget(?l, ?t), "
             "Monster(?t), placedIn(?t, ?z), MonsterZone(?z), ownerPlayer(?t, ?w) -> opBanishFromField(?t, ?w)"),
        ],
    },
    "The Transmigration Prophecy": {
        "kind": "QuickPlaySpell",
        "description": "Target 2 cards in any Graveyard(s); shuffle them into the Deck.",
        "activation": "chooseTwoTargets",
        "rules": [
            ("The Transmigration Prophecy (card text: \"Target 2 cards in any Graveyard(s)\"): any card in either "
             "Graveyard may be a target (rulebook v6.0 p. 17 \"Quick-Play Spell Cards\": from the hand in your own "
             "turn, Set ones in either turn, official/chain.swrl).",
             "TheTransmigrationProphecy(?c), Card(?t), placedIn(?t, ?z), Graveyard(?z) -> selectable(?c, ?t)"),
            ("The Transmigration Prophecy: it can be activated when there are 2 targets: two cards in one Graveyard.",
             "TheTransmigrationProphecy(?c), Card(?t), placedIn(?t, ?z), Graveyard(?z), Card(?u), placedIn(?u, ?z), "
             "cardIndex(?t, ?i), cardIndex(?u, ?j), lessThan(?i, ?j) -> ActivationConditionMet(?c)"),
            ("The Transmigration Prophecy: or one card in each player's Graveyard.",
             "TheTransmigrationProphecy(?c), Card(?t), placedIn(?t, ?z), Graveyard(?z), onSideOf(?z, ?p), Card(?u), "
             "placedIn(?u, ?y), Graveyard(?y), onSideOf(?y, ?q), opponentOf(?p, ?q) -> ActivationConditionMet(?c)"),
            ("The Transmigration Prophecy resolves (card text: \"shuffle them into the Deck\"): each target still in a "
             "Graveyard is shuffled into its owner's Deck (a Graveyard holds its owner's cards: rulebook v6.0 p. 43).",
             "ResolvingLink(?l), linkNegated(?l, false), linkCard(?l, ?c), TheTransmigrationProphecy(?c), "
             "linkTarget(?l, ?t), MainDeckCard(?t), placedIn(?t, ?z), Graveyard(?z), ownerPlayer(?t, ?o) "
             "-> opShuffleIntoDeck(?t, ?o)"),
            ("The Transmigration Prophecy resolves on a Fusion or Synchro Monster: it returns to its owner's Extra "
             "Deck, where it is kept (rulebook v6.0 p. 8: the Fusion Deck, not the Main Deck).",
             "ResolvingLink(?l), linkNegated(?l, false), linkCard(?l, ?c), TheTransmigrationProphecy(?c), "
             "linkTarget(?l, ?t), ExtraDeckCard(?t), placedIn(?t, ?z), Graveyard(?z), ownerPlayer(?t, ?o) "
             "-> opToExtraDeck(?t, ?o)"),
        ],
    },
    "Rush Recklessly": {
        "kind": "QuickPlaySpell",
        "description": "Target 1 face-up monster on the field; it gains 700 ATK until the End Phase.",
        "activation": "chooseOneTarget",
        "rules": [
            ("Rush Recklessly (card text: \"Target 1 face-up monster on the field\"): a face-up monster on either "
             "side (rulebook v6.0 p. 17 \"Quick-Play Spell Cards\": from the hand in your own turn, in the Battle "
             "Phase too, p. 26; Set ones in either turn, official/chain.swrl).",
             "RushRecklessly(?c), Monster(?t), FaceUp(?t), placedIn(?t, ?z), MonsterZone(?z) -> selectable(?c, ?t)"),
            ("Rush Recklessly: it can be activated when there is a target.",
             "RushRecklessly(?c), selectable(?c, ?t) -> ActivationConditionMet(?c)"),
            ("Rush Recklessly resolves (card text: \"it gains 700 ATK until the End Phase\"): its target, if still "
             "face-up in a Monster Zone, gains 700 ATK that last until the End Phase (the TBox's atkUntilEndPhase, "
             "added to its ATK by official/derived.swrl, gone when the next turn starts).",
             "ResolvingLink(?l), linkNegated(?l, false), linkCard(?l, ?c), RushRecklessly(?c), linkTarget(?l, ?t), "
             "FaceUp(?t), placedIn(?t, ?z), MonsterZone(?z), atkUntilEndPhase(?t, ?u), add(?r, ?u, 700) "
             "-> opSetAtkUntilEndPhase(?t, ?r)"),
        ],
    },
}


def add_move(g: Graph, name: str, comment: str, area: str, place: str | None) -> URIRef:
    """A move operation property, as Protégé's object property and annotation views write it."""
    op = URIRef(YGO + name)
    g.add((op, RDF.type, OWL.ObjectProperty))
    g.add((op, RDFS.domain, URIRef(YGO + "Card")))
    g.add((op, RDFS.range, URIRef(YGO + "Player")))
    g.add((op, RDFS.label, Literal(name, lang="en")))
    g.add((op, RDFS.comment, Literal(comment, lang="en")))
    g.add((op, URIRef(YGO + "primitive"), Literal("move")))
    g.add((op, URIRef(YGO + "destinationArea"), Literal(area)))
    if place is not None:
        g.add((op, URIRef(YGO + "destinationPlace"), Literal(place)))
    return op


def add_requirement(g: Graph, name: str, comment: str, count: int) -> URIRef:
    """A SelectionRequirement individual like the TBox's chooseOneTarget."""
    r = URIRef(YGO + name)
    g.add((r, RDF.type, OWL.NamedIndividual))
    g.add((r, RDF.type, URIRef(YGO + "SelectionRequirement")))
    g.add((r, RDFS.label, Literal(name, lang="en")))
    g.add((r, RDFS.comment, Literal(comment, lang="en")))
    g.add((r, URIRef(YGO + "atStep"), URIRef(YGO + "stepChooseTargets")))
    g.add((r, URIRef(YGO + "cardsToSelect"), Literal(count, datatype=XSD.integer)))
    g.add((r, URIRef(YGO + "completeWhenSelected"), Literal(True)))
    g.add((r, URIRef(YGO + "selectsFor"), URIRef(YGO + "targetPurpose")))
    return r


def with_new_moves(exported, out, cards=NEW_CARDS):
    """The exported file with the new operation properties, requirement, cards and rules, saved as RDF/XML."""
    g = Graph().parse(exported, format="xml")
    for name, (comment, area, place) in NEW_MOVES.items():
        add_move(g, name, comment, area, place)
    for name, (comment, count) in NEW_REQUIREMENTS.items():
        add_requirement(g, name, comment, count)
    add_cards(g, cards, "newmoves")
    g.serialize(out, format="xml")
    return out
