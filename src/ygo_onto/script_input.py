"""How `GameState.apply` reads an action object a script wrote in the contract's words.

An outside script (a grader, a notebook) composes action objects from actions-and-cli.md's table without our
action ids.  `key_matches` and `alike` let a partial object name an allowed action; when an object names none,
the READINGS are tried in order, each a reading of the object as actions the rules do allow (the state after
them) or None.  None of them decides what is allowed: every step they take is an allowed action of its state.
Each reading's reason is in docs/decisions.md ("Script readings").
"""
from __future__ import annotations

import contextlib

from .abox import ANSWERED_SUMMONS, card_ind
from .actions import Action, engine_choice, parse_ref_text
from .reasoning import named
from .errors import IllegalActionError, StateError
from .state import LIST_AREAS, card_at, card_name_at, phases_of


def _kind(action) -> str | None:
    """The action type an Action, an id (`select@A.hand0`, `next_phase:end`) or an object names, or None."""
    if isinstance(action, Action):
        return action.type
    if isinstance(action, str):
        return action.strip().partition("@")[0].partition(":")[0]
    return action.get("type") if isinstance(action, dict) else None


def _tried(state, action, reasoner: str):
    """The state after `action`, or None where the rules refuse it (a reading's step that does not hold)."""
    try:
        return state.apply(action, reasoner)
    except IllegalActionError:
        return None


def after_implied_choice(state, action, reasoner: str):
    """A `select` made before the choice it waits for, when that choice has one candidate (in a hand-written
    pending: in the states `apply` writes, the engine has made it, see choice_made_by_engine): the
    monster a Ritual Spell or a Fusion Spell Summons (purpose `summon`; copies of one card in the
    hand or Extra Deck are alike).  The rulebook (pp. 8-9) has the player choose the materials or
    tributes, and the contract's pending purposes have no choice of the monster, so a select of a
    material or tribute first implies it: the state after both, or None (then the refusal stands)."""
    kind = _kind(action)
    if kind != "select":
        return None
    choice = engine_choice(state.infer(reasoner).facts, state.allowed_actions(reasoner))
    if choice is None:  # (the choice the engine makes in the states `apply` writes: here not made yet)
        return None
    implied = state.apply(choice, reasoner)
    return _tried(implied, action, reasoner)


def choice_made_by_engine(state, action, reasoner: str):
    """A `select` of the card the engine already selected by itself: the monster a Ritual Spell or a
    Fusion Spell Summons, which `apply` selects when every candidate is a copy of one card (the
    purpose is marked ygo:chosenByTheEngineWhenAlike; game._forced_move).  A script that makes that
    choice itself (by the monster's name or place, or with purpose `summon`) finds it made: the same
    state.  None when the object names anything else (then the refusal stands)."""
    pending = state.data["pending"]
    if isinstance(action, Action):
        return None  # an Action is held to the allowed list it came from
    if isinstance(action, str):
        kind, _, place = action.strip().partition("@")
        try:
            action = {"type": kind, "ref": parse_ref_text(place)} if place else {"type": kind}
        except StateError:
            return None
    if not (isinstance(action, dict) and action.get("type") == "select" and pending and pending["chosen"]):
        return None
    if set(action) - {"type", "card", "ref", "purpose", "player", "id"} or action.get("purpose", "summon") not in (
            "summon", pending["purpose"]):
        return None
    first = pending["chosen"][0]
    named_card = state._canonical_names({"card": action["card"]})["card"] if "card" in action else None
    if ("ref" in action and action["ref"] != first) or (named_card is not None and named_card != card_name_at(state.data, first)):
        return None
    facts = state.infer(reasoner).facts
    origin = pending["action"].get("from") or {}
    actor = card_ind(origin.get("player"), origin.get("area"), origin.get("index"), state.data)
    requirements = {f[2] for f in named(facts, ("hasRequirement",)) if f[1] == actor}
    purposes = {f[2] for f in named(facts, ("firstSelectsFor",)) if f[1] in requirements}
    if not any(("chosenByTheEngineWhenAlike", why, True) in facts for why in purposes):
        return None
    return state.copy()


