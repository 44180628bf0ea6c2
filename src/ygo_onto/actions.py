"""Reading the allowed actions out of inferred facts.

Every class or property that allows an action carries the annotation `ygo:actionType`
(e.g. ``change_position to=attack``); this module turns each inferred member (or pair) into
an action object of docs/actions-and-cli.md.  No game rule is decided here.
"""
from __future__ import annotations

import json
import operator
from dataclasses import dataclass
from functools import cached_property

from .abox import DUEL, KEYED_AREAS, PHASE_NAMES, card_ind, parse_card_ind, player_ind
from .cards import catalog
from .knowledge import Vocabulary
from .reasoning import named
from .state import card_name_at, copy_json

TYPE_ORDER = ["normal_summon", "tribute_summon", "set_monster", "flip_summon", "special_summon", "synchro_summon",
              "change_position", "activate", "set_spell_trap", "attack", "direct_attack", "select", "declare", "cancel", "pass",
              "next_phase", "end_turn"]
# Every key an action object of docs/actions-and-cli.md may have (an id, a type, its player, and the keys its type names).
ACTION_KEYS = {"id", "type", "player", "card", "from", "to", "target", "target_ref", "effect", "ref", "purpose", "level"}
PHASE_ORDER = ["draw", "standby", "main1", "battle", "main2", "end"]
AREA_SHORT = {"hand": "hand", "monster_zones": "mz", "spell_trap_zones": "stz", "field_zone": "fz", "graveyard": "gy",
              "deck": "deck", "extra_deck": "extra", "banished": "banished"}


def check_action_object(action, where: str = "action", source: str = "") -> None:
    """Bad input, not a rules refusal: not an object, an unknown type or key, or a value of the wrong
    kind or out of bounds (docs/actions-and-cli.md).  Raises StateError naming the key (`where`.key)."""
    from .errors import StateError
    from .state import AREAS, MAX_COUNT, MAX_NAME, MONSTER_POSITIONS, SELECT_PURPOSES, area_size, check_json, show

    prefix = f"{source}: " if source else ""

    def fail(key: str | None, expected: str):
        got = action.get(key) if key else action
        raise StateError(f"{prefix}{where}{'.' + key if key else ''}: expected {expected}, got {show(got)}")

    if not isinstance(action, dict):
        fail(None, "an action object")
    check_json(action, (where,), source)
    if action.get("type") not in TYPE_ORDER:
        fail("type", "one of " + ", ".join(TYPE_ORDER))
    unknown = sorted(set(action) - ACTION_KEYS)
    if unknown:
        key = unknown[0] if len(unknown[0]) <= 60 else unknown[0][:40] + "..."
        raise StateError(f"{prefix}{where}.{key}: expected a known key of an action object "
                         f"({', '.join(sorted(ACTION_KEYS))}), got {show(unknown[0])}")
    if "player" in action and action["player"] not in ("A", "B"):
        fail("player", '"A" or "B"')
    if "effect" in action and (type(action["effect"]) is not int or not 0 <= action["effect"] <= MAX_COUNT):
        fail("effect", f"an int from 0 to {MAX_COUNT:,}")
    if "level" in action and (type(action["level"]) is not int or not 0 <= action["level"] <= MAX_COUNT):
        fail("level", f"an int from 0 to {MAX_COUNT:,}")  # (which Levels may be declared is the rules' to say)
    # a `to` other than a phase is a battle position of state-format.md (whether the rules offer it is theirs to say)
    if "to" in action and action["to"] not in (PHASE_ORDER if action["type"] == "next_phase" else MONSTER_POSITIONS):
        fail("to", "a phase" if action["type"] == "next_phase" else '"attack", "defense" or "face_down_defense"')
    if "purpose" in action and action["purpose"] not in SELECT_PURPOSES:
        fail("purpose", "one of " + ", ".join(SELECT_PURPOSES))
    for key in ("card", "target", "id"):
        if key in action and not (isinstance(action[key], str) and len(action[key]) <= MAX_NAME):
            fail(key, f"a string of at most {MAX_NAME} characters")
    for key in ("from", "target_ref", "ref"):
        ref = action.get(key)
        if key in action and not (isinstance(ref, dict) and set(ref) == {"player", "area", "index"}):
            fail(key, 'a card reference {"player", "area", "index"}')
        if key in action and ref["player"] not in ("A", "B"):
            raise StateError(f"{prefix}{where}.{key}.player: expected \"A\" or \"B\", got {show(ref['player'])}")
        if key in action and ref["area"] not in AREAS:
            raise StateError(f"{prefix}{where}.{key}.area: expected one of {', '.join(AREAS)}, got {show(ref['area'])}")
        if key in action and not (type(ref["index"]) is int and 0 <= ref["index"] < area_size(ref["area"])):
            raise StateError(f"{prefix}{where}.{key}.index: expected an int from 0 to {area_size(ref['area']) - 1} "
                             f"(an index within its area), got {show(ref['index'])}")


