"""HermiT through owlready2: it refuses SWRL rules with builtin atoms, which the game rules need
(comparisons, arithmetic), so it cannot compute allowed actions.  It is registered so that
`--reasoner hermit` gives a clear answer; it checks the TBox in `ygo-onto check`."""
from __future__ import annotations

from ..errors import ReasonerError
from ..knowledge import SWRLB_BUILTINS, Knowledge
from . import register


@register("hermit")
class HermitBackend:
    name = "hermit"

    def infer(self, knowledge: Knowledge, facts: list[tuple]) -> set[tuple]:
        with_builtins = sum(1 for r in knowledge.rules
                            if any(f"{b}(" in r.text for b in SWRLB_BUILTINS))
        raise ReasonerError(
            f"reasoner hermit: HermiT refuses SWRL rules with builtin atoms, and {with_builtins} of the "
            f"{len(knowledge.rules)} {knowledge.ruleset} rules use them; use --reasoner pellet (the reference) "
            f"or fast. `ygo-onto check` runs HermiT on the TBox.")