def activation_under_way(state, action, reasoner: str):
    """An `activate` object for the activation the pending action already is (a trigger or FLIP effect
    the engine opened when its monster was summoned or flipped, docs/decisions.md "Trigger effects stay
    a selection"): the same state, or with a `target`/`target_ref` the `select` of that target.  None when
    the object names another card, place, effect or player (then the refusal stands)."""
    pending = state.data["pending"]
    if not (isinstance(action, dict) and action.get("type") == "activate" and pending
            and pending["action"].get("type") == "activate"):
        return None
    built = pending["action"]
    named = state._canonical_names({k: v for k, v in action.items() if k in ("card", "target")})
    if ("card" in named and named["card"] != built.get("card")) or action.get("effect", 0) != built.get("effect", 0) \
            or any(k in action and action[k] != built.get(k) for k in ("from", "player")):
        return None
    if "target" not in action and "target_ref" not in action:
        return state.copy()
    choice = {"type": "select", **({"card": named["target"]} if "target" in named else {}),
              **({"ref": action["target_ref"]} if "target_ref" in action else {})}
    return _tried(state, choice, reasoner)


def activate_then_target(state, action, reasoner: str):
    """An `activate` object that names its target (`target`, `target_ref`, the keys of an attack's
    target): the activation, then the `select` of that target when the activation waits for one
    (state-format.md: targets are chosen as a pending action's selections).  The state after both,
    or None (then the refusal stands)."""
    if not (isinstance(action, dict) and action.get("type") == "activate"
            and ("target" in action or "target_ref" in action)):
        return None
    activation = {k: v for k, v in action.items() if k not in ("target", "target_ref", "id")}
    choice = {"type": "select", "purpose": "target",
              **({"card": action["target"]} if "target" in action else {}),
              **({"ref": action["target_ref"]} if "target_ref" in action else {})}
    try:
        started = state.apply(activation, reasoner)
        if (started.data["pending"] or {}).get("purpose") != "target":
            return None
        return started.apply(choice, reasoner)
    except IllegalActionError:
        return None


