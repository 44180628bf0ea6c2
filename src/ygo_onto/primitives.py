"""The driver's generic primitives: how inferred operations change the state.

Rules infer operation facts (properties annotated `ygo:primitive`); each primitive here is
registered under that name (business-rules style: one small applier per primitive, found in
one registry).  A primitive knows nothing about cards: it moves, sets, counts.
"""
from __future__ import annotations

import random
from typing import Callable

from .abox import KEYED_AREAS, PHASE_NAMES, POSITION_NAMES, parse_card_ind
from .abox import card_ind as individual_at
from .actions import short_of_targets
from .cards import TYPE_NAMES, cards_naming, catalog
from .errors import YgoError
from .reasoning import named
from .state import (CARD_MARKS, FIELD_CARD_DEFAULTS, LIST_AREAS, MAX_COUNT, MAX_LIFE_POINTS, MAX_MODIFIER, PLAYERS, TURN_LOCKS,
                    new_field_card, opponent, usable_monster_zones)

PRIMITIVES: dict[str, Callable] = {}

# The order in which operations of one step are carried out: leaving zones before entering them
# (a tribute frees the zone its summon takes; what a card destroys reaches the Graveyard before the
# card itself), cards before players, the duel last.
ORDER = ["opMarkEffectSummons", "opSetChosen", "opNegateLink",
         # leaving zones, then entering them
         "opDestroy", "opDestroyHighestDef", "opDiscard", "opDiscardAtRandom",
         # (an excavation is the effect: its cards reach the Graveyard before the resolved Spell does, rulebook p. 35)
         "opExcavateToHand", "opExcavateToMonsterZone", "opExcavateToGraveyard", "opMill",
         "opSendToGraveyard", "opAddMatchesToHand", "opToHand", "opToExtraDeck", "opToMonsterZone", "opTakeControlUntilEnd", "opSwapControl", "opSpecialSummon", "opSpecialSummonAll", "opPickUpAndSummon", "opPickUpUnderSummonLock", "opSpecialSummonTokens",
         "opToSpellTrapZone",
         "opToFieldZone",
         # the cards' own values
         "opSetPosition", "opFlipWithoutEffect", "opSetSummonedAs", "opSetSummonedThisTurn", "opSetSetThisTurn", "opSetPositionChanged",
         "opSetAttacksDeclared", "opSetJustSummoned", "opOpenSummonWindow", "opAttemptSummon", "opDeclineEffect", "opNegateEffects", "opSetReplayRight", "opSetSecondAttack", "opMarkAttacked", "opSetSummonPosition", "opSetDeclaredType", "opSetLinkEffect", "opSetLinkCounters", "opSetAtkModifier",
         "opSetDefModifier", "opSetTurnsLeft", "opSetAtkUntilEndPhase", "opLockZones", "opReleaseZones",
         "opEquipTo",
         # players
         "opSetNormalSummonsLeft", "opPayLifePoints", "opDamage", "opDamagePerMatch", "opDamagePerLevelOfDiscarded", "opBattleDamageEvent", "opDirectBattleDamageEvent", "opTargetResolvedEvent", "opBattleEvent", "opDestroysByBattleEvent", "opGainLifePoints", "opDraw", "opShuffleDeck", "opRollDie", "opTossCoins", "opNeedHeads",
         # the duel: phase, battle, chain, selections, priority
         "opSetPhase", "opDeclareAttack", "opSetAttackTarget", "opDeclareDirectAttack", "opEndBattle",
         # (goat's Damage Step sub-steps: a step's opDestroyByBattle reads its opSetEndOfDamageStep from the facts)
         "opSetEndOfDamageStep", "opEndDamageStep",
         "opAddChainLink", "opDiscardAsCost", "opOpenSelection", "opSetCostLevel", "opAskDiscard", "opAskSwap", "opAskPerHeadsDestroy", "opAskDeclaredLevel", "opAskReturnToDeck", "opAskSummonPosition", "opAskLockZones", "opSelectionsNeeded", "opClosePending", "opSetPriority", "opMarkAttackAnswered",
         "opAskPhaseEnd", "opAskTurnEnd", "opHoldEndPhase",
         "opTriggerEffect", "opChooseForTrigger", "opWaitForChainEnd", "opStopWaitingForChainEnd", "opMarkDamageStepChain", "opMarkSummonChain", "opLockSummonsThisTurn", "opLockBattlePhaseThisTurn", "opCloseWindow", "opAttemptSucceeds", "opFinishLink", "opMissSummonTiming", "opEndMissedSummons", "opResolveChain", "opLoseDuel",
         "opStartNextTurn"]


ORDER_INDEX = {op: i for i, op in enumerate(ORDER)}

ORDER_INDEX["opDestroyByBattle"] = ORDER_INDEX["opDestroy"]  # (a destruction: its place in a step is opDestroy's)


# A move operation the driver does not list has its place by its destination (ygo:destinationArea):
# to a list of cards with the moves off the field (after the last of them), to a zone of the field
# with the moves onto it; two such operations by their names.
# A monster destroyed by battle is sent to the Graveyard at the end of the Damage Step (GOAT pack README item 3), after
# the battle's other events of its step (its damage, the BattleEvent): the time of that move's event (Step.moved_at).
BATTLE_DESTRUCTION_TIME = (len(ORDER), "")
MOVES_OFF_FIELD_END = ORDER_INDEX["opToExtraDeck"] + 0.5
MOVES_ONTO_FIELD_END = ORDER_INDEX["opToFieldZone"] + 0.5
# A new counter operation (primitive set_counter) is carried out with the cards' own values.
COUNTERS_END = ORDER_INDEX["opSetTurnsLeft"] + 0.5


def step_place(op: str, vocabulary) -> tuple:
    """Where an operation is carried out in a step: ORDER, or for a new move operation its
    destination's group, for a new counter operation the cards' values (a new operation of any other
    primitive is refused on load: ontofile)."""
    i = ORDER_INDEX.get(op)
    if i is not None:
        return (i, "")
    ann = vocabulary.annotations[op]
    if ann["primitive"] == "set_counter":
        return (COUNTERS_END, op)
    area = ann["destinationArea"]
    return (MOVES_OFF_FIELD_END if area in LIST_AREAS else MOVES_ONTO_FIELD_END, op)


def primitive(name: str):
    def deco(fn):
        PRIMITIVES[name] = fn
        return fn
    return deco


class Token:
    """A card in a list area, given an identity so that moves can find it after indexes shift."""

    __slots__ = ("name",)

    def __init__(self, name: str):
        self.name = name


class ChosenZone:
    """An empty Monster Zone selected for a pending action by its place (a lockZone selection: the zones a
    ZoneLockEffect's controller chooses), named by the individual of the card its place would hold
    (A_monster_zones_2_card): kept in the pending's chosen places as that place, which no move shifts."""

    __slots__ = ("ref",)

    def __init__(self, name: str):
        self.ref = parse_card_ind(name)


