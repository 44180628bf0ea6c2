"""Why an action is allowed (the rules that fired and the facts they matched), or why not."""
from __future__ import annotations

from dataclasses import dataclass, field

from .abox import DUEL, PHASE_INDIVIDUALS, card_ind, zone_ind
from .cards import catalog
from .errors import IllegalActionError, StateError
from .knowledge import knowledge, parsed_once, reasoned_rules
from .state import card_name_at
from .swrl import _UNBOUND, BUILTINS, FactIndex, Var, _value, deepest_failure, match_body, parse_rule

# how many derived conditions deep a refusal is followed to the condition that fails in the state itself
WHY_DEPTH = 4


@dataclass
class Explanation:
    action: str
    allowed: bool
    fired: list = field(default_factory=list)  # (rule, binding, matched body atoms)
    failed: list = field(default_factory=list)  # (rule, satisfied count, first failing atom, binding)
    wrong_player: str | None = None  # the action names a player who does not hold priority: why it is refused
    read_as: list | None = None  # the allowed action ids `apply` takes for an object that names none as written
    reading: str = ""  # how the object was read (script_input.READINGS), when it was
    no_rule: str = ""  # no rule of the ruleset concludes this kind of action at all: which ruleset, which kind
    mismatch: str = ""  # the object's references name an allowed action, its other keys something else
    why: dict = field(default_factory=dict)  # a failing derived condition -> the rules that would give it, failing
    otherwise: set = field(default_factory=set)  # failing derived property values whose subject has another one

    def text(self) -> str:
        lines = [f"{self.action}: {'allowed' if self.allowed else 'not allowed'}"]
        if self.read_as is not None:
            taken = ", then ".join(self.read_as) or "no action (the state stays as it is)"
            lines.append(f"  read as: {taken}" + (f" ({self.reading})" if self.reading else ""))
        if self.wrong_player:
            lines.append(f"  {self.wrong_player}")
        for rule, binding, atoms in self.fired:
            why = "allowed for them" if self.wrong_player and not self.allowed else ""
            lines.append(f"  {why + ' ' if why else ''}because of rule {rule.name} ({rule.where})")
            if rule.comment:
                lines.append(f"    {rule.comment}")
            for atom in atoms:
                lines.append(f"    matched {ground(atom, binding)}")
        shown: set = set()  # a derived condition is followed once (the first rule that needs it)
        for rule, count, atom, binding, total in self.failed:
            lines.append(f"  rule {rule.name} ({rule.where}) does not hold: "
                         f"{count} of {total} conditions hold; this one fails: {ground_failing(rule, atom, binding)}")
            if rule.comment:
                lines.append(f"    {rule.comment}")
            lines.extend(self._why_lines(_ground_tuple(atom, binding), "    ", shown))
        if self.mismatch:
            lines.append(f"  {self.mismatch}")
        if not self.fired and not self.failed and self.read_as is None and not self.mismatch:
            lines.append(f"  {self.no_rule or 'no rule of this ruleset allows an action of this kind here'}")
        return "\n".join(lines)

    def _why_lines(self, fact, indent: str, shown: set) -> list:
        """Why a failing derived condition does not hold: the rules that would give it, each with its own first
        failing condition, followed down to a condition of the state itself."""
        if fact not in self.why or fact in shown:
            return []
        shown.add(fact)
        lines = [f"{indent}{_show_fact(fact)} does not hold: no rule gives it here"]
        for rule, count, atom, binding, total in self.why[fact]:
            lines.append(f"{indent}  rule {rule.name} ({rule.where}) would: {count} of {total} conditions hold; "
                         f"this one fails: {ground_failing(rule, atom, binding)}")
            if rule.comment:
                lines.append(f"{indent}    {rule.comment}")
            lines.extend(self._why_lines(_ground_tuple(atom, binding), indent + "    ", shown))
        return lines

    def deepest(self, failures=None) -> list:
        """The failing conditions of the state itself that the refusal comes down to (followed through derived
        conditions), each with the rule whose condition it is: [(rule, ground atom text)]."""
        found = []

        def walk(entries, seen):
            for rule, count, atom, binding, total in entries:
                fact = _ground_tuple(atom, binding)
                if fact in self.why and fact not in seen:
                    walk(self.why[fact], seen | {fact})
                elif not any(f[:2] == (rule, ground_failing(rule, atom, binding)) for f in found):
                    found.append((rule, ground_failing(rule, atom, binding), self._kind_mismatch(fact)))
        walk(self.failed if failures is None else failures, frozenset())
        # a condition the state could meet first; one that names another kind of card (a Set spell's Spell Speed 1
        # for a Quick-Play Spell) last
        return sorted(found, key=lambda f: f[2])

    def _kind_mismatch(self, fact) -> bool:
        return fact is not None and fact in self.otherwise