def pass_already_made(state, action, reasoner: str):
    """A `pass` when nothing waits for an answer (no chain, no pending action, no window where a pass
    is allowed), or when the duel is over: the window it declines was already closed, since the engine
    passes by itself where a pass is the only choice (actions-and-cli.md: every state `apply` writes is
    a decision point).  The same state, or None (then the refusal stands).  A pass while a monster's
    optional trigger waits for its target, or a Graveyard card's for its cost (nothing chosen, `cancel` offered),
    declines it, as `cancel` does; a pass
    that names the other player (`player`) while a pending action waits for its player's choices declines nothing
    and answers nothing yet: the same state; so does the turn player's pass while the opponent holds the window of
    the turn player's own move with nothing on the chain (rulebook p. 38: that pass handed it priority)."""
    # (an Action, taken from an `allowed` list, is held to that list: only a script's id or object is read so)
    kind = action.strip() if isinstance(action, str) else action.get("type") if isinstance(action, dict) else None
    pending = state.data["pending"]
    named_player = action.get("player") if isinstance(action, dict) else None
    if kind == "pass" and pending and named_player not in (None, pending["action"].get("player")) \
            and state.winner is None and not any(a.to_dict().get("player") == named_player for a in state.allowed_actions(reasoner)):
        # the other player's pass written while the pending action still waits for its player's choices (a
        # summon's tributes, a spell's targets or materials, a trigger's target): that player's window comes after
        # those choices (where it has nothing to answer with, the engine passes it there by itself), and it
        # cannot decline another player's trigger: the same state
        return state.copy()
    if kind == "pass" and pending and pending["action"].get("type") == "activate" and not pending["chosen"] \
            and pending["action"].get("from", {}).get("area") == "monster_zones":
        # the optional trigger of a monster the engine opened: passing is declining it
        declines = [a for a in state.allowed_actions(reasoner) if a.type == "cancel"]
        return state.apply(declines[0], reasoner) if declines else None
    if kind == "pass" and pending and pending["action"].get("type") == "activate" and not pending["chosen"] \
            and pending["action"].get("from", {}).get("area") == "graveyard":
        # the optional trigger of a card in the Graveyard the engine opened (an effect waiting for its
        # cost): passing is declining it; a mandatory one (a FLIP effect going on from the Graveyard) has no cancel
        declines = [a for a in state.allowed_actions(reasoner) if a.type == "cancel"]
        if declines:
            return state.apply(declines[0], reasoner)
    if kind == "pass" and pending and pending["action"].get("type") == "activate" and not pending["chosen"] \
            and pending["purpose"] == "target" and not state.data["chain"] \
            and not any(a.type in ("cancel", "pass") for a in state.allowed_actions(reasoner)):
        # a mandatory trigger (a FLIP effect) the engine opened after the window this pass was for had closed
        # (an attack on a Set FLIP monster the opponent could not answer): nothing to decline, the same state
        return state.copy()
    chain = state.data["chain"]
    if kind == "pass" and isinstance(action, dict) and chain and pending is None and state.winner is None \
            and action.get("player") not in (None, state.data["priority"]) \
            and chain[-1]["player"] == state.data["priority"]:
        # the named player's pass on the last link (its opponent's, who holds priority again): already made,
        # by the engine where a pass was that player's only choice (docs/decisions.md "Response windows")
        return state.copy()
    if kind == "pass" and isinstance(action, dict) and not chain and pending is None and state.winner is None \
            and action.get("player") not in (None, state.data["priority"]) \
            and state.data["priority"] == state.data["turn_player"]:
        passed = _passed(state, reasoner)
        if passed is not None and _unanswered(state.data):
            # the opponent's pass written while the turn player holds the first window of its own summon or attack
            # declaration (rulebook p. 38: the turn player acts first): the turn player let its window go, then the
            # opponent passes (the summon stands; the attacker gets its window before damage where it has a card)
            if passed.data["priority"] == named_player and not passed.data["chain"] and passed.winner is None:
                return _passed(passed, reasoner)
            return passed
        if passed is not None:
            # the opponent's pass of the turn player's attack declaration, already made by the engine (it had nothing
            # to answer with, "Response windows"), while the attacker holds its window before damage with a card it
            # could use: the script's pass for the declaration means it goes unanswered (actions-and-cli.md: "when
            # both players pass"), so the turn player's pass follows (the step goes on to damage)
            return passed
    if kind == "pass" and isinstance(action, dict) and not chain and pending is None and state.winner is None \
            and action.get("player") == state.data["turn_player"] != state.data["priority"]:
        # the turn player's pass written while the opponent holds the window of the turn player's own move (an attack
        # declaration, a summon, a phase's end) with nothing on the chain: rulebook p. 38, the turn player holds
        # priority first and its pass hands priority to the opponent, which the engine did when it opened the
        # window ("attack; A passes; B passes", the rulebook's order): already made, the same state (the opponent's
        # answer comes next)
        return state.copy()
    if kind != "pass" or state.data["pending"] is not None or (chain and state.winner is None):
        return None
    if any(a.type == "pass" for a in state.allowed_actions(reasoner)):  # a pass is the other player's to make
        return None
    return state.copy()


