"""Why an action is allowed (the rules that fired and the facts they matched), or why not."""
from __future__ import annotations

from dataclasses import dataclass, field

from .abox import DUEL, PHASE_INDIVIDUALS, card_ind
from .errors import IllegalActionError, StateError
from .knowledge import knowledge
from .swrl import FactIndex, Var, deepest_failure, match_body, parse_rule


@dataclass
class Explanation:
    action: str
    allowed: bool
    fired: list = field(default_factory=list)  # (rule, binding, matched body atoms)
    failed: list = field(default_factory=list)  # (rule, satisfied count, first failing atom, binding)
    wrong_player: str | None = None  # the action names a player who does not hold priority: why it is refused

    def text(self) -> str:
        lines = [f"{self.action}: {'allowed' if self.allowed else 'not allowed'}"]
        if self.wrong_player:
            lines.append(f"  {self.wrong_player}")
        for rule, binding, atoms in self.fired:
            lines.append(f"  because of rule {rule.name} ({rule.file}:{rule.line})")
            if rule.comment:
                lines.append(f"    {rule.comment}")
            for atom in atoms:
                lines.append(f"    matched {ground(atom, binding)}")
        for rule, count, atom, binding, total in self.failed:
            lines.append(f"  rule {rule.name} ({rule.file}:{rule.line}) does not hold: "
                         f"{count} of {total} conditions hold; this one fails: {ground(atom, binding)}")
            if rule.comment:
                lines.append(f"    {rule.comment}")
        if not self.fired and not self.failed:
            lines.append("  no rule of this ruleset allows an action of this kind here")
        return "\n".join(lines)


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
        if kind == "next_phase":
            if action.get("to") not in PHASE_INDIVIDUALS:
                raise StateError(f"action.to: expected a phase name, got {action.get('to')!r}")
            return (term, DUEL, PHASE_INDIVIDUALS[action["to"]])
        ref = action.get("ref") if kind == "select" else action.get("from")
        if not isinstance(ref, dict):
            raise StateError(f"action: expected a card reference ('from' or 'ref'), got {action}")
        subject = card_ind(ref["player"], ref["area"], ref["index"])
        if kind == "attack":
            t = action.get("target_ref")
            if not isinstance(t, dict):
                raise StateError(f"action.target_ref: expected a card reference, got {t!r}")
            return (term, subject, card_ind(t["player"], t["area"], t["index"]))
        return (term, subject)
    raise StateError(f"action.type: expected an action type of actions-and-cli.md, got {wanted_type!r}")


# where a card named in a partial action is looked for (the first copy found is explained)
SEARCH_ORDER = ("hand", "monster_zones", "spell_trap_zones", "field_zone", "extra_deck", "graveyard", "banished", "deck")


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
        ref = _find_card(state, action["card"], player) or _find_card(state, action["card"], "AB".replace(player, ""))
        if ref is None:
            raise IllegalActionError(f"action {action['type']} of {action['card']!r} is not allowed: "
                                     f"no card of that name is in this state")
        action[key] = ref
    if action.get("type") == "attack" and "target_ref" not in action and "target" in action:
        ref = _find_card(state, action["target"], "AB".replace(player, ""), ("monster_zones",))
        if ref is None:
            raise IllegalActionError(f"action attack on {action['target']!r} is not allowed: the opponent has "
                                     f"no monster of that name on the field")
        action["target_ref"] = ref
    if key in action and "id" not in action:
        action["id"] = action_id(action)
    return action


def explain_action(state, action, reasoner: str = "fast") -> Explanation:
    """Why `action` is allowed in `state`, or why not (with the state's own rules, if it has any)."""
    rules = getattr(state, "rules", None)
    if rules is not None:
        with rules.use():
            return _explain_action(state, action, reasoner)
    return _explain_action(state, action, reasoner)


def _explain_action(state, action, reasoner: str) -> Explanation:
    from .actions import check_action_object, parse_action_id, with_type_from_id

    if isinstance(action, str):
        action = parse_action_id(action)
    action = with_type_from_id(action)
    check_action_object(action)
    if "from" not in action and "ref" not in action:
        # a partial object (an activate naming only its card) names what `apply` would
        # take: the allowed action it matches, if exactly one (else the reference is asked for below)
        try:
            action = state.find_action(action, reasoner, why=False).to_dict()
        except IllegalActionError:
            action = _locate_cards(state, action)
    k = knowledge(state.ruleset)
    facts = state.infer(reasoner).facts
    target = _target_fact(state, action)
    index = FactIndex(facts)
    label = action.get("id") or str(action)
    result = Explanation(label, target in facts)
    holder = state.data["priority"]
    if action.get("player", holder) != holder:
        # actions-and-cli.md: the allowed actions are those of the player holding priority; the rules below
        # say what that player may do, so the action is refused for anyone else (as `apply` refuses it).
        result.allowed = False
        result.wrong_player = (f"player {action['player']} does not hold priority: player {holder} does, and only "
                               f"the player holding priority may act (rulebook p. 38); for {holder}:")
    for rule in k.rules:
        body, head = parse_rule(rule.text)
        for h in head:
            if h.predicate != target[0] or len(h.args) != len(target) - 1:
                continue
            binding, ok = {}, True
            for arg, value in zip(h.args, target[1:]):
                if isinstance(arg, Var):
                    binding[arg.name] = value
                elif arg != value:
                    ok = False
            if not ok:
                continue
            if target in facts:
                for b in match_body(index, body, binding):
                    result.fired.append((rule, b, body))
                    break
            else:
                count, b = deepest_failure(index, body, binding)
                result.failed.append((rule, count, body[count], b, len(body)))
    return result
