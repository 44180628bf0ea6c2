"""State <-> individuals: the ABox of a duel state as plain facts.

A fact is a tuple: (Class, individual) or (property, subject, object-or-literal).  Both
reasoner backends take these facts, so they see exactly the same ABox.

Open-world gaps are closed here, by a few driver-kept facts named in one place
(`closure facts`): counts SWRL cannot take (monsters, hand, deck, chain, selections) and
booleans asserted false as well as true.  Counts of particular cards (a face-up Field Spell, Equip Spells equipped
to a monster) are declared in the ontology (annotation ygo:countsCards) and counted by one
generic function, card_counts: no card is named here; a count no card of the catalog makes is left out
(idle_counts), as is a keyword ability no card has (idle_abilities).  Deck cards are left out of the reasoning ABox
(`lean=True`) where no card of the duel looks in a Deck (a CardFilter with filterArea deckArea): most rules look only at
a Deck's count; in a duel with such a card both Decks are shown throughout: visible_decks.  The game events of the last step
(primitives: a MoveEvent) are the part "events", for one step.
"""
from __future__ import annotations

import operator
import threading
from itertools import chain, repeat

from .cards import cards_naming, catalog, official_based, type_individual
from .knowledge import ACTIVE, Vocabulary, VocabularyError, knowledge, parsed_rules
from .state import (ANSWERED_SUMMONS, AREAS, CARD_MARKS, LIST_AREAS, PLAYERS, ZONE_PURPOSES, card_at, card_name_at,
                    locked_zones, opponent, usable_monster_zones)

PHASE_INDIVIDUALS = {"draw": "drawPhase", "standby": "standbyPhase", "main1": "mainPhase1", "battle": "battlePhase",
                     "main2": "mainPhase2", "end": "endPhase"}
PHASE_NAMES = {v: k for k, v in PHASE_INDIVIDUALS.items()}
POSITION_INDIVIDUALS = {"attack": "attackPosition", "defense": "defensePosition",
                        "face_down_defense": "faceDownDefensePosition", "face_up": "faceUpPosition",
                        "face_down": "faceDownPosition"}
POSITION_NAMES = {v: k for k, v in POSITION_INDIVIDUALS.items()}
SUMMONING_TYPES = ("activate", "special_summon", "synchro_summon")  # actions whose `to` is a Special Summon's position
ZONE_CLASSES = {"deck": "Deck", "hand": "Hand", "graveyard": "Graveyard", "banished": "Banished",
                "extra_deck": "ExtraDeck", "monster_zones": "MonsterZone", "spell_trap_zones": "SpellTrapZone",
                "field_zone": "FieldSpellZone"}
KIND_INDIVIDUALS = {k: (k.split("_")[0] + "".join(w.title() for w in k.split("_")[1:]) + "Kind")
                    for k in ("normal_summon", "tribute_summon", "set_monster", "flip_summon", "change_position",
                              "special_summon", "synchro_summon", "activate", "set_spell_trap", "attack",
                              "direct_attack", "select", "declare", "cancel", "pass", "next_phase", "end_turn")}
KIND_NAMES = {v: k for k, v in KIND_INDIVIDUALS.items()}
AREA_INDIVIDUALS = {"deck": "deckArea", "hand": "handArea", "graveyard": "graveyardArea", "banished": "banishedArea",
                    "extra_deck": "extraDeckArea", "monster_zones": "monsterZoneArea",
                    "spell_trap_zones": "spellTrapZoneArea", "field_zone": "fieldZoneArea"}
DUEL = "theDuel"
ACTION = "theAction"
PENDING = "thePending"


def player_ind(p: str) -> str:
    return f"player{p}"


def zone_ind(p: str, area: str, index: int = 0) -> str:
    if area in ("monster_zones", "spell_trap_zones"):
        return f"{p}_{area}_{index}"
    return f"{p}_{area}"


# The areas whose cards are named by their card and which copy of it they are (list_names), not by their place: cards
# join and leave them all the time (a draw, a card played from the hand), and a name by place would rename every card
# after the one that left, so that its facts and all the rules derived from them would go and come.
KEYED_AREAS = ("deck", "hand")


def card_ind(p: str, area: str, index: int, state: dict | None = None) -> str:
    """The individual of the card at a place (`index` as the state counts it: a Deck's from its top).  A card on the
    field, in a Graveyard, banished or in an Extra Deck is named by its place (A_graveyard_2_card); a card in a Deck
    or a hand by its card and its copy (A_hand_PotOfGreed_0_card: list_names).  `state`: the state the place is in,
    needed for a Deck's or a hand's card."""
    if area in KEYED_AREAS:
        cards = state["players"][p][area]
        return list_names(p, area, cards, _catalog(state["ruleset"]))[index] if 0 <= index < len(cards) \
            else f"{p}_{area}_{index}_card"  # (no card there: a name that names none)
    return f"{p}_{area}_{index}_card"


def list_names(p: str, area: str, cards, cat) -> tuple:
    """The individuals of the cards of a Deck or a hand (`cards`, in the state's order), memoized per catalog: each
    its card's class and its number among the copies of that card in the list (from 0), counted from the Deck's
    bottom card (a draw takes the top one) and from the hand's first card (a card joins the hand at its end).  A card
    that joins or leaves renames none of the others but its own later copies, whose facts are the same but their
    cardIndex.  Deterministic: Pellet and the fast backend see the same individuals."""
    memo = cat.__dict__.setdefault("_list_names", {})
    key = (p, area, cards if type(cards) is tuple else tuple(cards))
    got = memo.get(key)
    if got is None:
        if len(memo) > 50_000:
            memo.clear()
        seen: dict = {}
        out = [""] * len(cards)
        for i in range(len(cards) - 1, -1, -1) if area == "deck" else range(len(cards)):
            cls = cat.get(cards[i]).class_name
            out[i] = f"{p}_{area}_{cls}_{seen.get(cls, 0)}_card"
            seen[cls] = seen.get(cls, 0) + 1
        got = memo[key] = tuple(out)
    return got


def parse_card_ind(name: str, state: dict | None = None) -> dict:
    """'A_monster_zones_2_card' -> {'player': 'A', 'area': 'monster_zones', 'index': 2}, the place card_ind names in
    `state` (needed for a Deck's or a hand's card: one it does not hold gets an index past the list's end); a Monster
    or Spell & Trap Zone's own individual ('A_monster_zones_2', zone_ind) names the same place (a `select` of an
    empty zone)."""
    player, area, index, keyed = _place(name)
    if keyed:
        cards = state["players"][player][area]
        names = list_names(player, area, cards, _catalog(state["ruleset"]))
        index = names.index(name) if name in names else len(cards)
    return {"player": player, "area": area, "index": index}


def _place(name: str) -> tuple:
    """(player, area, number, keyed) of a card's individual as card_ind wrote it: `number` is a copy's number in a
    Deck or a hand (`keyed` true: list_names), else the place's index.  Raises ValueError for another name."""
    player, rest = name.split("_", 1)
    head, number = rest.removesuffix("_card").rsplit("_", 1)
    area, _, cls = head.partition("_") if head.startswith(_KEYED_HEADS) else (head, "", "")
    return player, area, int(number), bool(cls)


_KEYED_HEADS = tuple(f"{area}_" for area in KEYED_AREAS)


_ZONE_PARTS: dict = {}  # the part ("zones", p) by the player, the ruleset and which of its zones are free


class ABox(list):
    """A state's facts (state_facts' list) with `parts`: its facts cut into parts, by what they are about (the
    duel, the duel's facts read off the cards (the board), a player (whose turn, priority, its side), a player's
    zones, a card where it lies, the pending action, a chain link, the action), a dict part -> (tuple of facts,
    tuple of the types of their values), for the fast backend to see which parts changed from the previous state
    (reasoning/fast/facts.py, _abox_parts).  A change to the list drops them."""

    __slots__ = ("parts", "_unbuilt")  # (_unbuilt: _LazyABox's; here so that both classes have one layout)


def _dropping_parts(name):
    method = getattr(list, name)

    def changed(self, *args):
        self.parts = None
        return method(self, *args)

    changed.__name__ = name
    return changed


for _name in ("__setitem__", "__delitem__", "__iadd__", "__imul__", "append", "extend", "insert", "pop", "remove",
              "clear", "sort", "reverse"):
    setattr(ABox, _name, _dropping_parts(_name))


class _LazyABox(ABox):
    """An ABox whose list is built from its parts when first used: the native evaluator reads the parts
    alone (run_bundles), so most runs never build the ~1,000 facts of a state.  Any use of it as a list
    (any list method, pickling, copying) builds the list (the facts of the parts in order) and turns the
    object into a plain ABox, which then costs its readers nothing more."""

    __slots__ = ()

    def _build(self) -> None:
        with _BUILDING:  # (two threads reading it: one builds it, the other then finds it built)
            if type(self) is _LazyABox:
                list.extend(self, chain.from_iterable(map(_FACTS, self._unbuilt.values())))
                self._unbuilt = None
                self.__class__ = ABox

    def __radd__(self, other):  # (list + this: list's concatenation reads the list's items directly)
        self._build()
        return NotImplemented


_BUILDING = threading.Lock()


def _building(name):
    def method(self, *args):
        self._build()
        return getattr(ABox, name)(self, *args)

    method.__name__ = name
    return method


for _name in ("__iter__", "__len__", "__getitem__", "__contains__", "__reversed__", "__eq__", "__ne__", "__lt__",
              "__le__", "__gt__", "__ge__", "__repr__", "__add__", "__mul__", "__rmul__", "__sizeof__", "__init__",
              "__reduce__", "__reduce_ex__", "__getstate__", "copy", "count", "index", "__setitem__", "__delitem__",
              "__iadd__", "__imul__", "append", "extend", "insert", "pop", "remove", "clear", "sort", "reverse"):
    setattr(_LazyABox, _name, _building(_name))


def _lazy_abox(parts: dict) -> ABox:
    """The ABox of these parts (the facts of each in order), its list built when first used."""
    out = list.__new__(_LazyABox)
    out.parts = out._unbuilt = parts
    return out


def typed_part(part: tuple) -> tuple[tuple, tuple]:
    """An ABox part as ABox.parts holds it: (its facts, the types of their values)."""
    return part, tuple(map(type, map(_VALUE, part)))


_VALUE = operator.itemgetter(-1)
_FACTS = operator.itemgetter(0)


def kept_part(part: tuple) -> tuple[tuple, tuple]:
    """typed_part for a part a memo keeps: each fact the equal one (with a value of the same type) seen
    first, so a kept part holds few new objects (each one kept counts towards a garbage collection)."""
    types = tuple(map(type, map(_VALUE, part)))
    seen = _SEEN_FACTS
    if len(seen) > 100_000:
        seen.clear()
        _SEEN_TYPES.clear()
    types = _SEEN_TYPES.setdefault(types, types)  # (parts of a kind share their types: one tuple kept)
    try:
        same = tuple(map(seen.setdefault, part, part))  # (one pass: the fact seen first, or this one from now on)
    except TypeError:  # (an unhashable value: kept as it is)
        return part, types
    if tuple(map(type, map(_VALUE, same))) != types:  # (a fact seen with a value of another type)
        return part, types
    return same, types


_SEEN_FACTS: dict = {}  # a fact -> the equal fact kept_part saw first
_SEEN_TYPES: dict = {}  # the types of a part's values -> the equal tuple kept_part saw first


def state_abox(state: dict, transient: dict | None = None) -> ABox:
    """The reasoning ABox of a state (lean: no deck card) with the transient facts of an apply step
    (theAction, a new turn, a resolving chain), as an ABox with its parts (_parts), its list built when
    first used.  A part equal to an earlier state's is that same object (the fast backend finds it by
    id, not by content)."""
    return _lazy_abox(_parts(state, transient or {}, True))


def with_action(abox: list, action: dict, state: dict) -> list:
    """A state's ABox (state_abox(state) without transient facts) with an action's facts after it: what
    state_abox(state, {"action": action}) gives, parts included (the action is the part "action")."""
    facts = action_facts(action, state)
    parts = getattr(abox, "parts", None)
    if parts is not None and "action" not in parts and hasattr(abox, "_unbuilt"):  # (an ABox _lazy_abox made: its
        # list is its parts' facts, so the list of these parts is abox's and the action's)
        return _lazy_abox({**parts, "action": _interned(typed_part(tuple(facts)))})
    out = ABox(abox)
    list.extend(out, facts)
    return out