def next_phase_through(state, action, reasoner: str):
    """A `next_phase` object whose `to` is a later phase of this turn than the next one (actions-and-cli.md:
    "go on to the named phase"; rulebook p. 24: the phases come in order): the turn player moves on phase
    by phase, each move one the rules allow, while the turn player keeps priority with nothing open (the
    Draw Phase to Main Phase 1 through the Standby Phase, the Battle Phase to the End Phase through Main
    Phase 2); the opponent's window at each phase's end passed on the way is let go (as in window_declined).
    The state in the named phase, or None (then the refusal stands): a phase that is not ahead.  A move to
    the phase the turn player is already in (where `apply` brought it past an idle Draw and Standby Phase,
    actions-and-cli.md: every state it writes is a decision point) leaves the state as it is, and so does a
    move to the Draw or Standby Phase in Main Phase 1: the engine passed them by itself on its way there.
    The id form (`next_phase:standby`) is read as the object."""
    from .actions import PHASE_ORDER, parse_action_id

    if isinstance(action, str) and action.strip().startswith("next_phase:"):
        action = parse_action_id(action)
    if not (isinstance(action, dict) and action.get("type") == "next_phase" and action.get("to") in PHASE_ORDER):
        return None
    if set(action) - {"type", "to", "player", "id"}:
        return None
    goal = PHASE_ORDER.index(action["to"])
    turn, data = state.data["turn"], state.data
    if _unanswered(data) and not data["chain"] and not data["pending"]:
        return None  # the turn player's own window after its summon: window_declined lets it go first (p. 38)
    passed_by_itself = (data["phase"] == "main1" and action["to"] in ("draw", "standby")
                        and action["to"] in phases_of(state.ruleset))
    if ((data["phase"] == action["to"] or passed_by_itself) and data["winner"] is None and not data["chain"]
            and not data["pending"] and data["priority"] == data["turn_player"]
            and action.get("player", data["turn_player"]) == data["turn_player"]):
        return state.copy()  # already there or past it: the engine passed through the idle phases by itself
    while True:
        data = state.data
        if (data["turn"] != turn or data["winner"] is not None or data["chain"] or data["pending"]
                or data["priority"] != data["turn_player"] or PHASE_ORDER.index(data["phase"]) >= goal):
            return None
        if action.get("player", data["turn_player"]) != data["turn_player"]:
            return None
        state = _tried(state, {"type": "next_phase"}, reasoner)
        if state is None:
            return None
        # the opponent's window at that phase's end, and at the end of each idle phase the engine then passed by
        # itself on the way (an idle Standby Phase after the Draw Phase: a window of the opponent at its end too)
        for _ in PHASE_ORDER:
            if state.data["turn"] != turn or state.data["priority"] == state.data["turn_player"]:
                break
            declined = _window_let_go(state, reasoner)
            if declined is None:
                break
            state = declined
        if state.data["turn"] == turn and state.data["phase"] == action["to"] \
                and state.data["priority"] == state.data["turn_player"]:
            return state


def turn_end_named_as_phase(state, action, reasoner: str):
    """A `next_phase` to `end` in a ruleset whose turns have no End Phase (state-format.md: `simplified` has only
    main1, battle, main2; seed 002 section 4: "at any phase, you can request to end your turn"): the end of the
    turn, `end_turn`, from the phase it is in.  The state after it, or None (then the refusal stands)."""
    if isinstance(action, str):
        action = {"type": "next_phase", "to": "end"} if action.strip() == "next_phase:end" else None
    if not (isinstance(action, dict) and action.get("type") == "next_phase" and action.get("to") == "end"
            and set(action) <= {"type", "to", "player", "id"}) or "end" in phases_of(state.ruleset):
        return None
    ending = {"type": "end_turn", **({"player": action["player"]} if "player" in action else {})}
    return _tried(state, ending, reasoner)


def flip_as_mode_change(state, action, reasoner: str):
    """A `flip_summon` (actions-and-cli.md: a face-down Defense monster to face-up Attack) where the rules offer that
    very change as a change of battle position instead (`simplified`, seed 002 4.1.1 items 6-7: a monster's mode is
    updated, once per turn; docs/decisions.md "Mode change"): that `change_position` to `attack`.  Only a monster
    face-down in Defense Position qualifies.  The state after it, or None (then the refusal stands)."""
    if not (isinstance(action, dict) and action.get("type") == "flip_summon"):
        return None
    change = {**{k: v for k, v in action.items() if k not in ("type", "id", "to")}, "type": "change_position", "to": "attack"}
    try:
        chosen = state.find_action(change, reasoner, why=False)
    except (IllegalActionError, StateError):
        return None
    monster = card_at(state.data, chosen["from"])
    if (monster or {}).get("position") != "face_down_defense":
        return None
    return state.apply(chosen, reasoner)


def window_declined(state, action, reasoner: str):
    """An action object (not a `pass` or `cancel`) while the player holding priority has a window with nothing on
    the chain: the opponent's window at a phase's end, after a summon or after an attack declaration
    (docs/decisions.md "Response windows", "The opponent's window at each phase end"), which that player could
    use (else the engine passes it).  actions-and-cli.md names `pass` for chains and attack declarations, and a
    script in the rulebook's words does not name the phase-end window at all: a script that goes on with another
    action means the window was let go.  The window's `pass`, then the object (with these readings too); None
    when the object is refused after the pass as well (then the refusal of the object as written stands).  A
    `select` is read so too: the choice the pass leads to (the FLIP effect of a monster the attack flips, whose
    target its controller selects once the attacker's own window on the declaration is let go)."""
    kind = _kind(action)
    if isinstance(action, Action) or kind in (None, "pass", "cancel"):
        return None
    declined = _window_let_go(state, reasoner)
    if declined is None:
        return None
    return _tried(declined, action, reasoner)


