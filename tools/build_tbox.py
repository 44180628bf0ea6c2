"""Bootstrap of ontology/ygo-onto.owl (the TBox).

ontology/ygo-onto.owl is the file ontology engineers open in Protégé. It was first written
by this script, which keeps the vocabulary in one readable table; rerunning it rewrites the
file, so an edit made in Protégé must be carried back here (tests/test_quality.py checks
that the two agree).  Run: python tools/build_tbox.py [--out PATH]
"""
from __future__ import annotations

from pathlib import Path

from rdflib import BNode, Graph, Literal, Namespace, URIRef
from rdflib.collection import Collection
from rdflib.namespace import OWL, RDF, RDFS, XSD

BASE = "http://ygo-onto.org/ontology"
YGO = Namespace(BASE + "#")
VERSION = "0.1.0"
OUT = Path(__file__).resolve().parent.parent / "ontology" / "ygo-onto.owl"

g = Graph()
g.bind("ygo", YGO)
g.bind("owl", OWL)
onto = URIRef(BASE)
g.add((onto, RDF.type, OWL.Ontology))
g.add((onto, OWL.versionIRI, URIRef(f"{BASE}/{VERSION}")))
g.add((onto, RDFS.label, Literal("ygo-onto", lang="en")))
g.add((onto, RDFS.comment, Literal(
    "A Yu-Gi-Oh! duel state as one node of a decision tree, after the design 'ontologia yugioh' "
    "(rk4.sync, 2021). Game rules are SWRL rules (rules/*.swrl); this file is the TBox.", lang="en")))

# Annotation properties that tie the vocabulary to the Python driver's generic readers.
ANNOTATIONS = {
    "actionType": "On a class or property that the rules infer to allow an action: the action `type` "
                  "of the public contract (actions-and-cli.md), optionally followed by `key=value` pairs.",
    "primitive": "On an operation property: the name of the driver's generic primitive that carries it out.",
    "stateKey": "On a data or object property that mirrors a field of the state JSON: that field's name.",
    "resetEachTurn": "On a per-turn property: the value it is reset to when a new turn starts.",
    "countsCards": "On a closure-fact data property (a count SWRL cannot take): what the driver counts, as "
                   "`CardClass in=AREA per=SUBJECT [side=opponent] [face_up=true]`: the cards of that class in that state area "
                   "(field_zone, spell_trap_zones, monster_zones), for each SUBJECT (duel: both players' areas; player: the "
                   "player's own, or the opponent's with side=opponent; equipped_monster: the cards equipped to each monster).",
    # Rules and cards as Protégé edits them (ontofile.py): a rule's source file, a file's ruleset,
    # and the card catalog's facts on each card class.
    "ruleFile": "On a SWRL rule: the file of rules/ it lives in (e.g. rules/official/summons.swrl); "
                "ygo-onto import-owl writes the rule back there.",
    "ruleset": "On an exported ontology: the ruleset (official or simplified) whose cards and rules it holds.",
    "cardLevel": "On a card class: the monster's printed Level.",
    "cardAtk": "On a card class: the monster's printed ATK.",
    "cardDef": "On a card class: the monster's printed DEF.",
    "cardAttribute": "On a card class: the monster's Attribute (LIGHT, DARK, ...).",
    "cardMonsterType": "On a card class: the monster's Type (Dragon, Spellcaster, ...).",
    "cardPasscode": "On a card class: the 8-digit passcode printed on the card.",
    "cardMaterials": "On a card class: a Fusion or Synchro Monster's materials, joined by ' + '.",
    "cardRitualMonster": "On a Ritual Spell's class: the Ritual Monster it summons.",
    "cardAlias": "On a card class: another name the card is known by (one value per name).",
    "cardPhases": "On a simplified-ruleset spell's class: the phases it may be used in, joined by '|'.",
    "cardStaysOnField": "On a spell or trap class: true if the card stays on the field after it resolves.",
    "cardSpecialSummonOnly": "On a monster class: true if it cannot be Normal Summoned or Set.",
    "cardOptionalEffect": "On a monster class: true if its player may decline its effect ('you can').",
    "cardActivation": "On a card class: an ActivationRequirement its activation asks for, in order "
                      "(one value per requirement).",
    "cardDescription": "On a card class: the catalog's text of the card.",
    "cardField": "On a card class: another fact of the catalog, as name=JSON (a field no annotation above names).",
}
for name, comment in ANNOTATIONS.items():
    p = YGO[name]
    g.add((p, RDF.type, OWL.AnnotationProperty))
    g.add((p, RDFS.label, Literal(name, lang="en")))
    g.add((p, RDFS.comment, Literal(comment, lang="en")))


def cls(name, parents=(), comment="", it=None, label=None, **ann):
    c = YGO[name]
    g.add((c, RDF.type, OWL.Class))
    for p in parents:
        g.add((c, RDFS.subClassOf, YGO[p]))
    g.add((c, RDFS.label, Literal(label or name, lang="en")))
    if it:
        g.add((c, RDFS.label, Literal(it, lang="it")))
    g.add((c, RDFS.comment, Literal(comment, lang="en")))
    for k, v in ann.items():
        g.add((c, YGO[k], Literal(v)))
    return c


def prop(name, kind, domain=None, range_=None, comment="", functional=False, parent=None,
         inverse=None, symmetric=False, it=None, **ann):
    p = YGO[name]
    g.add((p, RDF.type, OWL.ObjectProperty if kind == "object" else OWL.DatatypeProperty))
    if functional:
        g.add((p, RDF.type, OWL.FunctionalProperty))
    if symmetric:
        g.add((p, RDF.type, OWL.SymmetricProperty))
    if domain:
        g.add((p, RDFS.domain, YGO[domain]))
    if range_:
        g.add((p, RDFS.range, XSD[range_] if kind == "data" else YGO[range_]))
    if parent:
        g.add((p, RDFS.subPropertyOf, YGO[parent]))
    if inverse:
        g.add((p, OWL.inverseOf, YGO[inverse]))
    g.add((p, RDFS.label, Literal(name, lang="en")))
    if it:
        g.add((p, RDFS.label, Literal(it, lang="it")))
    g.add((p, RDFS.comment, Literal(comment, lang="en")))
    for k, v in ann.items():
        g.add((p, YGO[k], Literal(v)))
    return p


def individual(name, klass, comment="", it=None, label=None):
    i = YGO[name]
    g.add((i, RDF.type, OWL.NamedIndividual))
    g.add((i, RDF.type, YGO[klass]))
    g.add((i, RDFS.label, Literal(label or name, lang="en")))
    if it:
        g.add((i, RDFS.label, Literal(it, lang="it")))
    g.add((i, RDFS.comment, Literal(comment, lang="en")))
    return i