def state_facts(state: dict, lean: bool = True, transient: dict | None = None) -> list[tuple]:
    """The facts of a state (plus the transient facts of an apply step): the facts of state_abox's parts in
    order, with the deck cards' when not `lean` (the full ABox, as export-owl writes it).

    The action's facts come last: with transient {"action": a} the ABox is the state's own and
    action_facts(a) (game.run_reasoner relies on it)."""
    return list(chain.from_iterable(map(_FACTS, _parts(state, transient or {}, lean).values())))


# -- the facts of each part (_parts, on a memo's miss)

def event_facts(events, state: dict) -> list[tuple]:
    """The part "events": the game events of the last step (primitives.Step.finish), each a MoveEvent
    (player, area, index of the card now, the area it left, the area it entered, why or None), a BattleEvent
    (the monster's player, area and index, None, None, then the player, area and index of the monster it battled
    last), or another event of a monster that moved nowhere (its player, area and index, None, None, the event's
    class: BattleDamageEvent, DirectBattleDamageEvent, DestroysByBattleEvent, TargetResolvedEvent); each has then its
    order in the step (eventOrder: events of one operation share it), and a MoveEvent of a monster with Equip Cards at
    the step's start ends with them: ("eventEquip", an Equip Card's place now), each."""
    out = []
    for n, (p, area, i, came_from, went_to, reason, order, *bonds) in enumerate(events, 1):
        me = f"event{n}"
        out.append(("eventOrder", me, order))  # its time in the step: 1 the first (primitives.Step.finish)
        if came_from is None and isinstance(reason, (tuple, list)):  # a BattleEvent: the monster battled
            out += [("BattleEvent", me), ("eventCard", me, card_ind(p, area, i, state)),
                    ("eventOpponent", me, card_ind(*reason, state))]
            continue
        if came_from is None:
            out += [(reason, me), ("eventCard", me, card_ind(p, area, i, state))]
            continue
        out += [("MoveEvent", me), ("eventCard", me, card_ind(p, area, i, state)),
                ("movedFrom", me, AREA_INDIVIDUALS[came_from]), ("movedTo", me, AREA_INDIVIDUALS[went_to])]
        if reason:
            out.append(("moveReason", me, reason))
        out += [(prop, me, card_ind(*other, state)) for prop, other in bonds]
    return out


def deck_lookers(cat) -> frozenset:
    """The names of the catalog's cards with an effect that looks in the Deck (its CardFilter's filterArea is
    deckArea: the ontology's data), memoized per catalog and vocabulary."""
    return cards_naming(cat, knowledge(cat.ruleset).vocabulary, "_deck_lookers", _deck_effects)


# the properties by which an effect names a filter: appliesTo, and a BanishEffect's filter of the target's namesakes
FILTER_PROPERTIES = ("appliesTo", "banishesSameNameFrom")


def _deck_effects(vocabulary) -> set:
    filters = {s for p, s, o in vocabulary.tbox_facts if p == "filterArea" and o == "deckArea"}
    return {s for p, s, o in vocabulary.tbox_facts if p in FILTER_PROPERTIES and o in filters}


def duel_holds(state: dict, names: frozenset) -> bool:
    """Whether a card of these names is anywhere in the duel, in either player's lists or on the field (a card never
    leaves the duel, so this holds from its first state to its last)."""
    if names:
        for side in state["players"].values():
            if any(n in names for area in LIST_AREAS for n in side[area]) or any(
                    fc is not None and fc["card"] in names
                    for fc in (*side["monster_zones"], *side["spell_trap_zones"], side["field_zone"])):
                return True
    return False


def visible_decks(state: dict, cat) -> tuple:
    """The players whose Deck's cards the ABox shows: both Decks in a duel where a card looks in a Deck (deck_lookers,
    wherever it lies: duel_holds, so its Decks are shown from the first state to the last); else only a Deck where a
    FLIP effect is due (extra.flipped_hidden: its card activates it there), and the Deck's count alone for the other.
    A Deck shown only while such a card could look there came and went with its ~40 cards and all the rules derived
    from them, which cost more model changes per run than the draws of a Deck always shown."""
    if duel_holds(state, deck_lookers(cat)):
        return PLAYERS
    return tuple(sorted({r["player"] for r in state.get("extra", {}).get("flipped_hidden", ()) if r["area"] == "deck"}))


def pick_uppers(cat) -> frozenset:
    """The names of the catalog's cards with an effect that reads a Deck's top cards (ygo:pickUpCount), memoized as
    deck_lookers."""
    return cards_naming(cat, knowledge(cat.ruleset).vocabulary, "_pick_uppers",
                        lambda v: {s for p, s, o in v.tbox_facts if p == "pickUpCount"})


def deck_cards_in_use(state: dict, transient: dict) -> frozenset:
    """The (player, index) of the Deck cards whose own effects the rules may use where they lie, which alone keep
    their hasEffect facts in the reasoning ABox: a FLIP effect due there (extra.flipped_hidden), the card of a trigger
    waiting for its chain link, of the pending activation or of a chain link, and a card of a game event of the last
    step.  Every other Deck card is only looked at (a filter's match: its class, name, Level, Type, Attribute), so its
    effects' facts, and every fact derived from them (the active filters, its candidates and selections), would come
    and go with each card drawn or searched for nothing."""
    extra = state.get("extra", {})
    used = {(r["player"], r["index"]) for key in ("flipped_hidden", "simultaneous_triggers", "chain_end_triggers")
            for r in extra.get(key, ()) if r["area"] == "deck"}
    used.update((p, i) for p, area, i, *_ in transient.get("events", ()) if area == "deck")
    pending = state["pending"]
    own = pending["action"].get("from") if pending is not None else None
    if own and own["area"] == "deck":
        used.add((own["player"], own["index"]))
    used.update((link["player"], link["zone"]["index"]) for link in state["chain"]
                if link.get("zone") and link["zone"]["area"] == "deck")
    return frozenset(used)


def _duel_facts(add, state: dict, transient: dict) -> None:
    """The part "duel": the phase, the turn and the like (most states change one of them)."""
    add(("Duel", DUEL))
    add(("currentPhase", DUEL, PHASE_INDIVIDUALS[state["phase"]]))
    add(("turnNumber", DUEL, state["turn"]))
    add(("duelOver", DUEL, state["winner"] is not None))
    add(("chainLength", DUEL, len(state["chain"])))
    add(("hasPending", DUEL, state["pending"] is not None))
    add(("turnStarted", DUEL, bool(transient.get("turn_started"))))
    phase_end = state.get("extra", {}).get("phase_end")  # rulebook p. 38: the opponent's window at a phase end
    add(("turnEnding", DUEL, phase_end == "turn"))
    # rulebook p. 32: a chain built in the Damage Step after damage calculation (a FLIP effect of an attacked monster)
    add(("damageStepChain", DUEL, bool(state.get("extra", {}).get("damage_step_chain"))))
    # GOAT priority (pack README item 1): the open chain was begun by an ignition effect in a Summon's window
    add(("summonChain", DUEL, bool(state.get("extra", {}).get("summon_chain"))))
    if phase_end in PHASE_INDIVIDUALS:
        add(("phaseEndsTo", DUEL, PHASE_INDIVIDUALS[phase_end]))
    end = state.get("extra", {}).get("damage_step_end")
    if end is not None:  # goat's Damage Step sub-steps after damage calculation (rules/goat/damage-step.swrl); no rule asks 0
        add(("endOfDamageStep", DUEL, end["sub_step"]))


def _board_facts(add, state: dict, transient: dict, highest: tuple, counts: list, battle: list) -> None:
    """The part "board", the duel's facts read off the cards (highest_atk_facts, card_counts, battle_facts
    given) and a die roll: a part of its own, as these change in few states (the part "duel" in most)."""
    for fact in highest:
        add(fact)
    die = transient.get("die")
    if die:
        add(("dieResult", DUEL, die["result"]))
        add(("dieRolledFor", DUEL, card_ind(*die["card"], state)))
    coins = transient.get("coins")
    if coins:  # coins just tossed (primitives.toss_coins): a TossCoinsEffect's rules read the heads
        add(("coinHeads", DUEL, coins["heads"]))
        if coins["needed"] is not None:  # (a TossCoinsEffect with destroysPerHeads needs no number of heads)
            add(("coinHeadsNeeded", DUEL, coins["needed"]))
        add(("coinsTossedFor", DUEL, card_ind(*coins["card"], state)))
    for fact in counts:
        add(fact)
    for fact in battle:
        add(fact)


def _player_facts(add, state: dict, p: str) -> None:
    """The part ("player", p): the player and whether it is its turn."""
    me = player_ind(p)
    add(("Player", me))
    add(("TurnPlayer" if state["turn_player"] == p else "NonTurnPlayer", me))


def _priority_facts(add, state: dict, p: str) -> None:
    """The part ("priority", p): whether the player has priority (a part of its own: it goes back and forth between
    the players in most states, the facts of ("side", p) in few)."""
    if state["priority"] == p:
        add(("PriorityPlayer", player_ind(p)))


def _side_facts(add, state: dict, p: str, aggregates) -> None:
    """The part ("side", p): whether the player went first, its opponent, life points and counts
    (player_aggregates' items given)."""
    side = state["players"][p]
    me = player_ind(p)
    if state["first_player"] == p:
        add(("FirstPlayer", me))
    add(("opponentOf", me, player_ind(opponent(p))))
    add(("lifePoints", me, side["life_points"]))
    add(("normalSummonsLeft", me, 0 if side["normal_summon_used"] else 1))
    # closure facts: counts kept by the driver
    add(("monsterCount", me, sum(1 for z in side["monster_zones"] if z is not None)))
    add(("handCount", me, len(side["hand"])))
    add(("deckCount", me, len(side["deck"])))
    for name, value in aggregates:
        add((name, me, value))


def _list_card_parts(cat) -> dict:
    """The catalog's memo of _list_card_part."""
    list_parts = cat.__dict__.setdefault("_list_card_parts", {})
    if len(list_parts) > 50_000:
        list_parts.clear()
    return list_parts


def _list_card_part(list_parts: dict, cat, name: str, p: str, area: str, i, chosen: bool, properly: bool,
                    top: int | None = None, effects: bool = True) -> tuple:
    """The part of a card in a list area (hand, Graveyard, ...): its facts depend on these alone (memoized).  A card
    of a Deck or a hand: `i` is its individual (list_names), `top` its cardIndex (a Deck's: from its top, None past
    the top cards the rules read, deck_reach); `effects`: whether it has its hasEffect facts (a Deck's card only
    where its effect is used there, deck_cards_in_use)."""
    key = (name, p, area, i, chosen, properly, top, effects)
    got = list_parts.get(key)
    if got is None:
        card, c, placed = placed_card_facts(cat, name, p, area, i, p)
        if not effects:
            placed = tuple(f for f in placed if f[0] != "hasEffect")
        part = (*placed, ("chosenForPending", c, chosen), *((("cardIndex", c, top),) if top is not None else ()))
        if area == "graveyard" and card.special_summon_only:  # rulebook p. 15: revived only if properly summoned before
            part += (("properlySummoned", c, properly),)
        got = list_parts[key] = kept_part(part)
    return got