def _unanswered(data: dict) -> bool:
    """Whether the turn player's own summon or attack declaration still waits for the opponent's answer (the turn
    player's first window, rulebook p. 38: extra.just_summoned, extra.attack without opponent_passed)."""
    for fc in data["players"][data["turn_player"]]["monster_zones"]:
        extra = fc["extra"] if fc else {}
        attack = extra.get("attack")
        if extra.get("just_summoned") in ANSWERED_SUMMONS or (attack and not attack.get("opponent_passed")):
            return True
    return False


def _passed(state, reasoner: str):
    """The state after the allowed `pass` of the player holding priority, or None where no pass is allowed (the
    step every reading that passes for a player takes; each reading says when)."""
    passes = [a for a in state.allowed_actions(reasoner) if a.type == "pass"]
    return state.apply(passes[0], reasoner) if passes else None


def _window_let_go(state, reasoner: str):
    """The state after the `pass` of a window with nothing on the chain and no pending action, or None."""
    data = state.data
    if data["chain"] or data["pending"] or data["winner"] is not None:
        return None
    return _passed(state, reasoner)


def end_phase_discard_first(state, action, reasoner: str):
    """A `select` of a hand card to discard written in the End Phase before the turn is ended (rulebook v6.0
    p. 25 "Son aşama": in the End Phase, with more than 6 cards in hand, cards are sent to the Graveyard until 6
    remain), where the engine makes that discard as the End Phase ends (docs/decisions.md "Turns and
    phases": the discard comes after the phase's Quick-Play Spells and Traps, at `end_turn`): the
    turn player's `end_turn` (the opponent's window there let go, as in window_declined), then the select, when
    the state after them waits for the discard.  The opponent's window at the end of the phase before (a
    `next_phase` to `end` stops there when the opponent could use it) is let go first, as window_declined does
    for other objects.  None otherwise (then the refusal stands)."""
    data = state.data
    if isinstance(action, Action) or _kind(action) != "select" or data["pending"] or data["chain"] \
            or data["winner"] is not None:
        return None
    if data["priority"] != data["turn_player"]:
        state = _window_let_go(state, reasoner)
        if state is None or state.data["turn"] != data["turn"]:
            return None
        data = state.data
    if data["phase"] != "end" or data["pending"] or data["chain"] or data["priority"] != data["turn_player"]:
        return None
    if isinstance(action, dict) and (action.get("purpose", "discard") != "discard"
                                     or action.get("player", data["turn_player"]) != data["turn_player"]):
        return None
    ended = _tried(state, {"type": "end_turn"}, reasoner)
    if ended is None:
        return None
    if ended.data["pending"] is None:
        ended = _window_let_go(ended, reasoner)
    if ended is None or not ended.data["pending"] or ended.data["pending"]["purpose"] != "discard":
        return None
    return _tried(ended, action, reasoner)


def own_link_let_resolve(state, action, reasoner: str):
    """An action object (not a `pass`, `select` or `cancel`) while the player holding priority holds it on an open
    chain whose last link is that player's own (the opponent passed on it: rulebook v6.0 p. 35, the chain resolves
    when both players pass in succession): a script that wrote the opponent's one `pass` and goes on with the next
    action means the last link's player adds no link.  That player's `pass` (the chain resolves), then the object
    (with these readings too); None when the object is refused after it as well (then the refusal stands).  A chain
    whose last link is the other player's (the priority holder has not answered it) is never passed so."""
    kind = _kind(action)
    if isinstance(action, Action) or kind in (None, "pass", "select", "cancel"):
        return None
    data = state.data
    if not data["chain"] or data["pending"] or data["winner"] is not None \
            or data["chain"][-1]["player"] != data["priority"]:
        return None
    request = (data.get("extra") or {}).get("phase_end")  # the turn player's move the opponent's chain answered
    resolved = _passed(state, reasoner)
    if resolved is None:
        return None
    if resolved.data["chain"]:
        return None  # the pass did not resolve the chain (the opponent is asked again): not implied
    done = _tried(resolved, action, reasoner)
    if done is not None:
        return done
    after = resolved.data
    if not request or after["pending"] or after["winner"] is not None or after["turn"] != data["turn"] \
            or after["phase"] != data["phase"] or after["priority"] != after["turn_player"]:
        return None
    # the opponent's chain at a phase's end spent the turn player's request (docs/decisions.md "The opponent's window
    # at each phase end"); an object the phase no longer allows means the turn player's move stands: asked again
    again = {"type": "end_turn"} if request == "turn" else {"type": "next_phase", "to": request}
    try:
        return resolved.apply(again, reasoner).apply(action, reasoner)
    except IllegalActionError:
        return None


