"""`solve`: a win this turn that holds against every answer of the opponent.

An AND-OR proof-number search (Allis 1994) over decision-point states:

- a state where the turn player holds priority is an OR node: the search chooses one of its
  allowed actions;
- a state where the opponent holds priority (a response window, its own selections and costs)
  is an AND node: every allowed action of the opponent is an answer the line must survive.

The children of a node come only from the inferred allowed actions and `GameState.apply` (no
game rule is decided here).  A node is *won* when the turn player has won the duel; it is
*lost* when the turn has passed (an `end_turn`, or any state of a later turn) or when the
damage still reachable this turn is below the opponent's LP (below).  A transposition table keyed by the canonical
state (its JSON with sorted keys) holds every node, with its state and so its cached allowed
actions: one position reached by two orders is one node, and is reasoned about once.

**The estimate of damage still reachable** (`reachable_damage`).  It is an upper bound, so it
never prunes a real win:

- the turn's damage comes from the rules that infer `opDamage` (the operation that lowers a
  player's LP); `damage_needs_battle` reads them from the ruleset and checks that each needs
  a damage step (`damageStep(?d, true)`) or names the cards whose effect it is (a burn card,
  below).  A damage step happens only in the Battle Phase and
  the phases of a turn only go forward, so once the Battle Phase is over (Main Phase 2, End
  Phase) nothing can damage the opponent any more: the bound is 0 and the node is lost without
  being expanded.  An action that moves to such a phase is not even applied.  (The opponent's
  own LP costs are its choice: it always has `pass`.)  A ruleset with a damage rule that needs
  no damage step gets no such bound.  Damage is not the only way to win: a rule that infers a
  loss (`LoserPlayer`) without reading LP or the start of a turn names the cards that give one
  (`other_loss_cards`: a spell that makes a player draw more than its Deck holds; a card whose
  effect deals damage outside a damage step, named by a rule or by the effect kind its effect is
  of, `DamageEffect`); while the
  turn player has such a card (hand, Graveyard, field; the Deck too when it holds a card that
  draws, `draw_cards`) there is no bound at all
  (`win_needs_battle`; the opponent's copies are its own choice to play).
- in the Battle Phase, when no card can still raise an ATK or add an attacker (see
  `battle_bound` for the conditions, all read from the state, the catalog's card kinds and which
  cards have effects of their own), the bound is the sum of the current ATK of the turn player's
  monsters that may still attack; a node whose bound is below the opponent's LP is lost.
- otherwise (the Main Phase) the bound is not finite and prunes nothing.  The search is ordered
  by the attacks still needed (`attacks_needed`), which initialises the proof numbers of new
  nodes; it never prunes.

**Proof numbers.**  An OR node's proof number is its children's least, its disproof number
their sum; an AND node's disproof number is its children's least and its proof number their
*largest* (not the sum: the opponent's answers are mostly variations, a discard of this card or
that, whose proofs repeat one another; the sum made the search flee from every line the
opponent can answer).  The numbers only order the search; a node is proved or disproved
exactly.  When an answer of the opponent is proved, its sibling answers are first tried with
the same proof (Kawano's simulation: the same winning action at each choice of the turn
player, every answer matched by the answer of the same id), each step a real apply.

Cycles (a `cancel` that backs out of a pending action returns to the state before it): a
child equal to a state on the path from the root is a loss for the turn player when it is the
turn player's choice (the state on the path already offers every other choice), and no threat
when it is the opponent's.
"""
from __future__ import annotations

import json
import math
import numbers
import time
from dataclasses import dataclass, field

from . import reasoning
from .actions import Action
from .cards import catalog
from .errors import StateError
from .game import GameState

WIN, NO_WIN, UNKNOWN = "win", "no_win", "unknown"
INF = 10 ** 9
AFTER_BATTLE = ("main2", "end")
DEFAULT_MAX_NODES = 20000
DEFAULT_TIMEOUT = 60.0
PRUNE_LOG = 1000