def _field_card_facts(add, state: dict, cat, counters: tuple, p: str, area: str, i: int, fc: dict, chosen: bool) -> None:
    """The part of a card on the field (a Monster, Spell & Trap or Field Zone)."""
    card, c, placed = placed_card_facts(cat, fc["card"], p, area, i, fc["owner"])
    for fact in placed:
        add(fact)
    add(("chosenForPending", c, chosen))
    pos = POSITION_INDIVIDUALS[fc["position"]]
    # a Monster Card in a Spell & Trap Zone is an Equip Card (an EquipMonsterEffect's, rules/common/effects/equip-monster.swrl):
    # told as a Spell & Trap Zone card is, with `absorbed`; only a monster in a Monster Zone has a monsterPosition
    in_monster_zone = card.is_monster and area == "monster_zones"
    add(("monsterPosition" if in_monster_zone else "spellTrapPosition", c, pos))
    add(("atkModifier", c, fc["atk_modifier"]))
    add(("defModifier", c, fc["def_modifier"]))
    for prop, key in counters:
        add((prop, c, fc["counters"].get(key, 0)))
    if card.is_monster and area == "spell_trap_zones":
        add(("absorbed", c, True))
    if in_monster_zone:
        _ability_facts(add, cat, card, c, fc["position"].startswith("face_down"))
        add(("summonedThisTurn", c, fc["summoned_this_turn"]))
        add(("positionChangedThisTurn", c, fc["position_changed_this_turn"]))
        add(("attacksDeclared", c, fc["attacks_declared"]))
        add(("summonedAs", c, fc["summoned_by"] + "Summon"))
        add(("justFlipped", c, bool(fc["extra"].get("flipped"))))
        add(("effectDeclined", c, bool(fc["extra"].get("effect_declined"))))
        add(("replayRight", c, bool(fc["extra"].get("replay"))))
        add(("controlReturnsAtEnd", c, bool(fc["extra"].get("control_until_end"))))
        # how control was taken is noted (until the End Phase, or while an Equip Spell is equipped)
        add(("controlUntilEndGiven", c, "control_until_end" in fc["extra"] or "control_by_equip" in fc["extra"]))
        add(("controlEquipGone", c, bool(fc["extra"].get("control_equip_gone"))))
        if fc["extra"].get("control_equip_negated"):  # back with its owner while its Equip Spell is negated
            add(("controlEquipNegated", c, True))
        add(("banishedAtEndPhase", c, bool(fc["extra"].get("banish_at_end_phase"))))
        if fc["extra"].get("destroyed_by_battle"):  # goat: destroyed by battle, on the field until the End of the Damage Step
            add(("destroyedByBattlePending", c, True))
        if card.name in zone_lock_cards(cat):  # (a card with a ZoneLockEffect: whether it has chosen its zones)
            add(("zonesChosen", c, "locked_zones" in fc["extra"]))
        if fc["extra"].get("just_summoned"):
            add(("justSummonedBy", c, fc["extra"]["just_summoned"] + "Summon"))
        if fc["extra"].get("effect_summoned"):  # Special Summoned by a resolving link in the last step (effect-summons.swrl)
            add(("effectSummoned", c, True))
        if fc["extra"].get("summon_timing_missed"):  # an effect's Summon that opened no window (effect-summons.swrl)
            add(("summonTimingMissed", c, True))
    else:
        add(("setThisTurn", c, fc["set_this_turn"]))
        eq = fc["equipped_to"]
        if eq is not None:  # (its zone holds a monster: state.validate; one that left it is an event, eventEquip)
            add(("equippedTo", c, card_ind(eq["player"], "monster_zones", eq["zone"])))
        add(("turnsCounterGiven", c, "turns" in fc["counters"]))
        if "turns" in fc["counters"]:
            add(("swordsTurnsLeft", c, fc["counters"]["turns"]))


def zone_lock_cards(cat) -> frozenset:
    """The names of the catalog's cards with a ZoneLockEffect (an Effect with ygo:locksZones), memoized per catalog:
    only their field cards are told zonesChosen (rules/common/effects/zone-lock.swrl)."""
    got = cat.__dict__.get("_zone_lock_cards")
    if got is None:
        vocabulary = knowledge(cat.ruleset).vocabulary
        got = cat.__dict__["_zone_lock_cards"] = cards_naming(
            cat, vocabulary, "_zone_lock_named", lambda v: {s for p, s, o in v.tbox_facts if p == "locksZones"})
    return got


def keyword_abilities(cat) -> tuple:
    """The keyword abilities of the TBox (individuals of ygo:KeywordAbility: piercing, ...) a monster of the catalog
    is told to have or lack: all but those no card has (idle_abilities), memoized per catalog."""
    got = cat.__dict__.get("_keyword_abilities")
    if got is None:
        k = knowledge(cat.ruleset)
        idle = idle_abilities(k)[1]
        got = cat.__dict__["_keyword_abilities"] = tuple(sorted(
            ind for ind, classes in k.vocabulary.individuals.items() if "KeywordAbility" in classes and ind not in idle))
    return got


def _ability_facts(add, cat, card, c: str, face_down: bool) -> None:
    """A monster's keyword abilities on the field (seed 004: defined once, rules/common/battle.swrl reads them):
    hasAbility for each of its card's, and lacksAbility for each other one of the TBox, because SWRL cannot say
    "has no such ability" (the battle rules destroy a monster that lacksAbility indestructibleByBattle). A face-down
    monster's effects are not active (rulebook p. 11): it lacks every ability."""
    own = () if face_down else card.abilities
    for ability in keyword_abilities(cat):
        add(("hasAbility" if ability in own else "lacksAbility", c, ability))


def _pending_facts(add, state: dict, pending: dict, cat) -> None:
    """The part "pending" of a pending action (no facts without one)."""
    action = pending["action"]
    add(("PendingAction", PENDING))
    add(("pendingKind", PENDING, KIND_INDIVIDUALS[action["type"]]))
    if "from" in action:
        ref = action["from"]
        add(("pendingActor", PENDING, card_ind(ref["player"], ref["area"], ref["index"], state)))
    add(("pendingPlayer", PENDING, player_ind(action.get("player", state["turn_player"]))))
    add(("purpose", PENDING, pending["purpose"] + "Purpose"))
    if action["type"] in SUMMONING_TYPES:
        add(("summonPosition", PENDING, POSITION_INDIVIDUALS[action.get("to", "attack")]))
    if "cost_level" in pending.get("extra", {}):  # the Level of the Tribute its cost paid (level-of-cost.swrl)
        add(("costLevel", PENDING, pending["extra"]["cost_level"]))
    if "event" in pending.get("extra", {}) and "from" in action:  # the trigger's event (rules/goat/simultaneous-triggers.swrl)
        ref = action["from"]
        add(("triggerEventIndex", card_ind(ref["player"], ref["area"], ref["index"], state), pending["extra"]["event"]))
    add(("selectionsNeeded", PENDING, pending["needed"]))
    add(("selectionsMade", PENDING, len(pending["chosen"])))
    chosen_names = [n for n in (card_name_at(state, r) for r in pending["chosen"]) if n]
    add(("selectedLevelTotal", PENDING, sum(cat.get(n).level or 0 for n in chosen_names)))
    if chosen_names:  # the selection order counts (a Ritual Spell's first choice is its Ritual Monster), as a link's targets do
        first = pending["chosen"][0]
        add(("pendingFirstChosen", PENDING, card_ind(first["player"], first["area"], first["index"], state)))
    if pending["purpose"] in ZONE_PURPOSES:  # a selection of empty zones: which are selected (chosenForPending names cards)
        chosen = {(r["player"], r["index"]) for r in pending["chosen"]}
        for p in PLAYERS:
            for i in range(5):
                add(("zoneSelectable", zone_ind(p, "monster_zones", i), (p, i) not in chosen))


# -- a state's parts, memoized
# Each memo maps a key holding every value its part's facts are made of (with the types of the values a fact
# takes as they are: True == 1 and 1.0 == 1 as keys) to the part, so an equal part is the same object.  A key
# that cannot be hashed (a value no valid state holds) is not memoized: its part is built each time.

MEMO_CAP = 1_000  # entries per memo (a duel makes ~200-650 each), cleared when full: ~4 MB at most


class _Memo:
    """_parts' memos for one catalog and the declarations of the Knowledge in use."""

    __slots__ = ("counters", "counts", "counted_keys", "lists", "held", "fields", "players", "turns", "duels", "boards",
                 "sums")

    def __init__(self, counters: tuple, counts: tuple):
        self.counters, self.counts = counters, counts
        self.counted_keys = tuple(dict.fromkeys(  # (_parts; a counter a count reads, or leaves out: except=)
            key for d in counts for spec, unless in [_except(d[1])]
            for key in ((spec[len(COUNTER):],) if spec.startswith(COUNTER) else ()) + ((unless,) if unless else ())))
        self.lists: dict = {}  # (player, area, names, chosen flags, properly-summoned flags) -> ((slot, part), ...)
        self.held: dict = {}  # (player, the names of its hand, Graveyard, banished, Extra Deck) -> ((slot, part), ...)
        self.fields: dict = {}  # _field_key -> the part of a field card
        self.players: dict = {}  # (player, its facts' values) -> the part ("side", p)
        self.turns: dict = {}  # ("player", p, its turn) or ("priority", p, its priority) -> that part
        self.duels: dict = {}  # (the duel facts' values) -> the part "duel"
        self.boards: dict = {}  # (highest ATK facts, counts, battle facts) -> the part "board"
        self.sums: dict = {}  # the closure facts (player_aggregates, highest_atk_facts, card_counts) by their inputs


def _remember(memo: dict, key, value):
    if len(memo) >= MEMO_CAP:
        memo.clear()
    try:
        memo[key] = value
    except TypeError:  # (a key that cannot be hashed: not kept)
        pass
    return value


def _get(memo: dict, key, default=None):
    """memo.get(key, default), and `default` for a key that cannot be hashed."""
    try:
        return memo.get(key, default)
    except TypeError:
        return default


def _interned(part: tuple) -> tuple:
    """The part equal to this one first seen (a part made of the state's values directly: pending, a chain link, the
    action), or this one."""
    try:
        got = _INTERNED.get(part)
    except TypeError:  # (a value that is not hashable: not a fact the fast backend reads)
        return part
    return got if got is not None else _remember(_INTERNED, part, kept_part(part[0]))


_INTERNED: dict = {}
_SLOTS: dict = {}  # (player, area, n) -> the slots (player, area, index) of the first n cards (a few hundred at most)


def _slots(p: str, area: str, n: int) -> tuple:
    got = _SLOTS.get((p, area, n))
    if got is None:
        got = _SLOTS[(p, area, n)] = tuple((p, area, i) for i in range(n))
    return got


_EMPTY = typed_part(())
_NO_BATTLE = (("battleInProgress", DUEL, False), ("summonInProgress", DUEL, False), ("attemptInProgress", DUEL, False))
_NO_EXTRA = (False, False, False, False, False, None, False, False, False, False, False, False, False, False)  # _field_key of an empty `extra`
_LEAN_AREAS = tuple(a for a in LIST_AREAS if a != "deck")


_FIELD_VALUES = operator.itemgetter("card", "owner", "position", "atk_modifier", "def_modifier", "summoned_this_turn",
                                    "position_changed_this_turn", "attacks_declared", "summoned_by", "set_this_turn")
_FIELD_DICTS = operator.itemgetter("extra", "equipped_to", "counters")


def _field_key(state: dict, p: str, area: str, i: int, fc: dict, chosen: bool) -> tuple:
    """What the part of a field card is made of (_field_card_facts reads nothing else)."""
    x, eq, counters = _FIELD_DICTS(fc)
    values = _FIELD_VALUES(fc)  # (one call, not ten lookups: a state has ~8 field cards)
    return (p, area, i, chosen, values, tuple(map(type, values)),
            (tuple(counters.items()), tuple(map(type, counters.values()))) if counters else (),
            (bool(x.get("flipped")), bool(x.get("effect_declined")), bool(x.get("replay")),
             bool(x.get("control_until_end")), "control_until_end" in x, x.get("just_summoned") or None,
             "control_by_equip" in x, bool(x.get("control_equip_gone")),
             bool(x.get("control_equip_negated")), bool(x.get("banish_at_end_phase")), "locked_zones" in x, bool(x.get("destroyed_by_battle")),
             bool(x.get("effect_summoned")), bool(x.get("summon_timing_missed")))
            if x else _NO_EXTRA,
            None if eq is None else (eq["player"], eq["zone"], type(eq["zone"])))


# per player, the slots (player, area, index) of its field zones in the ABox's order (as _parts reads them)
_FIELD_SLOTS = {p: (*((p, "monster_zones", i) for i in range(5)), *((p, "spell_trap_zones", i) for i in range(5)),
                    (p, "field_zone", 0)) for p in PLAYERS}


_CATALOGS: dict = {}  # ruleset -> (ACTIVE's value, catalog(ruleset) under it)


def _catalog(ruleset: str):
    """catalog(ruleset), remembered for the value of knowledge.ACTIVE it was read under (a new dict each time an
    ontology file is put in use or dropped): catalog() imports ACTIVE on each call, a few microseconds a state."""
    active = ACTIVE.get()
    got = _CATALOGS.get(ruleset)
    if got is None or got[0] is not active:
        got = _CATALOGS[ruleset] = (active, catalog(ruleset))
    return got[1]


_HEADER = dict.fromkeys(("duel", "board", *((kind, p) for p in PLAYERS for kind in ("player", "priority", "side", "zones"))))
_TURN_KEYS = {(p, kind, held): (kind, p, held) for p in PLAYERS for kind in ("player", "priority") for held in (False, True)}