def disjoint(*names):
    if len(names) == 2:
        g.add((YGO[names[0]], OWL.disjointWith, YGO[names[1]]))
        return
    node = BNode()
    g.add((node, RDF.type, OWL.AllDisjointClasses))
    lst = BNode()
    Collection(g, lst, [YGO[n] for n in names])
    g.add((node, OWL.members, lst))


def defined(name, parent, prop_name, filler, comment, it=None):
    """name == parent and (prop_name some filler): the design's defined classes (section 2.3)."""
    c = cls(name, (), comment, it=it)
    restriction = BNode()
    g.add((restriction, RDF.type, OWL.Restriction))
    g.add((restriction, OWL.onProperty, YGO[prop_name]))
    g.add((restriction, OWL.someValuesFrom, YGO[filler]))
    inter = BNode()
    Collection(g, inter, [YGO[parent], restriction])
    eq = BNode()
    g.add((eq, RDF.type, OWL.Class))
    g.add((eq, OWL.intersectionOf, inter))
    g.add((c, OWL.equivalentClass, eq))


def defined_and(name, a, b, comment, it=None):
    c = cls(name, (), comment, it=it)
    inter = BNode()
    Collection(g, inter, [YGO[a], YGO[b]])
    eq = BNode()
    g.add((eq, RDF.type, OWL.Class))
    g.add((eq, OWL.intersectionOf, inter))
    g.add((c, OWL.equivalentClass, eq))


# ---------------------------------------------------------------- 2.1 cards (design section 2.1)
cls("Card", (), "A Yu-Gi-Oh! card: a monster, a spell or a trap (design 2.1).", it="carta")
cls("Monster", ["Card"], "A monster card: summoned to fight for its player (design 2.1.1).", it="mostro")
cls("NormalMonster", ["Monster"], "A monster with no effect.", it="mostro normale")
cls("EffectMonster", ["Monster"], "A monster with an effect (rulebook p. 10).", it="mostro con effetto")
cls("FlipEffectMonster", ["EffectMonster"], "An effect monster whose effect starts when it is flipped face-up (rulebook p. 11).")
cls("RitualMonster", ["Monster"], "A monster Ritual Summoned by its Ritual Spell (design 2.1.1, rulebook p. 9).", it="mostro rituale")
cls("FusionMonster", ["Monster"], "A monster Fusion Summoned from the Extra Deck (design 2.1.1, rulebook p. 8).", it="mostro fusione")
cls("SynchroMonster", ["Monster"], "A monster Synchro Summoned from the Extra Deck with a Tuner (design 2.1.1).", it="mostro synchro")
cls("TunerMonster", ["Monster"], "A Tuner: the monster a Synchro Summon needs (design 2.1.1).", it="mostro tuner")
disjoint("RitualMonster", "FusionMonster", "SynchroMonster")
cls("Spell", ["Card"], "A spell card (design 2.1.2; rulebook p. 16).", it="magia")
for n, c, it in [("NormalSpell", "A one-use spell: it goes to the graveyard after resolving.", "magia normale"),
                 ("RitualSpell", "A spell that Ritual Summons its Ritual Monster.", "magia rituale"),
                 ("ContinuousSpell", "A spell that stays on the field while its effect lasts.", "magia continua"),
                 ("QuickPlaySpell", "A spell usable in any phase of its player's turn; when Set, also in the opponent's turn.", "magia rapida"),
                 ("EquipSpell", "A spell that stays on the field equipped to one monster.", "magia equipaggiamento"),
                 ("FieldSpell", "A spell placed in the Field Zone; one per player.", "magia terreno")]:
    cls(n, ["Spell"], c, it=it)
cls("Trap", ["Card"], "A trap card: Set first, activated from the field (design 2.1.3; rulebook p. 19).", it="trappola")
cls("NormalTrap", ["Trap"], "A one-use trap (Spell Speed 2).")
cls("ContinuousTrap", ["Trap"], "A trap that stays on the field while its effect lasts.")
cls("CounterTrap", ["Trap"], "A trap of Spell Speed 3 that answers activations.")
disjoint("Monster", "Spell", "Trap")

cls("Attribute", (), "The attribute of a monster (design 2.1.1: one class with the attributes as individuals).", it="attributo")
for a in ["DARK", "LIGHT", "EARTH", "WATER", "FIRE", "WIND"]:
    individual(a, "Attribute", f"The {a} attribute.")
cls("MonsterType", (), "The Type of a monster, shown at the bottom of the card (design 2.1.1).", it="tipo di mostro")
TYPES = ["Aqua", "Beast", "Beast-Warrior", "Dinosaur", "Dragon", "Fairy", "Fiend", "Fish", "Insect", "Machine",
         "Plant", "Psychic", "Pyro", "Reptile", "Rock", "Sea Serpent", "Spellcaster", "Thunder", "Warrior",
         "Winged Beast", "Wyrm", "Zombie"]
for t in TYPES:
    local = "Type" + t.replace("-", "").replace(" ", "")
    individual(local, "MonsterType", f"The {t} Type."
               + (" The design lists it as 'Windjet Beast'." if t == "Winged Beast" else "")
               + (" The design lists it as 'Wurm'." if t == "Wyrm" else ""), label=t)

prop("hasAttribute", "object", "Monster", "Attribute", "The monster's attribute (functional, design 2.1.1).", functional=True)
prop("hasMonsterType", "object", "Monster", "MonsterType", "The monster's Type.", functional=True)
prop("level", "data", "Monster", "integer", "The monster's Level, 1 to 12 (design 2.1.1).", functional=True, it="livello")
prop("atk", "data", "Monster", "integer", "The printed ATK.", functional=True, it="attacco")
prop("def", "data", "Monster", "integer", "The printed DEF.", functional=True, it="difesa")
prop("atkModifier", "data", "Card", "integer", "A lasting ATK change left by an effect that already resolved.", stateKey="atk_modifier")
prop("defModifier", "data", "Card", "integer", "A lasting DEF change left by an effect that already resolved.", stateKey="def_modifier")
prop("computedAtk", "data", "Monster", "integer", "The printed ATK with every change added up, before the floor at 0: derived by the rules.")
prop("computedDef", "data", "Monster", "integer", "The printed DEF with every change added up, before the floor at 0: derived by the rules.")
prop("currentAtk", "data", "Monster", "integer", "The ATK the monster has now: computedAtk, or 0 if that is negative (ATK is never below 0); derived by the rules, never stored.")
prop("currentDef", "data", "Monster", "integer", "The DEF the monster has now: computedDef, or 0 if that is negative (DEF is never below 0); derived by the rules, never stored.")
prop("lowLevelAtkInZone", "data", "MonsterZone", "integer", "The current ATK of the face-up Level 2 or lower monster in this zone, else 0 (inferred; Junk Warrior).")
prop("lowLevelAtkUpTo", "data", "MonsterZone", "integer", "lowLevelAtkInZone added up over the player's Monster Zones 0 to this one (inferred: SWRL adds along zoneIndex).")
prop("lowLevelAtkTotal", "data", "Player", "integer", "The current ATK of the player's face-up Level 2 or lower monsters, added up (inferred from lowLevelAtkUpTo at zone 4).")
prop("requiresSpecialSummon", "data", "Monster", "boolean",
     "True for a monster that must be Special Summoned (Fusion, Ritual, Synchro, 'cannot be Normal Summoned'); design 3.1.")