def with_type_from_id(action):
    """An action object that gives its `id` but leaves out `type` (`{"id": "end_turn"}`): the keys the id
    names are filled in from it, as a partial object (an id that is not an action id is bad input)."""
    if isinstance(action, dict) and "type" not in action and isinstance(action.get("id"), str):
        return {**parse_action_id(action["id"]), **action}
    return action


def ref_text(ref: dict) -> str:
    return f"{ref['player']}.{AREA_SHORT[ref['area']]}{ref['index']}"


# Action.from_dict writes a string, an integer, a boolean or a dict of them (a card reference) as
# json.dumps does, without making an encoder for each (json.dumps with sort_keys does: 2.8 us for a
# reference)
_encode_str = json.encoder.encode_basestring_ascii  # (what json.dumps uses for a str, ensure_ascii)


def _json(value) -> str:
    """json.dumps(value, sort_keys=True)."""
    t = type(value)
    if t is str:
        return _encode_str(value)
    if t is bool:
        return "true" if value else "false"
    if t is int:
        return int.__repr__(value)
    if t is dict and all(type(k) is str for k in value):  # (json.dumps's default separators)
        return "{" + ", ".join(f"{_encode_str(k)}: {_json(value[k])}" for k in sorted(value)) + "}"
    return json.dumps(value, sort_keys=True)


@dataclass(frozen=True)
class Action:
    """One allowed action: its contract object and a short id that `apply` accepts."""

    data: tuple  # the action object as sorted (key, value-json) pairs, so Action is hashable

    @classmethod
    def from_dict(cls, d: dict) -> "Action":
        return cls(tuple(sorted((k, _json(v)) for k, v in d.items())))

    def to_dict(self) -> dict:
        # decoded once and kept on the instance (as _scalars); each call gets its own copy
        decoded = self.__dict__.get("_decoded")
        if decoded is None:
            decoded = {k: json.loads(v) for k, v in self.data}
            object.__setattr__(self, "_decoded", decoded)
        return copy_json(decoded)

    def __getitem__(self, key):
        # the scalar values read are kept on the instance (outside the dataclass's fields, so equality and hash
        # are the data's): the allowed actions are shared between states, and a duel asks for types thousands of times
        scalars = self.__dict__.get("_scalars")
        if scalars is None:
            scalars = {}
            object.__setattr__(self, "_scalars", scalars)
        elif key in scalars:
            return scalars[key]
        for k, v in self.data:  # one key decoded, not the whole object
            if k == key:
                value = json.loads(v)
                if type(value) in (str, int, bool):  # (a dict value is decoded afresh: the caller may change it)
                    scalars[key] = value
                return value
        raise KeyError(key)

    # read once, then an attribute of the instance (cached_property writes the instance's __dict__, not a field)
    @cached_property
    def type(self) -> str:
        return self["type"]

    @cached_property
    def id(self) -> str:
        return self["id"]

    @cached_property
    def player(self) -> str:
        return self["player"]

    def keys(self):
        """The keys of the action object, so that `dict(action)` is its JSON object."""
        return [k for k, _ in self.data]

    def __iter__(self):
        return iter(self.keys())

    def __contains__(self, key) -> bool:
        return any(k == key for k, _ in self.data)

    def get(self, key, default=None):
        """A key of the action object, or `default` (`action.get("card")`, as on the dict)."""
        try:
            return self[key]
        except KeyError:
            return default

    def __repr__(self) -> str:
        return f"Action({self.id!r})"


def action_id(a: dict) -> str:
    parts = [a["type"]]
    if "from" in a:
        parts.append("@" + ref_text(a["from"]))
    if "target_ref" in a:
        parts.append(">" + ref_text(a["target_ref"]))
    if "ref" in a:
        parts.append("@" + ref_text(a["ref"]))
    if "to" in a:
        parts.append(":" + a["to"])
    elif "level" in a:  # a declared Level (declare)
        parts.append(f":level{a['level']}")
    elif a.get("effect"):  # an activate of a card's effect other than its first (a choice of effect: chooseEffect)
        parts.append(f":effect{a['effect']}")
    return "".join(parts)