def _turn_part(turns: dict, key: tuple, facts, state: dict, p: str) -> tuple:
    """turns[key], or the part facts(add, state, p) adds, kept under key (_Memo.turns: four entries a ruleset)."""
    got = turns.get(key)
    if got is None:
        part = []
        facts(part.append, state, p)
        got = turns[key] = kept_part(tuple(part))
    return got


def _parts(state: dict, transient: dict, lean: bool) -> dict:
    """A state's ABox as parts, in order: part -> (its facts, the types of their values) (see ABox), each
    looked up by its key in the memos (built on a miss); `lean`: without the deck cards."""
    ruleset = state["ruleset"]
    cat = _catalog(ruleset)
    declared = knowledge(ruleset).__dict__  # (counter_declarations and count_declarations, without their import)
    counters = declared.get("_counter_declarations") or counter_declarations(ruleset)
    counts_declared = declared.get("_count_declarations") or count_declarations(ruleset)
    memo = cat.__dict__.get("_abox_memo")
    if memo is None or memo.counters is not counters or memo.counts is not counts_declared:
        memo = cat.__dict__["_abox_memo"] = _Memo(counters, counts_declared)
    lists, fields, sums = memo.lists, memo.fields, memo.sums
    list_parts = _list_card_parts(cat)
    pending = state["pending"]
    chosen = {(r["player"], r["area"], r["index"]) for r in pending["chosen"]} if pending else ()
    extra = state.get("extra", {})
    properly = extra.get("properly_summoned", {})
    parts = _HEADER.copy()  # (the parts before the cards' in their order, given below: the cards go in as they come)
    sides = []  # per player: (hand, graveyard, field signature)
    # the counters a `counter:KEY` count reads (card_counts): part of the field signature where they are counted
    counted_keys = memo.counted_keys
    battle = False
    held_lists = memo.held
    areas = _LEAN_AREAS  # (a Deck's cards come first when shown, each under its individual: list_names)
    decks = visible_decks(state, cat) if lean else PLAYERS
    if lean and decks:  # (the top cards' cardIndex in a duel with a card that reads them; hasEffect where used)
        reach, used = deck_reach(ruleset) if duel_holds(state, pick_uppers(cat)) else 0, deck_cards_in_use(state, transient)
    for p in PLAYERS:
        side = state["players"][p]
        if p in decks:  # (a shown Deck: its cards come first, each a part of its own, under its individual)
            if not lean:  # (the full ABox: every card's cardIndex and effects)
                reach, used = len(side["deck"]), None
            for i, (name, ind) in enumerate(zip(side["deck"], list_names(p, "deck", side["deck"], cat))):
                parts[(p, "deck", ind)] = _list_card_part(list_parts, cat, name, p, "deck", ind, (p, "deck", i) in chosen,
                                                          False, i if i < reach else None, used is None or (p, i) in used)
        hand, grave = tuple(side["hand"]), tuple(side["graveyard"])
        ps = properly.get(p, ())
        key = (p, *(tuple(side[area]) for area in areas))
        got = None if chosen or ps else _get(held_lists, key)  # (the cards of all the player's lists at once)
        if got is None:
            got = []
            for area, names in zip(areas, key[1:]):
                if not names:
                    continue
                area_ps = ps if area == "graveyard" else ()
                area_key = (p, area, names, tuple((p, area, i) in chosen for i in range(len(names))) if chosen else (),
                            tuple(name in area_ps for name in names) if area_ps else ())
                in_area = _get(lists, area_key)
                if in_area is None and area in KEYED_AREAS:  # (the hand: each card under its individual)
                    in_area = _remember(lists, area_key, tuple(
                        ((p, area, ind), _list_card_part(list_parts, cat, name, p, area, ind, (p, area, i) in chosen,
                                                         False, i))
                        for i, (name, ind) in enumerate(zip(names, list_names(p, area, names, cat)))))
                if in_area is None:  # ((slot, part) for each card: the slots shared by every list of that length)
                    in_area = _remember(lists, area_key, tuple(zip(_slots(p, area, len(names)), [
                        _list_card_part(list_parts, cat, name, p, area, i, (p, area, i) in chosen,
                                        area == "graveyard" and name in area_ps)
                        for i, name in enumerate(names)])))
                got += in_area
            got = tuple(got)
            if not chosen and not ps:
                _remember(held_lists, key, got)
        parts.update(got)
        # what card_counts and player_aggregates read of the field: per zone, None or (card, position, equipped_to)
        sig = []
        monsters, spells_traps = side["monster_zones"], side["spell_trap_zones"]
        if len(monsters) != 5 or len(spells_traps) != 5:
            raise ValueError(f"players.{p}: expected five Monster Zones and five Spell & Trap Zones")
        for slot, fc in zip(_FIELD_SLOTS[p], (*monsters, *spells_traps, side["field_zone"])):
            if fc is None:
                sig.append(None)
                continue
            x, eq, card_counters = _FIELD_DICTS(fc)
            values = _FIELD_VALUES(fc)
            if x or eq is not None or card_counters or (chosen and slot in chosen):
                key = _field_key(state, *slot, fc, slot in chosen)
                equipped = key[8]
                if x and (x.get("attack") or x.get("just_summoned") in ANSWERED_SUMMONS or x.get("attempt")) \
                        and slot[1] == "monster_zones":
                    battle = True
                if not key[3] and not key[6] and key[7] == _NO_EXTRA and equipped is None:  # (what `extra` holds
                    key = (slot, values, key[5])  # gives no fact: the key of the card without it, the same part)
            else:  # (most field cards: nothing in extra, counters, equipped_to, not chosen; a key of another length)
                key = (slot, values, tuple(map(type, values)))
                equipped = None
            got = _get(fields, key)
            if got is None:
                part: list = []
                _field_card_facts(part.append, state, cat, counters, *slot, fc, slot in chosen)
                got = _remember(fields, key, kept_part(tuple(part)))
            parts[slot] = got
            sig.append((values[0], values[2], equipped, bool(fc["extra"].get("attempt")),  # (card_counts skip an attempt)
                        tuple(card_counters.get(k, 0) for k in counted_keys) if card_counters and counted_keys else ()))
        sides.append((hand, grave, tuple(sig)))
    (_, grave_a, sig_a), (_, grave_b, sig_b) = sides
    highest_declared = declared.get("_highest_atk_declarations") or highest_atk_declarations(ruleset)
    key = ("highest", *(tuple(state["players"][p][area]) for _, _, areas in highest_declared
                        for p in PLAYERS for area in areas))
    highest = _get(sums, key)
    if highest is None:
        highest = _remember(sums, key, highest_atk_facts(state, cat))
    key = ("counts", sig_a, sig_b, frozenset(_on_chain(state)) if state["chain"] else ())  # (resolved=true reads the chain)
    counts = _get(sums, key)
    if counts is None:
        counts = _remember(sums, key, tuple(card_counts(state, cat)))
    phase_end = extra.get("phase_end")
    turn = state["turn"]
    key = (state["phase"], turn, type(turn), state["winner"] is not None, len(state["chain"]), pending is not None,
           bool(transient.get("turn_started")), phase_end, bool(extra.get("damage_step_chain")),
           bool(extra.get("summon_chain")), extra.get("damage_step_end", {}).get("sub_step"))
    duel = _get(memo.duels, key)
    if duel is None:
        part = []
        _duel_facts(part.append, state, transient)
        duel = _remember(memo.duels, key, kept_part(tuple(part)))
    key = (highest, counts, (tuple(battle_facts(state)) if battle else _NO_BATTLE) + battling_type_counts(state, cat))
    tossed = transient.get("die") or transient.get("coins")
    board = None if tossed else _get(memo.boards, key)  # (a die result or coins: rare, built each time)
    if board is None:
        part = []
        _board_facts(part.append, state, transient, *key)
        board = kept_part(tuple(part))
        if not tossed:
            _remember(memo.boards, key, board)
    parts["duel"], parts["board"] = duel, board
    players, turns, official = memo.players, memo.turns, official_based(ruleset)
    turn_player, priority = state["turn_player"], state["priority"]
    locked = locked_zones(state)  # (the Monster Zones a ZoneLockEffect locks: not free, _zone_facts)
    for p, (hand, grave, sig) in zip(PLAYERS, sides):
        side = state["players"][p]
        key = ("aggregates", p, hand, grave, sig)
        aggregates = _get(sums, key)
        if aggregates is None:
            aggregates = _remember(sums, key, tuple(player_aggregates(state, p, cat).items()))
        # (two such parts a player, and two ("priority", p))
        parts[("player", p)] = _turn_part(turns, _TURN_KEYS[p, "player", turn_player == p], _player_facts, state, p)
        parts[("priority", p)] = _turn_part(turns, _TURN_KEYS[p, "priority", priority == p], _priority_facts, state,
                                            p)
        life = side["life_points"]
        summons = summon_facts(state, p)
        key = (p, state["first_player"] == p, life, type(life), bool(side["normal_summon_used"]),
               5 - sig[:5].count(None), len(hand), len(side["deck"]), aggregates, summons)  # (sig[:5]: the Monster Zones)
        got = _get(players, key)
        if got is None:
            part = []
            _side_facts(part.append, state, p, aggregates + summons)
            got = _remember(players, key, kept_part(tuple(part)))
        parts[("side", p)] = got
        # (which zones are empty, read off sig, and which of them a ZoneLockEffect locks)
        key = (p, official, tuple(map(operator.is_, sig, repeat(None))), locked and tuple(sorted(locked)))
        got = _ZONE_PARTS.get(key)
        if got is None:
            part = []
            _zone_facts(part.append, state, side, p, player_ind(p), locked)
            got = _ZONE_PARTS[key] = kept_part(tuple(part))
        parts[("zones", p)] = got
    if pending:
        part = []
        _pending_facts(part.append, state, pending, cat)
        parts["pending"] = _interned(typed_part(tuple(part)))
    else:
        parts["pending"] = _EMPTY
    for i, link in enumerate(state["chain"], 1):
        parts[("link", i)] = _interned(typed_part(tuple(link_facts(state, i, link, transient))))
    if transient.get("events"):
        parts["events"] = _interned(typed_part(tuple(event_facts(transient["events"], state))))
    waiting = state.get("extra", {}).get("simultaneous_triggers")
    if waiting:  # triggers of one moment waiting for their chain links (primitives.trigger; docs/decisions.md)
        facts = [("simultaneousTrigger", card_ind(r["player"], r["area"], r["index"], state), True) for r in waiting]
        facts += [("triggerEventIndex", card_ind(r["player"], r["area"], r["index"], state), r["event"]) for r in waiting
                  if "event" in r]  # its event's time in its step (goat: rules/goat/simultaneous-triggers.swrl)
        parts["waiting"] = _interned(typed_part(tuple(facts)))
    # cards marked by a card reference (state.CARD_MARKS): each told its mark's property
    for key, mark in CARD_MARKS.items():
        if extra.get(key):
            parts[key] = _interned(typed_part(tuple((mark.prop, card_ind(r["player"], r["area"], r["index"], state), True)
                                                    for r in extra[key])))
    attacks = attack_count_facts(state, cat)
    if attacks:  # a second attack's right, the monsters a monster that attacks every monster has not attacked
        parts["attacks"] = _interned(typed_part(attacks))
    action = transient.get("action")
    if action:
        parts["action"] = _interned(typed_part(tuple(action_facts(action, state))))
    return parts


def attack_count_facts(state: dict, cat) -> tuple:
    """The facts of the attacks a monster may declare beyond its first (a part of their own: few states have any).
    secondAttackRight for a monster whose field card has extra.second_attack (rules/common/effects/second-attack.swrl;
    only true is told, which is all the rules read). For a face-up monster with the keyword ability
    attacksEveryMonster, notYetAttackedBy for each monster in the opponent's Monster Zones that its
    extra.attacked_monsters does not name, because SWRL cannot say "not attacked"
    (rules/common/effects/attack-every-monster.swrl)."""
    facts = []
    for p in PLAYERS:
        for i, fc in enumerate(state["players"][p]["monster_zones"]):
            if fc is None:
                continue
            me = card_ind(p, "monster_zones", i)
            if fc["extra"].get("second_attack"):
                facts.append(("secondAttackRight", me, True))
            if fc["position"].startswith("face_down") or ATTACKS_EVERY_MONSTER not in cat.get(fc["card"]).abilities:
                continue
            o = opponent(p)
            attacked = {r["index"] for r in fc["extra"].get("attacked_monsters", ()) if r["player"] == o}
            facts += [("notYetAttackedBy", card_ind(o, "monster_zones", j), me)
                      for j, t in enumerate(state["players"][o]["monster_zones"]) if t is not None and j not in attacked]
    return tuple(facts)