prop("requireSummonMaterial", "object", "Monster", "Card", "A card this monster needs as summoning material (design 2.1.1).")
prop("requireFusionMaterial", "object", "FusionMonster", "Card", "A Fusion Material of this Fusion Monster (design 2.1.1).",
     parent="requireSummonMaterial")
prop("hasEffect", "object", "Card", "Effect", "The card's effect (design 3.3).", inverse=None)
prop("effectOf", "object", "Effect", "Card", "The card an effect belongs to (inverse of hasEffect, design 3.3).", inverse="hasEffect")
prop("isActive", "data", "Card", "boolean", "True while an activated spell or trap's effect lasts (design 2.1.2).")
prop("cardName", "data", "Card", "string", "The card's English name in the catalog.")

# ---------------------------------------------------------------- 2.2 the field (design 2.2)
cls("FieldZone", (), "A zone of a player's side of the game board (design 2.2).", it="zona del campo")
ZONES = [("Deck", "The Main Deck, face-down (rulebook p. 3).", "mazzo"),
         ("Hand", "The player's hand.", "mano"),
         ("Graveyard", "The Graveyard, face-up (rulebook p. 3).", "cimitero"),
         ("ExtraDeck", "The Extra Deck: Fusion and Synchro monsters.", "extra deck"),
         ("Banished", "Cards removed from play.", "carte bandite"),
         ("MonsterZone", "One of the five Monster Zones (rulebook p. 3).", "zona mostri"),
         ("SpellTrapZone", "One of the five Spell & Trap Zones (rulebook p. 3).", "zona magie/trappole"),
         ("FieldSpellZone", "The Field Zone for a Field Spell (rulebook p. 3).", "zona terreno")]
for n, c, it in ZONES:
    cls(n, ["FieldZone"], c, it=it)
disjoint(*[z[0] for z in ZONES])
cls("OnFieldZone", ["FieldZone"], "A zone whose cards are 'on the field': Monster, Spell & Trap and Field Zones (rulebook p. 43).")
for z in ("MonsterZone", "SpellTrapZone", "FieldSpellZone"):
    g.add((YGO[z], RDFS.subClassOf, YGO["OnFieldZone"]))
prop("ownedBy", "object", "FieldZone", "Player", "The player whose side the zone is on (functional, design 2.2).", functional=True)
prop("free", "data", "FieldZone", "boolean",
     "False when a card occupies the zone or an effect disabled it (design 2.2); kept by the driver.")
prop("zoneIndex", "data", "FieldZone", "integer", "The position 0-4 of a Monster or Spell & Trap Zone: lets rules tell two zones apart without owl:AllDifferent.")
prop("placedIn", "object", "Card", "FieldZone", "Where the card is (design 3: destroying is changing placedIn).", functional=True)
prop("controlledBy", "object", "Card", "Player", "The player who controls the card: the owner of its zone (rulebook p. 43 'Control').")
prop("ownerPlayer", "object", "Card", "Player", "The card's owner; its graveyard is the owner's (rulebook p. 43 'Control').", functional=True)
prop("cardIndex", "data", "Card", "integer", "The card's index in its zone's list in the state.")

# ---------------------------------------------------------------- 2.2.1 positions
cls("CardPosition", (), "The position of a card on the field (design 2.2.1).", it="posizione")
cls("MonsterPosition", ["CardPosition"], "A battle position of a monster.")
cls("SpellTrapPosition", ["CardPosition"], "The position of a spell or trap: face-up or face-down.")
disjoint("MonsterPosition", "SpellTrapPosition")
cls("AttackPositionClass", ["MonsterPosition"], "Face-up Attack Position.", label="AttackPosition")
cls("DefensePositionClass", ["MonsterPosition"], "Defense Position, face-up or face-down.", label="DefensePosition")
individual("attackPosition", "AttackPositionClass", "Face-up Attack Position (vertical).", it="attacco")
individual("defensePosition", "DefensePositionClass", "Face-up Defense Position (horizontal).", it="difesa")
individual("faceDownDefensePosition", "DefensePositionClass", "Face-down Defense Position.", it="difesa coperta")
individual("faceUpPosition", "SpellTrapPosition", "A face-up spell or trap.", it="scoperta")
individual("faceDownPosition", "SpellTrapPosition", "A face-down (Set) spell or trap.", it="coperta")
prop("cardPosition", "object", "Card", "CardPosition", "The card's position (functional, design 2.2.1).", functional=True)
prop("monsterPosition", "object", "Monster", "MonsterPosition", "A monster's battle position.", parent="cardPosition")
prop("spellTrapPosition", "object", "Card", "SpellTrapPosition", "A spell or trap's position.", parent="cardPosition")
cls("FaceUp", ["Card"], "A card face-up on the field (inferred).")
cls("FaceUpAttackMonster", ["Monster"], "A monster in face-up Attack Position on the field (inferred).")

# ---------------------------------------------------------------- 2.3 players
cls("Player", (), "One of the two duelists (design 2.3).", it="giocatore")
cls("TurnPlayer", ["Player"], "The player whose turn it is: the design's activePlayer (2.3).", it="giocatore attivo", label="ActivePlayer")
cls("NonTurnPlayer", ["Player"], "The player whose turn it is not.")
cls("PriorityPlayer", ["Player"], "The player who chooses the next action (rulebook p. 38 'priority').")
cls("FirstPlayer", ["Player"], "The player who took the first turn of the duel.")
cls("LoserPlayer", ["Player"], "A player who has lost the duel (design 2.3).", it="giocatore perdente")
prop("lifePoints", "data", "Player", "integer", "The player's Life Points (design 2.3).", functional=True, it="punti vita")
prop("opponentOf", "object", "Player", "Player", "The other player.", symmetric=True)
prop("normalSummonsLeft", "data", "Player", "integer",
     "Normal Summons or Sets the player may still make this turn: the design's counter (section 4), 1 at the start of each turn.")
prop("monsterCount", "data", "Player", "integer", "How many monsters the player controls (a count kept by the driver: SWRL cannot count).")
prop("handCount", "data", "Player", "integer", "How many cards are in the player's hand (kept by the driver).")
prop("deckCount", "data", "Player", "integer", "How many cards are in the player's Deck (kept by the driver).")
defined("ActivePlayerField", "FieldZone", "ownedBy", "TurnPlayer",
        "The zones of the active player: activePlayerField equivalentTo (ownedBy some activePlayer), design 2.3.")