def _sort_key(a: dict):
    ref = a.get("from") or a.get("ref") or {}
    target = a.get("target_ref") or {}
    return (TYPE_ORDER.index(a["type"]), ref.get("player", ""), ref.get("area", ""), ref.get("index", -1),
            target.get("index", -1), PHASE_ORDER.index(a["to"]) if a["type"] == "next_phase" else str(a.get("to", "")),
            a.get("level", 0))


def allowed_from_facts(facts: set[tuple], vocabulary: Vocabulary, state: dict) -> list[Action]:
    """The actions the inferred facts allow, for the player holding priority, in a stable order."""
    annotated = vocabulary.annotated("actionType", shared=True)
    player = state["priority"]
    pending_purpose = state["pending"]["purpose"] if state["pending"] else None
    selected_for = None  # read when a fact names a card (most runs allow only actions of the duel: pass, next phase)
    out: dict[str, tuple] = {}
    if len(_ALLOWED) > 50_000:
        _ALLOWED.clear()
    for f in named(facts, annotated):
        # the action of a fact is the same wherever its cards have the same names (and the holder, the
        # purpose): made once (the apply loop asks for the allowed actions of most reasoner runs)
        spec, subject = annotated[f[0]], f[1]
        name = target = purpose = ref = target_ref = None
        if subject != DUEL:
            if selected_for is None:
                # a select's purpose is the pending's, unless the rules infer another for that card (selectedFor)
                selected_for = {g[1]: g[2][: -len("Purpose")] for g in named(facts, ("selectedFor",))}
            ref = _card_ref(subject, state)
            name = card_name_at(state, ref)
            purpose = selected_for.get(subject, pending_purpose)
            if len(f) == 3 and (spec == "attack" or spec.startswith("attack ")):
                target_ref = _card_ref(f[2], state)
                target = card_name_at(state, target_ref)
        # the activate of one of a card's effects (effectActivationAllowed: its Effect individual): its place in the
        # card's effects (ygo:cardEffect, by name) is the action's `effect`
        effect = catalog(state["ruleset"]).get(name).effects.index(f[2]) if len(f) == 3 and spec == "activate" else 0
        # (a Deck's or a hand's card's individual names another place as its list changes: the key has the places)
        key = (f, spec, player, name, target, purpose, effect, ref and ref["index"], target_ref and target_ref["index"])
        made = _ALLOWED.get(key)
        if made is None:
            made = _ALLOWED[key] = _allowed_action(f, spec, player, name, target, purpose, effect, ref, target_ref)
        out[made[1]] = made
    # SWRL cannot say "unless": a class annotated ygo:withholdsActions takes the action types it names off the list
    # while a member of it is inferred: an action of no card (MustAttackReady: next_phase, end_turn while a monster
    # that must attack can), or the member's own (ActivationLocked: its `activate`; ProtectedFromTargeting: the
    # `select` of it)
    withholding = vocabulary.annotated("withholdsActions", shared=True)
    if named(facts, ("targetProtectedFrom",)):  # an activation with too few targets its player may choose is no offer
        out = {i: made for i, made in out.items() if made[2]["type"] != "activate" or not short_of_targets(
            facts, card_ind(made[2]["from"]["player"], made[2]["from"]["area"], made[2]["from"]["index"], state),
            player_ind(player))}
    if not named(facts, withholding):
        return [made[2] for made in sorted(out.values(), key=_ORDER)]
    return [made[2] for made in sorted(out.values(), key=_ORDER)
            if withheld_by(facts, vocabulary, made[2], state) is None]


def short_of_targets(facts, card: str, player: str, needed: int | None = None) -> bool:
    """Whether the card's activation selects targets (its first selection's purpose is `target`, or its second's)
    and fewer of its `selectable` cards than it selects are cards the player may target: those the rules infer
    targetProtectedFrom the player are not (rules/common/effects/target-protection.swrl; rulebook p. 42: an effect
    that targets needs a valid target). SWRL cannot count, so this does (docs/decisions.md, "Workarounds for what
    SWRL cannot say"); a card whose cost Tributes itself (tributeThisCard) is no target of its own. `needed`: how
    many the selection takes, when the caller knows it (a trigger: primitives.trigger)."""
    protected = {f[1] for f in named(facts, ("targetProtectedFrom",)) if f[2] == player}
    if not protected:
        return False
    if needed is None:
        if ("activationPurpose", card, "targetPurpose") in facts:
            needed = next((f[2] for f in named(facts, ("activationSelections",)) if f[1] == card), 0)
        else:
            second = {f[2] for f in named(facts, ("secondSelection",)) if f[1] == card}
            needed = next((f[2] for f in named(facts, ("cardsToSelect",)) if f[1] in second
                           and ("selectsFor", f[1], "targetPurpose") in facts), 0)
    if not needed:
        return False
    itself = ("hasRequirement", card, "tributeThisCard") in facts
    valid = sum(1 for f in named(facts, ("selectable",))
                if f[1] == card and f[2] not in protected and not (itself and f[2] == card))
    return valid < int(needed)