@dataclass
class SolveResult:
    """The answer of `solve`: `result` is "win", "no_win" (proved: every line explored) or
    "unknown" (the node or time budget ran out).  `line`: the main line (the turn player's
    actions and the opponent's answers, as Action); `strategy`: for every other answer of the
    opponent along the line, the continuation that still wins (see `strategy_tree`)."""

    result: str
    line: list = field(default_factory=list)
    strategy: dict = field(default_factory=dict)
    nodes: int = 0
    seconds: float = 0.0
    pruned: dict = field(default_factory=dict)  # reason -> count (what the search did not expand)
    states: int = 0  # distinct states in the transposition table
    simulated: int = 0  # answers of the opponent proved by repeating a sibling's proof
    limit: str | None = None  # for "unknown": which budget ran out, "nodes" (max_nodes) or "time" (timeout)
    max_nodes: int | None = None  # the budgets the search was given (for the message)
    timeout: float | None = None
    finished: str | None = None  # the winner ("A", "B", "draw") when the given state is a finished duel

    @property
    def expanded(self) -> int:  # the earlier API's name for `nodes`
        return self.nodes

    def _repr_html_(self) -> str:
        """The strategy as a tree: the line, and under each answer of the opponent its other answers."""
        import html

        def li(a: dict) -> str:
            what = html.escape(a.get("card", "")) + (f" &rarr; {html.escape(a['target'])}" if "target" in a else "")
            color = "#1f5fbf" if a["player"] == self.line[0].to_dict()["player"] else "#b03030"
            return f"<span style='color:{color}'><b>{a['player']}</b> <code>{html.escape(a['id'])}</code> {what}</span>"

        def tree(actions: list, branches: list) -> str:
            out = ["<ol>"]
            for i, a in enumerate(actions):
                out.append(f"<li>{li(a)}")
                alts = [b for b in branches if b["at"] == i]
                if alts:
                    out.append("<ul>")
                    for b in alts:
                        out.append(f"<li><i>if instead</i> {li(b['answer'])}"
                                   + (tree(b["line"], b["branches"]) if b["line"] else " <i>(won)</i>") + "</li>")
                    out.append("</ul>")
                out.append("</li>")
            out.append("</ol>")
            return "".join(out)

        head = f"<p><b>{self.result}</b>: {self.nodes} nodes, {self.states} states, {self.seconds:.2f} s</p>"
        if self.result != WIN:
            return head
        return head + tree([a.to_dict() for a in self.line], self.strategy.get("branches", []))

    def to_dict(self) -> dict:
        return {"result": self.result, "line": [a.to_dict() for a in self.line], "strategy": self.strategy,
                "nodes": self.nodes, "seconds": round(self.seconds, 3)}


# ------------------------------------------------------------------------------------------ estimate

_DAMAGE_NEEDS_BATTLE: dict[str, bool] = {}


def _rule_cards(ruleset: str, preds: set) -> set[str] | None:
    """The catalog's card classes whose effect a rule body is about: the classes it names (`SwordsOfRevealingLight(?c)`)
    and the cards that name an effect of a kind it names (`DamageEffect(?e)`); empty when they are not in the catalog
    (the rule never applies), None when the body names neither (any card may be the cause)."""
    from .knowledge import knowledge

    vocabulary = knowledge(ruleset).vocabulary
    classes = {c.class_name for c in catalog(ruleset)}
    kinds = {p for p in preds if p in vocabulary.classes and "Effect" in vocabulary.ancestors(p)}
    if not preds & classes and not kinds:
        return None
    by_kind = _cards_by_effect_kind(ruleset)
    return (preds & classes).union(*(by_kind.get(k, set()) for k in kinds))


_KIND_CARDS: dict[str, dict] = {}


def _cards_by_effect_kind(ruleset: str) -> dict[str, set[str]]:
    """Effect kind (a class of an Effect individual a card names) -> the card classes that name such an effect."""
    if ruleset not in _KIND_CARDS:
        from .knowledge import knowledge

        individuals = knowledge(ruleset).vocabulary.individuals
        out: dict[str, set[str]] = {}
        for card in catalog(ruleset):
            for effect in card.effects:
                for kind in individuals.get(effect, ()):
                    out.setdefault(kind, set()).add(card.class_name)
        _KIND_CARDS[ruleset] = out
    return _KIND_CARDS[ruleset]


def damage_needs_battle(ruleset: str) -> bool:
    """True when every rule of the ruleset that infers `opDamage` needs a damage step or names the cards whose
    effect it is (`other_loss_cards` holds those: a burn card is another way to win)."""
    if ruleset not in _DAMAGE_NEEDS_BATTLE:
        from .knowledge import knowledge
        from .swrl import parse_rule

        rules = [parse_rule(r.text) for r in knowledge(ruleset).rules]
        damage_rules = [body for body, head in rules if any(a.predicate == "opDamage" for a in head)]
        _DAMAGE_NEEDS_BATTLE[ruleset] = bool(damage_rules) and all(
            any(a.predicate == "damageStep" and a.args[-1] is True for a in body)
            or _rule_cards(ruleset, {a.predicate for a in body}) is not None for body in damage_rules)
    return _DAMAGE_NEEDS_BATTLE[ruleset]


