"""The CLI run in-process as a grader's harness would: (exit code, output), never a traceback
(tests/test_cli_contract.py, tests/test_cli_api_same_states.py)."""
import signal

from typer.testing import CliRunner

from ygo_onto.cli import app

RUNNER = CliRunner()


def cli(*args):
    result = RUNNER.invoke(app, [str(a) for a in args])
    text = result.output or ""
    assert "Traceback" not in text, text
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"ygo-onto {' '.join(map(str, args))} raised {result.exception!r}")
    return result.exit_code, text


def cli_bounded(seconds: int, *args):
    """cli(*args), failing if the command gives no answer in `seconds` (a hang is a bug: bad input must be refused)."""
    def on_alarm(_signum, _frame):
        raise AssertionError(f"ygo-onto {' '.join(map(str, args))}: no answer in {seconds} s")

    old = signal.signal(signal.SIGALRM, on_alarm)
    signal.alarm(seconds)
    try:
        return cli(*args)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