def withheld_by(facts, vocabulary: Vocabulary, action, state: dict) -> tuple | None:
    """The inferred fact that takes the action (an Action or an action object, in `state`) off the allowed actions,
    or None: a member of a class annotated ygo:withholdsActions naming the action's type, which reaches any action
    that names no card, and the member's own (the card it acts `from`, or a `select`'s card, its `ref`)."""
    withholding = vocabulary.annotated("withholdsActions", shared=True)
    card = "from" if "from" in action else "ref" if "ref" in action else None
    for f in named(facts, withholding):
        if action["type"] in withholding[f[0]].split() and (card is None or action[card] == _card_ref(f[1], state)):
            return f
    return None


# the stable order: _sort_key, then the id where two actions tie (the facts come in no promised order: named)
_ORDER = operator.itemgetter(0, 1)
# (fact, its actionType, the player holding priority, its card's name, its target's, a select's purpose, the
# effect, the indexes of its card's and its target's places) -> (_sort_key, id, Action): see allowed_from_facts
_ALLOWED: dict = {}
_CARD_REFS: dict = {}  # (an individual's name, its Deck or hand, or None) -> parse_card_ind of it (read only)
_SPECS: dict = {}  # an actionType annotation ("change_position to=attack") -> (its type, its fixed keys: read only)


def _card_ref(ind: str, state: dict) -> dict:
    """The place the card's individual names in the state (abox.parse_card_ind), memoized."""
    area = ind[2:6]  # ("A_hand_PotOfGreed_0_card": a card of a Deck or a hand is named in its list, abox.list_names)
    key = (ind, tuple(state["players"][ind[0]][area]) if area in KEYED_AREAS and ind[6:7] == "_" else None)
    ref = _CARD_REFS.get(key)
    if ref is None:
        if len(_CARD_REFS) > 50_000:
            _CARD_REFS.clear()
        ref = _CARD_REFS[key] = parse_card_ind(ind, state)
    return ref


def _allowed_action(f: tuple, spec: str, player: str, name, target, purpose, effect: int = 0, ref=None,
                    target_ref=None) -> tuple:
    """(_sort_key, id, Action) of the action that the fact `f` of a term annotated `spec` allows (`ref`, `target_ref`:
    the places its subject and value name, _card_ref)."""
    parsed = _SPECS.get(spec)
    if parsed is None:
        kind, *pairs = spec.split()
        parsed = _SPECS[spec] = (kind, dict(p.split("=", 1) for p in pairs))
    kind, extra = parsed
    action = {"type": kind, "player": player, **extra}
    subject = f[1]
    if subject != DUEL:
        ref = dict(ref)
        if kind == "select":  # (an empty Monster Zone selected by its place names no card: a lockZone selection)
            action.update(**({"card": name} if name is not None else {}), ref=ref, purpose=purpose)
        else:
            action.update(card=name, **{"from": ref})
        if kind == "activate":
            action["effect"] = effect
    if len(f) == 3:
        if kind == "attack":
            action.update(target=target, target_ref=dict(target_ref))
        elif kind == "next_phase":
            action["to"] = PHASE_NAMES[f[2]]
        elif kind == "declare":  # a Level the player may declare (declareAnyLevel)
            action["level"] = int(f[2])
    action["id"] = action_id(action)
    return _sort_key(action), action["id"], Action.from_dict(action)


def engine_choice(facts, allowed: list[Action]) -> Action | None:
    """The selection the engine makes by itself (game._forced_move): every allowed action is a `select` or
    `cancel`, the selects all name copies of one card, and their purpose is marked
    ygo:chosenByTheEngineWhenAlike (the monster a Ritual or Fusion Spell Summons): the first copy."""
    selects = [a for a in allowed if a.type == "select"]
    if selects and len(selects) + sum(a.type == "cancel" for a in allowed) == len(allowed) \
            and len({a.get("card") for a in selects}) == 1 \
            and all(("chosenByTheEngineWhenAlike", a["purpose"] + "Purpose", True) in facts for a in selects):
        return selects[0]
    return None