defined_and("ActivePlayerMonsterZone", "MonsterZone", "ActivePlayerField", "The active player's Monster Zones (design 2.3).")
defined_and("ActivePlayerSpellTrapZone", "SpellTrapZone", "ActivePlayerField", "The active player's Spell & Trap Zones (design 2.3: activePlayerMTZone).")
cls("HasFreeMonsterZone", ["Player"], "A player with at least one free Monster Zone (inferred).")
cls("HasFreeSpellTrapZone", ["Player"], "A player with at least one free Spell & Trap Zone (inferred).")
cls("SetFromHandToSpellTrapZone", ["Card"], "A card in a hand that the ruleset lets its owner Set in a Spell & Trap Zone (inferred).")
cls("DefensePositionMonster", ["Monster"], "A monster in Defense Position, face-up or face-down (inferred).")

# ---------------------------------------------------------------- 2.4 phases
cls("Duel", (), "The duel itself: the node of the decision tree that the state describes (design 1).", it="duello")
cls("Phase", (), "A phase of the turn (design 2.4): individuals linked by next / prev.", it="fase")
cls("MainPhase", ["Phase"], "Main Phase 1 or 2.")
PHASES = [("drawPhase", "Phase", "Draw Phase: the turn player draws 1 (rulebook p. 24).", "fase di pesca"),
          ("standbyPhase", "Phase", "Standby Phase (rulebook p. 24).", "fase di standby"),
          ("mainPhase1", "MainPhase", "Main Phase 1 (rulebook p. 25).", "fase principale 1"),
          ("battlePhase", "Phase", "Battle Phase (rulebook p. 26).", "fase di battaglia"),
          ("mainPhase2", "MainPhase", "Main Phase 2 (rulebook p. 30).", "fase principale 2"),
          ("endPhase", "Phase", "End Phase (rulebook p. 31).", "fase finale")]
for n, k, c, it in PHASES:
    individual(n, k, c, it=it)
prop("next", "object", "Phase", "Phase", "The phase that follows (functional, design 2.4).", functional=True)
prop("prev", "object", "Phase", "Phase", "The phase that precedes (inverse of next, design 2.4).", functional=True, inverse="next")
for a, b in zip([p[0] for p in PHASES], [p[0] for p in PHASES][1:]):
    g.add((YGO[a], YGO["next"], YGO[b]))
prop("phaseName", "data", "Phase", "string", "The phase's name in the state format (draw, standby, main1, battle, main2, end).", stateKey="phase")
for n, name in zip([p[0] for p in PHASES], ["draw", "standby", "main1", "battle", "main2", "end"]):
    g.add((YGO[n], YGO["phaseName"], Literal(name)))
prop("skipWhenIdle", "data", "Phase", "boolean",
     "True for a phase the engine passes through by itself when no one can act in it (Draw, Standby).")
for n in ("drawPhase", "standbyPhase"):
    g.add((YGO[n], YGO["skipWhenIdle"], Literal(True)))
for n, _, _, _ in PHASES:
    g.add((YGO[n], YGO["enteredFreely"], Literal(n != "battlePhase")))
prop("currentPhase", "object", "Duel", "Phase", "The phase the duel is in.", functional=True, it="fase corrente")
prop("turnNumber", "data", "Duel", "integer", "The turn number, from 1.", functional=True, stateKey="turn")
prop("duelOver", "data", "Duel", "boolean", "True once a winner (or a draw) is known.")
prop("chainLength", "data", "Duel", "integer", "How many links the chain has (kept by the driver).")
prop("hasPending", "data", "Duel", "boolean", "True while an action waits for selections (state 'pending').")
prop("phaseEndsTo", "object", "Duel", "Phase", "The phase the turn player asked to go on to; the opponent holds priority until it passes (rulebook p. 38; state: extra.phase_end).", functional=True)
prop("turnEnding", "data", "Duel", "boolean", "True while the turn player's request to end the turn waits for the opponent's pass (rulebook p. 38; state: extra.phase_end = \"turn\").")
prop("turnStarted", "data", "Duel", "boolean", "An event: true in the step right after a new turn began (set by the driver for one step only).")
prop("attackingMonster", "object", "Duel", "Monster", "The monster whose attack is being resolved.", functional=True)
prop("attackTarget", "object", "Duel", "Monster", "The monster under attack.", functional=True)
prop("directAttackInProgress", "data", "Duel", "boolean", "True while a direct attack is being resolved.")
prop("battleInProgress", "data", "Duel", "boolean", "True while an attack is being resolved (kept by the driver).")
prop("enteredFreely", "data", "Phase", "boolean",
     "True for a phase the turn player may always go on to; false for the Battle Phase, which a rule must permit.")

# ---------------------------------------------------------------- 3 conditions, actions, effects
cls("Condition", (), "A precondition shared by actions (design 3): an individual whose only attribute is fulfilled.", it="condizione")
prop("fulfilled", "data", "Condition", "boolean", "True when the state satisfies the condition; asserted by rules (design 3).", it="soddisfatta")
for n, c in [("duelOngoing", "No winner yet."),
             ("openState", "The duel goes on, no chain is open and no action waits for selections."),
             ("openMainPhase", "An open state in a Main Phase of the turn player: the time for summons and Normal Spells."),
             ("openBattlePhase", "An open state in the Battle Phase."),
             ("battlePhaseAllowed", "The turn player may enter the Battle Phase this turn.")]:
    individual(n, "Condition", c)

cls("Effect", (), "A card's effect: a sequence of basic actions, i.e. property changes (design 3).", it="effetto")
cls("Action", (), "Something that changes property values of the state (design 3). The action being applied is the individual theAction.", it="azione")
cls("ActionKind", (), "A kind of action: one individual per `type` of the public contract.")
KINDS = ["normal_summon", "tribute_summon", "set_monster", "flip_summon", "change_position", "special_summon",
         "synchro_summon", "activate", "set_spell_trap", "attack", "direct_attack", "select", "cancel", "pass",
         "next_phase", "end_turn"]


def camel(s):
    head, *rest = s.split("_")
    return head + "".join(w.title() for w in rest)


for k in KINDS:
    individual(camel(k) + "Kind", "ActionKind", f"The action type `{k}`.")
prop("actionKind", "object", "Action", "ActionKind", "The kind of the action.", functional=True)
prop("actor", "object", "Action", "Card", "The card that acts (or is played).", functional=True)
prop("actionTarget", "object", "Action", "Card", "The card the action aims at (an attack target, a selected card).")
prop("actionToPhase", "object", "Action", "Phase", "The phase a next_phase action goes to.")
prop("actionToPosition", "object", "Action", "CardPosition", "The position a change_position action goes to.")
prop("actingPlayer", "object", "Action", "Player", "The player taking the action.")