def monster_link_let_resolve(state, action, reasoner: str):
    """An action object (not a `pass`, `select` or `cancel`) while the player holding priority is asked about a chain
    whose links are all the other player's monster effects: the trigger and FLIP effects the engine opens by itself
    when their monster is summoned or flipped (docs/decisions.md "Trigger effects stay a selection", and "Junk
    Warrior's effect is activated, on a chain": a Synchro Monster's trigger is a chain link; the catalog has no monster effect a player
    activates at will).  actions-and-cli.md
    counts "effects the rules apply by themselves" among the automatic things, so a script cannot name the window they
    open (where the opponent has nothing to answer with, the engine passes it): a script that goes on with the next
    action means it was let go, as window_declined reads a summon's window.  The priority holder's `pass` (the chain
    resolves, or the link's player holds priority on its own link, read by own_link_let_resolve), then the object
    (with these readings too); None when the object is refused after it as well (then the refusal stands).  A chain
    with a Spell or Trap a script activated (written by the script, so is the answer to it) is never passed so."""
    kind = _kind(action)
    if isinstance(action, Action) or kind in (None, "pass", "select", "cancel"):
        return None
    data = state.data
    if not data["chain"] or data["pending"] or data["winner"] is not None \
            or any(link["player"] == data["priority"] or (link.get("zone") or {}).get("area") != "monster_zones"
                   for link in data["chain"]):
        return None
    passed = _passed(state, reasoner)
    if passed is None:
        return None
    return _tried(passed, action, reasoner)


def main_phase_first(state, action, reasoner: str):
    """An action object (not a `pass`, `select`, `cancel`, `next_phase` or `end_turn`) in the turn player's Draw or
    Standby Phase with nothing open, where `apply` stopped because the turn player could activate a card there
    (docs/decisions.md "Response windows": idle Draw and Standby Phases are passed by the engine, so a script cannot
    know the phase it stands in): a script that goes on with a Main Phase action (a summon, a Set, a Spell) means
    the turn player went on to Main Phase 1 (rulebook v6.0 p. 24), phase by phase as `next_phase_through`, letting
    the opponent's windows go on the way.  Not in an idle Draw or Standby Phase (only moving on allowed), which the
    engine never stops in: there the phase was written by hand, and the object is refused as written.  The state
    after the object, or None (then the refusal stands)."""
    kind = _kind(action)
    if isinstance(action, Action) or kind in (None, "pass", "select", "cancel", "next_phase", "end_turn"):
        return None
    data = state.data
    if data["phase"] not in ("draw", "standby") or data["chain"] or data["pending"] or data["winner"] is not None \
            or data["priority"] != data["turn_player"] or "main1" not in phases_of(state.ruleset):
        return None
    if isinstance(action, dict) and action.get("player", data["turn_player"]) != data["turn_player"]:
        return None
    # only where the engine stops: an idle Draw or Standby Phase (nothing allowed but moving on) is one the engine
    # passes by itself (game._forced_move, ygo:skipWhenIdle), so such a state was written by hand in that phase on
    # purpose, and a Main Phase action there is refused as the rulebook has it (p. 24)
    if all(a.type in ("next_phase", "end_turn") for a in state.allowed_actions(reasoner)):
        return None
    in_main = next_phase_through(state, {"type": "next_phase", "to": "main1"}, reasoner)
    if in_main is None:
        return None
    return _tried(in_main, action, reasoner)