_OTHER_LOSSES: dict[str, frozenset | None] = {}


def other_loss_cards(ruleset: str) -> frozenset | None:
    """The card classes through which a player can lose this turn other than by battle damage: the rules that
    infer `LoserPlayer` without reading `lifePoints` (the LP rule; LP fall only by damage, or by a player's own
    costs, its choice) or `turnStarted` (the draw of a later turn, already a lost line) -- e.g. a spell that makes
    the opponent draw more cards than its Deck holds -- and the rules that infer `opDamage` outside a damage step
    (a card's burn). None when such a rule names no card class (then no bound is safe)."""
    if ruleset not in _OTHER_LOSSES:
        from .knowledge import knowledge
        from .swrl import parse_rule

        found: set = set()
        unknown = False
        for r in knowledge(ruleset).rules:
            body, head = parse_rule(r.text)
            preds = {a.predicate for a in body}
            heads = {a.predicate for a in head}
            loss = "LoserPlayer" in heads and not preds & {"lifePoints", "turnStarted"}
            burn = "opDamage" in heads and not any(a.predicate == "damageStep" and a.args[-1] is True for a in body)
            if not (loss or burn):
                continue
            named = _rule_cards(ruleset, preds)
            if named is None:
                unknown = True
            else:
                found |= named
        _OTHER_LOSSES[ruleset] = None if unknown else frozenset(found)
    return _OTHER_LOSSES[ruleset]


_DRAW_CARDS: dict[str, frozenset] = {}


def draw_cards(ruleset: str) -> frozenset:
    """The card classes named by a rule that infers `opDraw` other than the turn's own draw (a rule
    reading `turnStarted`), directly or by their effect's kind (`DrawEffect`): with one of them, a card of the Deck
    may still reach the hand."""
    if ruleset not in _DRAW_CARDS:
        from .knowledge import knowledge
        from .swrl import parse_rule

        found: set = set()
        for r in knowledge(ruleset).rules:
            body, head = parse_rule(r.text)
            if any(a.predicate == "opDraw" for a in head) and not any(a.predicate == "turnStarted" for a in body):
                found |= _rule_cards(ruleset, {a.predicate for a in body}) or set()
        _DRAW_CARDS[ruleset] = frozenset(found)
    return _DRAW_CARDS[ruleset]


def win_needs_battle(state: GameState, me: str | None = None) -> bool:
    """True when the turn player `me` can win this turn only by damage, so only in a damage step
    (`damage_needs_battle`): the ruleset has no other way to lose (`other_loss_cards`), or none
    of the cards that give one is among `me`'s cards (hand, field, Graveyard, banished; the Deck
    too when `me` has a card that draws, `draw_cards`).  The opponent's copies do not count: a
    spell is activated only by its player's choice, and the opponent never has to play a card
    that makes it lose."""
    d = state.data
    ruleset = d["ruleset"]
    if not damage_needs_battle(ruleset):
        return False
    others = other_loss_cards(ruleset)
    if others is None:
        return False
    if not others:
        return True
    cat = catalog(ruleset)
    side = d["players"][me or d["turn_player"]]
    names = list(side.get("hand", [])) + list(side.get("graveyard", []))
    names += list(side.get("banished", [])) + list(side.get("extra_deck", []))
    names += [fc["card"] for fc in side.get("monster_zones", []) + side.get("spell_trap_zones", [])
              + [side.get("field_zone")] if fc]
    classes = {cat.get(n).class_name for n in names}
    if classes & draw_cards(ruleset):
        classes |= {cat.get(n).class_name for n in side.get("deck", [])}
    return not classes & others


_CARDS_WITH_EFFECTS: dict[str, set] = {}


def cards_with_effects(ruleset: str) -> set[str]:
    """The card classes with an effect of their own: some rule names the class, or the card names effects of the
    effect vocabulary or keyword abilities (the others play as their facts alone)."""
    if ruleset not in _CARDS_WITH_EFFECTS:
        from .knowledge import card_classes_with_rules, knowledge

        _CARDS_WITH_EFFECTS[ruleset] = card_classes_with_rules(knowledge(ruleset)) | {
            c.class_name for c in catalog(ruleset) if c.effects or c.abilities}
    return _CARDS_WITH_EFFECTS[ruleset]