cls("ActionAllowed", (), "The design's actionAllowed: a card (or the duel) that may take an action now. "
    "SWRL cannot create action individuals, so each action kind is a subclass or a property inferred on the acting card.",
    it="azione permessa")
ALLOWED = [("NormalSummonAllowed", "normal_summon", "Card"), ("TributeSummonAllowed", "tribute_summon", "Card"),
           ("SetMonsterAllowed", "set_monster", "Card"), ("FlipSummonAllowed", "flip_summon", "Card"),
           ("ChangeToAttackAllowed", "change_position to=attack", "Card"),
           ("ChangeToDefenseAllowed", "change_position to=defense", "Card"),
           ("SpecialSummonAllowed", "special_summon", "Card"), ("SynchroSummonAllowed", "synchro_summon", "Card"),
           ("SpecialSummonInDefenseAllowed", "special_summon to=defense", "Card"),
           ("SynchroSummonInDefenseAllowed", "synchro_summon to=defense", "Card"),
           ("ActivateInDefenseAllowed", "activate to=defense", "Card"),
           ("ActivationAllowed", "activate", "Card"), ("SetSpellTrapAllowed", "set_spell_trap", "Card"),
           ("DirectAttackAllowed", "direct_attack", "Card"), ("SelectAllowed", "select", "Card"),
           ("PassAllowed", "pass", "Duel"), ("CancelAllowed", "cancel", "Duel"), ("EndTurnAllowed", "end_turn", "Duel")]
for n, t, _ in ALLOWED:
    cls(n, ["ActionAllowed"], f"May take the action `{t.split()[0]}` now (inferred).", actionType=t)
prop("attackAllowedOn", "object", "Monster", "Monster", "The monster may declare an attack on this one now (inferred).", actionType="attack")
prop("nextPhaseAllowed", "object", "Duel", "Phase", "The duel may go on to this phase now (inferred).", actionType="next_phase")
prop("tributesRequired", "data", "Monster", "integer", "How many tributes a Normal Summon or Set of this monster needs (inferred).")

# Pending selections (state-format 'pending').
cls("PendingAction", (), "An action waiting for selections: tributes, targets, materials, costs, discards.")
cls("SelectionPurpose", (), "Why cards are being selected.")
for n in ("tribute", "target", "material", "cost", "discard"):
    individual(n + "Purpose", "SelectionPurpose", f"Selecting for `{n}`.")
individual("summonPurpose", "SelectionPurpose",
           "Selecting the monster an activation Summons (a Ritual Spell's Ritual Monster, Polymerization's Fusion Monster): "
           "the purpose of that one `select` action, never of a pending action (its purpose is the requirement's selectsFor).")
prop("pendingKind", "object", "PendingAction", "ActionKind", "The kind of the action being built.", functional=True)
prop("pendingActor", "object", "PendingAction", "Card", "The card of the action being built.", functional=True)
prop("pendingPlayer", "object", "PendingAction", "Player", "The player who must select.", functional=True)
prop("purpose", "object", "PendingAction", "SelectionPurpose", "Why cards are being selected.", functional=True)
prop("selectionsNeeded", "data", "PendingAction", "integer", "How many cards must be selected.")
prop("selectionsMade", "data", "PendingAction", "integer", "How many cards were selected so far (kept by the driver).")
prop("chosenForPending", "data", "Card", "boolean", "True once the card was selected for the pending action.")

# Per-card state of this turn.
prop("summonedThisTurn", "data", "Card", "boolean", "The monster was summoned or Set this turn.", stateKey="summoned_this_turn", resetEachTurn="false")
prop("positionChangedThisTurn", "data", "Card", "boolean", "The monster's battle position changed this turn (a Flip Summon counts).",
     stateKey="position_changed_this_turn", resetEachTurn="false")
prop("attacksDeclared", "data", "Card", "integer", "Attacks this monster declared this turn (the design's haveAttacked, as a count).",
     stateKey="attacks_declared", resetEachTurn="0")
prop("setThisTurn", "data", "Card", "boolean", "The spell or trap was Set this turn.", stateKey="set_this_turn", resetEachTurn="false")
prop("canAttack", "data", "Monster", "boolean", "False while an effect forbids the monster to attack (design 3.2).")
cls("SummonMethod", (), "How a monster came to the field (design 3.3: summonedAs).")
for n in ("normal", "tribute", "set", "flip", "special", "fusion", "ritual", "synchro"):
    individual(n + "Summon", "SummonMethod", f"Summoned by `{n}`.")
prop("summonedAs", "object", "Monster", "SummonMethod", "How the monster was summoned (design 3.3).", functional=True, stateKey="summoned_by")

# ---------------------------------------------------------------- chains and activations (rulebook pp. 35-39; seed 001)
cls("ChainLink", (), "A link of the chain: an activated card or effect waiting to resolve (rulebook p. 35).", it="anello della catena")
cls("ChainTop", ["ChainLink"], "The last link of the chain: the one a response answers.")
cls("ResolvingLink", ["ChainLink"], "The link being resolved now (the chain resolves last link first, p. 35).")
prop("linkNumber", "data", "ChainLink", "integer", "The link's number, 1 for the first link.", functional=True)
prop("linkSpeed", "data", "ChainLink", "integer", "The Spell Speed of the link (p. 37).", functional=True)
prop("linkNegated", "data", "ChainLink", "boolean", "True once a later link negated this activation (Magic Jammer, p. 36).")
prop("linkCard", "object", "ChainLink", "Card", "The card whose activation the link is.", functional=True)
prop("linkPlayer", "object", "ChainLink", "Player", "The player who activated the link.", functional=True)
prop("linkTarget", "object", "ChainLink", "Card", "A card the activation targets (chosen when it was activated).")
prop("spellSpeed", "data", "Card", "integer", "The card's Spell Speed, 1 to 3 (rulebook p. 37; inferred from its kind).")
cls("OneShotCard", ["Card"], "A card used once: sent to the Graveyard after it resolves (Normal, Quick-Play and Ritual Spells; Normal and Counter Traps; rulebook pp. 16-19); inferred from staysOnField.")
prop("staysOnField", "data", "Card", "boolean", "The catalog's fact: true for a spell or trap that stays on the field after it resolves (Continuous, Equip, Field; Swords of Revealing Light).")
cls("SetCard", ["Card"], "A spell or trap Set face-down in a Spell & Trap Zone (inferred).")
cls("ReadyToActivate", ["Card"], "A spell or trap whose place lets it be activated: in the hand with room on the field, or Set long enough (inferred).")
cls("CanActivateNow", ["Card"], "The timing allows this card's activation now: phase, priority, chain and Spell Speed (inferred).")
cls("ActivationConditionMet", ["Card"], "The card's own activation condition holds (inferred by the card's rules).")
cls("ActivationCompletes", ["Card"], "The card's activation is complete (its selections made): it goes onto the chain (inferred).")
prop("activationSelections", "data", "Card", "integer", "How many cards its activation selects (targets or costs); 0 for none (inferred from its SelectionRequirement).")
prop("activationPurpose", "object", "Card", "SelectionPurpose", "What its activation selects: targets or costs (inferred from its SelectionRequirement).")
prop("lifePointCost", "data", "Card", "integer", "The Life Points its activation costs (inferred from its PaymentRequirement).")
prop("validTarget", "object", "Card", "Card", "A card this card's activation may target now (inferred by the card's rules).")
prop("justSummonedBy", "object", "Monster", "SummonMethod",
     "The summon that opened the response window now open (state: extra.just_summoned).")