class Step:
    """One step of the apply loop: the state being changed, with cards located by identity."""

    def __init__(self, state: dict, transient: dict, vocabulary, rng: random.Random, ops: list):
        self.state = state
        self.vocabulary = vocabulary
        self.rng = rng
        # what carries over to the next step: a chain being resolved
        self.transient = {k: v for k, v in transient.items() if k == "resolving"}
        self.rolled = None  # (card object, result): a die rolled in this step, seen in the next
        self.tossed = {}  # coins tossed in this step, seen in the next: "card" (object), "heads", "needed"
        self.flipped = []  # monsters with a FLIP effect turned face-up in this step: their effects wait from the next on
        self.effect_summons = False  # a chain link resolves in this step: its Special Summons are an effect's (opMarkEffectSummons)
        self.triggered = None  # the card whose triggered effect opened its selections in this step
        self.waiting_triggers = None  # the triggers of one moment left waiting by it (_simultaneous_triggers), as objects
        self.deferred = ()  # the triggers whose links wait behind the one that opens (_defer_immediate_triggers)
        self.waiting_events = {}  # id of a waiting trigger's object -> its event's time (triggerEventIndex), if known
        self.link_extra = {}  # card individual -> what the link it makes in this step keeps: "effect", "counters"
        self.previous = transient
        self.attacker = None
        self.facts: set = frozenset()
        # the game events of this step, for the next: MoveEvents (move: card object, from area, to area, reason)
        # BattleEvents (battle_event: card object, None, None, Battled(the other monster's object)) and the other
        # events of a monster that moved nowhere (card object, None, None, the event's class: battle_damage_event,
        # destroys_by_battle_event)
        self.moved = []
        self.moved_at = []  # the time of each event of moved: the place of the operation that made it (apply_operations)
        self.move_index = {}  # card individual -> its MoveEvent in moved (_record_move)
        self.moved_from = {}  # id of a moved card's object now -> its individual at the step's start (_record_move)
        self.discarded_at_random = []  # (player, card name) of this step's random discards (damage_per_level_of_discarded)
        players = state["players"]
        # the Decks and hands at the step's start: the individuals of the step's facts name a card of those by its
        # card and copy in the state the reasoner saw (abox.list_names), so they are read in these lists all the step
        self.start = {"ruleset": state["ruleset"],
                      "players": {p: {a: tuple(players[p][a]) for a in KEYED_AREAS} for p in PLAYERS}}
        # the cards named by an individual (A_hand_3_card): those of the operations' arguments, the pending
        # selection's chosen cards and the attacks' targets; no other card is looked up by its place, so only
        # these are found (at the step's start, before any operation moves a card)
        names = [arg for op in ops for arg in op[1:] if type(arg) is str and arg.endswith("_card")]
        pending = state["pending"]
        chosen = [self._ind(r) for r in pending["chosen"]] if pending is not None else None
        if chosen:
            names += chosen
        # cards marked in the state's extra by a card reference (CARD_MARKS): individual -> its area at the step's start
        self.marks = {key: {self._ind(r): r["area"] for r in state.get("extra", {}).get(key, ())} for key in CARD_MARKS}
        names += [n for marked in self.marks.values() for n in marked]
        attacks = []  # (attacker, its target's individual)
        attacked = []  # (a monster that attacks every monster, a monster it attacked this turn: its individual)
        # Equip Spells and their monsters as objects: an Equip Spell equips a card, not a zone (rulebook
        # p. 17), so it follows its monster to another zone (control) and loses it when it leaves the field
        self.equips = {}  # equip id -> (equip field card, monster field card or None)
        # the monsters an Equip Card is equipped to at the step's start: individual -> their Equip Cards' objects; a
        # move of one is a MoveEvent naming them (eventEquip), from which the rules destroy an Equip Card whose monster
        # left the field (rulebook p. 17)
        self.bonded: dict[str, list] = {}
        for p in PLAYERS:
            side = players[p]
            for fc in side["monster_zones"]:
                if fc is not None and fc["extra"]:
                    attack = fc["extra"].get("attack")
                    if attack and attack.get("target"):
                        target = self._ind(attack["target"])
                        attacks.append((fc, target))
                        names.append(target)
                    for r in fc["extra"].get("attacked_monsters", ()):  # (attacksEveryMonster: opMarkAttacked)
                        attacked.append((fc, self._ind(r)))
                        names.append(self._ind(r))
            for fc in side["spell_trap_zones"]:
                if fc is not None and fc["equipped_to"] is not None:
                    eq = fc["equipped_to"]
                    monster = players[eq["player"]]["monster_zones"][eq["zone"]]
                    self.equips[id(fc)] = (fc, monster)
                    if monster is not None:
                        self.bonded.setdefault(f"{eq['player']}_monster_zones_{eq['zone']}_card", []).append(fc)
        # the list areas whose cards get a Token (the areas of the names; a Token moved into another list is
        # converted back by finish all the same)
        places = []
        self.wrapped = wrapped = set()
        for name in names:
            place = self.place_of(name)
            if place is not None:
                where = place[:2]
                places.append((name, where, place[2]))
                if where[1] in LIST_AREAS and where not in wrapped:
                    wrapped.add(where)
                    side = players[where[0]]
                    side[where[1]] = [Token(n) for n in side[where[1]]]
        self.objects: dict[str, object] = {}
        for name, (p, area), index in places:
            entries = players[p][area]
            if area == "field_zone":
                card = entries if index == 0 else None
            else:
                card = entries[index] if index < len(entries) else None
            if card is not None:
                self.objects[name] = card
        # (a chosen place with no card is an empty Monster Zone a lockZone selection chose: kept as its place)
        self.pending_refs = None if chosen is None else [self._chosen(name) for name in chosen]
        # attack targets as objects, so they are found again after moves: attacker id -> (attacker, target)
        self.attack_targets = {id(fc): (fc, self.objects.get(target)) for fc, target in attacks}
        # the monsters each monster that attacks every monster attacked this turn, as objects (extra.attacked_monsters):
        # attacker id -> (attacker, [monsters])
        self.attacked = {}
        for fc, target in attacked:
            self.attacked.setdefault(id(fc), (fc, []))[1].append(self.objects.get(target))

    def field_monsters(self):
        for p in PLAYERS:
            yield from (fc for fc in self.state["players"][p]["monster_zones"] if fc is not None)

    def on_field(self, obj) -> bool:
        try:
            return self.locate(obj)["area"] in ("monster_zones", "spell_trap_zones", "field_zone")
        except YgoError:
            return False

    def _bonds(self, obj, came: str | None) -> tuple:
        """A MoveEvent's Equip Cards (Step.bonded: those equipped to its monster at the step's start) where they
        are now, as (eventEquip, place) pairs."""
        equips = self.bonded.get(self.moved_from.get(id(obj))) if came is not None else None
        return tuple(("eventEquip", tuple(self.locate(e).values())) for e in equips if self._findable(e)) if equips else ()

    def _findable(self, obj) -> bool:
        try:
            self.locate(obj)
            return True
        except YgoError:
            return False

    def _chosen(self, name: str):
        """The card an individual of the pending's chosen ones names, or the empty Monster Zone a lockZone selection
        chose (ChosenZone)."""
        obj = self.objects.get(name)
        return obj if obj is not None or "_monster_zones_" not in name else ChosenZone(name)

    def _ind(self, ref: dict) -> str:
        """The individual of the card at a place (abox.card_ind; a Deck's or a hand's in its list at the step's
        start)."""
        return individual_at(ref["player"], ref["area"], ref["index"], self.start)

    def place_name(self, value) -> str:
        """A value of an operation or a fact as the apply loop orders it: a card of a Deck or a hand by its place's
        name (A_hand_2_card; a Deck's index from its top), the order of the state's lists, not of its individual's
        name (abox.list_names); any other value as its string."""
        if type(value) is str and value[2:6] in KEYED_AREAS and value[6:7] == "_" and value.endswith("_card"):
            place = self.place_of(value)
            if place is not None:
                return f"{place[0]}_{place[1]}_{place[2]}_card"
        return str(value)

    def place_of(self, name: str) -> tuple | None:
        """(player, area, index) of the place a card's individual names (a Deck's or a hand's in its list at the step's
        start: _ind), or None for another name (a card an operation names by what it does: A_deck_milled0_card)."""
        head, _, index = name[:-5].rpartition("_")
        if not index.isdigit() or (head not in _IND_HEADS and head.rpartition("_")[0] not in _IND_HEADS):
            return None
        ref = parse_card_ind(name, self.start)
        return ref["player"], ref["area"], ref["index"]

    def locate(self, obj) -> dict:
        # a field card (a dict) is in a zone, a Token in a list: only those areas are searched (a card is in one
        # place, so the answer is the one a search of every area finds)
        zones = type(obj) is dict
        for p in PLAYERS:
            side = self.state["players"][p]
            for area in ("monster_zones", "spell_trap_zones") if zones else LIST_AREAS:
                for i, entry in enumerate(side[area]):
                    if entry is obj:
                        return {"player": p, "area": area, "index": i}
            if zones and side["field_zone"] is obj:
                return {"player": p, "area": "field_zone", "index": 0}
        raise YgoError("internal: a card was lost while applying operations")

    def remove(self, obj, ref: dict) -> tuple[str, dict | None, str]:
        """Take a card out of where it is (`ref`, from locate): its name, its field card (if it was on
        the field), its owner."""
        side = self.state["players"][ref["player"]]
        if ref["area"] in LIST_AREAS:
            side[ref["area"]].pop(ref["index"])
            return obj.name, None, ref["player"]
        if ref["area"] == "field_zone":
            side["field_zone"] = None
        else:
            side[ref["area"]][ref["index"]] = None
        return obj["card"], obj, obj["owner"]

    def wrap(self, player: str, *areas: str) -> None:
        """The cards of the player's list areas as Tokens, once per step, so that the step's other moves still find
        theirs (finish converts them back)."""
        side = self.state["players"][player]
        for area in areas:
            if (player, area) not in self.wrapped:
                self.wrapped.add((player, area))
                side[area] = [Token(n) if type(n) is str else n for n in side[area]]

    def finish(self) -> dict:
        """Back to the JSON form (names in list areas, refs in pending and battle)."""
        if self.pending_refs is not None and self.state["pending"] is not None:
            self.state["pending"]["chosen"] = [o.ref if type(o) is ChosenZone else self.locate(o)
                                               for o in self.pending_refs if o is not None]
        for link in self.state["chain"]:  # targets added this step are ("card", object) pairs
            link["targets"] = [self.locate(t[1]) if isinstance(t, tuple) else t for t in link["targets"]]
        for fc, target in self.attack_targets.values():
            attack = fc["extra"].get("attack")
            if attack is None or not self.on_field(fc):
                continue  # the battle ended, or the attacker left the field
            if target is not None and self.on_field(target):
                attack["target"] = self.locate(target)
            else:  # the target left the field before damage: a replay (rulebook p. 28)
                attack["target"] = None
                attack["target_lost"] = True
        for fc, monsters in self.attacked.values():  # the attacked monsters still in a Monster Zone, where they are
            side = self.locate(fc)["player"] if self.on_field(fc) else None
            places = [self.locate(m) for m in monsters if m is not None and self.on_field(m)]
            places = [r for r in places if r["area"] == "monster_zones" and r["player"] != side]  # (the opponent's)
            if places and side is not None:
                fc["extra"]["attacked_monsters"] = places
            else:
                fc["extra"].pop("attacked_monsters", None)
        for equip, monster in self.equips.values():
            if not self.on_field(equip):
                if monster is not None and monster["extra"].get("control_by_equip") and self.on_field(monster) \
                        and equip["card"] in control_equips(self.state["ruleset"], self.vocabulary):
                    monster["extra"]["control_equip_gone"] = True  # its control returns (rules: controlEquipGone)
                continue
            where = self.locate(monster) if monster is not None and self.on_field(monster) else None
            if where is not None and where["area"] == "monster_zones":
                equip["equipped_to"] = {"player": where["player"], "zone": where["index"]}
            else:  # its monster left the field: equipped to no card (its MoveEvent names this card, eventEquip,
                equip["equipped_to"] = None  # and the rules destroy it: rulebook p. 17)
        if self.waiting_triggers is not None:  # (extra.simultaneous_triggers: the ABox's simultaneousTrigger)
            waiting = [dict(self.locate(o), event=self.waiting_events[id(o)]) if id(o) in self.waiting_events
                       else self.locate(o) for o in self.waiting_triggers if self._findable(o)]
            if waiting:
                self.state.setdefault("extra", {})["simultaneous_triggers"] = waiting
            else:
                drop_extra(self.state, "simultaneous_triggers")
        if self.rolled:
            card, result = self.rolled
            self.transient["die"] = {"card": tuple(self.locate(card).values()), "result": result}
        if "heads" in self.tossed and self._findable(self.tossed["card"]):
            self.transient["coins"] = {"card": tuple(self.locate(self.tossed["card"]).values()),
                                       "heads": self.tossed["heads"], "needed": self.tossed.get("needed")}
        # a BattleEvent names the monster battled, located as the event's card is (abox.event_facts)
        # each event's order in the step (abox: eventOrder): the events of one operation happen at the same time, and
        # the operations are carried out in their order, so an event of an earlier operation happened earlier
        order = {t: n for n, t in enumerate(sorted(set(self.moved_at)), 1)}
        events = [(*self.locate(obj).values(), came, went,
                   tuple(self.locate(why.card).values()) if isinstance(why, Battled) else why, order[at],
                   *self._bonds(obj, came))
                  for (obj, came, went, why), at in zip(self.moved, self.moved_at)
                  if self._findable(obj) and (not isinstance(why, Battled) or self._findable(why.card))]
        if events:  # the game events of this step: facts of the next step only (abox: the part "events")
            self.transient["events"] = events
        for fc in self.flipped:  # kept on the card until its FLIP effect is on the chain (add_chain_link)
            if self.on_field(fc):
                fc["extra"]["flipped"] = True
        for key, mark in CARD_MARKS.items():  # each marked card where it is now, while the mark lasts there
            places = []
            for n, came in self.marks[key].items():
                obj = self.objects.get(n)
                if obj is not None and self._findable(obj) and (came, self.locate(obj)["area"]) in mark.keeps:
                    places.append(self.locate(obj))
            if places:
                self.state.setdefault("extra", {})[key] = places
            else:
                drop_extra(self.state, key)
        cat = catalog(self.state["ruleset"])
        for p, area in self.wrapped:
            entries = self.state["players"][p][area]
            # a token moved off the field ceases to exist (state-format.md "Tokens"): it is gone once the step's
            # moves are done, so every operation of the step still found it where it went
            self.state["players"][p][area] = [t if type(t) is str else t.name for t in entries
                                              if type(t) is str or not cat.get(t.name).is_token]
        return self.transient


# "A_hand" of "A_hand_3_card" -> (player, area), for every area of a player
_IND_HEADS = {f"{p}_{area}": (p, area) for p in PLAYERS for area in (*LIST_AREAS, "monster_zones", "spell_trap_zones",
                                                                     "field_zone")}