def battle_bound(state: GameState, me: str, reasoner: str) -> float:
    """In the Battle Phase, an upper bound of the damage `me` can still deal, when the rulebook
    makes one easy: monsters are summoned and Normal, Equip, Field and Ritual Spells are
    activated only in the Main Phase, positions change only in the Main Phase, and each monster
    declares at most one attack (rulebook pp. 27-28); so if `me` holds in the hand no Quick-Play
    Spell, no Trap, no spell the catalog marks for the Battle Phase (`simplified`) and no monster
    with an effect of its own, has no set card, no face-up Spell/Trap/Field card on either side has
    an effect of its own, and no monster on the field has an effect of its own (no effect can raise an
    ATK or add an attacker), the damage is at most the sum of the current ATK (inferred, with
    every continuous effect) of `me`'s face-up Attack Position monsters that may still attack: an
    attack deals at most the attacker's ATK, and the opponent may always pass.  Otherwise inf."""
    d = state.data
    if d["phase"] != "battle":
        return math.inf
    ruleset = d["ruleset"]
    cat = catalog(ruleset)
    active = cards_with_effects(ruleset)
    mine = d["players"][me]
    for name in mine["hand"]:
        card = cat.get(name)
        if (card.card_type == "trap" or card.subtype == "quick_play" or "battle" in card.phases
                or (card.is_monster and card.class_name in active)):
            return math.inf
    for p in ("A", "B"):
        side = d["players"][p]
        for fc in side["spell_trap_zones"] + [side["field_zone"]]:
            if fc and ((p == me and fc.get("position") == "face_down")
                       or (fc.get("position") != "face_down" and cat.get(fc["card"]).class_name in active)):
                return math.inf
        for fc in side["monster_zones"]:
            if fc and cat.get(fc["card"]).class_name in active:
                return math.inf
    from .abox import parse_card_ind

    atk = {}
    for f in state.infer(reasoner).facts:
        if f[0] == "currentAtk" and len(f) == 3:
            ref = parse_card_ind(f[1], state.data)
            if ref["player"] == me and ref["area"] == "monster_zones":
                atk[ref["index"]] = f[2]
    total = 0
    for i, fc in enumerate(mine["monster_zones"]):
        may_attack = not fc.get("attacks_declared") or {"attack", "replay"} & set(fc.get("extra", {})) if fc else False
        if fc and fc.get("position", "attack") == "attack" and may_attack:  # replay: rulebook p. 28
            if i not in atk:
                return math.inf
            total += max(atk[i], 0)
    return total


def reachable_damage(state: GameState, me: str, turn: int, reasoner: str = reasoning.DEFAULT) -> float:
    """An upper bound of the damage the turn player `me` can still deal this turn (see the module)."""
    d = state.data
    if d["turn"] != turn or d["winner"] is not None:
        return 0.0
    if not win_needs_battle(state, me):
        return math.inf
    if d["phase"] in AFTER_BATTLE:
        return 0.0
    return battle_bound(state, me, reasoner)


def attacks_needed(state: GameState, me: str) -> int:
    """The ordering estimate (never used to prune): how many more attacks the turn player needs,
    from the opponent's LP and the printed ATK (plus lasting modifiers) of the turn player's
    Attack Position monsters that have not attacked yet, strongest first; two more when they
    cannot reach the LP at all; one more when the opponent has a monster in the way, and one
    per set card of the opponent (a possible answer)."""
    d = state.data
    opp = "B" if me == "A" else "A"
    lp = max(d["players"][opp]["life_points"], 0)
    if lp == 0:
        return 0
    cat = catalog(d["ruleset"])
    atks = sorted(((cat.get(fc["card"]).atk or 0) + fc.get("atk_modifier", 0) for fc in d["players"][me]["monster_zones"]
                   if fc and fc.get("position", "attack") == "attack" and not fc.get("attacks_declared")), reverse=True)
    need, total = 0, 0
    for atk in atks:
        if total >= lp:
            break
        need, total = need + 1, total + atk
    if total < lp:
        need += 2
    if any(d["players"][opp]["monster_zones"]):
        need += 1
    need += sum(1 for fc in d["players"][opp]["spell_trap_zones"] if fc and fc.get("position") == "face_down")
    return max(1, need)