def _ground_tuple(atom, binding):
    """The fact an atom stands for under a binding, None in the place of a variable left unbound after the first
    (selectable(card, ?t): no target at all, still followed to the rules that would give one); None when its
    first argument is unbound too."""
    args = tuple(_value(a, binding) for a in atom.args)
    if not args or args[0] is _UNBOUND:
        return None
    return (atom.predicate, *(None if a is _UNBOUND else a for a in args))


def _show_fact(fact) -> str:
    return f"{fact[0]}({', '.join('?' if v is None else ('true' if v else 'false') if isinstance(v, bool) else str(v) for v in fact[1:])})"


def _closest(failures: list) -> list:
    """Of the rules that would give a condition, those that come closest: rules failing at their first condition
    (another kind of card, another purpose) are left out when some get further, then the best share of
    conditions that hold; at most three."""
    if any(f[1] > 0 for f in failures):
        failures = [f for f in failures if f[1] > 0]
    if not failures:
        return []
    best = max(f[1] / max(f[4], 1) for f in failures)
    return [f for f in failures if f[1] / max(f[4], 1) == best][:3]


def _explain_why(rules, index: FactIndex, failures: list, why: dict, depth: int) -> None:
    """Fill `why`: for each failing condition that rules derive (and that is ground), the closest rules that would
    give it and their own first failing condition, `depth` levels down."""
    if depth <= 0:
        return
    for rule, count, atom, binding, total in failures:
        fact = _ground_tuple(atom, binding)
        if fact is None or fact in why or fact in _facts_of(index) or _otherwise(index, fact):
            continue  # (a property that has another value here, a Quick-Play's Spell Speed 2: that is the reason)
        found = []
        for other, body, head in rules:
            for h in head:
                b = _head_binding(h, fact)
                if b is not None:
                    n, nb = deepest_failure(index, body, b)
                    if n < len(body):
                        found.append((other, n, body[n], nb, len(body)))
        if found:
            why[fact] = _closest(found)
            _explain_why(rules, index, why[fact], why, depth - 1)


def _head_binding(head, fact) -> dict | None:
    """The binding under which a rule's head atom is the fact (a value None: any), or None if it cannot be."""
    if head.predicate != fact[0] or len(head.args) != len(fact) - 1:
        return None
    binding: dict = {}
    for arg, value in zip(head.args, fact[1:]):
        if value is None:  # (a phase left open: any)
            continue
        if isinstance(arg, Var):
            if binding.get(arg.name, value) != value:
                return None
            binding[arg.name] = value
        elif _value(arg, {}) != value:
            return None
    return binding


def _otherwise(index: FactIndex, fact) -> bool:
    """Whether the fact is a property value its subject has another value of (spellSpeed 1 of a Speed 2 card)."""
    return len(fact) == 3 and fact[2] is not None and \
        any(row[0] == fact[1] and row[1] != fact[2] for row in index.by_pred.get(fact[0], ()))


def _facts_of(index: FactIndex) -> set:
    if not hasattr(index, "_all"):
        index._all = {(p, *args) for p, rows in index.by_pred.items() for args in rows}
    return index._all


def ground(atom, binding) -> str:
    args = []
    for a in atom.args:
        if isinstance(a, Var) and a.name in binding:
            v = binding[a.name]
            args.append(("true" if v else "false") if isinstance(v, bool) else str(v))
        elif isinstance(a, bool):
            args.append("true" if a else "false")
        else:
            args.append(str(a))
    return f"{atom.predicate}({', '.join(args)})"