def apply_operations(state: dict, ops: list[tuple], transient: dict, vocabulary, rng: random.Random,
                     facts: set = frozenset()) -> dict:
    """Carry out the operations of one step, in ORDER; returns the transient facts of the next step."""
    step = Step(state, transient, vocabulary, rng, ops)
    step.facts = facts
    if len(ops) > 1:
        ops = sorted(ops, key=lambda o: (*step_place(o[0], vocabulary), step.place_name(o[1]), step.place_name(o[2])))
    annotations = vocabulary.annotations
    # (not a player's action: the link it makes is an activation of theirs, no trigger's)
    if step.state["pending"] is None and "action" not in transient and named(facts, ("opTriggerEffect",)):
        ops = _defer_immediate_triggers(step, ops)
    declined = {f[1] for f in named(facts, ("declinedEvent",))}
    if declined:  # passed over with the optional trigger of their event its player declined: they wait no more
        _stop_waiting(step, declined)
    moved = step.moved
    for op in ops:
        before = len(moved)
        PRIMITIVES[annotations[op[0]]["primitive"]](step, *op)
        if len(moved) > before:  # the time of the operation's events: its place, a battle's destruction last
            at = BATTLE_DESTRUCTION_TIME if op[0] == "opDestroyByBattle" else step_place(op[0], vocabulary)
            step.moved_at += [at] * (len(moved) - before)
    return step.finish()


def _player(ind: str) -> str:
    return ind[-1]


# The areas a move may send a card to (ygo:destinationArea, named as in the state format): lists of
# cards, the zones of five, the Field Zone; a card entering a zone with no field card yet gets the
# state format's default position there (state-format.md "A card on the field").
ZONE_AREAS = ("monster_zones", "spell_trap_zones", "field_zone")
MOVE_AREAS = LIST_AREAS + ZONE_AREAS
DEFAULT_POSITION = {"monster_zones": "attack", "spell_trap_zones": "face_up", "field_zone": "face_up"}
PLACES = ("end", "start", "shuffled")  # ygo:destinationPlace, in a list area; end is the default


@primitive("move")
def move(step: Step, op: str, card_ind: str, player_ind: str) -> None:
    """Move the card to an area of the player given: which area, and where in it, is the operation
    property's data (ygo:destinationArea, ygo:destinationPlace, ygo:marksCard in the ontology)."""
    ann = step.vocabulary.annotations[op]
    area = ann["destinationArea"]
    obj = step.objects[card_ind]
    if op == "opDestroyByBattle" and _battle_destruction_held(step):
        # goat's Damage Step (GOAT pack README item 3, "Monsters destroyed by battle are sent to the Graveyard" at the
        # End of the Damage Step): the monster stays face-up in its Monster Zone, marked destroyed by battle
        # (extra.destroyed_by_battle: the ABox's destroyedByBattlePending), until the rules send it at that End; one
        # already moved off the field in this step (banished instead: banish-replacement.swrl) keeps no mark
        if type(obj) is dict and step.on_field(obj):
            obj["extra"]["destroyed_by_battle"] = True
        return
    ref = step.locate(obj)
    name, fc, owner = step.remove(obj, ref)
    side = step.state["players"][_player(player_ind)]
    watched = name in watched_cards(step.state["ruleset"], step.vocabulary) or card_ind in step.bonded
    if fc is not None and fc["extra"].get("flipped") and ("TriggerDueWhenHidden", card_ind) in step.facts:
        step.marks["flipped_hidden"][card_ind] = ref["area"]  # its FLIP stays due in the hand or the Deck (Step.finish)
    if ref["area"] == "graveyard":
        _remember_properly_summoned(step.state, ref["player"], name, False)
    if area in LIST_AREAS:
        _to_list_area(step, side, area, name, card_ind, player_ind, ref, ann, watched)
        return
    room = usable_monster_zones(step.state, _player(player_ind)) if area == "monster_zones" else None
    if "areaWhenFull" in ann and (not room if area == "monster_zones" else None not in side.get(area, (None,))):
        # ygo:areaWhenFull: a card for which the player's zones have no room left goes to that area instead
        # (rulebook p. 3, at most 5 monsters; p. 42 "Control": to its owner's Graveyard)
        _to_list_area(step, side, ann["areaWhenFull"], name, card_ind, player_ind, ref, ann, watched)
        return
    if fc is not None and ref["area"] != area:  # a monster equipped as an Equip Card (EquipMonsterEffect): a new card
        fc = None                                # of its zone, face-up, with none of its monster bookkeeping
    if fc is not None and area != "field_zone":  # a card changing zones on the field (control): its bookkeeping starts again
        fc["extra"] = {ann["marksCard"]: True} if "marksCard" in ann else {}
    new = fc if fc is not None else new_field_card(name, owner, DEFAULT_POSITION[area])
    if area == "field_zone":
        if side["field_zone"] is not None:
            raise YgoError("internal: the Field Zone is taken; the old Field Spell must be destroyed first")
        side["field_zone"] = new
    else:
        # (a Monster Zone: one a ZoneLockEffect locks is not free, state.usable_monster_zones)
        free = room if area == "monster_zones" else [i for i, z in enumerate(side[area]) if z is None]
        if not free:
            raise YgoError(f"internal: no free {area} for {name}: a rule allowed what the board cannot hold")
        side[area][free[0]] = new
    step.objects[card_ind] = new
    if watched:
        _record_move(step, card_ind, new, ref["area"], area, ann.get("reasonOfMove"))


def _battle_destruction_held(step: Step) -> bool:
    """Whether the step calculates damage in goat's Damage Step (it also sets the Duel's endOfDamageStep to 1:
    rules/goat/damage-step.swrl), whose battle destructions wait on the field for the End of the Damage Step."""
    return any(f[2] == 1 for f in named(step.facts, ("opSetEndOfDamageStep",)))


def _to_list_area(step: Step, side: dict, area: str, name: str, card_ind: str, player_ind: str, ref: dict,
                  ann: dict, watched: bool) -> None:
    """The move's second half for a list of cards: where in it (ygo:destinationPlace), and its event."""
    tok = Token(name)
    place = ann.get("destinationPlace", "end")
    side[area].insert(0 if place == "start" else len(side[area]), tok)
    if place == "shuffled":  # from the duel's seeded RNG; the state keeps the next seed (as roll_die)
        step.rng.shuffle(side[area])
        step.state["rng_seed"] = step.rng.randrange(2**31)
    step.objects[card_ind] = tok
    if watched:
        _record_move(step, card_ind, tok, ref["area"], area, ann.get("reasonOfMove"))
    step.wrapped.add((_player(player_ind), area))
    if area == "graveyard" and ("properlySummoned", card_ind, True) in step.facts:
        _remember_properly_summoned(step.state, _player(player_ind), name, True)


def _record_move(step: Step, card_ind: str, obj, came: str, went: str, reason) -> None:
    """A MoveEvent of the step. A card moved twice in one step (a destruction the rules replace with a banish:
    rules/common/effects/banish-replacement.swrl) makes one event, from where it was to where it ends, with the
    last move's reason: the Graveyard it passed through is no event (a card banished instead of going there has no
    "sent to the Graveyard" trigger: banishWhenLeavingField, banishesDestroyedByBattle)."""
    first = step.move_index.get(card_ind)
    step.moved_from[id(obj)] = card_ind
    if first is None:
        step.move_index[card_ind] = len(step.moved)
        step.moved.append((obj, came, went, reason))
    else:
        step.moved[first] = (obj, step.moved[first][1], went, reason)


def watched_cards(ruleset: str, vocabulary) -> frozenset:
    """The names of the catalog's cards whose moves are game events (a MoveEvent): those with an effect whose
    trigger is a MoveTrigger (the ontology's data). Other cards' moves assert nothing: the facts stay few."""
    return cards_naming(catalog(ruleset), vocabulary, "_watched", _move_triggered_effects)


def control_equips(ruleset: str, vocabulary) -> frozenset:
    """The names of the catalog's Equip Spells whose control lasts while they are equipped (an effect with
    ygo:controlDuration whileEquipped: the ontology's data). When one leaves the field, Step.finish marks its monster
    (extra.control_equip_gone), since SWRL cannot say "no such Equip Spell is equipped to it any more"."""
    return cards_naming(catalog(ruleset), vocabulary, "_control_equips", _while_equipped_effects)


def _while_equipped_effects(vocabulary) -> set:
    return {s for p, s, o in vocabulary.tbox_facts if p == "controlDuration" and o == "whileEquipped"}


# the operation -> (the GameEvent class it records, the EffectTrigger individual of the ontology that the event starts)
BATTLE_DAMAGE_EVENTS = {"opBattleDamageEvent": ("BattleDamageEvent", "onBattleDamage"),
                        "opDirectBattleDamageEvent": ("DirectBattleDamageEvent", "onDirectBattleDamage")}


def battle_damage_watchers(ruleset: str, vocabulary, op: str = "opBattleDamageEvent") -> frozenset:
    """The names of the catalog's cards whose battle damage (by the operation op: any, or by a direct attack) is a
    game event: those with an effect whose trigger is that event's (the ontology's data). Other cards' battle damage
    asserts nothing."""
    trigger = BATTLE_DAMAGE_EVENTS[op][1]
    return cards_naming(catalog(ruleset), vocabulary, "_battle_damage_watchers_" + trigger,
                        lambda v: {s for p, s, o in v.tbox_facts if p == "hasTrigger" and o == trigger})


BATTLE_OPPONENT_KIND = "battleOpponent"  # the filter kind of "that monster": the CardKindChoice individual of the ontology


class Battled:
    """The other monster of a BattleEvent, as an object of the step (found again after the step's moves)."""

    __slots__ = ("card",)

    def __init__(self, card):
        self.card = card


def battle_watchers(ruleset: str, vocabulary) -> frozenset:
    """The names of the catalog's cards whose battles are game events (a BattleEvent): those with an effect whose
    filter is of the kind battleOpponent (the ontology's data). Other cards' battles assert nothing."""
    return cards_naming(catalog(ruleset), vocabulary, "_battle_watchers", _battle_opponent_effects)


def _battle_opponent_effects(vocabulary) -> set:
    filters = {s for p, s, o in vocabulary.tbox_facts if p == "filterKind" and o == BATTLE_OPPONENT_KIND}
    return {s for p, s, o in vocabulary.tbox_facts if p == "appliesTo" and o in filters}


@primitive("battle_event")
def battle_event(step: Step, op: str, card_ind: str, other_ind: str) -> None:
    """The monster battled the other one (damage was calculated between them): a BattleEvent of the next step
    (abox.event_facts) when one of its effects names "that monster" (a filter of the kind battleOpponent), else
    nothing. Carried out after the step's moves, so both are found where the battle left them (the Graveyard)."""
    obj = step.objects[card_ind]
    name = obj["card"] if isinstance(obj, dict) else obj.name
    if name in battle_watchers(step.state["ruleset"], step.vocabulary):
        step.moved.append((obj, None, None, Battled(step.objects[other_ind])))


@primitive("battle_damage_event")
def battle_damage_event(step: Step, op: str, card_ind: str, _player_ind: str) -> None:
    """The monster inflicted battle damage (opDirectBattleDamageEvent: by a direct attack): a BattleDamageEvent (a
    DirectBattleDamageEvent) of the next step (abox.event_facts) when one of its effects watches it, else nothing (the facts of a duel without such cards stay as they are)."""
    obj = step.objects[card_ind]
    name = obj["card"] if isinstance(obj, dict) else obj.name
    if name in battle_damage_watchers(step.state["ruleset"], step.vocabulary, op):
        step.moved.append((obj, None, None, BATTLE_DAMAGE_EVENTS[op][0]))


@primitive("target_resolved_event")
def target_resolved_event(step: Step, op: str, card_ind: str, _link_ind: str) -> None:
    """A chain link that targets the monster resolved: a TargetResolvedEvent of the next step (abox.event_facts),
    carried out after the step's moves, so the monster is found where the resolution left it. The rules name only a
    monster whose keyword ability watches it (destroyedWhenTargeted)."""
    obj = step.objects[card_ind]
    step.moved.append((obj, None, None, "TargetResolvedEvent"))