ATTACKS_EVERY_MONSTER = "attacksEveryMonster"  # the KeywordAbility individual attack_count_facts reads


def _zone_facts(add, state: dict, side: dict, p: str, me: str, locked: frozenset) -> None:
    """The facts of a player's zones (the part ("zones", p)). A Monster Zone is free when it is empty and no
    ZoneLockEffect locks it (state.usable_monster_zones, the one answer every primitive that places a monster reads
    too; a locked one is also told lockedZone), and freeMonsterZoneCount counts them (SWRL cannot count)."""
    usable = usable_monster_zones(state, p, locked)
    add(("freeMonsterZoneCount", me, len(usable)))
    for area in AREAS:
        cls = ZONE_CLASSES[area]
        if area in ("monster_zones", "spell_trap_zones"):
            for i in range(5):
                z = zone_ind(p, area, i)
                add((cls, z))
                add(("onSideOf", z, me))
                add(("zoneIndex", z, i))
                if area == "monster_zones":
                    add(("free", z, i in usable))
                    if (p, i) in locked:
                        add(("lockedZone", z, True))
                else:
                    add(("free", z, side[area][i] is None))
        elif area == "field_zone":
            if official_based(state["ruleset"]):
                z = zone_ind(p, area)
                add((cls, z))
                add(("onSideOf", z, me))
                add(("free", z, side[area] is None))
        else:
            z = zone_ind(p, area)
            add((cls, z))
            add(("onSideOf", z, me))


# ---------------------------------------------------------------- closure facts
# SWRL has no aggregation: the counts and sums that card rules need are computed here, from the
# state alone, each a named data property of the ontology.  Keep this list short.

def summon_facts(state: dict, p: str) -> tuple:
    """The player's Summons this turn and whether they are locked (summonLockThisTurn): SWRL cannot say "has not
    Summoned", so the driver counts the monsters the player controls that were Summoned this turn (not Set; one that
    left the field is not counted: docs/decisions.md, "Tokens and summon locks")."""
    count = sum(1 for fc in state["players"][p]["monster_zones"]
                if fc is not None and fc["summoned_this_turn"] and fc["summoned_by"] != "set")
    return (("summonsThisTurn", count),
            ("summonLockedThisTurn", p in state.get("extra", {}).get("summon_lock", ())),
            ("battlePhaseLockedThisTurn", p in state.get("extra", {}).get("battle_phase_lock", ())))


def player_aggregates(state: dict, p: str, cat) -> dict:
    side = state["players"][p]
    field = [fc for fc in side["monster_zones"] if fc is not None]
    return {
        **dict(graveyard_counts(state, p, cat)),
        "spellCardsControlled": sum(1 for fc in side["spell_trap_zones"] if fc and cat.get(fc["card"]).card_type == "spell"),
        "monsterLevelsInHandAndField": sum(cat.get(n).level or 0 for n in side["hand"] + [fc["card"] for fc in field]),
    }


def graveyard_counts(state: dict, p: str, cat) -> list[tuple]:
    """The countsCards declarations `in=graveyard per=player`: how many cards of the player's own Graveyard the
    declaration's spec counts, e.g. `type:TypeDragon` (the Type is the ontology's data: no Type is named here).
    Counted with the player's other aggregates, which are kept by the player's own hand, Graveyard and field."""
    out = []
    for prop, cls, areas, per, side, *_ in count_declarations(state["ruleset"]):
        if areas == "graveyard":
            if per != "player" or side != "own":
                raise VocabularyError(f"ontology: {prop} countsCards in=graveyard: expected per=player (own side)")
            counts_card = _counts_card_name(cat, cls)
            out.append((prop, sum(1 for name in state["players"][p]["graveyard"] if counts_card(name))))
    return out


def highest_atk_declarations(ruleset: str) -> tuple:
    """The ontology's `ygo:highestAtkOf` declarations, parsed: (object property, card kind, areas).  The annotation
    `of=monster in=AREA[,AREA]` on an object property of the Duel says: the monster with the highest printed ATK in
    those areas of both players (hand, deck, graveyard, banished, extra_deck)."""
    from .knowledge import knowledge

    k = knowledge(ruleset)
    parsed = k.__dict__.get("_highest_atk_declarations")
    if parsed is None:
        out = []
        for prop, spec in sorted(k.vocabulary.annotated("highestAtkOf").items()):
            opts = dict(pair.split("=", 1) for pair in spec.split())
            areas = tuple(opts.get("in", "").split(","))
            if opts.get("of") != "monster" or not set(areas) <= set(LIST_AREAS):
                raise VocabularyError(f"ontology: {prop} highestAtkOf {spec!r}: expected of=monster "
                                      f"in=AREA[,AREA] among {', '.join(LIST_AREAS)}")
            out.append((prop, opts["of"], areas))
        parsed = k.__dict__["_highest_atk_declarations"] = tuple(out)
    return parsed


def highest_atk_facts(state: dict, cat) -> tuple:
    """The closure facts of highest_atk_declarations (SWRL cannot say "no other is higher"): for each, the card with
    the highest printed ATK among the cards of its kind in its areas of both players, as (property, Duel, card);
    ties go to player A's first, then to the area named first, then to the lower index (a Graveyard's oldest card).
    None such: no fact."""
    out = []
    for prop, kind, areas in highest_atk_declarations(state["ruleset"]):
        best = None
        for p in PLAYERS:
            for area in areas:
                for i, name in enumerate(state["players"][p][area]):
                    card = cat.get(name)
                    if card.card_type == kind and (best is None or card.atk > best[0]):
                        best = (card.atk, (p, area, i))
        if best is not None:
            out.append((prop, DUEL, card_ind(*best[1], state)))
    return tuple(out)


def count_declarations(ruleset: str) -> tuple:
    """The counts the ontology in use declares (annotation ygo:countsCards on a data property) that its catalog can
    make nonzero, parsed: (property, card class, area, per, side, face-up only, resolved only, kind, reach, by,
    unnegated only, negates).
    `resolved=true` leaves out a card whose own activation is still a chain link (a Continuous Trap's lock applies
    once it has resolved); `per=card of=KIND` gives each card of that kind (trap, spell, monster) on the field the
    count of the other counted cards; `reaches=flip` with it, a lock on Flip Effect Monsters only: any other card of
    the kind gets 0 (flipEffectLock).  `negates=true` marks a `per=card` count whose cards negate the effects of
    the cards it is above 0 for (locks.swrl's negatedByLock), and `unnegated=true` leaves those negated cards out
    of a count (negated_places).  A count no card of the catalog makes and every rule reads as a guarded 0 is
    left out (idle_counts): the rules the reasoners run read it as 0 (knowledge.reasoned_rules).  No card is named
    in Python."""
    from .knowledge import knowledge

    k = knowledge(ruleset)  # the sources' or an ontology file's (ontofile): parsed once per Knowledge
    parsed = k.__dict__.get("_count_declarations")
    if parsed is None:
        idle = idle_counts(k)[1]
        parsed = k.__dict__["_count_declarations"] = tuple(d for d in _parsed_counts(k.vocabulary) if d[0] not in idle)
    return parsed


def _parsed_counts(vocabulary: Vocabulary) -> tuple:
    """Every countsCards declaration of the vocabulary, parsed (count_declarations' tuples)."""
    out = []
    for prop, spec in sorted(vocabulary.annotated("countsCards").items()):
        cls, *pairs = spec.split()
        opts = dict(pair.split("=", 1) for pair in pairs)
        if "except" in opts:  # (kept with the card spec, which every reader of it splits: _except)
            if not opts["except"].startswith(COUNTER):
                raise VocabularyError(f"ontology: {prop} countsCards except={opts['except']}: expected counter:KEY")
            cls += EXCEPT + opts["except"][len(COUNTER):]
        out.append((prop, cls, opts["in"], opts["per"], opts.get("side", "own"), opts.get("face_up") == "true",
                    opts.get("resolved") == "true", opts.get("of"), opts.get("reaches"), opts.get("by"),
                    opts.get("unnegated") == "true", opts.get("negates") == "true"))
    return tuple(out)


def _counted_effects(vocabulary: Vocabulary, prop: str) -> set:
    """The Effect individuals a countsCards `effect:PROPERTY` counts: those whose boolean PROPERTY is true, or that
    give the integer PROPERTY (a Level bound)."""
    return {s for p, s, o in vocabulary.tbox_facts if p == prop and (o is True or type(o) is int)}


def _counted_in_catalog(vocabulary: Vocabulary, cat, spec: str, by: str | None = None) -> bool:
    """Whether some card of the catalog is one a countsCards declaration of card class `spec` counts (as
    _counts_card tells a card on the field); for `counter:KEY`, whether some card of the catalog names an Effect
    whose boolean `by` property (the declaration's by=PROPERTY) is true, the effect that sets the counter."""
    spec = _except(spec)[0]
    if spec.startswith(COUNTER):
        return by is not None and _counted_in_catalog(vocabulary, cat, "effect:" + by)
    if spec.startswith("ability:"):
        return any(spec[len("ability:"):] in c.abilities for c in cat.cards)
    if spec.startswith("type:"):
        return any(_of_type(c, spec[len("type:"):]) for c in cat.cards)
    if spec.startswith(EQUIPPED_BY):  # some card of the catalog names an effect of that kind
        kind = spec[len(EQUIPPED_BY):]
        return any(kind in vocabulary.individuals.get(e, ()) for c in cat.cards for e in c.effects)
    if spec.startswith("effect:"):
        effects = _counted_effects(vocabulary, spec[len("effect:"):])
        return any(effects.intersection(c.effects) for c in cat.cards)
    return any(c.class_name == spec for c in cat.cards)


_MONSTER_SUBJECTS = ("monster", "monster_level", "equipped_monster")  # (per= values whose subjects are field monsters)


def _guarded(subject, body: list, per: str, of: str | None, vocabulary: Vocabulary) -> bool:
    """Whether the rest of a rule body keeps the subject of a count's atom among the individuals the count is
    asserted for (so the atom, always 0, can be left out without the rule matching more): the Duel for per=duel, a
    Player for per=player, a card in a Monster Zone for the counts of field monsters; for "field_monster" (a
    monster's keyword abilities) also a card with a monsterPosition."""
    if not subject.is_var:
        return False
    others = [a for a in body if subject in a.args and len(a.args) <= 2]
    if per == "duel":
        return any(a.pred == "Duel" and len(a.args) == 1 for a in others)
    if per == "player":
        def player(cls) -> bool:
            return cls == "Player" or "Player" in vocabulary.ancestors(cls)
        return any(player(a.pred) if len(a.args) == 1 else
                   any(map(player, vocabulary.range.get(a.pred, ()))) if a.args[1] == subject else
                   any(map(player, vocabulary.domain.get(a.pred, ()))) for a in others)
    if per in (*_MONSTER_SUBJECTS, "field_monster") and any(a.pred == "monsterPosition" and a.args[0] == subject
                                                          for a in others):
        return True  # (a monsterPosition is told of a monster in a Monster Zone alone: _field_card_facts)
    if per in _MONSTER_SUBJECTS or per == "field_monster" or (per == "card" and of == "monster"):
        zones = {a.args[1] for a in others if a.pred == "placedIn" and a.args[0] == subject}
        return any(a.pred == "MonsterZone" and len(a.args) == 1 and a.args[0] in zones for a in body)
    return False


def idle_counts(k) -> tuple[frozenset, frozenset]:
    """(zero, idle) for a Knowledge: `zero` the countsCards properties no card of its catalog makes nonzero (no rule
    derives them), `idle` those of them that every rule reads as a guarded 0 (_guarded), which the ABox leaves out
    (count_declarations) and knowledge.reasoned_rules reads as 0.  Decided once per Knowledge from the catalog's
    data and the rules' atoms: an official duel does not count the GOAT pack's locks."""
    got = k.__dict__.get("_idle_counts")
    if got is not None and got[0] is k.rules:
        return got[1]
    vocabulary, parsed = k.vocabulary, parsed_rules(k)
    derived = {a.pred for _, head in parsed for a in head}
    decls = {d[0]: d for d in _parsed_counts(vocabulary)}
    zero = frozenset(prop for prop, d in decls.items()
                     if prop not in derived and not _counted_in_catalog(vocabulary, k.catalog, d[1], d[9]))
    read = set()  # the zero counts some rule that can fire reads unguarded
    for body, _ in parsed:
        if zero_substitution(body, zero) is not None:
            read.update(a.pred for a in body if a.pred in zero
                        and not _guarded(a.args[0], body, decls[a.pred][3], decls[a.pred][7], vocabulary))
    got = (zero, zero - read)
    k.__dict__["_idle_counts"] = (k.rules, got)
    return got


