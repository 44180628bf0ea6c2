"""ygo-onto: a Yu-Gi-Oh! duel engine whose state is an OWL ontology and whose rules are SWRL."""
from .errors import IllegalActionError, ReasonerError, StateError, YgoError

__all__ = ["GameState", "Action", "Duel", "Rules", "StateError", "IllegalActionError", "ReasonerError", "YgoError"]
__version__ = "0.1.0"


def __getattr__(name):
    if name in ("GameState", "Action"):
        from . import game

        return getattr(game, name)
    if name == "Duel":
        from .duel import Duel

        return Duel
    if name == "Rules":
        from .ontofile import Rules

        return Rules
    raise AttributeError(name)