DESTROYS_BY_BATTLE_TRIGGER = "onDestroysByBattle"  # the EffectTrigger individual that a DestroysByBattleEvent starts


def destroys_by_battle_watchers(ruleset: str, vocabulary) -> frozenset:
    """The names of the catalog's cards whose destruction of a monster by battle is a game event (a
    DestroysByBattleEvent): those with an effect whose trigger is onDestroysByBattle (the ontology's data)."""
    return cards_naming(catalog(ruleset), vocabulary, "_destroys_by_battle_watchers",
                        lambda v: {s for p, s, o in v.tbox_facts if p == "hasTrigger" and o == DESTROYS_BY_BATTLE_TRIGGER})


@primitive("destroys_by_battle_event")
def destroys_by_battle_event(step: Step, op: str, card_ind: str, _destroyed_ind: str) -> None:
    """The monster destroyed the monster it battled: a DestroysByBattleEvent of the next step (abox.event_facts) when
    one of its effects watches it, else nothing (the facts of a duel without such cards stay as they are)."""
    obj = step.objects[card_ind]
    name = obj["card"] if isinstance(obj, dict) else obj.name
    if name in destroys_by_battle_watchers(step.state["ruleset"], step.vocabulary):
        step.moved.append((obj, None, None, "DestroysByBattleEvent"))


def _move_triggered_effects(vocabulary) -> set:
    triggers = {ind for ind, classes in vocabulary.individuals.items() if "MoveTrigger" in classes}
    return {s for p, s, o in vocabulary.tbox_facts if p == "hasTrigger" and o in triggers}


def _remember_properly_summoned(state: dict, player: str, name: str, present: bool) -> None:
    """The state's extra.properly_summoned: per Graveyard, the names of must-be-Special-Summoned monsters
    that reached it after a proper summon (the rules infer properlySummoned; the list keeps it in the GY)."""
    extra = state.setdefault("extra", {})
    names = extra.setdefault("properly_summoned", {}).setdefault(player, [])
    if present:
        names.append(name)
    elif name in names:
        names.remove(name)
    if not names:
        del extra["properly_summoned"][player]
    if not extra["properly_summoned"]:
        del extra["properly_summoned"]
    if not extra:
        del state["extra"]


def drop_extra(state: dict, *keys: str) -> None:
    """The keys leave the duel's bookkeeping (state.extra), and an empty extra goes too: a state holds none
    (state.normalize drops an empty one on load)."""
    extra = state.get("extra")
    if extra is None:
        return
    for key in keys:
        extra.pop(key, None)
    if not extra:
        del state["extra"]


# operation -> the lock of the turn it sets (state.TURN_LOCKS)
LOCK_OPERATIONS = {"opLockSummonsThisTurn": "summon_lock", "opLockBattlePhaseThisTurn": "battle_phase_lock"}


SETTERS = {  # operation -> (state key of a field card, how to read the value)
    "opSetPosition": ("position", lambda v: POSITION_NAMES[v]),
    "opFlipWithoutEffect": ("position", lambda v: POSITION_NAMES[v]),  # (set_property starts a FLIP effect on opSetPosition only)
    "opSetSummonedAs": ("summoned_by", lambda v: v[: -len("Summon")]),
    "opSetSummonedThisTurn": ("summoned_this_turn", bool),
    "opSetSetThisTurn": ("set_this_turn", bool),
    "opSetPositionChanged": ("position_changed_this_turn", bool),
    "opSetAttacksDeclared": ("attacks_declared", int),
    "opSetAtkModifier": ("atk_modifier", lambda v: _bounded(int(v), MAX_MODIFIER)),
    "opSetDefModifier": ("def_modifier", lambda v: _bounded(int(v), MAX_MODIFIER)),
}


def _bounded(value: int, limit: int) -> int:
    """A value the rules computed, kept within the state's bounds (state.MAX_MODIFIER), so that the
    arithmetic of the next reasoning stays far inside 32 bits (fast) and every written state loads again."""
    return max(-limit, min(limit, value))


FLIP_TRIGGER = "onFlip"  # the EffectTrigger individual of a card's effect that starts when the card is turned face-up


def flip_watchers(ruleset: str, vocabulary) -> frozenset:
    """The names of the catalog's cards with an effect whose trigger is onFlip (the ontology's data): a Flip Effect
    Monster's FLIP effect, or a trigger of another monster "when it is flipped face-up" (a GOAT Spirit monster's flip
    down: "when it is Normal Summoned or flipped face-up (by Flip Summon, attack or effect)"). Turned face-up, such a card's
    effect is due (extra.flipped) as a Flip Effect Monster's is."""
    return cards_naming(catalog(ruleset), vocabulary, "_flip_watchers",
                        lambda v: {s for p, s, o in v.tbox_facts if p == "hasTrigger" and o == FLIP_TRIGGER})


# the state's card marks (state.CARD_MARKS) that keep a trigger of a card off the field due: a spent trigger loses them
TRIGGER_MARKS = ("flipped_hidden", "chain_end_triggers")


def _decline(fc: dict) -> None:
    """A field card's trigger is spent for its window (effect_declined, until close_window); a FLIP effect so spent
    is gone, as one put on the chain is (add_chain_link)."""
    fc["extra"]["effect_declined"] = True
    fc["extra"].pop("flipped", None)


@primitive("set_property")
def set_property(step: Step, op: str, subject: str, value) -> None:
    if op in SETTERS:
        key, convert = SETTERS[op]
        card = step.objects[subject]
        if isinstance(card, Token):  # it left the field in this step (a replay's right for an attacker destroyed
            return                   # at once): a card's field properties go with it (state-format.md)
        if op == "opSetPosition" and card["position"] == "face_down_defense" and value != "faceDownDefensePosition" \
                and (catalog(step.state["ruleset"]).get(card["card"], "card").flip
                     or card["card"] in flip_watchers(step.state["ruleset"], step.vocabulary)):
            step.flipped.append(card)  # rulebook p. 11: a FLIP effect starts when the card is turned face-up
        card[key] = convert(value)
        if op == "opSetSummonedAs" and value == "specialSummon" and step.effect_summons:
            card["extra"]["effect_summoned"] = True  # a resolving link's Special Summon: its window is decided next step
    elif op == "opSetTurnsLeft":
        step.objects[subject]["counters"]["turns"] = int(value)
    elif op == "opEquipTo":  # Step.finish writes where the monster is then
        equip, monster = step.objects[subject], step.objects[value]
        step.equips[id(equip)] = (equip, monster)
    elif op == "opSetChosen":  # a card, or an empty Monster Zone selected by its place (a lockZone selection)
        step.pending_refs.append(step._chosen(subject))
    elif op == "opChooseForTrigger":  # after opTriggerEffect (ORDER): the selection it opened is made
        # (another card's trigger of this step waits for the next; a trigger spent or not activated opened none)
        if step.triggered == subject and step.pending_refs is not None:
            step.pending_refs.append(step.objects[value])
    elif op == "opSetNormalSummonsLeft":
        step.state["players"][_player(subject)]["normal_summon_used"] = value <= 0
    elif op == "opSetPhase":
        step.state["phase"] = PHASE_NAMES[value]
    elif op == "opSetPriority":
        step.state["priority"] = _player(value)
    elif op == "opMarkAttackAnswered":  # rulebook p. 38: kept until the attack ends (the attacker's window before damage)
        for fc in step.field_monsters():
            if "attack" in fc["extra"]:
                fc["extra"]["attack"]["opponent_passed"] = bool(value)
    elif op == "opMarkDamageStepChain":  # kept until the chain is over (close_window), or the window it marks closes
        if value:
            step.state.setdefault("extra", {})["damage_step_chain"] = True
        else:
            drop_extra(step.state, "damage_step_chain")
    elif op == "opSetEndOfDamageStep":  # goat's Damage Step sub-steps: kept until its End (end_damage_step)
        step.state.setdefault("extra", {})["damage_step_end"] = {"sub_step": int(value)}
    elif op in LOCK_OPERATIONS:  # kept until the turn ends (start_turn)
        locked = step.state.setdefault("extra", {}).setdefault(LOCK_OPERATIONS[op], [])
        if value and _player(subject) not in locked:
            locked.append(_player(subject))
            locked.sort()
    elif op == "opWaitForChainEnd":  # goat: kept in extra.chain_end_triggers until the chain is resolved (Step.finish)
        if value:
            step.marks["chain_end_triggers"].setdefault(subject, "graveyard")
    elif op == "opStopWaitingForChainEnd":  # the chain is resolved: each waiting trigger had its chance in this step
        step.marks["chain_end_triggers"].clear()
    elif op == "opMarkSummonChain":  # kept until the chain is over (close_window)
        step.state.setdefault("extra", {})["summon_chain"] = bool(value)
    elif op in ("opAskPhaseEnd", "opAskTurnEnd"):  # rulebook p. 38: kept until the opponent's window closes
        step.state.setdefault("extra", {})["phase_end"] = PHASE_NAMES[value] if op == "opAskPhaseEnd" else "turn"
    elif op == "opSetJustSummoned":
        step.objects[subject]["extra"]["just_summoned"] = value[: -len("Summon")]
    elif op == "opMarkEffectSummons":  # before the step's moves (ORDER): the Summons they make are the link's effect's
        step.effect_summons = bool(value)
    elif op in ("opOpenSummonWindow", "opMissSummonTiming"):  # an effect's Summon of the last step: window or not
        if isinstance(step.objects[subject], Token):  # it left the field in this step: no window is its
            return
        extra = step.objects[subject]["extra"]
        extra.pop("effect_summoned", None)
        if op == "opOpenSummonWindow":
            extra["just_summoned"] = value[: -len("Summon")]
        else:  # after opFinishLink (ORDER): the chain's end in this step (close_window) keeps this mark
            extra["summon_timing_missed"] = True
    elif op == "opEndMissedSummons":
        # SWRL cannot say "unless a trigger answered them": a link made in this step (ORDER: after opAddChainLink) is
        # a mandatory trigger on those Summons, which needs them as its link resolves; its chain's end drops them
        if not step.state["chain"]:
            for fc in step.field_monsters():
                fc["extra"].pop("summon_timing_missed", None)
    elif op == "opAttemptSummon":  # after opSetJustSummoned (ORDER): the window waits until the Summon succeeds
        extra = step.objects[subject]["extra"]
        extra.pop("just_summoned", None)
        extra["attempt"] = value[: -len("Summon")]
    elif op == "opSetSummonPosition":  # kept on the card until add_chain_link moves it to the new link
        step.objects[subject]["extra"]["summon_position"] = POSITION_NAMES[value]
    elif op == "opSetDeclaredType":  # the same: a Type declared on activation, kept until add_chain_link
        step.objects[subject]["extra"]["declared_type"] = TYPE_NAMES[value]
    elif op == "opSetLinkEffect":  # the effect the activation is (an ignition, a trigger), for the link of this step
        step.link_extra.setdefault(subject, {})["effect"] = value
    elif op == "opSetLinkCounters":  # the card's counters as it is activated (its cost may have moved it this step)
        step.link_extra.setdefault(subject, {})["counters"] = int(value)
    elif op == "opSetCostLevel":  # after opOpenSelection (ORDER): the pending that goes on selecting keeps it
        step.state["pending"].setdefault("extra", {})["cost_level"] = int(value)
    elif op == "opNegateEffects":  # kept in the state's extra.effects_negated where the card goes (Step.finish)
        step.marks["effects_negated"].setdefault(subject, "monster_zones")
    elif op == "opDeclineEffect":
        if isinstance(step.objects[subject], dict):  # a card off the field: its trigger was an event of one step
            if value:
                _decline(step.objects[subject])
            else:
                step.objects[subject]["extra"]["effect_declined"] = False
    elif op == "opSetReplayRight":  # rulebook p. 28: kept until an attack is declared or the turn ends
        if isinstance(step.objects[subject], Token):  # an attacker destroyed as its target left: no replay
            return
        if value:
            step.objects[subject]["extra"]["replay"] = True
        else:
            step.objects[subject]["extra"].pop("replay", None)
    elif op == "opSetSecondAttack":  # a SecondAttackEffect's right: kept until an attack is declared or the turn ends
        if isinstance(step.objects[subject], Token):
            return
        if value:
            step.objects[subject]["extra"]["second_attack"] = True
        else:
            step.objects[subject]["extra"].pop("second_attack", None)
    elif op == "opMarkAttacked":  # attacksEveryMonster: Step.finish writes where the attacked monster is then
        attacker = step.objects[subject]
        if not isinstance(attacker, Token):
            step.attacked.setdefault(id(attacker), (attacker, []))[1].append(step.objects[value])
    elif op == "opDeclareAttack":
        step.objects[value]["extra"]["attack"] = {"target": None, "damage_step": False}
        step.attacker = step.objects[value]
    elif op == "opSetAttackTarget":
        step.attack_targets[id(step.attacker)] = (step.attacker, step.objects[value])
    elif op == "opDeclareDirectAttack":
        pass  # an attack with no target is a direct attack
    else:
        raise YgoError(f"internal: no setter for {op}")