# ------------------------------------------------------------------------------------------ nodes

# The order in which a node's untried actions are tried (their initial proof numbers): for the
# turn player, the actions that move towards damage first; for the opponent, its answers before
# its `pass` (an answer is likelier to refute a line).  Only an order: every action is tried
# before a node is disproved.
OR_PRIOR = {"direct_attack": 1, "attack": 2, "activate": 1, "select": 1, "normal_summon": 1, "tribute_summon": 1,
            "special_summon": 1, "synchro_summon": 1, "flip_summon": 1, "next_phase": 1, "pass": 1,
            "change_position": 2, "set_monster": 2, "set_spell_trap": 3, "cancel": 3}
AND_PRIOR = {"pass": 2}
# Among the turn player's actions of equal prior: attacks, then moving on to the Battle Phase,
# then the Main Phase's plays (short lines first).
OR_RANK = {"direct_attack": 0, "attack": 0, "next_phase": 1, "select": 2, "activate": 2, "pass": 2}


class Node:
    __slots__ = ("key", "state", "is_or", "pn", "dn", "edges", "parents", "expanded", "status", "cycles")

    def __init__(self, key: str, state: GameState, is_or: bool):
        self.key = key
        self.state = state
        self.is_or = is_or
        self.pn = 1
        self.dn = 1
        self.edges: list[Edge] = []  # one per allowed action that is still open or won
        self.parents: list[Node] = []
        self.expanded = False
        self.status = None  # None (open), WIN, NO_WIN: for the turn player
        self.cycles: list[tuple[Action, Node]] = []  # the opponent's answers that go back to a state on the path

    @property
    def children(self) -> list[tuple[Action, "Node"]]:
        return [(e.action, e.child) for e in self.edges if e.child is not None]

    def set_terminal(self, status: str) -> None:
        self.status = status
        self.pn, self.dn = (0, INF) if status == WIN else (INF, 0)


class Edge:
    """An allowed action of a node; `child` is None until the action is applied (lazy expansion),
    and meanwhile its proof and disproof numbers are the initial ones."""
    __slots__ = ("action", "child", "pn0", "dn0")

    def __init__(self, action: Action, pn0: int, dn0: int):
        self.action = action
        self.child: Node | None = None
        self.pn0, self.dn0 = pn0, dn0

    @property
    def pn(self) -> int:
        return self.child.pn if self.child is not None else self.pn0

    @property
    def dn(self) -> int:
        return self.child.dn if self.child is not None else self.dn0


def canonical_key(state: GameState) -> str:
    return json.dumps(state.data, sort_keys=True, separators=(",", ":"))