prop("damageStep", "data", "Duel", "boolean", "True once the attack's response window closed: damage is calculated (rulebook p. 32).")
prop("attackTargetLost", "data", "Duel", "boolean", "True when the attack's target left the field before damage: a replay (rulebook p. 28).")
for n, c in [("chainOpen", "A chain is being built: the player with priority may respond or pass."),
             ("responseWindow", "No chain, and the opponent of the turn player holds priority: a summon or an attack may be answered.")]:
    individual(n, "Condition", c)

# ---------------------------------------------------------------- the activation procedure, step by step (seed 001, CR 903.2)
# Every activation follows the same steps; what a card asks at each step (targets, discards, Life Points) is the catalog's data
# (column `activation`), asserted as hasRequirement; the generic rules of rules/common/activation.swrl read it.
cls("ActivationStep", (), "A step of the procedure every activation of a card or effect follows (seed 001, CR 903.2; rulebook pp. 16, 35, 42-43).",
    it="passo di attivazione")
prop("stepNumber", "data", "ActivationStep", "integer", "The step's place in the procedure, from 1.", functional=True)
prop("nextStep", "object", "ActivationStep", "ActivationStep", "The step that follows.", functional=True)
prop("nothingPaidYet", "data", "ActivationStep", "boolean",
     "True at a step where no cost is paid yet, so the player may still back out (state-format: cancel); costs are paid once all are selected.")
ACTIVATION_STEPS = [
    ("stepTurnFaceUp", "CR 903.2a; rulebook p. 16: a Set card is turned face-up; a spell from the hand is placed face-up on the field.", "girare la carta"),
    ("stepPutOnChain", "CR 903.2b; rulebook p. 35: the card, or a monster's effect as a pseudo-card, is put on the chain.", "mettere in catena"),
    ("stepChooseOptions", "CR 903.2c: options are chosen (no card of the catalog has any).", "scegliere le opzioni"),
    ("stepChooseTargets", "CR 903.2e; rulebook p. 42 'Targeting': legal targets are chosen; with none the card cannot be activated; a card never targets itself.",
     "scegliere i bersagli"),
    ("stepPayCosts", "CR 903.2g; rulebook p. 43 'Paying costs': costs are paid (discards, Life Points); with no way to pay, no activation.",
     "pagare i costi"),
    ("stepOpponentMayRespond", "Rulebook p. 35: the activation is complete; the opponent may respond first, then its player.",
     "l'avversario può rispondere"),
]
for i, (n, c, it) in enumerate(ACTIVATION_STEPS, start=1):
    individual(n, "ActivationStep", c, it=it)
    g.add((YGO[n], YGO["stepNumber"], Literal(i)))
    g.add((YGO[n], YGO["nothingPaidYet"], Literal(n != "stepOpponentMayRespond")))
for (a, *_), (b, *_) in zip(ACTIVATION_STEPS, ACTIVATION_STEPS[1:]):
    g.add((YGO[a], YGO["nextStep"], YGO[b]))

cls("ActivationRequirement", (), "What a card's activation asks of its player at one step of the procedure: the catalog's data for that card.",
    it="requisito di attivazione")
cls("SelectionRequirement", ["ActivationRequirement"],
    "The cards the activation selects (targets, a discard, materials); every activatable card has one, nothingToSelect when it selects none.")
cls("PaymentRequirement", ["ActivationRequirement"], "A cost paid without selecting cards: Life Points.")
cls("OptionRequirement", ["ActivationRequirement"], "An option its player chooses when activating (CR 903.2c): the action's `to`.")
disjoint("SelectionRequirement", "PaymentRequirement", "OptionRequirement")
prop("hasRequirement", "object", "Card", "ActivationRequirement", "A requirement of the card's activation (the catalog's column `activation`).",
     it="ha requisito")
prop("atStep", "object", "ActivationRequirement", "ActivationStep", "The step of the procedure at which the requirement is met.", functional=True)
prop("cardsToSelect", "data", "SelectionRequirement", "integer",
     "How many cards are selected (for a Ritual Spell, the Ritual Monster and the first tribute: its own rule asks for more until the Levels suffice).",
     functional=True)
prop("selectsFor", "object", "SelectionRequirement", "SelectionPurpose", "Why the cards are selected: the pending action's purpose.", functional=True)
prop("firstSelectsFor", "object", "SelectionRequirement", "SelectionPurpose",
     "Why the first card is selected, when it is not selected for the requirement's selectsFor (the Ritual or Fusion Monster to Summon).",
     functional=True)
prop("selectedFor", "object", "Card", "SelectionPurpose",
     "Why a card its player may select now would be selected, when it differs from the pending action's purpose (inferred; "
     "the `select` action's purpose).")
prop("completeWhenSelected", "data", "SelectionRequirement", "boolean",
     "True when the activation is complete once cardsToSelect cards are chosen; false when the card's own rule says when.")
prop("lifePointsToPay", "data", "PaymentRequirement", "integer", "The Life Points paid (rulebook p. 43: paid on activation, kept if negated).", functional=True)
prop("procedureAt", "object", "PendingAction", "ActivationStep", "The step of the activation procedure a pending activation is at (inferred).",
     functional=True)
