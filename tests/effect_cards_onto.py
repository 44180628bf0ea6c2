"""Effect cards added to an exported ontology as an ontology engineer adds them in Protégé: a card
class with its data (annotations) and its SWRL rules (swrl:Imp, as SWRLTab saves them), and
nothing else (tests/test_effect_cards_from_ontology.py).

The cards are NOT in the project's catalog: they live only in the file these helpers write.

- Hinotama (LOB, Normal Spell): 500 damage to the opponent.
- Dian Keto the Cure Master (LOB, Normal Spell): its player gains 1000 Life Points.
- Ring of Destruction (Normal Trap, with a target): target 1 face-up monster the opponent controls
  whose ATK is at most your Life Points; destroy it, and both players take damage equal to its ATK.
- Hane-Hane (Flip Effect Monster): FLIP: target 1 monster on the field; return it to its owner's hand.
"""
from __future__ import annotations

from rdflib import BNode, Graph, Literal, URIRef
from rdflib.collection import Collection
from rdflib.namespace import OWL, RDF, RDFS, XSD

from ygo_onto.swrl import BUILTIN_NAMES, parse_rule_text

SWRL = "http://www.w3.org/2003/11/swrl#"
SWRLB = "http://www.w3.org/2003/11/swrlb#"
YGO = "http://ygo-onto.org/ontology#"
CARDS = "http://ygo-onto.org/cards/official#"