@primitive("set_counter")
def set_counter(step: Step, op: str, card_ind: str, value) -> None:
    """Set a counter of a card on the field (state: its `counters`): which one is the operation property's
    data (ygo:counterKey); 0 removes it, and a value stays within the state's bounds (0..MAX_COUNT)."""
    key = step.vocabulary.annotations[op]["counterKey"]
    card = step.objects[card_ind]
    if not isinstance(card, dict):  # it left the field earlier in this step: its counters went with it
        return
    counters = card["counters"]
    value = max(0, min(MAX_COUNT, int(value)))
    if value:
        counters[key] = value
    else:
        counters.pop(key, None)


@primitive("summon_tokens")
def summon_tokens(step: Step, op: str, player_ind: str, effect: str) -> None:
    """Special Summon the tokens of a SpecialSummonTokensEffect (its catalog data: tokenKind, tokenCount,
    tokenPosition) to the player's first free Monster Zones: new field cards owned by that player, Special Summoned
    this turn (state-format.md "Tokens"). The rules infer the operation only while the zones are free."""
    facts = {prop: value for prop, subject, value in step.vocabulary.tbox_facts if subject == effect}
    name = catalog(step.state["ruleset"]).get(facts["tokenKind"], f"{effect}: tokenKind").name
    position = POSITION_NAMES[facts.get("tokenPosition", "attackPosition")]
    p = _player(player_ind)
    zones = step.state["players"][p]["monster_zones"]
    for _ in range(int(facts["tokenCount"])):
        free = usable_monster_zones(step.state, p)
        if not free:
            raise YgoError(f"internal: no free monster_zones for {name}: a rule allowed what the board cannot hold")
        zones[free[0]] = new_field_card(name, p, position, summoned_this_turn=True, summoned_by="special",
                                        extra={"effect_summoned": True} if step.effect_summons else {})


@primitive("ask_lock_zones")
def ask_lock_zones(step: Step, op: str, card_ind: str, count: int) -> None:
    """A ZoneLockEffect's card came face-up on the field: its controller chooses up to `count` of the free Monster
    Zones of their opponent (rules/common/effects/zone-lock.swrl), a pending `pass` with the purpose lockZone whose
    `from` is the card, the controller holding priority and selecting the zones one at a time (a `select` names an
    empty zone by its place: ChosenZone). One selection is open at a time: a second such card of the same step (or
    one whose step opened another selection) asks once this one is closed (the rule asks again then)."""
    if step.state["pending"] is not None:
        return
    where = step.locate(step.objects[card_ind])
    step.state["pending"] = {"action": {"type": "pass", "player": where["player"], "from": where},
                             "purpose": OPENED_PURPOSES[op], "needed": int(count), "chosen": []}
    step.pending_refs = []
    step.state["priority"] = where["player"]


@primitive("lock_zones")
def lock_zones(step: Step, op: str, card_ind: str, _value) -> None:
    """A ZoneLockEffect's card locks the zones its controller selected (the open lockZone selection's chosen places,
    none when no zone was free) while it stays face-up: its `extra.locked_zones`, read by state.locked_zones."""
    pending = step.state["pending"]
    chosen = pending["chosen"] if pending is not None and pending["purpose"] == "lockZone" else []
    step.objects[card_ind]["extra"]["locked_zones"] = sorted(r["index"] for r in chosen)


@primitive("release_zones")
def release_zones(step: Step, op: str, card_ind: str, _value) -> None:
    """A ZoneLockEffect's card turned face-down: the zones it chose are free again, and it chooses anew when it comes
    face-up (state.locked_zones already leaves a face-down card's zones out)."""
    step.objects[card_ind]["extra"].pop("locked_zones", None)


@primitive("change_lp")
def change_lp(step: Step, op: str, player_ind: str, amount: int) -> None:
    side = step.state["players"][_player(player_ind)]
    side["life_points"] = max(0, side["life_points"] - amount)


@primitive("damage_per_match")
def damage_per_match(step: Step, op: str, card_ind: str, player_ind: str) -> None:
    """The player loses the card's damagePerMatchingCard once for each card its effect's filter matches: the
    inferred candidateOf facts of the card in this step (SWRL cannot count, so the primitive does; a card's
    effects share their candidates, rules/common/effects/filter.swrl). The amount and the matches are read off the
    step's facts, so a link whose card left the field (its pseudo-card, abox.link_facts) counts the same."""
    per = sum(int(f[2]) for f in named(step.facts, ("damagePerMatchingCard",)) if ("hasEffect", card_ind, f[1]) in step.facts)
    matches = {f[1] for f in named(step.facts, ("candidateOf",)) if f[2] == card_ind}
    change_lp(step, op, player_ind, per * len(matches))


@primitive("damage_per_level_of_discarded")
def damage_per_level_of_discarded(step: Step, op: str, player_ind: str, per_level: int) -> None:
    """The player loses `per_level` times the Level of each Monster Card the step's random discard took from their
    hand (after discard_at_random, ORDER): the card is picked by the seeded RNG in this very step, so no rule of it
    can read the picked card's Level (its MoveEvent, a step later, no longer names the link that discarded it)."""
    p, cat = _player(player_ind), catalog(step.state["ruleset"])
    levels = [cat.get(name).level or 0 for q, name in step.discarded_at_random if q == p and cat.get(name).is_monster]
    change_lp(step, op, player_ind, int(per_level) * sum(levels))


@primitive("destroy_highest_def")
def destroy_highest_def(step: Step, op: str, card_ind: str, effect_card: str) -> None:
    """Destroy the monster if it has the highest DEF of those the card's highestDef effect matches (its candidateOf
    facts of this step): the rules found no matched monster with a higher DEF (no lowerDefThanCandidate fact), since
    SWRL cannot say "no other is higher". Of several with the same DEF, only the first in the Monster Zones' order
    (the individuals' order: one side's zones 0 to 4) is destroyed; the player's choice among them is not played
    (docs/decisions.md)."""
    lower = {f[1] for f in named(step.facts, ("lowerDefThanCandidate",)) if f[2] == effect_card}
    highest = sorted((f[1] for f in named(step.facts, ("candidateOf",)) if f[2] == effect_card and f[1] not in lower),
                     key=step.place_name)
    if not highest or highest[0] != card_ind:
        return
    owner = next(f[2] for f in named(step.facts, ("ownerPlayer",)) if f[1] == card_ind)
    move(step, "opDestroy", card_ind, owner)


@primitive("gain_lp")
def gain_lp(step: Step, op: str, player_ind: str, amount: int) -> None:
    """The player gains Life Points (a card's effect): no maximum in the rulebook, but the state's
    bound (state-format.md: 0..MAX_LIFE_POINTS) holds, so every written state loads again."""
    side = step.state["players"][_player(player_ind)]
    side["life_points"] = max(0, min(MAX_LIFE_POINTS, side["life_points"] + int(amount)))


@primitive("discard_at_random")
def discard_at_random(step: Step, op: str, player_ind: str, count: int) -> None:
    """The player discards `count` cards of the hand chosen at random (fewer if it holds fewer), from the duel's
    seeded RNG; the state keeps the next seed, as a shuffle does, so a duel replays exactly. They go to the
    owner's Graveyard as discarded cards (a game event where an effect watches the card)."""
    p = _player(player_ind)
    side = step.state["players"][p]
    step.wrap(p, "hand", "graveyard")
    if not side["hand"] or count <= 0:
        return
    picked = step.rng.sample(side["hand"], min(int(count), len(side["hand"])))
    step.state["rng_seed"] = step.rng.randrange(2**31)
    watched = watched_cards(step.state["ruleset"], step.vocabulary)
    reason = step.vocabulary.annotations["opDiscard"].get("reasonOfMove")
    for tok in picked:
        side["hand"].remove(tok)
        side["graveyard"].append(tok)
        step.discarded_at_random.append((p, tok.name))
        if tok.name in watched:
            step.moved.append((tok, "hand", "graveyard", reason))


@primitive("add_matches_to_hand")
def add_matches_to_hand(step: Step, op: str, card_ind: str, count: int) -> None:
    """Up to `count` cards of a Deck that the card's effect filter matches (the inferred candidateOf facts: the
    Deck is in the ABox in a duel with a card that looks there, abox.visible_decks) go to their owner's hand, the first in
    Deck order. The effects that use it match copies of one card (a filter of sameNameCards), so the order
    chooses nothing a player could choose."""
    found = []
    for f in named(step.facts, ("candidateOf",)):
        if f[2] == card_ind and f[1].endswith("_card"):
            where = step.place_of(f[1])
            if where is not None and where[1] == "deck":
                found.append((where[0], where[2]))
    picked = []
    for p, index in sorted(found)[: max(0, int(count))]:
        side = step.state["players"][p]
        step.wrap(p, "deck", "hand")
        picked.append((p, side["deck"][index]))
    for p, tok in picked:
        step.state["players"][p]["deck"].remove(tok)
        step.state["players"][p]["hand"].append(tok)