FIRST_SELECTS_FOR = {"chooseFusionMonsterAndMaterials": "summon", "chooseRitualMonsterAndTributes": "summon"}
REQUIREMENTS = [  # name, class, step, cards, purpose, complete when selected, Life Points, comment
    ("nothingToSelect", "SelectionRequirement", "stepChooseTargets", 0, None, True, None,
     "The activation selects no card: it is complete at once (Pot of Greed, Dark Hole, traps without targets)."),
    ("chooseOneTarget", "SelectionRequirement", "stepChooseTargets", 1, "target", True, None,
     "Target 1 card (Mystical Space Typhoon, Monster Reborn, Brain Control, Axe of Despair, Man-Eater Bug, Junk Synchron)."),
    ("discardOneCard", "SelectionRequirement", "stepPayCosts", 1, "cost", True, None, "Discard 1 card from the hand as a cost (Magic Jammer)."),
    ("chooseFusionMonsterAndMaterials", "SelectionRequirement", "stepChooseTargets", 3, "material", True, None,
     "Polymerization: the Fusion Monster, then its 2 materials, chosen on activation (docs/decisions.md)."),
    ("chooseRitualMonsterAndTributes", "SelectionRequirement", "stepChooseTargets", 2, "tribute", False, None,
     "A Ritual Spell: the Ritual Monster, then tributes until their Levels reach its Level (the card's rule says when)."),
    ("chooseBattlePosition", "OptionRequirement", "stepChooseOptions", None, None, None, None,
     "The monster it Special Summons takes face-up Attack or face-up Defense Position, as its player chooses (rulebook p. 15); "
     "the choice is the activate action's `to` (default attack)."),
    ("payLifePoints800", "PaymentRequirement", "stepPayCosts", None, None, None, 800, "Pay 800 Life Points (Brain Control)."),
    ("payLifePoints1000", "PaymentRequirement", "stepPayCosts", None, None, None, 1000, "Pay 1000 Life Points (Seven Tools of the Bandit)."),
]
for n, k, step, count, why, complete, lp, c in REQUIREMENTS:
    individual(n, k, c)
    g.add((YGO[n], YGO["atStep"], YGO[step]))
    if count is not None:
        g.add((YGO[n], YGO["cardsToSelect"], Literal(count)))
        g.add((YGO[n], YGO["completeWhenSelected"], Literal(complete)))
    if why:
        g.add((YGO[n], YGO["selectsFor"], YGO[why + "Purpose"]))
    if n in FIRST_SELECTS_FOR:
        g.add((YGO[n], YGO["firstSelectsFor"], YGO[FIRST_SELECTS_FOR[n] + "Purpose"]))
    if lp is not None:
        g.add((YGO[n], YGO["lifePointsToPay"], Literal(lp)))
prop("properlySummoned", "data", "Monster", "boolean",
     "True for a must-be-Special-Summoned monster that was properly summoned (rulebook p. 15): inferred on the field, "
     "kept in the Graveyard by the driver (state: extra.properly_summoned).")
prop("summonPosition", "object", None, "CardPosition",
     "The battle position its player chose for the monster a Special Summon brings (rulebook p. 15: face-up Attack or Defense): "
     "of theAction or the PendingAction (the action's `to`), and of the card of a chain link (state: the link's "
     "extra.summon_position; Attack when absent).")
prop("effectIsOptional", "data", "Monster", "boolean",
     "The catalog's fact: true for a monster effect its player may decline ('you can', rulebook p. 11); false for a mandatory one (a FLIP effect).")
prop("effectDeclined", "data", "Monster", "boolean", "True once its player declined its optional trigger effect in this window (state: extra.effect_declined).")

# ---------------------------------------------------------------- special summons and effects (issue: every card of the list)
cls("FusionSummonable", ["FusionMonster"], "A Fusion Monster in the Extra Deck whose materials are in its player's hand or on the field (design 5.7).", it="evocabile per fusione")
cls("HasFieldMaterial", ["FusionSummonable"], "A fusionSummonable Fusion Monster with a material on the field: sent to the Graveyard, it frees a Monster Zone for the Fusion Monster (rulebook pp. 3, 8).")
cls("SynchroSummonable", ["SynchroMonster"], "A Synchro Monster in the Extra Deck whose Tuner and non-Tuners are face-up on the field (design 5.5).", it="evocabile per synchro")
cls("MaterialPlace", ["Card"], "A monster in a hand or a Monster Zone: where Fusion Materials and Ritual tributes may come from (rulebook pp. 8-9).")
cls("ZoneSpell", ["Spell"], "A spell placed in a Spell & Trap Zone when activated from the hand (every spell but a Field Spell).")
for n in ("NormalSpell", "RitualSpell", "ContinuousSpell", "QuickPlaySpell", "EquipSpell"):
    g.add((YGO[n], RDFS.subClassOf, YGO["ZoneSpell"]))
prop("isTuner", "data", "Monster", "boolean", "True for a Tuner (the catalog's fact, asserted false as well as true).")
prop("justFlipped", "data", "Monster", "boolean", "True right after the monster was turned face-up from face-down (state: extra.flipped): its FLIP effect activates.")
prop("monsterLevelsInHandAndField", "data", "Player", "integer", "The Levels of the monsters in the player's hand and Monster Zones, added up (kept by the driver).")

# ---------------------------------------------------------------- closure facts: counts and sums kept by the driver
# SWRL cannot count or add up over many individuals; abox.py computes these from the state (one place, documented there).
prop("selectedLevelTotal", "data", "PendingAction", "integer", "The Levels of the cards selected so far, added up (kept by the driver): a Ritual's tributes, a Synchro's materials.")
prop("graveyardDragonCount", "data", "Player", "integer", "How many Dragon monsters are in the player's Graveyard (kept by the driver).")
prop("spellCardsControlled", "data", "Player", "integer", "How many Spell Cards the player controls in Spell & Trap Zones (kept by the driver).")
prop("equippedAxeCount", "data", "Monster", "integer", "How many face-up Axe of Despair cards are equipped to the monster (kept by the driver).",
     countsCards="AxeOfDespair in=spell_trap_zones per=equipped_monster face_up=true")
prop("faceUpYamiCount", "data", "Duel", "integer", "How many face-up Yami cards are in the Field Zones (kept by the driver).",
     countsCards="Yami in=field_zone per=duel face_up=true")
prop("yamiFactor", "data", "MonsterType", "integer", "How Yami changes monsters of this Type: 1 (Fiend, Spellcaster), -1 (Fairy), 0 (others).")
for t in TYPES:
    local = "Type" + t.replace("-", "").replace(" ", "")
    g.add((YGO[local], YGO["yamiFactor"], Literal(1 if t in ("Fiend", "Spellcaster") else -1 if t == "Fairy" else 0)))
prop("selfAtkBonus", "data", "Monster", "integer", "ATK the monster's own continuous effect gives it now (inferred; 0 for most).")
prop("equippedTo", "object", "Card", "Monster", "The monster an Equip Spell is equipped to (state: equipped_to).", functional=True)
prop("equipTargetGone", "data", "Card", "boolean", "True when the monster an Equip Spell was equipped to is no longer in its zone (kept by the driver).")
prop("strongestInGraveyards", "object", "Duel", "Monster", "The monster with the highest ATK in either Graveyard (ties: player A's first, then the oldest); kept by the driver.")
prop("dieResult", "data", "Duel", "integer", "The die just rolled (from the duel's seeded RNG), seen for one step by the card that rolled it.")
prop("dieRolledFor", "object", "Duel", "Card", "The card whose effect rolled the die just rolled.")
prop("swordsTurnsLeft", "data", "Card", "integer", "Swords of Revealing Light: how many of the opponent's turns it still lasts (state: counters.turns).")
prop("swordsAgainst", "data", "Player", "integer", "How many face-up Swords of Revealing Light the player's opponent controls (kept by the driver).",
     countsCards="SwordsOfRevealingLight in=spell_trap_zones per=player side=opponent face_up=true")