# Each card: its class, its kind (a card class of the TBox), its facts as the catalog's annotations,
# and its rules, each with the comment citing its source (the rule's rdfs:comment, as SWRLTab shows it).
NEW_CARDS = {
    "Hinotama": {
        "kind": "NormalSpell",
        "description": "Inflict 500 damage to your opponent.",
        "passcode": 46130346,
        "activation": "nothingToSelect",
        "rules": [
            ("Hinotama (LOB): it has no condition but the Normal Spell's own (rulebook v6.0 p. 16 \"Normal Spell "
             "Cards\": activated in your Main Phase, official/chain.swrl).",
             "Hinotama(?c) -> ActivationConditionMet(?c)"),
            ("Hinotama resolves (rulebook v6.0 p. 16: apply the effect written on the card): its player's opponent "
             "takes 500 damage (p. 22: at 0 Life Points that player loses).",
             "ResolvingLink(?l), linkNegated(?l, false), linkCard(?l, ?c), Hinotama(?c), linkPlayer(?l, ?p), "
             "opponentOf(?p, ?o) -> opDamage(?o, 500)"),
        ],
    },
    "Dian Keto the Cure Master": {
        "kind": "NormalSpell",
        "description": "You gain 1000 Life Points.",
        "passcode": 84257639,
        "activation": "nothingToSelect",
        "rules": [
            ("Dian Keto the Cure Master (LOB): it has no condition but the Normal Spell's own (rulebook v6.0 p. 16).",
             "DianKetoTheCureMaster(?c) -> ActivationConditionMet(?c)"),
            ("Dian Keto the Cure Master resolves (rulebook v6.0 p. 16: apply the effect written on the card): "
             "its player gains 1000 Life Points.",
             "ResolvingLink(?l), linkNegated(?l, false), linkCard(?l, ?c), DianKetoTheCureMaster(?c), "
             "linkPlayer(?l, ?p) -> opGainLifePoints(?p, 1000)"),
        ],
    },
    "Ring of Destruction": {
        "kind": "NormalTrap",
        "description": "Target 1 face-up monster your opponent controls whose ATK is less than or equal to your "
                       "Life Points; destroy it, and both players take damage equal to its ATK.",
        "passcode": 83555666,
        "activation": "chooseOneTarget",
        "rules": [
            ("Ring of Destruction: a valid target is a face-up monster the opponent controls with ATK at most its "
             "player's Life Points (rulebook v6.0 p. 19 \"Trap Cards\": Set first, activated from the next turn on, "
             "official/chain.swrl).",
             "RingOfDestruction(?c), controlledBy(?c, ?p), opponentOf(?p, ?o), lifePoints(?p, ?lp), Monster(?t), "
             "FaceUp(?t), placedIn(?t, ?z), MonsterZone(?z), onSideOf(?z, ?o), currentAtk(?t, ?x), "
             "lessThanOrEqual(?x, ?lp) -> selectable(?c, ?t)"),
            ("Ring of Destruction: it can be activated when there is a target.",
             "RingOfDestruction(?c), selectable(?c, ?t) -> ActivationConditionMet(?c)"),
            ("Ring of Destruction resolves: its target, if still face-up in a Monster Zone, is destroyed and both "
             "players take damage equal to its ATK (rulebook v6.0 p. 22: both at 0 at once is a draw).",
             "ResolvingLink(?l), linkNegated(?l, false), linkCard(?l, ?c), RingOfDestruction(?c), linkPlayer(?l, ?p), "
             "opponentOf(?p, ?o), linkTarget(?l, ?t), FaceUp(?t), placedIn(?t, ?z), MonsterZone(?z), "
             "currentAtk(?t, ?x), ownerPlayer(?t, ?w) -> opDestroy(?t, ?w), opDamage(?p, ?x), opDamage(?o, ?x)"),
        ],
    },
    "Hane-Hane": {
        "kind": "EffectMonster", "flip": True,
        "description": "FLIP: Target 1 monster on the field; return that target to the hand.",
        "passcode": 7089711, "level": 2, "atk": 450, "def": 500, "attribute": "EARTH", "type": "Beast",
        "activation": "chooseOneTarget",
        "rules": [
            ("Hane-Hane: any monster on the field, on either side (itself too: seed 001, CR 903.2e-i, an ability "
             "may target the card it comes from), may be its target.",
             "HaneHane(?c), Monster(?t), placedIn(?t, ?z), MonsterZone(?z) -> selectable(?c, ?t)"),
            ("Hane-Hane (rulebook v6.0 p. 11 \"Flip effect\": the effect starts when the card is flipped face-up): "
             "once flipped, its player selects the target and the effect goes on the chain.",
             "HaneHane(?c), justFlipped(?c, true), selectable(?c, ?t), controlledBy(?c, ?p), Duel(?d), "
             "hasPending(?d, false) -> opTriggerEffect(?c, ?p)"),
            ("Hane-Hane resolves: its target, if still in a Monster Zone, returns to its owner's hand (rulebook v6.0 "
             "p. 43 \"Control\": a card returned to the hand goes to its owner's).",
             "ResolvingLink(?l), linkNegated(?l, false), linkCard(?l, ?c), HaneHane(?c), linkTarget(?l, ?t), "
             "MainDeckCard(?t), placedIn(?t, ?z), MonsterZone(?z), ownerPlayer(?t, ?o) -> opToHand(?t, ?o)"),
            ("Hane-Hane resolves on a Fusion or Synchro Monster: it returns to its owner's Extra Deck, where it is "
             "kept (rulebook v6.0 p. 8: the Fusion Deck, not the Main Deck).",
             "ResolvingLink(?l), linkNegated(?l, false), linkCard(?l, ?c), HaneHane(?c), linkTarget(?l, ?t), "
             "ExtraDeckCard(?t), placedIn(?t, ?z), MonsterZone(?z), ownerPlayer(?t, ?o) -> opToExtraDeck(?t, ?o)"),
        ],
    },
}


def class_of(name: str) -> str:
    return "".join(w[:1].upper() + w[1:] for w in name.replace("'", "").replace("-", " ").split())


def add_card(g: Graph, name: str, card: dict) -> URIRef:
    """The card's class, as Protégé's class hierarchy and annotation view write it."""
    c = URIRef(CARDS + class_of(name))
    kind = card["kind"]
    g.add((c, RDF.type, OWL.Class))
    g.add((c, RDFS.subClassOf, URIRef(YGO + kind)))
    if card.get("flip"):
        g.add((c, RDFS.subClassOf, URIRef(YGO + "FlipEffectMonster")))
    g.add((c, RDFS.label, Literal(name, lang="en")))
    label = {"NormalSpell": "Normal Spell", "NormalTrap": "Normal Trap", "EffectMonster": "Flip Effect Monster",
             "QuickPlaySpell": "Quick-Play Spell"}[kind]
    g.add((c, RDFS.comment, Literal(f"{label}. {card['description']}", lang="en")))
    for key, prop in (("level", "cardLevel"), ("atk", "cardAtk"), ("def", "cardDef")):
        if key in card:
            g.add((c, URIRef(YGO + prop), Literal(card[key], datatype=XSD.integer)))
    for key, prop in (("attribute", "cardAttribute"), ("type", "cardMonsterType")):
        if key in card:
            g.add((c, URIRef(YGO + prop), Literal(card[key])))
    g.add((c, URIRef(YGO + "cardDescription"), Literal(card["description"])))
    if "passcode" in card:
        g.add((c, URIRef(YGO + "cardPasscode"), Literal(card["passcode"], datatype=XSD.integer)))
    g.add((c, URIRef(YGO + "cardActivation"), Literal(card["activation"])))
    return c