class Search:
    """One proof-number search from a root state; `run` returns a SolveResult.

    Expansion is lazy: expanding a node lists its allowed actions (cached with its state) as
    untried edges; an edge's action is applied only when the search selects it.  `nodes`
    counts the states expanded."""

    def __init__(self, state: GameState, reasoner: str = reasoning.DEFAULT, max_nodes: int = DEFAULT_MAX_NODES,
                 timeout: float = DEFAULT_TIMEOUT):
        if isinstance(max_nodes, bool) or not isinstance(max_nodes, numbers.Integral) or max_nodes < 1:
            raise StateError(f"max_nodes: expected an int >= 1, got {max_nodes!r}")
        if isinstance(timeout, bool) or not isinstance(timeout, numbers.Real) or not timeout > 0:
            raise StateError(f"timeout: expected a number of seconds > 0, got {timeout!r}")
        self.reasoner = reasoner
        self.max_nodes = max_nodes
        self.timeout = timeout
        self.me = state.data["turn_player"]
        self.turn = state.data["turn"]
        self.ruleset = state.ruleset
        self.table: dict[str, Node] = {}
        self.nodes = 0
        self.applied = 0
        self.pruned = {"turn passes": 0, "no damage reachable": 0, "cycle": 0}
        self._proved: list[tuple[Node, Node]] = []  # (AND node, its child just proved): siblings to simulate
        self.simulated = 0  # siblings proved by simulation
        self.prune_log: list[tuple[str, str]] = []  # (reason, what): the first PRUNE_LOG pruned states and actions
        self.root = self._node(state)

    # -------------------------------------------------------------- building
    def _node(self, state: GameState) -> Node:
        key = canonical_key(state)
        node = self.table.get(key)
        if node is not None:
            return node
        d = state.data
        node = Node(key, state, d["priority"] == self.me)
        self.table[key] = node
        if d["winner"] == self.me:
            node.set_terminal(WIN)
        elif d["winner"] is not None or d["turn"] != self.turn:
            node.set_terminal(NO_WIN)
            self._prune("turn passes", f"{state!r}")
        elif (bound := reachable_damage(state, self.me, self.turn, self.reasoner)) < self._lp_to_take(state):
            node.set_terminal(NO_WIN)
            self._prune("no damage reachable", f"{state!r}: at most {bound:.0f} damage left, "
                                               f"{self._lp_to_take(state)} LP to take")
        else:
            node.pn, node.dn = attacks_needed(state, self.me), 1
        return node

    def _prune(self, reason: str, what: str) -> None:
        self.pruned[reason] += 1
        if len(self.prune_log) < PRUNE_LOG:
            self.prune_log.append((reason, what))

    def _lp_to_take(self, state: GameState) -> int:
        return max(1, state.data["players"]["B" if self.me == "A" else "A"]["life_points"])

    def _lost_unapplied(self, state: GameState, action: Action) -> str | None:
        """Why the turn player's action loses without applying it: the turn passes, or the Battle Phase is left."""
        if action.type == "end_turn":
            return "turn passes"
        if action.type == "next_phase" and action["to"] in AFTER_BATTLE and win_needs_battle(state, self.me):
            return "no damage reachable"
        return None

    def expand(self, node: Node) -> None:
        self.nodes += 1
        node.expanded = True
        h = node.pn  # the estimate the node was created with
        for action in node.state.allowed_actions(self.reasoner):
            if node.is_or:
                reason = self._lost_unapplied(node.state, action)
                if reason is not None:
                    self._prune(reason, f"{node.state!r}: {action.id} not applied")
                    continue
                node.edges.append(Edge(action, h + OR_PRIOR.get(action.type, 1) - 1, 1))
            else:
                node.edges.append(Edge(action, 1, AND_PRIOR.get(action.type, 1)))
        if node.is_or:
            node.edges.sort(key=lambda e: (e.pn0, OR_RANK.get(e.action.type, 9)))
        else:
            node.edges.sort(key=lambda e: e.dn0)  # stable: ties keep the allowed order
        self._recompute(node)

    def apply_edge(self, node: Node, edge: Edge, path: set) -> None:
        self.applied += 1
        child = self._node(node.state.apply(edge.action, self.reasoner))
        if child.key in path:
            # back to a state on the path (a cancel): for the turn player a choice the state on
            # the path already offers; for the opponent, nothing gained
            self._prune("cycle", f"{node.state!r}: {edge.action.id} goes back to a state on the path")
            node.edges.remove(edge)
            if not node.is_or:
                node.cycles.append((edge.action, child))
            return
        edge.child = child
        child.parents.append(node)
        if child.status is None and not child.expanded:
            self.expand(child)

    # -------------------------------------------------------------- proof numbers
    @staticmethod
    def _recompute(node: Node) -> None:
        if node.status is not None:
            return
        edges = node.edges
        if node.is_or:
            node.pn = min((e.pn for e in edges), default=INF)
            node.dn = min(INF, sum(e.dn for e in edges))
        else:  # the largest, not the sum: an answer's proof mostly repeats its siblings' (see the module)
            node.pn = max((e.pn for e in edges), default=0)
            node.dn = min((e.dn for e in edges), default=INF)
        if node.pn == 0:
            node.status = WIN
            node.dn = INF
        elif node.dn == 0:
            node.status = NO_WIN
            node.pn = INF

    def _update(self, nodes: list) -> None:
        work = list(nodes)
        while work:
            n = work.pop()
            old = (n.pn, n.dn, n.status)
            self._recompute(n)
            if (n.pn, n.dn, n.status) != old:
                work.extend(n.parents)
                if n.status == WIN and old[2] is None:
                    self._proved.extend((p, n) for p in n.parents if not p.is_or and p.status is None)

    # -------------------------------------------------------------- simulation
    def _simulate(self, node: Node, model: Node, path: frozenset, start: float) -> bool:
        """Try to prove `node` with the proof of `model`, a proved sibling (Kawano's simulation):
        at the turn player's choices the action of the same id that won in the model, at the
        opponent's every answer, each matched by the answer of the same id in the model.  Every
        step is a real apply; a mismatch only stops the attempt (the nodes stay in the table)."""
        if node.status is not None:
            return node.status == WIN
        if not model.edges or not self._budget_left(start):
            return False
        if not node.expanded:
            self.expand(node)
        won = {e.action.id: e.child for e in model.edges if e.child is not None and e.child.status == WIN}
        here = path | {node.key}
        if node.is_or:
            edge = next((e for e in node.edges if e.action.id in won), None)
            todo = [edge] if edge is not None else []
        else:
            todo = list(node.edges)
            if any(e.action.id not in won for e in todo):
                return False
        if not todo:
            return False
        for edge in todo:
            if edge.child is None:
                self.apply_edge(node, edge, here)
                if edge.child is None:  # a cycle, removed
                    continue
            if not self._simulate(edge.child, won[edge.action.id], here, start):
                self._update([edge.child, node])
                return False
            self._update([edge.child, node])
        self._update([node])
        return node.status == WIN

    def _budget_left(self, start: float) -> bool:
        return self.nodes < self.max_nodes and time.perf_counter() - start <= self.timeout

    def _select(self) -> tuple[Node, Edge | None, set]:
        """The most-proving node: from the root, the edge of least pn at OR nodes, of least dn at AND nodes."""
        node = self.root
        path = {node.key}
        while True:
            best = None
            for e in node.edges:
                c = e.child
                if c is not None and (c.status is not None or c.key in path):
                    continue
                if best is None or (e.pn < best.pn if node.is_or else e.dn < best.dn):
                    best = e
            if best is None:
                return node, None, path
            if best.child is None:
                return node, best, path
            node = best.child
            path.add(node.key)

    def run(self) -> SolveResult:
        start = time.perf_counter()
        root = self.root
        if root.status is None:
            self.expand(root)
        limit = None
        while root.status is None:
            if self.nodes >= self.max_nodes:
                limit = "nodes"
                break
            if time.perf_counter() - start > self.timeout:
                limit = "time"
                break
            node, edge, path = self._select()
            if edge is None:  # the open children all lie on the path: they are cycles
                for e in list(node.edges):
                    if e.child is not None and e.child.status is None:
                        node.edges.remove(e)
                        self.pruned["cycle"] += 1
                self._update([node])
                continue
            self.apply_edge(node, edge, path)
            self._update([edge.child, node] if edge.child is not None else [node])
            while self._proved:
                parent, model = self._proved.pop()
                if parent.status is not None:
                    continue
                for sibling in list(parent.edges):
                    if parent.status is not None or not self._budget_left(start):
                        break
                    if sibling.child is model or (sibling.child is not None and sibling.child.status is not None):
                        continue
                    if sibling.child is None:
                        self.apply_edge(parent, sibling, frozenset(path | {parent.key}))
                        if sibling.child is None:
                            continue
                    if self._simulate(sibling.child, model, frozenset(path | {parent.key}), start):
                        self.simulated += 1
                    self._update([sibling.child, parent])
        seconds = time.perf_counter() - start
        result = UNKNOWN if root.status is None else root.status
        line, strategy = ([], {})
        if result == WIN:
            line, strategy = strategy_tree(root)
        if result == UNKNOWN and limit is None:  # a simulation stopped on the budget and the loop ended
            limit = "nodes" if self.nodes >= self.max_nodes else "time"
        return SolveResult(result, line, strategy, self.nodes, seconds, dict(self.pruned), len(self.table),
                           self.simulated, limit if result == UNKNOWN else None, self.max_nodes, self.timeout,
                           self.root.state.data["winner"])