# what each reading takes an object for, in one line (explain says it; the docstrings above say why)
READING_SAYS = {
    "after_implied_choice": "a select made before the one-candidate choice of the monster it Summons: that choice first",
    "choice_made_by_engine": "a select of the monster the engine already selected (its candidates were copies of one card): no change",
    "activation_under_way": "the activation the pending action already is",
    "activate_then_target": "the activation, then the select of the target it names",
    "pass_already_made": "a pass where the window it declines is already closed, or the turn player's pass the engine "
                         "made when it gave the opponent its window (or declining a pending trigger)",
    "turn_end_named_as_phase": "a move to the End Phase in a ruleset whose turns have none: the end of the turn",
    "next_phase_through": "a move to a later phase of this turn: phase by phase to it",
    "flip_as_mode_change": "a Flip Summon where the rules offer that change as a change of battle position",
    "window_declined": "an action while the other player's window (a phase's end, a summon, an attack) is open: "
                       "that player passes first",
    "own_link_let_resolve": "an action while its player holds priority on its own last link (the opponent passed): "
                            "that player passes, the chain resolves, then the action",
    "monster_link_let_resolve": "an action while its player is asked about the other player's monster trigger or FLIP "
                                "effect on the chain: that player passes, the chain resolves, then the action",
    "main_phase_first": "a Main Phase action in the turn player's Draw or Standby Phase: on to Main Phase 1 first",
    "end_phase_discard_first": "a discard select in the End Phase before the turn is ended: the end of the turn, whose "
                               "discard it is (the opponent's window on the way let go)",
}

_TRAILS: list[list] = []


@contextlib.contextmanager
def recording():
    """The allowed actions `GameState.apply` takes inside the block, in order (explain says what a reading took)."""
    trail: list = []
    _TRAILS.append(trail)
    try:
        yield trail
    finally:
        _TRAILS.remove(trail)


def record(action: Action) -> None:
    """An allowed action `GameState.apply` takes, for the `recording` blocks open (outermost first)."""
    if _TRAILS:
        _TRAILS[0].append(action)


READINGS = (after_implied_choice, choice_made_by_engine, activation_under_way, activate_then_target, pass_already_made,
            turn_end_named_as_phase, next_phase_through, flip_as_mode_change, window_declined,
            own_link_let_resolve, monster_link_let_resolve, main_phase_first, end_phase_discard_first)


def alike(matches: list, state: dict) -> bool:
    """Whether the matching actions differ only in which copy of one card they take from one area: a hand,
    deck, Graveyard, banished pile or Extra Deck holds names only, so its copies are the same card; copies in
    Monster or Spell & Trap Zones are alike when everything the state says of them is the same (the first,
    lowest zone, is then taken).  Copies that differ (a position, a modifier, a counter) stay distinct."""
    dicts = [a.to_dict() for a in matches]
    for key in {k for d in dicts for k in d} - {"id"}:
        values = [d.get(key) for d in dicts]
        if all(v == values[0] for v in values):
            continue
        if key not in ("from", "ref", "target_ref") or any(not isinstance(v, dict) for v in values):
            return False
        if len({(v["player"], v["area"]) for v in values}) != 1:
            return False
        cards = [card_at(state, v) if values[0]["area"] not in LIST_AREAS else card_name_at(state, v) for v in values]
        if any(c != cards[0] for c in cards):
            return False
    return True


def key_matches(allowed: dict, key: str, value, state: dict) -> bool:
    """Whether an allowed action has `key` = `value` of a (partial) action object, reading what the object
    may say in the contract's words (actions-and-cli.md, state-format.md):
    - `to` left out of an allowed action is its default position: Attack Position for a summon, and
      face-down Defense Position for `set_monster` (`"defense"` or `"face_down_defense"` name it);
    - a select's `purpose` may be the pending action's (the monster a Ritual Spell or a Fusion Spell
      Summons is selected with purpose `summon`, which state-format.md does not list: its pending's
      purpose names it too), and a cost paid by discarding a card from the hand may be called `discard`;
    - `effect` 0, its default, is what an action without `effect` has."""
    if key == "effect" and "effect" not in allowed:  # actions-and-cli.md: `effect` is an int, default 0
        return value == 0
    if key == "to" and "to" not in allowed:
        return value in (("defense", "face_down_defense") if allowed["type"] == "set_monster" else ("attack",))
    if key == "purpose" and allowed["type"] == "select" and value != allowed.get("purpose"):
        pending = (state.get("pending") or {}).get("purpose")
        return value == pending or (value == "discard" and pending == "cost" and allowed["ref"]["area"] == "hand")
    return allowed.get(key) == value