SHORT_AREA = {v: k for k, v in AREA_SHORT.items()}


def parse_ref_text(text: str) -> dict:
    """'B.mz3' -> {'player': 'B', 'area': 'monster_zones', 'index': 3}."""
    import re

    from .errors import StateError
    from .state import show

    from .state import area_size

    m = re.fullmatch(r"([AB])\.([a-z]+)(\d{1,6})", text)
    if not m or m.group(2) not in SHORT_AREA:
        raise StateError(f"action: expected a card reference like A.hand0 or B.mz3, got {show(text)}")
    ref = {"player": m.group(1), "area": SHORT_AREA[m.group(2)], "index": int(m.group(3))}
    if ref["index"] >= area_size(ref["area"]):  # as check_action_object for an object's reference
        raise StateError(f"action: expected a card reference with an index from 0 to {area_size(ref['area']) - 1} "
                         f"in {m.group(2)}, got {show(text)}")
    return ref


# the action types whose id names no card (actions-and-cli.md's table): of them only next_phase has a `:to`
ID_WITHOUT_CARD = {"pass", "cancel", "next_phase", "end_turn", "declare"}


def parse_action_id(text: str) -> dict:
    """An action id back into a (partial) action object: the inverse of action_id."""
    import re

    from .errors import StateError
    from .state import show

    m = re.fullmatch(r"([a-z_]+)(?:@([AB]\.[a-z]+\d+))?(?:>([AB]\.[a-z]+\d+))?(?::([a-z0-9_]+))?", text.strip())
    if not m or m.group(1) not in TYPE_ORDER:
        raise StateError(f"action: expected an action id like normal_summon@A.hand0, got {show(text)}")
    action = {"type": m.group(1), "id": text.strip()}
    kind = action["type"]
    # the parts an id of this type has (action_id): a card reference for a card's action, a target for an attack,
    # a phase for next_phase and a position for the actions that take one; any other part is bad input
    if m.group(2) and kind in ID_WITHOUT_CARD:
        raise StateError(f"action {show(text)}: expected {kind} without a card reference (@...): {kind} names no card")
    if m.group(3) and kind != "attack":
        raise StateError(f"action {show(text)}: expected a target (>...) only in an attack's id, got one in a {kind}")
    if m.group(4) and kind in ID_WITHOUT_CARD - {"next_phase", "declare"}:
        raise StateError(f"action {show(text)}: expected {kind} alone, got a `:` part ({kind} takes no `to`)")
    effect = re.fullmatch(r"effect([1-9]\d{0,5})", m.group(4) or "") if kind == "activate" else None
    if kind == "declare":  # its Level, the one part its id has (declare:level5)
        level = re.fullmatch(r"level(\d{1,6})", m.group(4) or "")
        if not level:
            raise StateError(f"action {show(text)}: expected a Level after `:` (declare:level5), got {show(m.group(4))}")
        action["level"] = int(level.group(1))
        return action
    if m.group(4) and not effect and m.group(4) not in (PHASE_ORDER if kind == "next_phase" else ("attack", "defense", "face_down_defense")):
        raise StateError(f"action {show(text)}: expected " + ("a phase (" + ", ".join(PHASE_ORDER) + ")" if kind == "next_phase"
                         else '"attack", "defense" or "face_down_defense"') + f" after `:`, got {show(m.group(4))}")
    try:
        if m.group(2):
            action["ref" if action["type"] == "select" else "from"] = parse_ref_text(m.group(2))
        if m.group(3):
            action["target_ref"] = parse_ref_text(m.group(3))
    except StateError as exc:  # (the id named, not only its reference)
        raise StateError(f"action {show(text)}: {str(exc).removeprefix('action: ')}") from None
    if effect:
        action["effect"] = int(effect.group(1))
    elif m.group(4):
        action["to"] = m.group(4)
    return action


def describe(a: dict) -> str:
    """An action object's card, target, choice and purpose as a few words ("CARD -> TARGET to defense"): what
    `ygo-onto allowed` and `duel` print after the action's type."""
    parts = []
    if "card" in a:
        parts.append(a["card"])
    if "target" in a:
        parts.append(f"-> {a['target']}")
    if "to" in a:
        parts.append(f"to {a['to']}")
    if "level" in a:
        parts.append(f"Level {a['level']}")
    if "purpose" in a:
        parts.append(f"({a['purpose']})")
    return " ".join(parts)