@primitive("excavate")
def excavate(step: Step, op: str, card_ind: str, player_ind: str) -> None:
    """An excavation (ygo:ExcavateEffect): the player's Deck is turned over from the top, one card at a time,
    until a card the card's effect filter matches (the inferred candidateOf facts: the Deck is in the ABox in a
    duel with a card that looks there, abox.visible_decks). SWRL cannot walk a list, so this primitive does; the rules say
    when and where the card found goes. That card goes where the operation's ygo:destinationArea says (a
    `move`: a Monster Zone is a Special Summon, to ygo:areaWhenFull with no free zone), the cards turned over
    before it are sent to the Graveyard; with no match the whole Deck was turned over and is shuffled."""
    p = _player(player_ind)
    side = step.state["players"][p]
    step.wrap(p, "deck", "hand", "graveyard")
    head = f"{p}_deck_"
    matches = [step.place_of(f[1])[2] for f in named(step.facts, ("candidateOf",))
               if f[2] == card_ind and f[1].startswith(head) and f[1].endswith("_card")]
    if not matches:
        shuffle_deck(step, "opShuffleDeck", player_ind, True)
        return
    found = min(matches)
    ind = step._ind({"player": p, "area": "deck", "index": found})
    if ("declaredLevelMatch", ind, card_ind) in step.facts:  # of the Level the opponent declared: to the Graveyard
        op = "opExcavateToGraveyard"
    if op == "opExcavateToMonsterZone" and ("neverSpecialSummoned", ind, True) in step.facts:
        op = "opExcavateToGraveyard"  # GOAT pack cards.md, the excavating Special Summon: "If that monster cannot be
        # Special Summoned (a Spirit monster), it is sent to the Graveyard along with the rest" (neverSpecialSummoned)
    turned = side["deck"][:found]
    tok = side["deck"][found]
    step.objects[ind] = tok
    move(step, op, ind, player_ind)
    _mark_special_summoned(step, ind)
    for n, other in enumerate(turned):
        other_ind = f"{head}excavated{n}_card"
        step.objects[other_ind] = other
        move(step, "opSendToGraveyard", other_ind, player_ind)


def _mark_special_summoned(step: Step, ind: str) -> None:
    """A card a move put in a Monster Zone was Special Summoned this turn (rulebook p. 15: not its Normal Summon); a
    card the move sent elsewhere (ygo:areaWhenFull, no free zone) is not."""
    if isinstance(step.objects[ind], dict):
        set_property(step, "opSetSummonedAs", ind, "specialSummon")
        set_property(step, "opSetSummonedThisTurn", ind, True)


def _effects_of(step: Step, card_ind: str) -> set:
    """The Effect individuals of the card (its hasEffect facts of the step)."""
    return {f[2] for f in named(step.facts, ("hasEffect",)) if f[1] == card_ind}


@primitive("mill")
def mill(step: Step, op: str, player_ind: str, count) -> None:
    """The top `count` cards of the player's Deck (fewer if fewer remain) are sent to the Graveyard, the top one first
    (ygo:MillEffect): a move for each, as an excavation's turned-over cards; SWRL cannot take the first cards of a list."""
    p = _player(player_ind)
    side = step.state["players"][p]
    step.wrap(p, "deck", "graveyard")
    for n, card in enumerate(side["deck"][:int(count)]):
        ind = f"{p}_deck_milled{n}_card"
        step.objects[ind] = card
        move(step, "opSendToGraveyard", ind, player_ind)


@primitive("special_summon_all")
def special_summon_all(step: Step, op: str, card_ind: str, player_ind: str) -> None:
    """Every monster the card's effect can Special Summon (the inferred summonCandidate facts of the card, in the
    lists of cards: the banished cards, the Graveyard) is Special Summoned to its owner's field in face-up Attack
    Position, as many as the owner's free Monster Zones hold (SWRL cannot count them): the player given first, then
    the opponent, each in the order of the list; the others stay. Each is a `move` of opSpecialSummon (its event),
    marked extra.banish_at_end_phase when the effect has ygo:endPhaseBanish true."""
    found = {}
    for f in named(step.facts, ("summonCandidate",)):
        if f[2] == card_ind and f[1].endswith("_card"):
            where = step.place_of(f[1])
            if where is not None and where[1] in LIST_AREAS:
                found.setdefault(where[0], []).append((where[1], where[2], f[1]))
    effects = _effects_of(step, card_ind)
    banish_at_end = any(f[1] in effects and f[2] is True for f in named(step.facts, ("endPhaseBanish",)))
    first = _player(player_ind)
    for p in (first, opponent(first)):
        side = step.state["players"][p]
        picked = []
        for area, index, ind in sorted(found.get(p, ())):
            step.wrap(p, area)
            picked.append((ind, side[area][index]))
        for ind, tok in picked[: len(usable_monster_zones(step.state, p))]:
            step.objects[ind] = tok
            move(step, "opSpecialSummon", ind, f"player{p}")
            _mark_special_summoned(step, ind)
            if banish_at_end:  # (ygo:endPhaseBanish: the rules banish it as the End Phase begins)
                step.objects[ind]["extra"]["banish_at_end_phase"] = True


@primitive("pick_up")
def pick_up(step: Step, op: str, card_ind: str, player_ind: str) -> None:
    """The player picks up the top ygo:pickUpCount cards of their Deck (a PickUpAndSummonEffect): each card the card's
    effect filter matches (the inferred candidateOf facts: both Decks are in the ABox while its link resolves) goes
    to the operation's ygo:destinationArea (a Monster Zone: Special Summoned in face-up Attack Position, the first in
    the Deck's order while a zone is free, then to ygo:areaWhenFull), every other card to the player's hand; a monster
    its owner chose with the purpose chooseSummonPosition (the pending's chosen cards, ask_summon_position) in
    face-down Defense Position. SWRL cannot walk a list or count free zones, so this primitive does; the rules say
    when and for whom."""
    effects = _effects_of(step, card_ind)
    count = max((int(f[2]) for f in named(step.facts, ("pickUpCount",)) if f[1] in effects), default=0)
    matches = {f[1] for f in named(step.facts, ("candidateOf",)) if f[2] == card_ind}
    area = step.vocabulary.annotations[op]["destinationArea"]
    p = _player(player_ind)
    side = step.state["players"][p]
    step.wrap(p, "deck", "hand", "graveyard")
    face_down = [o for o in step.pending_refs or () if o is not None]
    picked = []
    for i, tok in enumerate(side["deck"][:count]):
        ind = f"{p}_deck_picked{i}_card"
        step.objects[ind] = tok
        # a monster that can never be Special Summoned (the catalog's neverSpecialSummoned: the GOAT Spirit monsters)
        # is added to the hand with the cards the filter does not match
        here = step._ind({"player": p, "area": "deck", "index": i})
        picked.append((here in matches and ("neverSpecialSummoned", here, True) not in step.facts, ind))
    for matched, ind in picked:
        if not matched:
            move(step, "opToHand", ind, f"player{p}")
        elif area != "monster_zones":
            move(step, "opSendToGraveyard", ind, f"player{p}")
        else:
            face_down_chosen = any(o is step.objects[ind] for o in face_down)
            move(step, op, ind, f"player{p}")  # (ygo:areaWhenFull: no free zone left)
            _mark_special_summoned(step, ind)
            if face_down_chosen and isinstance(step.objects[ind], dict):
                step.objects[ind]["position"] = "face_down_defense"


@primitive("draw")
def draw(step: Step, op: str, player_ind: str, count: int) -> None:
    side = step.state["players"][_player(player_ind)]
    step.wrapped.add((_player(player_ind), "hand"))  # (a Token drawn from a deck with Tokens: finish converts it)
    for _ in range(count):
        if side["deck"]:
            side["hand"].append(side["deck"].pop(0))


@primitive("shuffle_deck")
def shuffle_deck(step: Step, op: str, player_ind: str, _value) -> None:
    """Shuffle the player's Deck (a search's last step), from the duel's seeded RNG; the state keeps the next
    seed, as a shuffled move does."""
    step.rng.shuffle(step.state["players"][_player(player_ind)]["deck"])
    step.state["rng_seed"] = step.rng.randrange(2**31)


@primitive("roll_die")
def roll_die(step: Step, op: str, card_ind: str, sides: int) -> None:
    """Roll a die for a card's effect, from the duel's seeded RNG; the state keeps the next seed,
    so a duel replays exactly (state-format: rng_seed)."""
    step.rolled = (step.objects[card_ind], step.rng.randint(1, int(sides)))
    step.state["rng_seed"] = step.rng.randrange(2**31)


@primitive("toss_coins")
def toss_coins(step: Step, op: str, card_ind: str, count: int) -> None:
    """Toss `count` coins for the card an effect applies to (opTossCoins), from the duel's seeded RNG, as roll_die
    does; opNeedHeads notes how many heads the effect asks for. The next step sees the heads (coinHeads), the card
    (coinsTossedFor) and the heads asked for (coinHeadsNeeded): the rules decide the rest (TossCoinsEffect)."""
    step.tossed["card"] = step.objects[card_ind]
    if op == "opNeedHeads":
        step.tossed["needed"] = int(count)
        return
    step.tossed["heads"] = sum(step.rng.randint(0, 1) for _ in range(int(count)))
    step.state["rng_seed"] = step.rng.randrange(2**31)


@primitive("end_duel")
def end_duel(step: Step, op: str, player_ind: str, _value) -> None:
    loser = _player(player_ind)
    winner = step.state["winner"]
    step.state["winner"] = "draw" if winner == loser or winner == "draw" else opponent(loser)


@primitive("end_battle")
def end_battle(step: Step, op: str, _duel: str, _value) -> None:
    for fc in step.field_monsters():
        fc["extra"].pop("attack", None)


@primitive("end_damage_step")
def end_damage_step(step: Step, op: str, _duel: str, _value) -> None:
    """The End of the Damage Step (GOAT pack README item 3): the sub-steps are over. The monsters the battle destroyed
    that are still on the field are sent to the Graveyard in the same step, by the rules (opDestroyByBattle of each
    monster marked destroyedByBattlePending: rules/goat/damage-step.swrl)."""
    drop_extra(step.state, "damage_step_end")


@primitive("close_window")
def close_window(step: Step, op: str, _duel: str, _value) -> None:
    """The response window closes: the summon stands, the attack goes on to the Damage Step, an asked
    phase end is spent (it happened, or a chain was built instead: rulebook p. 38)."""
    # the Damage Step's chain is over (rulebook p. 32), so is the chain begun in a Summon's window (GOAT priority);
    # a trigger still waiting (nothing to select) has missed its chain
    drop_extra(step.state, "phase_end", "damage_step_chain", "summon_chain", "simultaneous_triggers")
    for fc in step.field_monsters():
        fc["extra"].pop("just_summoned", None)
        fc["extra"].pop("summon_timing_missed", None)  # (a mandatory trigger's chain on it is over: it starts once)
        fc["extra"].pop("effect_declined", None)
        if "attack" in fc["extra"]:
            fc["extra"]["attack"]["damage_step"] = True


@primitive("hold_end_phase")
def hold_end_phase(step: Step, op: str, _duel: str, player_ind: str) -> None:
    """The End Phase has begun and the turn player holds priority in it, with an End Phase trigger ready (rulebook
    p. 31 "End Phase", p. 38; rules/common/effects/end-phase.swrl): after opAskTurnEnd, opSetPriority and
    opOpenSelection (ORDER), the turn's end asked in this step waits for the turn player's next end_turn. SWRL cannot
    say "end the turn unless a trigger is ready" (negation), so the rules that end the turn infer their operations
    too and this lets their request go: the opponent's window (extra.phase_end), and the hand-limit discard."""
    drop_extra(step.state, "phase_end")
    pending = step.state["pending"]
    if pending is not None and pending["action"]["type"] == "end_turn":
        step.state["pending"] = None
        step.pending_refs = None
    step.state["priority"] = _player(player_ind)