def idle_abilities(k) -> tuple[frozenset, frozenset]:
    """(absent, idle) for a Knowledge: `absent` the keyword abilities no card of its catalog has and no data of its
    catalog names (an effect that grants one names it), so no monster has them; `idle` those of them that every rule
    reads only as lacksAbility of a monster on the field (_guarded), which the ABox leaves out (keyword_abilities)
    and knowledge.reasoned_rules reads as true.  Decided once per Knowledge, as idle_counts."""
    got = k.__dict__.get("_idle_abilities")
    if got is not None and got[0] is k.rules:
        return got[1]
    vocabulary = k.vocabulary
    named = {o for _, _, o in vocabulary.tbox_facts} | {a for c in k.catalog.cards for a in c.abilities}
    absent = frozenset(ind for ind, classes in vocabulary.individuals.items()
                       if "KeywordAbility" in classes and ind not in named)
    read = set()
    for body, head in parsed_rules(k):
        if any(a.pred == "hasAbility" and a.args[1].kind == "name" and a.args[1].value in absent for a in head):
            read.update(absent)  # (a rule that gives an ability by name: none is idle)
        if abilities_never_hold(body, absent):
            continue
        read.update(a.args[1].value for a in body if a.pred == "lacksAbility" and a.args[1].kind == "name"
                    and a.args[1].value in absent and not _guarded(a.args[0], body, "field_monster", None, vocabulary))
    got = (absent, absent - read)
    k.__dict__["_idle_abilities"] = (k.rules, got)
    return got


def abilities_never_hold(body: list, absent: frozenset) -> bool:
    """Whether a rule body needs a monster to have an ability no monster has."""
    return any(a.pred == "hasAbility" and len(a.args) == 2 and a.args[1].kind == "name" and a.args[1].value in absent
               for a in body)


_COMPARISONS = {"equal": operator.eq, "notEqual": operator.ne, "lessThan": operator.lt, "lessThanOrEqual": operator.le,
                "greaterThan": operator.gt, "greaterThanOrEqual": operator.ge}


def zero_substitution(body: list, zero: frozenset) -> dict | None:
    """The variables a rule body's atoms of always-0 counts bind to 0, or None when the body can never hold (such
    an atom with another value, or a comparison that 0 fails)."""
    subst = {}
    for a in body:
        if a.pred in zero and len(a.args) == 2:
            value = a.args[1]
            if value.is_var:
                subst[value.value] = 0
            elif value.kind != "int" or value.value != 0:
                return None
    for a in body:
        if a.pred in _COMPARISONS and subst and any(t.is_var and t.value in subst for t in a.args):
            values = [0 if t.is_var and t.value in subst else t.value if t.kind in ("int", "float") else None
                      for t in a.args]
            if None not in values and not _COMPARISONS[a.pred](*values):
                return None
    return subst


def counter_declarations(ruleset: str) -> tuple:
    """The card counters the ontology in use declares: (data property, counter key) for each data property
    annotated ygo:counterKey (an operation property with the annotation sets one: primitives.set_counter)."""
    from .knowledge import knowledge

    k = knowledge(ruleset)
    parsed = k.__dict__.get("_counter_declarations")
    if parsed is None:
        v = k.vocabulary
        parsed = k.__dict__["_counter_declarations"] = tuple(
            (prop, key) for prop, key in sorted(v.annotated("counterKey").items())
            if prop in v.data_properties and "primitive" not in v.annotations[prop])
    return parsed


_FACE_UP = ("face_up", "attack", "defense")  # a Spell/Trap's, a monster's face-up positions (state-format.md)


# countsCards `equippedBy:KIND`: the Monster Cards equipped as Equip Cards (in a Spell & Trap Zone) by an effect of
# the kind KIND (ygo:EquipMonsterEffect), counted in a catalog where a card names such an effect
EQUIPPED_BY = "equippedBy:"


def _counts_card(cat, spec: str):
    """Whether a card on the field (its entry) is one a countsCards declaration counts: of the class `spec`, or, for
    `effect:PROPERTY`, naming an Effect whose boolean PROPERTY is true, or for `ability:NAME`, having the keyword
    ability NAME, or for `equippedBy:KIND`, a Monster Card (card_counts counts one only in a Spell & Trap Zone for
    such a count: an Equip Card), or for `counter:KEY`, carrying that counter (the ontology's data; no card named);
    with `except=counter:KEY`, not a card carrying that counter."""
    spec, unless = _except(spec)
    if spec.startswith(COUNTER):
        key = spec[len(COUNTER):]
        counts = lambda fc: fc["counters"].get(key, 0) > 0  # noqa: E731
    else:
        by_name = _counts_card_name(cat, spec)
        counts = lambda fc: by_name(fc["card"])  # noqa: E731
    if unless is None:
        return counts
    return lambda fc: counts(fc) and not fc["counters"].get(unless, 0)


# countsCards `counter:KEY`: the cards on the field carrying the counter KEY (a mark an effect left on them: Mind
# Control's cannot_be_tributed), counted in a catalog where a card names the effect that sets it (by=PROPERTY)
COUNTER = "counter:"

# countsCards `except=counter:KEY`: a card carrying the counter KEY is left out of the count, so two counts the rules
# subtract together count each card once (cannotBeTributedCount, of a keyword ability, leaves out the monsters
# tributeLockedCount counts by their counter). Kept in the parsed card spec after this separator (_parsed_counts).
EXCEPT = " except:"


def _except(spec: str) -> tuple[str, str | None]:
    """A parsed card spec split into the spec itself and the counter key its `except=` leaves out (None)."""
    spec, sep, key = spec.partition(EXCEPT)
    return spec, (key if sep else None)


def _counts_card_name(cat, spec: str):
    """_counts_card's test of a card by its name, for every kind of declaration but `counter:KEY` (an `except=`
    counter is on the field alone: a card elsewhere carries none)."""
    spec = _except(spec)[0]
    if spec.startswith("ability:"):
        ability = spec[len("ability:"):]
        return lambda name: ability in cat.get(name).abilities
    if spec.startswith("type:"):  # (a monster of the Type individual named: hasMonsterType's value)
        wanted = spec[len("type:"):]
        return lambda name: _of_type(cat.get(name), wanted)
    if spec.startswith(EQUIPPED_BY):  # (counted in a Spell & Trap Zone alone: a Monster Card there is an Equip Card)
        return lambda name: cat.get(name).is_monster
    if spec.startswith("effect:"):
        prop = spec[len("effect:"):]
        names = cards_naming(cat, knowledge(cat.ruleset).vocabulary, "_counted_" + prop,
                             lambda v: _counted_effects(v, prop))
        return names.__contains__
    return lambda name: cat.get(name).class_name == spec


def _of_type(card, wanted: str) -> bool:
    """Whether a card is a monster of the Type individual `wanted` (e.g. TypeDragon)."""
    return card.monster_type is not None and type_individual(card.monster_type) == wanted


_FIELD_AREAS = ("monster_zones", "spell_trap_zones", "field_zone")


def _on_chain(state: dict) -> set:
    """The field places (player, area, index) whose card's activation is a chain link not yet resolved."""
    return {(link["player"], link["zone"]["area"], link["zone"]["index"]) for link in state["chain"] if link.get("zone")}


def _counted(state: dict, cat, p: str, cls: str, areas: str, face_up_only: bool, resolved_only: bool,
             skipped: frozenset = frozenset()) -> list[dict]:
    """The player's field cards a count declaration counts: of its class (or naming its effect) in its areas, not
    being Summoned yet, face-up where it asks, not still a chain link where it asks `resolved=true`, and not in
    `skipped` (the places of negated_places, for `unnegated=true`)."""
    counts_card = _counts_card(cat, cls)
    waiting = _on_chain(state) if resolved_only else ()
    # a monster equipped as an Equip Card has none of its effects (EquipMonsterEffect, equip-monster.swrl): only
    # a count of such cards counts it in a Spell & Trap Zone
    absorbed_counted = cls.startswith(EQUIPPED_BY)
    return [fc for area in areas.split(",") for entries in [state["players"][p][area]]
            for i, fc in enumerate(_entries(entries))
            if fc is not None and counts_card(fc) and not fc["extra"].get("attempt")  # (not Summoned yet)
            and (not face_up_only or fc["position"] in _FACE_UP) and (p, area, i) not in waiting
            and (p, area, i) not in skipped
            and (area != "spell_trap_zones" or absorbed_counted or not cat.get(fc["card"]).is_monster)]


def negated_places(state: dict, cat, declared: tuple) -> frozenset:
    """The field places (player, area, index) of the cards whose effects a negating lock negates: a card of the kind
    a `negates=true` count (`per=card of=KIND`: trapEffectLockCount, spellEffectLockCount) is given, with another
    counted card on the field, as locks.swrl infers negatedByLock from that count above 0.  The counts of continuous
    locks marked `unnegated=true` (a Level lock's attackLevelLockCount) leave these cards out: a count is made
    before the rules run, so it cannot read the rules' negatedByLock (docs/decisions.md, "Workarounds for what SWRL
    cannot say").  The negating locks themselves are counted whether negated or not (two Trap negating locks negate each other)."""
    out = set()
    for _prop, cls, areas, per, _side, face_up_only, resolved_only, kind, reach, _by, _un, negates in declared:
        if not (negates and per == "card"):
            continue
        locks = [id(fc) for q in PLAYERS for fc in _counted(state, cat, q, cls, areas, face_up_only, resolved_only)]
        for p in PLAYERS:
            for area in _FIELD_AREAS:
                for i, fc in enumerate(_entries(state["players"][p][area])):
                    if fc is not None and cat.get(fc["card"]).card_type == kind and _reached(cat.get(fc["card"]), reach) \
                            and any(lock != id(fc) for lock in locks):
                        out.add((p, area, i))
    return frozenset(out)


def card_counts(state: dict, cat) -> list[tuple]:
    """The closure facts of count_declarations: how many cards of a class are in an area, per subject."""
    out = []
    declared = count_declarations(state["ruleset"])
    negated = negated_places(state, cat, declared) if any(d[10] for d in declared) else frozenset()
    for prop, cls, areas, per, side, face_up_only, resolved_only, kind, reach, _by, unnegated, _negates in declared:
        if areas == "graveyard":  # (counted with the player's aggregates: graveyard_counts)
            continue
        skipped = negated if unnegated else frozenset()

        def counted(p: str) -> list[dict]:  # p's field cards of the class (or naming the effect) in the areas
            return _counted(state, cat, p, cls, areas, face_up_only, resolved_only, skipped)

        if per == "card":  # each card of the kind on the field: the counted cards other than itself
            cards = [fc for q in PLAYERS for fc in counted(q)]
            for p in PLAYERS:
                for area in _FIELD_AREAS:
                    for i, fc in enumerate(_entries(state["players"][p][area])):
                        if fc is not None and cat.get(fc["card"]).card_type == kind:
                            reached = _reached(cat.get(fc["card"]), reach)
                            out.append((prop, card_ind(p, area, i), sum(1 for c in cards if c is not fc and reached)))
        elif per == "duel":
            out.append((prop, DUEL, sum(len(counted(p)) for p in PLAYERS)))
        elif per == "player":
            for p in PLAYERS:
                out.append((prop, player_ind(p), len(counted(opponent(p) if side == "opponent" else p))))
        elif per == "equipped_monster":
            cards = [fc for q in PLAYERS for fc in counted(q)]
            for p in PLAYERS:
                for i, m in enumerate(state["players"][p]["monster_zones"]):
                    if m is not None:
                        here = {"player": p, "zone": i}
                        out.append((prop, card_ind(p, "monster_zones", i), sum(1 for fc in cards if fc["equipped_to"] == here)))
        elif per == "monster_level":  # each field monster: the counted cards whose Level bound its Level reaches
            bounds = _level_bounds(cat, cls[len("effect:"):])
            cards = [bounds[fc["card"]] for q in PLAYERS for fc in counted(q)]
            for p in PLAYERS:
                for i, m in enumerate(state["players"][p]["monster_zones"]):
                    if m is not None:
                        level = cat.get(m["card"]).level or 0
                        out.append((prop, card_ind(p, "monster_zones", i), sum(1 for b in cards if b <= level)))
        elif per == "monster":  # each field monster: 1 when it is itself a counted card, else 0
            for p in PLAYERS:
                mine = [id(fc) for fc in counted(p)]
                for i, m in enumerate(state["players"][p]["monster_zones"]):
                    if m is not None:
                        out.append((prop, card_ind(p, "monster_zones", i), mine.count(id(m))))
        elif per != "link_target":  # (a chain link's targets: link_target_counts)
            raise VocabularyError(f"ontology: {prop} countsCards per={per}: expected duel, player, card, "
                                  "equipped_monster, monster, monster_level or link_target")
    return out