# ------------------------------------------------------------------------------------------ strategy

def _won_line(node: Node, memo: dict, cycles: bool = True) -> tuple[list, list]:
    """The main line from a won node and its branches: (actions, branches), where a branch is
    {"at": index in actions of the opponent's answer it replaces, "answer": action object,
     "line": [...], "branches": [...]} (the same shape, for the continuation after that answer).
    An answer that goes back to an earlier state (a cancel) gets that state's line once more
    (`cycles`: False inside it, so that it ends)."""
    if node.status == WIN and not node.children:
        return [], []
    if id(node) in memo:
        return memo[id(node)]
    memo[id(node)] = ([], [])  # guards against a cycle (cannot happen in a proved tree)
    if node.is_or:
        won = [(a, c) for a, c in node.children if c.status == WIN]
        action, child = min(won, key=lambda ac: (_length(ac[1], {}), ac[0].id))
        rest, branches = _won_line(child, memo, cycles)
        out = ([action] + rest, [{**b, "at": b["at"] + 1} for b in branches])
    else:
        options = [(a, c, _length(c, {})) for a, c in node.children]
        # the main line follows the answer that holds out longest (the most testing one)
        main = max(options, key=lambda o: (o[2], o[0].type != "pass"))
        rest, branches = _won_line(main[1], memo, cycles)
        out_branches = [{**b, "at": b["at"] + 1} for b in branches]
        others = [(a, c, memo, cycles) for a, c, _ in options if a is not main[0]]
        if cycles:
            others += [(a, c, {}, False) for a, c in node.cycles if c.status == WIN]
        for a, c, m, cyc in others:
            sub_line, sub_branches = _won_line(c, m, cyc)
            out_branches.append({"at": 0, "answer": a.to_dict(), "line": [x.to_dict() for x in sub_line],
                                 "branches": sub_branches})
        out = ([main[0]] + rest, sorted(out_branches, key=lambda b: b["at"]))
    memo[id(node)] = out
    return out


