"""The error hierarchy: every user-facing error is a ValueError (python-chess style)."""


class YgoError(ValueError):
    """Base of the errors ygo-onto raises for bad input or refused actions."""


class StateError(YgoError):
    """A state (or a file, or a field of it) is not valid: 'where: expected X, got Y'."""


class IllegalActionError(YgoError):
    """An action that the rules do not allow in this state; the message says why."""


class ReasonerError(YgoError):
    """A reasoner could not run (missing Java, a rule it cannot handle, an inconsistent state)."""


class ReplayMismatch(YgoError):
    """A duel log says something its replay does not reach (a state, the result): exit 1, as a refusal."""