def ground_failing(rule, atom, binding) -> str:
    """A failing condition as `ground` shows it; a failing comparison (greaterThan(0, 0)) also names the conditions
    of the rule that gave its values (normalSummonsLeft(playerA, 0)), so that a refusal says what was compared."""
    shown = ground(atom, binding)
    if atom.predicate not in BUILTINS:
        return shown
    try:
        body = parse_rule(rule.text)[0]
    except SyntaxError:
        return shown
    before = body[:body.index(atom)] if atom in body else body  # the conditions that bound its variables
    sources = []
    for arg in atom.args:
        if not isinstance(arg, Var) or arg.name not in binding:
            continue
        source = next((b for b in before if b.predicate not in BUILTINS and arg in b.args), None)
        if source is not None and ground(source, binding) not in sources:
            sources.append(ground(source, binding))
    return f"{shown} (with {', '.join(sources)})" if sources else shown


def _target_fact(state, action: dict) -> tuple:
    """The inferred fact that would allow the action (the inverse of actions.allowed_from_facts)."""
    v = knowledge(state.ruleset).vocabulary
    wanted_type = action["type"]
    # `to` names the class for a position change and for a Special Summon in Defense (next_phase's is the fact's object)
    extra = {"to": action["to"]} if wanted_type != "next_phase" and "to" in action else {}
    for term, spec in v.annotated("actionType").items():
        kind, *pairs = spec.split()
        if kind != wanted_type or dict(p.split("=", 1) for p in pairs) != extra:
            continue
        if kind in ("pass", "cancel", "end_turn"):
            return (term, DUEL)
        if kind == "declare":  # a declared Level: the fact's value (declareAnyLevel)
            return (term, DUEL, action.get("level"))
        if kind == "next_phase":
            if "to" not in action:  # "go on to the next phase", whichever it is: the rules for any phase are asked
                return (term, DUEL, None)
            if action.get("to") not in PHASE_INDIVIDUALS:
                raise StateError(f"action.to: expected a phase name, got {action.get('to')!r}")
            return (term, DUEL, PHASE_INDIVIDUALS[action["to"]])
        ref = action.get("ref") if kind == "select" else action.get("from")
        if not isinstance(ref, dict):
            raise StateError(f"action: expected a card reference ('from' or 'ref'), got {action}")
        subject = card_ind(ref["player"], ref["area"], ref["index"], state.data)
        if kind == "select" and ref["area"] == "monster_zones" and card_name_at(state.data, ref) is None:
            subject = zone_ind(ref["player"], ref["area"], ref["index"])  # an empty zone selected by its place (lockZone)
        if kind == "attack":
            t = action.get("target_ref")
            if not isinstance(t, dict):
                raise StateError(f"action.target_ref: expected a card reference, got {t!r}")
            return (term, subject, card_ind(t["player"], t["area"], t["index"], state.data))
        # an activate that chooses one of its card's effects (chooseEffect) is allowed by a fact naming that effect
        choosing = (state.data.get("pending") or {}).get("purpose") == "chooseEffect"
        if kind == "activate" and v.is_object_property(term):
            if not choosing:
                continue
            effects = catalog(state.ruleset).get(card_name_at(state.data, ref)).effects
            return (term, subject, effects[action.get("effect", 0)]) if action.get("effect", 0) < len(effects) else (term, subject)
        if kind == "activate" and choosing:
            continue
        return (term, subject)
    if extra:  # a `to` that names the action's own position (a summon "to": "attack", a Set "to": "defense")
        return _target_fact(state, {k: v for k, v in action.items() if k != "to"})
    raise StateError(f"action.type: expected an action type of actions-and-cli.md, got {wanted_type!r}")


# where a card named in a partial action is looked for (the first copy found is explained)
SEARCH_ORDER = ("hand", "monster_zones", "spell_trap_zones", "field_zone", "extra_deck", "graveyard", "banished", "deck")


# the action types of a monster on the field (actions-and-cli.md's table)
ON_FIELD_MONSTER = ("flip_summon", "change_position", "attack", "direct_attack")


def _find_card(state, name: str, player: str, areas=SEARCH_ORDER):
    """The first reference (by SEARCH_ORDER, then index) of a card of that name in the player's areas, or None."""
    side = state.data["players"][player]
    for area in areas:
        cards = side[area] if area != "field_zone" else [side[area]]
        for i, c in enumerate(cards):
            if (c["card"] if isinstance(c, dict) else c) == name:
                return {"player": player, "area": area, "index": i}
    return None