prop("controlReturnsAtEnd", "data", "Monster", "boolean", "True for a monster whose control returns to its owner in the End Phase (Brain Control; state: extra.control_until_end).")

# ---------------------------------------------------------------- operations: what the rules ask the driver to do
cls("Operation", (), "Operation properties are inferred by rules and carried out by the driver's generic primitives.")
OPS = [
    ("opSendToGraveyard", "object", "Card", "Player", "move", "Send the card to the graveyard of the player given (its owner)."),
    ("opDestroy", "object", "Card", "Player", "move", "Destroy the card: it goes to the graveyard of the player given (its owner)."),
    ("opToMonsterZone", "object", "Card", "Player", "move", "Place the card in the first free Monster Zone of the player given."),
    ("opToSpellTrapZone", "object", "Card", "Player", "move", "Place the card in the first free Spell & Trap Zone of the player given."),
    ("opToHand", "object", "Card", "Player", "move", "Put the card in the hand of the player given."),
    ("opSetPosition", "object", "Card", "CardPosition", "set_property", "Set the card's position."),
    ("opSetSummonedAs", "object", "Card", "SummonMethod", "set_property", "Record how the monster was summoned."),
    ("opSetSummonedThisTurn", "data", "Card", "boolean", "set_property", "Set summonedThisTurn."),
    ("opSetSetThisTurn", "data", "Card", "boolean", "set_property", "Set setThisTurn."),
    ("opSetPositionChanged", "data", "Card", "boolean", "set_property", "Set positionChangedThisTurn."),
    ("opSetAttacksDeclared", "data", "Card", "integer", "set_property", "Set attacksDeclared."),
    ("opSetChosen", "data", "Card", "boolean", "set_property", "Mark the card as selected for the pending action."),
    ("opSetNormalSummonsLeft", "data", "Player", "integer", "set_property", "Set the player's Normal Summons left this turn."),
    ("opDamage", "data", "Player", "integer", "change_lp", "The player loses this many Life Points."),
    ("opDraw", "data", "Player", "integer", "draw", "The player draws this many cards."),
    ("opLoseDuel", "data", "Player", "boolean", "end_duel", "The player loses the duel (e.g. no card to draw)."),
    ("opSetPhase", "object", "Duel", "Phase", "set_property", "Go to this phase."),
    ("opStartNextTurn", "data", "Duel", "boolean", "start_turn", "End this turn and start the opponent's: per-turn values reset."),
    ("opDeclareAttack", "object", "Duel", "Monster", "set_property", "Record the attacking monster."),
    ("opSetAttackTarget", "object", "Duel", "Monster", "set_property", "Record the attack's target."),
    ("opDeclareDirectAttack", "data", "Duel", "boolean", "set_property", "Record that a direct attack is being resolved."),
    ("opEndBattle", "data", "Duel", "boolean", "end_battle", "The current battle is over: forget the attacker and the target."),
    ("opSetPriority", "object", "Duel", "Player", "set_property", "Give priority to this player."),
    ("opAskPhaseEnd", "object", "Duel", "Phase", "set_property", "The turn player asks to go on to this phase: it begins once the opponent passes (state: extra.phase_end)."),
    ("opAskTurnEnd", "data", "Duel", "boolean", "set_property", "The turn player asks to end the turn: it ends once the opponent passes (state: extra.phase_end = \"turn\")."),
    ("opSetJustSummoned", "object", "Card", "SummonMethod", "set_property", "Open a response window for this summon."),
    ("opSetSummonPosition", "object", "Card", "CardPosition", "set_property", "Keep the battle position chosen for the monster the card will Special Summon."),
    ("opDeclineEffect", "data", "Card", "boolean", "set_property", "Its player declined the monster's optional trigger effect in this window."),
    ("opPayLifePoints", "data", "Player", "integer", "change_lp", "The player pays this many Life Points (a cost, not damage)."),
    ("opAddChainLink", "object", "Card", "Player", "add_chain_link", "The card's activation becomes the new last link of the chain, by the player given."),
    ("opResolveChain", "data", "Duel", "boolean", "resolve_chain", "Both players passed: the chain resolves, last link first."),
    ("opFinishLink", "data", "ChainLink", "boolean", "finish_link", "The link has resolved: it leaves the chain."),
    ("opNegateLink", "data", "ChainLink", "boolean", "negate_link", "The link's activation is negated: it resolves without effect."),
    ("opCloseWindow", "data", "Duel", "boolean", "close_window", "The response window closes: a summon stands, an attack goes on to damage."),
    ("opSpecialSummon", "object", "Card", "Player", "move", "Special Summon the card to the first free Monster Zone of the player given."),
    ("opToFieldZone", "object", "Card", "Player", "move", "Place the card in the Field Zone of the player given."),
    ("opSetAtkModifier", "data", "Card", "integer", "set_property", "Set the lasting ATK change of a resolved effect."),
    ("opSetDefModifier", "data", "Card", "integer", "set_property", "Set the lasting DEF change of a resolved effect."),
    ("opSetTurnsLeft", "data", "Card", "integer", "set_property", "Set how many turns the card still lasts (state: counters.turns)."),
    ("opTakeControlUntilEnd", "object", "Card", "Player", "move", "Move the monster to the player's side until the End Phase (its owner stays the same)."),
    ("opRollDie", "data", "Card", "integer", "roll_die", "The card's effect rolls a die with this many sides (the duel's seeded RNG)."),
    ("opEquipTo", "object", "Card", "Monster", "set_property", "Equip the Equip Spell to this monster."),
    ("opTriggerEffect", "object", "Card", "Player", "trigger", "The monster's effect is triggered: its player selects what it needs, then it goes onto the chain."),
    ("opOpenSelection", "object", "Duel", "SelectionPurpose", "open_choice", "Open a pending action of theAction that waits for selections for this purpose."),
    ("opSelectionsNeeded", "data", "Duel", "integer", "open_choice", "How many cards the opened selection needs."),
    ("opClosePending", "data", "Duel", "boolean", "close_choice", "The pending action is complete or cancelled: forget it."),
]
for name, kind, dom, rng, primitive, comment in OPS:
    prop(name, kind, dom, rng, comment, primitive=primitive)

if __name__ == "__main__":
    import argparse

    parser = argparse.ArgumentParser(description="Write the TBox as RDF/XML.")
    parser.add_argument("--out", type=Path, default=OUT, metavar="PATH",
                        help=f"where to write it (default: {OUT.relative_to(OUT.parent.parent)})")
    out = parser.parse_args().out
    g.serialize(out, format="xml")
    print(f"wrote {out} ({len(g)} triples)")