@primitive("attempt_succeeds")
def attempt_succeeds(step: Step, op: str, _duel: str, _value) -> None:
    """The Summon being attempted succeeds (no one negated it): its window opens, after close_window (ORDER). A
    Summon from the hand is a game event again now (its MoveEvent, for the next step: an onSummonedItself trigger
    waits for the Summon to succeed), with the reason of the move that made it."""
    watched = watched_cards(step.state["ruleset"], step.vocabulary)
    for p in PLAYERS:
        for i, fc in enumerate(step.state["players"][p]["monster_zones"]):
            if fc is None or "attempt" not in fc["extra"]:
                continue
            method = fc["extra"]["just_summoned"] = fc["extra"].pop("attempt")
            if method != "flip" and fc["card"] in watched:
                made_by = "opSpecialSummon" if method == "special" else "opToMonsterZone"
                _record_move(step, f"{p}_monster_zones_{i}_card", fc, "hand", "monster_zones",
                             step.vocabulary.annotations[made_by].get("reasonOfMove"))


@primitive("add_chain_link")
def add_chain_link(step: Step, op: str, card_ind: str, player_ind: str) -> None:
    """A new last link: the card as it is now, its Spell Speed (inferred), and the cards its activation
    selected (targets; for a Fusion or a Ritual Spell the monsters it uses: state 'targets')."""
    obj = step.objects[card_ind]
    ref = step.locate(obj)
    speed = next((f[2] for f in named(step.facts, ("spellSpeed",)) if f[1] == card_ind), 1)
    targets = []
    pending = step.state["pending"]
    # targets, materials, ritual tributes: not a cost, nor the monster whose Type a declaration names (not a target)
    if pending is not None and pending["purpose"] not in ("cost", "discard", "declare"):
        targets = [("card", o) for o in step.pending_refs if o is not None]
    link = {"card": obj["card"] if isinstance(obj, dict) else obj.name, "player": _player(player_ind),
            "zone": {"area": ref["area"], "index": ref["index"]} if ref["area"] not in ("hand", "deck") else None,
            "targets": targets, "speed": speed}
    # an option chosen on activation (CR 903.2c: a Special Summon's position) belongs to the link: it
    # holds even if the card leaves the field before the link resolves
    position = obj["extra"].pop("summon_position", None) if isinstance(obj, dict) else None
    declared = obj["extra"].pop("declared_type", None) if isinstance(obj, dict) else None
    if isinstance(obj, dict):
        obj["extra"].pop("flipped", None)  # its FLIP effect (if it waited) is on the chain now
    step.marks["flipped_hidden"].pop(card_ind, None)  # (the same for one that waited in the hand or the Deck)
    if position not in (None, "attack"):  # Attack is the default: nothing to keep
        link["extra"] = {"summon_position": position}
    if declared is not None:  # a Type declared on activation (rules/common/effects/declare.swrl)
        link.setdefault("extra", {})["declared_type"] = declared
    # the one effect the link resolves (ygo:linkEffect) and its card's counters as it was activated (ygo:linkCounters),
    # kept by opSetLinkEffect and opSetLinkCounters in this step
    link_extra = step.link_extra.pop(card_ind, None)
    if link_extra and len(catalog(step.state["ruleset"]).get(link["card"]).effects) < 2:
        link_extra.pop("effect", None)  # (a one-effect card's link names its one effect without it: abox.link_facts)
    if link_extra:
        link.setdefault("extra", {}).update(link_extra)
    if step.waiting_triggers is None:  # a waiting trigger's link: it waits no more
        _stop_waiting(step, {card_ind})
    cost_level = (pending or {}).get("extra", {}).get("cost_level")
    if cost_level is not None:  # the Level of a Tribute paid as its cost (rules/common/effects/level-of-cost.swrl)
        link.setdefault("extra", {})["cost_level"] = cost_level
    step.state["chain"].append(link)


@primitive("resolve_chain")
def resolve_chain(step: Step, op: str, _duel: str, _value) -> None:
    # a trigger still waiting (nothing to select) has missed its chain (rulebook p. 35)
    drop_extra(step.state, "simultaneous_triggers")
    step.transient["resolving"] = True


@primitive("negate_link")
def negate_link(step: Step, op: str, link: str, _value) -> None:
    """The link is negated (negatedOnChain): kept on the link (its extra.negated) until it resolves, so a negation
    made before the chain resolves (a monster destroyed by battle: negatesEffectsOfBattled) waits for it."""
    step.state["chain"][int(link[len("chainLink"):]) - 1].setdefault("extra", {})["negated"] = True


@primitive("finish_link")
def finish_link(step: Step, op: str, link: str, _value) -> None:
    """The last link has resolved.  When the chain is empty, priority returns to the turn player
    and the window the chain was built in closes (rulebook p. 35); a triggered effect whose selections
    opened in the same step (`trigger`) keeps priority with its player, who selects (state-format.md
    "Pending action")."""
    step.state["chain"].pop()
    if not step.state["chain"]:
        step.transient.pop("resolving", None)
        if step.state["pending"] is None:
            step.state["priority"] = step.state["turn_player"]
        close_window(step, op, link, True)


@primitive("open_choice")
def open_choice(step: Step, op: str, _duel: str, value) -> None:
    if op == "opOpenSelection":
        # an activation's next selection (a target once its cost is selected: rules/common/activation.swrl) goes on
        # building the pending action; a first selection starts from the action just taken
        pending = step.state["pending"]
        started = pending["action"] if pending is not None else step.previous["action"]
        action = {k: v for k, v in started.items() if k != "id"}
        moved = step.objects.get(step._ind(action["from"])) if "from" in action else None
        if moved is not None and step._findable(moved):  # a cost paid as it was activated moved the card (tributeThisCard)
            action["from"] = step.locate(moved)
        step.state["pending"] = {"action": action, "purpose": value[: -len("Purpose")], "needed": 1, "chosen": []}
        step.pending_refs = []
    else:
        pending = step.state["pending"]
        ref = pending["action"].get("from")
        finding_nothing = pending["purpose"] == "target" and ref is not None \
            and finds_nothing(step.facts, step._ind(ref))
        pending["needed"] = 0 if finding_nothing else int(value)


def finds_nothing(facts, card: str) -> bool:
    """Whether the card's effect may find nothing (ygo:mayFindNothing: a GOAT search that looks through the Deck) and
    no card is selectable for it now: its target selection then needs no card, and rules/common/effects/
    find-nothing.swrl completes its activation at once (SWRL cannot say "no card is selectable")."""
    effects = {f[2] for f in named(facts, ("hasEffect",)) if f[1] == card}
    return any(f[1] in effects and f[2] is True for f in named(facts, ("mayFindNothing",))) \
        and not any(f[1] == card for f in named(facts, ("selectable",)))


# The purpose of the selection each operation that names none opens (state-format.md "A pending action"): the
# ask_on_resolution, ask_declared_level and ask_summon_position operations'.  opOpenSelection opens one of the purpose
# it names, opTriggerEffect one of its card's triggerPurpose (else target): see purposes_opened.
OPENED_PURPOSES = {"opAskDiscard": "discard", "opAskSwap": "swap", "opAskPerHeadsDestroy": "perHeadsDestroy",
                   "opAskDeclaredLevel": "declare", "opAskSummonPosition": "chooseSummonPosition",
                   "opAskLockZones": "lockZone", "opAskReturnToDeck": "returnToDeck"}


def purposes_opened(op: str, values_of: Callable) -> set | None:
    """The purposes of the pending actions the operation `op` can open (empty: it opens none; None: any), for
    knowledge.reasoned_rules, which leaves out the rules of a purpose no operation its rules infer opens.
    `values_of(prop)`: the individuals a rule or the TBox can give as the object of `prop` (None: any)."""
    if op in OPENED_PURPOSES:
        return {OPENED_PURPOSES[op]}
    named_ = {"opOpenSelection": "opOpenSelection", "opTriggerEffect": "triggerPurpose"}.get(op)
    if named_ is None:
        return set()
    values = values_of(named_)
    if values is None:
        return None
    return {v.removesuffix("Purpose") for v in values} | ({"target"} if op == "opTriggerEffect" else set())


@primitive("ask_on_resolution")
def ask_on_resolution(step: Step, op: str, player_ind: str, count: int) -> None:
    """A resolving effect asks the player to select `count` cards (a DiscardEffect byHandOwner: its discards; a
    SwapControlEffect: a monster to exchange): the pass on which the chain resolves waits for them, as a pending
    action with the operation's purpose (OPENED_PURPOSES; state-format.md "A pending action"); the player holds
    priority and selects, and the chain goes on resolving once they are chosen.  A selection of the same purpose
    already open passes to this player: the cards chosen so far stay chosen and `count` more are needed (a choice
    by each player in turn: a SwapControlEffect)."""
    player = _player(player_ind)
    purpose = OPENED_PURPOSES[op]
    pending = step.state["pending"]
    if pending is not None and pending["action"]["type"] == "pass" and pending["purpose"] == purpose:
        pending["action"]["player"] = player
        pending["needed"] += int(count)
    else:
        step.state["pending"] = {"action": {"type": "pass", "player": player}, "purpose": purpose,
                                 "needed": int(count), "chosen": []}
        step.pending_refs = []
    step.state["priority"] = player


def _resolved_card_place(step: Step, card_ind: str) -> dict | None:
    """Where a resolving link's card is now (its resolution, or its own effect, may have sent it to the Graveyard):
    its place, or, for a card that left its zone before it resolved (a pseudo-card, abox.link_facts), its last copy
    in its link player's Graveyard; None when it is not there either."""
    obj = step.objects.get(card_ind)
    if obj is not None and step._findable(obj):
        return step.locate(obj)
    link = step.state["chain"][-1]
    grave = step.state["players"][link["player"]]["graveyard"]
    names = [n.name if isinstance(n, Token) else n for n in grave]
    if link["card"] not in names:
        return None
    return {"player": link["player"], "area": "graveyard", "index": len(names) - 1 - names[::-1].index(link["card"])}


@primitive("ask_declared_level")
def ask_declared_level(step: Step, op: str, card_ind: str, player_ind: str) -> None:
    """A resolving effect asks the player to declare a Level (an ExcavateEffect with declaresLevelOnResolution): the
    pass on which the chain resolves waits for it, as a pending action with the purpose declare whose `from` is the
    effect's card where its resolution left it (a Normal Spell: its owner's Graveyard), so that the rules find the
    effect again once the Level is declared (rules/common/effects/excavate.swrl)."""
    player = _player(player_ind)
    where = _resolved_card_place(step, card_ind)
    if where is None:
        return
    step.state["pending"] = {"action": {"type": "pass", "player": player, "from": where},
                             "purpose": OPENED_PURPOSES[op], "needed": 1, "chosen": []}
    step.pending_refs = []
    step.state["priority"] = player