def _length(node: Node, memo: dict) -> int:
    if not node.children or node.status != WIN:
        return 0
    if id(node) in memo:
        return memo[id(node)]
    memo[id(node)] = 0
    if node.is_or:
        n = 1 + min(_length(c, memo) for _, c in node.children if c.status == WIN)
    else:
        n = 1 + max(_length(c, memo) for _, c in node.children)
    memo[id(node)] = n
    return n


def strategy_tree(root: Node) -> tuple[list, dict]:
    line, branches = _won_line(root, {})
    return line, {"line": [a.id for a in line], "branches": branches}


# ------------------------------------------------------------------------------------------ API

def solve(state: GameState, reasoner: str = reasoning.DEFAULT, max_nodes: int = DEFAULT_MAX_NODES,
          timeout: float = DEFAULT_TIMEOUT) -> SolveResult:
    """Search for a line that wins this turn whatever the opponent answers.

    :returns: a SolveResult; `result` is "win", "no_win" (proved) or "unknown" (out of budget).
    """
    return Search(state, reasoner, max_nodes, timeout).run()


def format_strategy(result: SolveResult) -> str:
    """The line and the strategy's branches as indented text: each step of the line, and under an
    answer of the opponent, the other answers it could give and how the line goes on after them."""
    head = f"{result.result}: {result.nodes} nodes, {result.states} states, {result.seconds:.2f} s"
    if result.finished is not None:
        over = "a draw" if result.finished == "draw" else f"won by {result.finished}"
        return f"{head}\n  the duel is already over ({over}): there is nothing to play"
    if result.result != WIN:
        if result.result == NO_WIN:
            why = "no line wins this turn against every answer (proved)"
        elif result.limit == "nodes":
            why = (f"the node budget ran out (--max-nodes {result.max_nodes}) before a win or its absence was "
                   f"proved; give a larger --max-nodes")
        elif result.limit == "time":
            why = (f"the time budget ran out (--timeout {result.timeout:g} s) before a win or its absence was "
                   f"proved; give a longer --timeout")
        else:
            why = "the node or time budget ran out"
        return f"{head}\n  {why}"
    lines = [f"win: a winning line against every answer ({result.nodes} nodes, {result.states} states, "
             f"{result.seconds:.2f} s)"]

    def describe(a: dict) -> str:
        what = a.get("card", "")
        if "target" in a:
            what += f" -> {a['target']}"
        return f"{a['player']}: {a['id']}" + (f"  ({what})" if what else "")

    def draw(actions: list, branches: list, indent: str) -> None:
        by_at: dict[int, list] = {}
        for b in branches:
            by_at.setdefault(b["at"], []).append(b)
        for i, a in enumerate(actions):
            lines.append(f"{indent}{i + 1}. {describe(a)}")
            for b in by_at.get(i, []):
                lines.append(f"{indent}   | if instead {describe(b['answer'])}:")
                if b["line"]:
                    draw(b["line"], b["branches"], indent + "   |   ")
                else:
                    lines.append(f"{indent}   |   (won)")
        if actions:
            lines.append(f"{indent}   (won)" if indent.strip() == "" else f"{indent}(won)")

    draw([a.to_dict() for a in result.line], result.strategy.get("branches", []), "  ")
    return "\n".join(lines)