def _locate_cards(state, action: dict) -> dict:
    """A described action that no allowed action matches (a direct_attack naming only its card):
    its card references filled from where the named cards are, so that the rules can say why it is not
    allowed.  A named card that is nowhere is a refusal that says so."""
    from .actions import action_id

    action = state._canonical_names(action)
    player = action.get("player", state.data["priority"])
    key = "ref" if action.get("type") == "select" else "from"
    if key not in action and "card" in action:
        # actions-and-cli.md: these act on a monster on the field, so a copy there is the one the object names
        areas = ("monster_zones", *(a for a in SEARCH_ORDER if a != "monster_zones")) if action.get("type") in ON_FIELD_MONSTER else SEARCH_ORDER
        # area by area, the priority holder's copy first: a Normal Summon named while the opponent holds a window is
        # explained for the card in the turn player's hand, not a copy in the window holder's deck
        other = "AB".replace(player, "")
        ref = next((r for area in areas for r in (_find_card(state, action["card"], player, (area,)),
                                                  _find_card(state, action["card"], other, (area,))) if r), None)
        if ref is None:
            raise IllegalActionError(f"action {action['type']} of {action['card']!r} is not allowed: "
                                     f"no card of that name is in this state")
        action[key] = ref
    if action.get("type") == "attack" and "target_ref" not in action and "target" in action:
        # the attacker's opponent (the attacker may be the other player's monster, named while its opponent holds
        # priority in a window: its refusal says why the attack is not allowed, not that its target is missing)
        attacker = (action.get("from") or {}).get("player", player)
        ref = _find_card(state, action["target"], "AB".replace(attacker, ""), ("monster_zones",))
        if ref is None:
            raise IllegalActionError(f"action attack on {action['target']!r} is not allowed: the opponent has "
                                     f"no monster of that name on the field")
        action["target_ref"] = ref
    if key in action and "id" not in action:
        action["id"] = action_id(action)
    return action


def explain_action(state, action, reasoner: str = "fast", as_written: bool = False) -> Explanation:
    """Why `action` is allowed in `state`, or why not (with the state's own rules, if it has any).

    `action` is judged as `apply` takes it: the allowed action it names (an id, or an object, partial or in the
    contract's words), or else an allowed action (or several in turn) that a reading of script_input.READINGS
    takes it for; only an action `apply` refuses is not allowed, and then the rules say why.  `as_written`:
    the rules' judgement of the object alone, without looking for what it names (the reason of a refusal)."""
    rules = getattr(state, "rules", None)
    if rules is not None:
        with rules.use():
            return _explain_action(state, action, reasoner, as_written)
    return _explain_action(state, action, reasoner, as_written)


def _explain_action(state, action, reasoner: str, as_written: bool) -> Explanation:
    from . import script_input
    from .actions import Action, check_action_object, parse_action_id, with_type_from_id

    given = action
    if isinstance(action, Action):  # one of allowed_actions(), as `apply` takes it
        action = action.to_dict()
    if isinstance(action, str):
        action = parse_action_id(action)
    action = with_type_from_id(action)
    check_action_object(action)
    if not as_written:
        try:  # the allowed action the id or object names, as `apply` finds it
            chosen = state.find_action(given, reasoner, why=False)
        except IllegalActionError:
            chosen = None
        if chosen is not None:
            report = _judge(state, chosen.to_dict(), reasoner)
            if isinstance(given, dict) and not (given.keys() <= {"id"} | chosen.to_dict().keys()
                                                and all(chosen.to_dict().get(k) == v for k, v in given.items())):
                report.read_as = [chosen.id]
            return report
        for reading in script_input.READINGS:  # an object `apply` reads as other allowed actions
            with script_input.recording() as trail:
                after = reading(state, given, reasoner)
            if after is not None:
                report = _judge(state, trail[0].to_dict(), reasoner) if trail else Explanation("", True)
                report.allowed = True
                report.action = _label(given, action)
                report.read_as = [a.id for a in trail]
                report.reading = script_input.READING_SAYS[reading.__name__]
                return report
    if "from" not in action and "ref" not in action:
        action = _locate_cards(state, action)
    report = _judge(state, action, reasoner)
    if report.allowed and not report.wrong_player:
        same = [a.to_dict() for a in state.allowed_actions(reasoner) if a.id == report.action]
        if same:
            differ = [f"{k}={v!r} where it has {k}={same[0].get(k)!r}" for k, v in state._canonical_names(action).items()
                      if k != "id" and same[0].get(k) != v]
            report.mismatch = (f"the rules allow {report.action}, but the object says " + "; ".join(differ)
                               + ": it names no allowed action")
            report.fired = []
    # the object names no allowed action as written (another card than its `from` holds, a player without
    # priority...): `apply` refuses it, so does explain
    report.allowed = False
    return report