@primitive("ask_from_card")
def ask_from_card(step: Step, op: str, card_ind: str, player_ind: str) -> None:
    """A resolving effect asks the player to choose a card (a ReturnToDeckEffect with chosenOnResolution: the card it
    returns, rules/common/effects/return-to-deck.swrl): a pending pass with the operation's purpose whose `from` is the
    effect's card where its resolution left it, as ask_declared_level's, so that the rules find the effect and its
    filter again; the player holds priority and selects."""
    ask_declared_level(step, op, card_ind, player_ind)


@primitive("ask_summon_position")
def ask_summon_position(step: Step, op: str, card_ind: str, player_ind: str) -> None:
    """A resolving PickUpAndSummonEffect asks the player which of the monsters it Summons for them go face-down
    Defense Position (rules/common/effects/pick-up.swrl): a pending pass with the purpose chooseSummonPosition whose
    `from` is the effect's card where it is (on the field: its effect destroys it once both players have chosen),
    needing up to ygo:pickUpCount selections of the player's. One already open passes to this player: the cards
    chosen so far stay chosen (the primitive pick_up reads them) and as many more may be chosen."""
    player = _player(player_ind)
    count = max((int(f[2]) for f in named(step.facts, ("pickUpCount",)) if f[1] in _effects_of(step, card_ind)),
                default=1)
    pending = step.state["pending"]
    purpose = OPENED_PURPOSES[op]
    if pending is not None and pending["purpose"] == purpose:
        pending["action"]["player"] = player
        pending["needed"] += count
    else:
        where = _resolved_card_place(step, card_ind)
        if where is None:
            return
        step.state["pending"] = {"action": {"type": "pass", "player": player, "from": where},
                                 "purpose": purpose, "needed": count, "chosen": []}
        step.pending_refs = []
    step.state["priority"] = player


@primitive("swap_control")
def swap_control(step: Step, op: str, card_ind: str, other_ind: str) -> None:
    """The two monsters exchange control (rulebook p. 43 "Control"; a SwapControlEffect): each takes the other's
    Monster Zone, so the exchange needs no free zone, and, as a monster that changes sides by a move, its field
    bookkeeping (extra) starts again; its owner stays the same."""
    first, second = step.objects[card_ind], step.objects[other_ind]
    a, b = step.locate(first), step.locate(second)
    step.state["players"][a["player"]][a["area"]][a["index"]] = second
    step.state["players"][b["player"]][b["area"]][b["index"]] = first
    first["extra"], second["extra"] = {}, {}


@primitive("trigger")
def trigger(step: Step, op: str, card_ind: str, player_ind: str) -> None:
    """A triggered effect (FLIP, "when Normal Summoned"): its player selects its targets now, or the
    effect's own cost or the targets of its own filter (triggerPurpose, triggerSelections: an effectCost such as
    tributeOneMonster, an effectTargetFilter's effectTarget); the activation then goes on as any other (the pending
    action is an `activate` of the card). A target selection of an effect that may find nothing, with nothing to
    select, needs no card (finds_nothing)."""
    if step.triggered:  # one activation is built at a time: the others wait (below)
        return
    card_ind = _simultaneous_triggers(step, card_ind)
    player_ind = next((f[2] for f in named(step.facts, ("opTriggerEffect",)) if f[1] == card_ind), player_ind)
    step.triggered = card_ind
    obj = step.objects[card_ind]
    player = _player(player_ind)
    if ("TriggerOfNegatedCard", card_ind) in step.facts:
        # a card whose effects are negated activates no trigger of a later event (rules/common/effects/
        # negate-battled.swrl: SWRL cannot take back the opTriggerEffect another rule inferred); spent as a declined one
        if isinstance(obj, dict):
            _decline(obj)
        return

    def fact(prop):
        return next((f[2] for f in named(step.facts, (prop,)) if f[1] == card_ind), None)

    why = fact("triggerPurpose")
    needed = fact("triggerSelections") if why is not None else fact("activationSelections")
    purpose = why[: -len("Purpose")] if why is not None else "target"
    needed = 0 if purpose == "target" and finds_nothing(step.facts, card_ind) else max(1, needed or 1)
    if purpose == "effectTarget" and not any(f[2] == card_ind for f in named(step.facts, ("effectTargetOf",))):
        # rulebook p. 42 "Targeting": a trigger that waited for the chain's end (rules/goat/chain-end-triggers.swrl)
        # with no target of its own filter left is not activated
        return
    if purpose == "target" and short_of_targets(step.facts, card_ind, player_ind, needed):
        # rulebook p. 42 "Targeting": a trigger with no valid target (protectsFromOpponentTargeting: target-protection.swrl)
        # is not activated; it is spent for its window as a declined one is (opDeclineEffect), and a card off the
        # field loses the mark that keeps its trigger due (a FLIP due in the hand or the Deck, a trigger waiting for
        # the chain's end), as its chain link would take it (add_chain_link)
        if isinstance(obj, dict):
            _decline(obj)
        for key in TRIGGER_MARKS:
            step.marks[key].pop(card_ind, None)
        step.state["priority"] = player
        return
    action = {"type": "activate", "player": player, "card": obj["card"] if isinstance(obj, dict) else obj.name,
              "from": step.locate(obj), "effect": 0}
    step.state["pending"] = {"action": action, "purpose": purpose, "needed": needed, "chosen": []}
    event = max((int(f[2]) for f in named(step.facts, ("triggerEventIndex",)) if f[1] == card_ind), default=None)
    if event is not None:  # its event's time, kept while it is open (a decline of its event: declinedEvent)
        step.state["pending"]["extra"] = {"event": event}
    step.pending_refs = []
    step.state["priority"] = player


def _stop_waiting(step: Step, cards: set) -> None:
    """The cards (individuals of the step's start) leave the state's waiting triggers (extra.simultaneous_triggers)."""
    extra = step.state.get("extra")
    if not extra or not extra.get("simultaneous_triggers"):
        return
    waiting = [r for r in extra["simultaneous_triggers"] if step._ind(r) not in cards]
    if waiting:
        extra["simultaneous_triggers"] = waiting
    else:
        drop_extra(step.state, "simultaneous_triggers")


def _trigger_keys(step: Step) -> tuple:
    """The place of each trigger of one moment (_simultaneous_triggers): waiting ones first, in their order; then
    the order of its event in the step (triggerEventIndex: the highest of its values; a trigger with none, started
    by the state the step left, such as a Summon, comes after every event of the step); then its triggerOrder (the
    highest of its values); then its individual's name."""
    waiting = [step._ind(r) for r in step.state.get("extra", {}).get("simultaneous_triggers", ())]
    ranks: dict = {}
    for f in named(step.facts, ("triggerOrder",)):
        ranks[f[1]] = max(ranks.get(f[1], 0), int(f[2]))
    events: dict = {}
    for f in named(step.facts, ("triggerEventIndex",)):
        events[f[1]] = max(events.get(f[1], 0), int(f[2]))
    return waiting, ranks, events, lambda c: (waiting.index(c) if c in waiting else len(waiting),
                                              events.get(c, AFTER_EVENTS), ranks.get(c, 0), step.place_name(c))


AFTER_EVENTS = 1 << 30  # the event place of a trigger with no event in the step (_trigger_keys)


def _defer_immediate_triggers(step: Step, ops: list) -> list:
    """A trigger that makes its chain link at once (an opAddChainLink with no selection open) in a step where another
    trigger opens its selections (opTriggerEffect) is ordered with it (_trigger_keys): if that one's place is lower
    (its event was earlier: GOAT pack README item 11), the link is not made now; the trigger waits behind it
    (step.deferred, extra.simultaneous_triggers) and makes its link once the link before it is made."""
    opening = {f[1] for f in named(step.facts, ("opTriggerEffect",))}
    _waiting, _ranks, _events, key = _trigger_keys(step)
    first = min(map(key, opening))
    deferred = {op[1] for op in ops if op[0] == "opAddChainLink" and op[1] not in opening and key(op[1]) > first}
    if not deferred:
        return ops
    step.deferred = sorted(deferred, key=key)
    return [op for op in ops if not (op[0] == "opAddChainLink" and op[1] in deferred)]


def _simultaneous_triggers(step: Step, card_ind: str) -> str:
    """Triggers of one moment (rulebook p. 41; GOAT pack README item 11): of the triggered effects whose
    selections may open in this step, the one with the lowest place opens; the others wait, in their order, in the
    state's extra.simultaneous_triggers (the ABox's simultaneousTrigger), each opening as soon as the link before it
    is made (rules/official/simultaneous-triggers.swrl).  The waiting ones come first, in their order (their events
    were earlier); then a trigger's place is the highest of its triggerOrder values (rules infer them: they can add a
    value, not take one back), then its individual's name.  The waiting triggers are kept as objects, found again by
    identity as the step's moves shift indexes; a waiting trigger that cannot open in a step (nothing to select) has
    missed its chain.  (`card_ind`: the operation's own card, when the step's facts name none.)"""
    waiting, ranks, events, key = _trigger_keys(step)
    cards = sorted({f[1] for f in named(step.facts, ("opTriggerEffect",))} | set(step.deferred), key=key)
    if not cards:
        return card_ind
    if ranks or waiting:  # (a ruleset whose rules give triggers no place, simplified: the others are missed)
        step.waiting_triggers = [step.objects[c] for c in cards[1:] if c in step.objects]
        step.waiting_events = {id(step.objects[c]): events[c] for c in cards[1:] if c in step.objects and c in events}
    return cards[0]


@primitive("close_choice")
def close_choice(step: Step, op: str, _duel: str, _value) -> None:
    step.state["pending"] = None
    step.pending_refs = None


@primitive("start_turn")
def start_turn(step: Step, op: str, _duel: str, _value) -> None:
    """A new turn: the opponent becomes the turn player; every per-turn value goes back to its start.

    Which values are per-turn is data: the properties annotated ygo:resetEachTurn.
    """
    state = step.state
    state["turn"] += 1
    state["turn_player"] = opponent(state["turn_player"])
    state["priority"] = state["turn_player"]
    resets = {ann["stateKey"]: ann["resetEachTurn"] for ann in step.vocabulary.annotations.values()
              if "resetEachTurn" in ann and "stateKey" in ann}
    # counters that last until the End Phase (ygo:counterKey with ygo:resetEachTurn): gone
    counters = [ann["counterKey"] for ann in step.vocabulary.annotations.values()
                if "resetEachTurn" in ann and "counterKey" in ann and "primitive" not in ann]
    drop_extra(state, *TURN_LOCKS)  # a summon (Battle Phase) lock lasts the turn it was activated in
    for marked in step.marks.values():  # (a negation of a battle's, a FLIP due off the field: that turn's)
        marked.clear()
    for p in PLAYERS:
        side = state["players"][p]
        side["normal_summon_used"] = False
        for fc in [*side["monster_zones"], *side["spell_trap_zones"], side["field_zone"]]:
            if fc is None:
                continue
            for key, value in resets.items():
                fc[key] = type(FIELD_CARD_DEFAULTS[key])(0 if value in ("0", "false") else 1)
            for key in counters:
                fc["counters"].pop(key, None)
            fc["extra"].pop("replay", None)  # a replay's right to attack again lasts this turn only (rulebook p. 28)
            fc["extra"].pop("second_attack", None)  # so does a second attack's (second-attack.swrl)
    for _fc, monsters in step.attacked.values():  # and the monsters each attacked (extra.attacked_monsters, dropped
        monsters.clear()                          # by Step.finish: attack-every-monster.swrl)
    step.transient["turn_started"] = True