def _term(g: Graph, t, variables: set):
    if t.kind == "var":
        v = URIRef("urn:swrl#" + t.value)
        if v not in variables:
            variables.add(v)
            g.add((v, RDF.type, URIRef(SWRL + "Variable")))
        return v
    if t.kind == "name":
        return URIRef(YGO + t.value)
    if t.kind == "int":
        return Literal(t.value, datatype=XSD.integer)
    if t.kind == "bool":
        return Literal(t.value, datatype=XSD.boolean)
    return Literal(t.value)


def add_rule(g: Graph, label: str, comment: str, text: str) -> BNode:
    """A SWRL rule as an anonymous swrl:Imp with its label and comment (what the OWL API writes for a
    rule typed into SWRLTab): class atoms on a card class name the card's IRI, the others the TBox's."""
    core = {str(s)[len(YGO):] for s in g.subjects() if str(s).startswith(YGO)}
    object_props = {str(s)[len(YGO):] for s in g.subjects(RDF.type, OWL.ObjectProperty) if str(s).startswith(YGO)}
    variables: set = set()
    imp = BNode()
    g.add((imp, RDF.type, URIRef(SWRL + "Imp")))
    g.add((imp, RDFS.label, Literal(label)))
    g.add((imp, RDFS.comment, Literal(comment)))
    body, head = parse_rule_text(text)
    for key, atoms in (("body", body), ("head", head)):
        nodes = []
        for atom in atoms:
            a = BNode()
            args = [_term(g, t, variables) for t in atom.args]
            if atom.pred in BUILTIN_NAMES:
                g.add((a, RDF.type, URIRef(SWRL + "BuiltinAtom")))
                g.add((a, URIRef(SWRL + "builtin"), URIRef(SWRLB + atom.pred)))
                lst = BNode()
                Collection(g, lst, args)
                g.add((a, URIRef(SWRL + "arguments"), lst))
            elif len(args) == 1:
                ns = YGO if atom.pred in core else CARDS
                g.add((a, RDF.type, URIRef(SWRL + "ClassAtom")))
                g.add((a, URIRef(SWRL + "classPredicate"), URIRef(ns + atom.pred)))
                g.add((a, URIRef(SWRL + "argument1"), args[0]))
            else:
                kind = "IndividualPropertyAtom" if atom.pred in object_props else "DatavaluedPropertyAtom"
                g.add((a, RDF.type, URIRef(SWRL + kind)))
                g.add((a, URIRef(SWRL + "propertyPredicate"), URIRef(YGO + atom.pred)))
                g.add((a, URIRef(SWRL + "argument1"), args[0]))
                g.add((a, URIRef(SWRL + "argument2"), args[1]))
            nodes.append(a)
        lst = BNode()
        Collection(g, lst, nodes)
        g.add((imp, URIRef(SWRL + key), lst))
    return imp


def add_cards(g: Graph, cards: dict, folder: str) -> None:
    """Each card's class and its rules (labelled FOLDER/CLASS#i, as rules/ names a file's rules)."""
    for name, card in cards.items():
        add_card(g, name, card)
        for i, (comment, text) in enumerate(card["rules"], 1):
            add_rule(g, f"{folder}/{class_of(name)}#{i}", comment, text)


def with_new_cards(exported, out, cards=NEW_CARDS):
    """The exported file with the new cards' classes and rules added, saved as RDF/XML."""
    g = Graph().parse(exported, format="xml")
    add_cards(g, cards, "newcards")
    g.serialize(out, format="xml")
    return out