def _label(given, action: dict) -> str:
    from .actions import action_id

    if isinstance(given, str):
        return given.strip()
    if action.get("id"):
        return action["id"]
    try:
        return action_id(dict(action))
    except (KeyError, TypeError, ValueError):  # an object too partial for an id: shown as written
        return str(action)


def _parsed_reasoned_rules(k) -> list[tuple]:
    """(rule, body atoms, head atoms) of each rule the reasoners run, parsed once per Knowledge and rule list
    (knowledge.parsed_once): a refused action is explained against every rule, and parsing them all each time made a
    refusal cost most of a duel's time when a test tries many."""
    rules = reasoned_rules(k)
    return [(rule, *atoms) for rule, atoms in zip(rules, parsed_once(k, "_explain_parsed", rules, parse_rule))]


def _judge(state, action: dict, reasoner: str) -> Explanation:
    """The rules' judgement of one action object with its card references: the rule that fired, or each rule
    for this kind of action with its first failing condition (followed down through derived conditions)."""
    k = knowledge(state.ruleset)
    facts = state.infer(reasoner).facts
    target = _target_fact(state, action)
    index = FactIndex(facts)
    result = Explanation(_label(None, action), target in facts)
    holder = state.data["priority"]
    if action.get("player", holder) != holder:
        # actions-and-cli.md: the allowed actions are those of the player holding priority; the rules below
        # say what that player may do, so the action is refused for anyone else (as `apply` refuses it).
        result.allowed = False
        result.wrong_player = (f"player {action['player']} does not hold priority: player {holder} does, and only "
                               f"the player holding priority may act (rulebook p. 38); for {holder}:")
    parsed = _parsed_reasoned_rules(k)
    for rule, body, head in parsed:
        for h in head:
            binding = _head_binding(h, target)
            if binding is None:
                continue
            if target in facts:
                for b in match_body(index, body, binding):
                    result.fired.append((rule, b, body))
                    break
            else:
                count, b = deepest_failure(index, body, binding)
                if count == len(body):  # a head left open (next_phase without `to`): the body holds for some value
                    result.fired.append((rule, b, body))
                    result.allowed = True
                    continue
                result.failed.append((rule, count, body[count], b, len(body)))
    _explain_why(parsed, index, result.failed, result.why, WHY_DEPTH)
    derived = {h.predicate for _, _, head in parsed for h in head}  # (a value the state gives is a condition to meet)
    result.otherwise = {f for rules in [result.failed, *result.why.values()] for _, _, a, b, _ in rules
                        if (f := _ground_tuple(a, b)) is not None and f[0] in derived and _otherwise(index, f)}
    from .abox import card_ind, player_ind
    from .actions import short_of_targets, withheld_by

    withheld = withheld_by(facts, k.vocabulary, action, state.data)
    if withheld is not None and result.allowed:  # (actions.allowed_from_facts leaves it out)
        result.allowed = False
        result.mismatch = (f"but {withheld[1]} is inferred {withheld[0]}, whose annotation ygo:withholdsActions "
                           f"takes this action off the allowed actions")
    elif result.allowed and action["type"] == "activate" and "from" in action and short_of_targets(
            facts, card_ind(action["from"]["player"], action["from"]["area"], action["from"]["index"], state.data),
            player_ind(action.get("player", holder))):
        result.allowed = False  # (actions.allowed_from_facts leaves it out too)
        result.mismatch = ("but fewer of its targets than it selects are cards its player may target (the others are "
                           "inferred targetProtectedFrom that player), so it is not offered (actions.short_of_targets)")
    if not result.fired and not result.failed:
        result.no_rule = (f"no rule of the {state.ruleset} ruleset allows a {action['type']} at all "
                          f"(rulesets.md says what each ruleset has)")
    return result