def off_field_card_counts(state: dict, cat, name: str, ind: str, activated_on_field: bool) -> list[tuple]:
    """The per=card counts of a chain link's card that is not on the field: activated on the field and gone since
    (its pseudo-card, link_facts), every counted card on the field is another one; activated elsewhere (an effect
    of a card in the Graveyard or the hand), it is none of the field's cards that a lock reaches: 0."""
    kind = cat.get(name).card_type
    out = []
    for prop, cls, areas, per, _side, face_up_only, resolved_only, of, reach, *_ in count_declarations(state["ruleset"]):
        # (a lock that reaches FLIP effects negates one as it resolves wherever its monster went: cards.md Fiend Skull
        # Dragon, "FLIP effects that would activate are negated when they resolve")
        if per == "card" and of == kind and (not (activated_on_field or reach) or not _reached(cat.get(name), reach)):
            out.append((prop, ind, 0))
        elif per == "card" and of == kind:
            counts_card, waiting = _counts_card(cat, cls), _on_chain(state) if resolved_only else ()
            out.append((prop, ind, sum(1 for p in PLAYERS for area in areas.split(",")
                                       for i, fc in enumerate(_entries(state["players"][p][area]))
                                       if fc is not None and counts_card(fc) and not fc["extra"].get("attempt")
                                       and (not face_up_only or fc["position"] in _FACE_UP)
                                       and (p, area, i) not in waiting
                                       and (area != "spell_trap_zones" or not cat.get(fc["card"]).is_monster))))
    return out


def _reached(card, reach) -> bool:
    """Whether a `per=card` count reaches the card: with `reaches=flip`, only a Flip Effect Monster (a lock on FLIP
    effects, flipEffectLock); without it, every card of its kind."""
    return reach is None or (reach == "flip" and card.flip)


def _level_bounds(cat, prop: str) -> dict:
    """Card name -> the least Level bound (the integer PROPERTY, e.g. ygo:attackLockLevel) its Effects give: a
    `per=monster_level` count (card_counts) counts a lock card for each monster of that Level or higher (the
    ontology's data, no card named), memoized per catalog and vocabulary."""
    vocabulary = knowledge(cat.ruleset).vocabulary
    memo = "_level_bounds_" + prop
    got = cat.__dict__.get(memo)
    if got is None or got[0] is not vocabulary:
        bound = {s: o for p, s, o in vocabulary.tbox_facts if p == prop and type(o) is int}
        got = cat.__dict__[memo] = (vocabulary, {
            n: min(bound[e] for e in c.effects if e in bound)
            for c in cat.cards if any(e in bound for e in c.effects) for n in (c.name, *c.aliases)})
    return got[1]


def _entries(entries) -> list:
    """A field area's cards: the five zones' list, or the Field Zone's one card as a list."""
    return entries if isinstance(entries, list) else [entries]


def battle_facts(state: dict) -> list[tuple]:
    """The attack being resolved: kept in the attacker's `extra.attack` while a response window is open.

    extra.attack = {"target": card ref or null (a direct attack), "damage_step": bool, "target_lost": bool,
                    "opponent_passed": bool}
    Also whether a summon waits for the players' answers (a field monster's extra.just_summoned).
    """
    out = []
    for p in PLAYERS:
        for i, fc in enumerate(state["players"][p]["monster_zones"]):
            attack = fc and fc["extra"].get("attack")
            if not attack:
                continue
            out.append(("attackingMonster", DUEL, card_ind(p, "monster_zones", i)))
            target = attack.get("target")
            if target:
                out.append(("attackTarget", DUEL, card_ind(target["player"], target["area"], target["index"], state)))
            lost = bool(attack.get("target_lost"))
            out.append(("directAttackInProgress", DUEL, target is None and not lost))
            out.append(("damageStep", DUEL, bool(attack.get("damage_step"))))
            out.append(("attackTargetLost", DUEL, lost))
            # rulebook p. 38: the opponent has passed on the declaration (the attacker's window before damage)
            out.append(("attackAnswered", DUEL, bool(attack.get("opponent_passed"))))
    out.append(("battleInProgress", DUEL, bool(out)))
    # rulebook p. 38: a Normal, Tribute, Flip or procedure Special Summon waits for both players' answers (the turn
    # player's window, then the opponent's); SWRL cannot say "no monster was just summoned", so the driver says it
    out.append(("summonInProgress", DUEL, any(fc and fc["extra"].get("just_summoned") in ANSWERED_SUMMONS
                                              for p in PLAYERS for fc in state["players"][p]["monster_zones"])))
    # a Summon being attempted (extra.attempt: decisions.md, "The Summon-negation window") waits for the opponent's answer
    # before it succeeds; SWRL cannot say "no Summon is being attempted", so the driver says it
    attempts = [card_ind(p, "monster_zones", i) for p in PLAYERS
                for i, fc in enumerate(state["players"][p]["monster_zones"]) if fc and fc["extra"].get("attempt")]
    out.extend(("summonAttempt", DUEL, c) for c in attempts)
    out.append(("attemptInProgress", DUEL, bool(attempts)))
    return out


def _battling_types(cat) -> dict:
    """Card name -> the Type individual its whileBattlingType ModifyStatEffect names (ygo:statBattlingType: the
    ontology's data, no card named), memoized per catalog and vocabulary."""
    vocabulary = knowledge(cat.ruleset).vocabulary
    got = cat.__dict__.get("_battling_types")
    if got is None or got[0] is not vocabulary:
        types = {s: o for p, s, o in vocabulary.tbox_facts if p == "statBattlingType"}
        got = cat.__dict__["_battling_types"] = (vocabulary, {
            n: types[e] for c in cat.cards for e in c.effects if e in types for n in (c.name, *c.aliases)})
    return got[1]


def battling_type_counts(state: dict, cat) -> tuple:
    """battlingStatTypeCount, a count the rules cannot make (SWRL cannot say "it battles no monster of that Type"):
    for each monster on the field whose card has a whileBattlingType ModifyStatEffect, 1 while it attacks, or is
    attacked by, a monster of the effect's statBattlingType, else 0 (rules/common/effects/modify-stat.swrl)."""
    wanted = _battling_types(cat)
    if not wanted:
        return ()
    battles = {}  # (player, zone) -> the card name it battles, both ways
    for p in PLAYERS:
        for i, fc in enumerate(state["players"][p]["monster_zones"]):
            target = fc and (fc["extra"].get("attack") or {}).get("target")
            if target and target["area"] == "monster_zones":
                other = state["players"][target["player"]]["monster_zones"][target["index"]]
                if other is not None:
                    battles[(p, i)] = other["card"]
                    battles[(target["player"], target["index"])] = fc["card"]
    out = []
    for p in PLAYERS:
        for i, fc in enumerate(state["players"][p]["monster_zones"]):
            if fc is not None and fc["card"] in wanted:
                other = battles.get((p, i))
                met = other is not None and type_individual(cat.get(other).monster_type) == wanted[fc["card"]]
                out.append(("battlingStatTypeCount", card_ind(p, "monster_zones", i), int(met)))
    return tuple(out)


def link_ind(number: int) -> str:
    return f"chainLink{number}"


def placed_card_facts(cat, name: str, p: str, area: str, i, owner: str) -> tuple:
    """(card, individual, facts) of a card where it lies: its class, zone, index, owner and what the
    catalog says of it.  Memoized per catalog (the states of a duel repeat them: 44 cards a state).  A card of a Deck
    or a hand (KEYED_AREAS) is given by its individual (`i`: list_names), and has no cardIndex here: _list_card_part
    tells it (a Deck's for its top cards alone: deck_reach)."""
    memo = cat.__dict__.setdefault("_placed_facts", {})
    key = (name, p, area, i, owner)
    got = memo.get(key)
    if got is None:
        if len(memo) > 50_000:
            memo.clear()
        keyed = type(i) is str
        card, c = cat.get(name), i if keyed else card_ind(p, area, i)
        placed = ((card.class_name, c), ("placedIn", c, zone_ind(p, area)) if keyed else
                  ("placedIn", c, zone_ind(p, area, i)), *(() if keyed else (("cardIndex", c, i),)),
                  ("ownerPlayer", c, player_ind(owner)), *catalog_facts(card, c, cat.ruleset),
                  *(("namePart", c, part) for part in name_parts(cat).get(card.name, ())))
        got = memo[key] = (card, c, placed)
    return got


def deck_reach(ruleset: str) -> int:
    """How many of a Deck's top cards have a cardIndex (from the top, 0): the most a rule reads, the largest
    ygo:pickUpCount of the vocabulary (rules/common/effects/pick-up.swrl: the top pickUpCount cards), 0 if none;
    in a duel without a card that reads them (pick_uppers) none has.  The other Deck cards have none, so a draw
    changes the cardIndex of these few cards only (card_ind)."""
    vocabulary = knowledge(ruleset).vocabulary
    got = _REACH.get(ruleset)
    if got is None or got[0] is not vocabulary:
        got = _REACH[ruleset] = (vocabulary, max((int(o) for p, _s, o in vocabulary.tbox_facts if p == "pickUpCount"),
                                                 default=0))
    return got[1]


_REACH: dict = {}


def name_parts(cat) -> dict:
    """Card name -> the parts of names that the catalog's filters look for (ygo:filterNameContains) and that name
    contains: the card's namePart facts.  SWRL's string builtins are not compiled by the fast reasoner, so the
    containment is read here, once per catalog and vocabulary; the filter rule joins on the value."""
    vocabulary = knowledge(cat.ruleset).vocabulary
    got = cat.__dict__.get("_name_parts")
    if got is None or got[0] is not vocabulary:
        parts = {o for p, _s, o in vocabulary.tbox_facts if p == "filterNameContains"}
        got = cat.__dict__["_name_parts"] = (vocabulary, {
            c.name: tuple(sorted(x for x in parts if x in c.name)) for c in cat.cards if any(x in c.name for x in parts)})
    return got[1]


def selection_requirements(ruleset: str) -> dict:
    """The TBox's SelectionRequirement individuals -> (cardsToSelect, selectsFor, costFromArea): read once per vocabulary."""
    vocabulary = knowledge(ruleset).vocabulary
    got = _SELECTIONS.get(ruleset)
    if got is None or got[0] is not vocabulary:
        counts = {s: o for p, s, o in vocabulary.tbox_facts if p == "cardsToSelect"}
        why = {s: o for p, s, o in vocabulary.tbox_facts if p == "selectsFor"}
        area = {s: o for p, s, o in vocabulary.tbox_facts if p == "costFromArea"}
        got = _SELECTIONS[ruleset] = (vocabulary, {
            ind: (int(counts.get(ind, 0)), why.get(ind), area.get(ind)) for ind, classes in vocabulary.individuals.items()
            if "SelectionRequirement" in classes})
    return got[1]


_SELECTIONS: dict = {}


def selection_order_facts(card, c: str, ruleset: str) -> list[tuple]:
    """The order of an activation's selections (rules/common/activation.swrl), read off the order its cardActivation
    lists them in, because SWRL cannot say "the first" or "the last" of a card's requirements: firstSelection,
    lastSelection (one requirement for most cards), secondSelection (a cost selected before a target: a
    cardActivation "discardOneCard chooseOneTarget"); handCost, the cards its cost selection discards from the hand (0
    for most: an activation is allowed only while the hand holds them, rules/common/effects/costs.swrl), and
    tributeCost, the monsters it Tributes (costFromArea)."""
    table = selection_requirements(ruleset)
    selections = [r for r in card.activation if r in table]
    out = []
    if selections:
        out += [("firstSelection", c, selections[0]), ("lastSelection", c, selections[-1])]
        if len(selections) > 1:
            out.append(("secondSelection", c, selections[1]))
    if card.effects:
        out.append(("handCost", c, sum(table[r][0] for r in selections if table[r][2] == "handArea")))
        out.append(("tributeCost", c, sum(table[r][0] for r in selections if table[r][2] == "monsterZoneArea")))
    return out


def catalog_facts(card, c: str, ruleset: str) -> list[tuple]:
    """What the catalog says of a card: name, Level, ATK/DEF, kind, its activation's requirements."""
    out = [("cardName", c, card.name)]
    if card.is_monster:
        out += [("level", c, card.level), ("atk", c, card.atk), ("def", c, card.defense),
                ("requiresSpecialSummon", c, card.special_summon_only), ("isTuner", c, card.tuner),
                ("summonedOnlyByOwnProcedure", c, card.own_procedure_only),
                ("neverSpecialSummoned", c, card.never_special_summoned)]
        if card.attribute:
            out.append(("hasAttribute", c, card.attribute))
        if card.monster_type:
            out.append(("hasMonsterType", c, type_individual(card.monster_type)))
    else:
        out.append(("staysOnField", c, card.stays_on_field))
    out += [("hasRequirement", c, requirement) for requirement in card.activation]  # read by the activation rules
    out += selection_order_facts(card, c, ruleset)
    out += [("hasEffect", c, effect) for effect in card.effects]  # read by the rules of the effect kinds (rules/common/effects)
    if "chooseEffect" in card.activation:  # its effects by their place, the `effect` of an activate that chooses one
        out += [("effectNumber", effect, i) for i, effect in enumerate(card.effects)]
    if card.is_monster and (card.activation or card.optional_effect):  # (an effect with selectsUpTo names no activation)
        out.append(("effectIsOptional", c, card.optional_effect))
    return out


# The properties of an Effect individual the ABox tells (the others are the catalog's TBox facts): the rules that read
# them run although no TBox fact gives them (knowledge._never_said).
EFFECT_FACTS = ("effectNumber",)


def _resolution_choice_open(state: dict) -> bool:
    """A choice made on resolution is open: the pending is the `pass` on which the chain resolves (state-format.md,
    "A pending action")."""
    return state["pending"] is not None and state["pending"]["action"]["type"] == "pass"


def link_facts(state: dict, number: int, link: dict, transient: dict) -> list[tuple]:
    """One chain link (state 'chain', link 1 first); the last is ChainTop, and while the chain
    resolves it is the ResolvingLink."""
    me = link_ind(number)
    out = [("ChainLink", me), ("linkNumber", me, number), ("linkSpeed", me, link["speed"]),
           ("linkPlayer", me, player_ind(link["player"])),
           ("negatedOnChain", me, bool(link.get("extra", {}).get("negated")))]
    zone = link.get("zone")
    entry = card_at(state, {"player": link["player"], **zone}) if zone else None
    card = catalog(state["ruleset"]).get(link["card"])
    if entry is not None and (entry["card"] if isinstance(entry, dict) else entry) == link["card"]:
        linked = card_ind(link["player"], zone["area"], zone["index"], state)
        out.append(("linkCard", me, linked))
        if zone["area"] not in _FIELD_AREAS:  # (a field card's own are card_counts')
            out += off_field_card_counts(state, catalog(state["ruleset"]), link["card"], linked, False)
    else:
        # The card left its zone (destroyed by a later link) or the link names no zone: the activation still
        # resolves unless negated (rulebook pp. 19, 35), so the link gets the card as a pseudo-card (seed 001,
        # CR 903.2b) that is nowhere on the field: rules that move or change the card itself do not match it.
        linked = f"{me}_card"
        out += [(card.class_name, linked), ("controlledBy", linked, player_ind(link["player"])),
                ("linkCard", me, linked), *catalog_facts(card, linked, state["ruleset"]),
                *off_field_card_counts(state, catalog(state["ruleset"]), link["card"], linked,
                                       bool(zone) and zone["area"] in _FIELD_AREAS)]
    # the effects the link resolves: the one its activation named (an ignition, a trigger of a card with other
    # effects), else every effect of its card (rules/common/effects: each kind resolves a link by its linkEffect)
    named_effect = link.get("extra", {}).get("effect")
    out += [("linkEffect", me, e) for e in ((named_effect,) if named_effect is not None else card.effects)]
    if "chooseBattlePosition" in card.activation:  # rulebook p. 15: the position chosen on activation (default Attack)
        out.append(("summonPosition", linked, POSITION_INDIVIDUALS[link.get("extra", {}).get("summon_position", "attack")]))
    declared = link.get("extra", {}).get("declared_type")
    if declared is not None:  # the Type declared on activation (a declareType selection): the link's, as a target is
        out.append(("declaredType", me, type_individual(declared)))
    counters = link.get("extra", {}).get("counters")
    if counters is not None:  # its card's counters as it was activated (rules/common/effects/damage.swrl)
        out.append(("linkCounters", me, counters))
    cost_level = link.get("extra", {}).get("cost_level")
    if cost_level is not None:  # the Level of the Tribute its cost paid (rules/common/effects/level-of-cost.swrl)
        out.append(("costLevel", me, cost_level))
    targets = link.get("targets", [])
    for i, t in enumerate(targets):
        target = card_ind(t["player"], t["area"], t["index"], state)
        out.append(("linkTarget", me, target))
        # the targets keep the order they were selected in (state-format "Chain link"): the rules tell the
        # first one (the monster a Ritual Spell or a Fusion spell Summons) from the later ones (its tributes, materials)
        out.append(("linkFirstTarget" if i == 0 else "linkLaterTarget", me, target))
    # a place a target was chosen in that is empty now (its card left: destroyed by a later link), read off the
    # state; what the card's resolution then does is the rules' (official/cards/effects.swrl)
    out.append(("linkTargetGone", me, any(card_at(state, t) is None for t in targets)))
    out += link_target_counts(state, me, card, targets)
    if number == len(state["chain"]):
        out.append(("ChainTop", me))
        # a selection a resolving effect opened (a discard chosen on resolution: a pending `pass`) holds the chain
        # until it is made; another pending (a FLIP effect starting as the chain ends) does not
        if transient.get("resolving") and not _resolution_choice_open(state):
            out.append(("ResolvingLink", me))
    return out


def link_target_counts(state: dict, me: str, card, targets: list) -> list[tuple]:
    """The `per=link_target of=KIND` counts (annotation ygo:countsCards): on a chain link whose card is of that kind
    (trap), how many of its targets are counted cards as the link stands (face-up in the areas): a protection that
    negates such an effect as it resolves (targetProtectionNegatesTraps), since SWRL cannot say "none of its
    targets is such a card".  No card is named in Python."""
    cat = catalog(state["ruleset"])
    out = []
    for prop, cls, areas, per, _side, face_up_only, _resolved, of, *_ in count_declarations(state["ruleset"]):
        if per != "link_target" or card.card_type != of:
            continue
        counts_card = _counts_card(cat, cls)
        entries = [card_at(state, t) for t in targets if t["area"] in areas.split(",")]
        out.append((prop, me, sum(1 for fc in entries if isinstance(fc, dict) and counts_card(fc)
                                  and (not face_up_only or fc["position"] in _FACE_UP))))
    return out


def action_facts(action: dict, state: dict) -> list[tuple]:
    """theAction: the declared action (in `state`), for the rules that infer its operations."""
    out = [("Action", ACTION), ("actionKind", ACTION, KIND_INDIVIDUALS[action["type"]])]
    out.append(("actingPlayer", ACTION, player_ind(action["player"])))
    if "from" in action:
        r = action["from"]
        out.append(("actor", ACTION, card_ind(r["player"], r["area"], r["index"], state)))
    for key in ("target_ref", "ref"):
        if key in action:
            r = action[key]
            out.append(("actionTarget", ACTION, card_ind(r["player"], r["area"], r["index"], state)))
    if action["type"] == "next_phase":
        out.append(("actionToPhase", ACTION, PHASE_INDIVIDUALS[action["to"]]))
    if action["type"] == "activate":  # which of the card's effects (rules/common/effects/choose-effect.swrl)
        out.append(("actionEffectNumber", ACTION, action.get("effect", 0)))
    if action["type"] == "declare":  # the Level declared (rules/common/effects/excavate.swrl)
        out.append(("actionLevel", ACTION, action["level"]))
    if action["type"] == "change_position":
        out.append(("actionToPosition", ACTION, POSITION_INDIVIDUALS[action["to"]]))
    if action["type"] in SUMMONING_TYPES:  # rulebook p. 15: the Special Summon's position (default Attack)
        out.append(("summonPosition", ACTION, POSITION_INDIVIDUALS[action.get("to", "attack")]))
    return out


def facts_to_state(facts: list[tuple] | set[tuple], vocabulary: Vocabulary, ruleset: str, base: dict) -> dict:
    """Read a state back from its (full) ABox: the inverse of state_facts(lean=False).

    `base` gives what the ABox does not carry (format, rng_seed, winner, chain, pending, extra); the
    rest comes from the individuals.
    """
    cat = catalog(ruleset)
    by_subject: dict[str, dict[str, list]] = {}
    classes: dict[str, set[str]] = {}
    for f in facts:
        if len(f) == 2:
            classes.setdefault(f[1], set()).add(f[0])
        else:
            by_subject.setdefault(f[1], {}).setdefault(f[0], []).append(f[2])

    def one(s, p, default=None):
        vals = by_subject.get(s, {}).get(p, [])
        return vals[0] if vals else default

    card_classes = {c.class_name: c for c in cat}
    state = {k: base[k] for k in ("format", "ruleset", "rng_seed", "winner", "chain", "pending")}
    if base.get("extra"):
        state["extra"] = base["extra"]
    state["turn"] = one(DUEL, "turnNumber")
    state["phase"] = PHASE_NAMES[one(DUEL, "currentPhase")]
    for p in PLAYERS:
        me = player_ind(p)
        if "TurnPlayer" in classes.get(me, ()):
            state["turn_player"] = p
        if "PriorityPlayer" in classes.get(me, ()):
            state["priority"] = p
        if "FirstPlayer" in classes.get(me, ()):
            state["first_player"] = p
    players = {}
    for p in PLAYERS:
        me = player_ind(p)
        players[p] = {"life_points": one(me, "lifePoints"), "deck": [], "hand": [], "graveyard": [], "banished": [],
                      "extra_deck": [], "monster_zones": [None] * 5, "spell_trap_zones": [None] * 5,
                      "field_zone": None, "normal_summon_used": one(me, "normalSummonsLeft") == 0}
    positioned = {}
    for ind, cls_set in classes.items():
        names = [card_classes[c].name for c in cls_set if c in card_classes]
        if not names:
            continue
        player, area, index, _ = _place(ind)
        ref = {"player": player, "area": area, "index": index}
        side = players[player]
        if area in LIST_AREAS:  # (in its list's place, its cardIndex: a Deck's or a hand's name tells no place)
            positioned[(player, area, one(ind, "cardIndex"))] = names[0]
            continue
        card = card_classes[[c for c in cls_set if c in card_classes][0]]
        owner = one(ind, "ownerPlayer")
        fc = {"card": names[0], "owner": owner[-1],
              "position": POSITION_NAMES[one(ind, "monsterPosition") or one(ind, "spellTrapPosition")],
              "summoned_this_turn": one(ind, "summonedThisTurn", False),
              "summoned_by": (one(ind, "summonedAs") or "normalSummon")[:-len("Summon")],
              "position_changed_this_turn": one(ind, "positionChangedThisTurn", False),
              "attacks_declared": one(ind, "attacksDeclared", 0), "set_this_turn": one(ind, "setThisTurn", False),
              "equipped_to": None, "atk_modifier": one(ind, "atkModifier", 0),
              "def_modifier": one(ind, "defModifier", 0), "counters": {}, "extra": {}}
        for prop, key in counter_declarations(ruleset):
            if one(ind, prop, 0):
                fc["counters"][key] = one(ind, prop)
        del card
        if ref["area"] == "field_zone":
            side["field_zone"] = fc
        else:
            side[ref["area"]][ref["index"]] = fc
    for (p, area, i), name in sorted(positioned.items()):
        players[p][area].append(name)
    state["players"] = players
    return state
