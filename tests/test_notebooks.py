"""Every notebook in notebooks/ runs top to bottom without a cell error.  Those that run Pellet
are marked `pellet`; the others (02: the activation procedure, 04: solving a puzzle, both with fast)
run in the quick suite too."""
from pathlib import Path

import pytest

nbformat = pytest.importorskip("nbformat")
nbclient = pytest.importorskip("nbclient")

NOTEBOOKS_DIR = Path(__file__).resolve().parent.parent / "notebooks"
NOTEBOOKS = sorted(NOTEBOOKS_DIR.glob("*.ipynb"))
KERNEL = "python3"  # ipykernel's spec; if missing: python -m ipykernel install --sys-prefix --name python3


def test_there_are_notebooks():
    assert NOTEBOOKS, f"no notebooks in {NOTEBOOKS_DIR}"


def test_notebooks_are_committed_without_outputs():
    for path in NOTEBOOKS:
        nb = nbformat.read(path, as_version=4)
        for i, cell in enumerate(nb.cells):
            if cell.cell_type == "code":
                assert not cell.outputs and cell.execution_count is None, f"{path.name}: cell {i} has outputs"


def _param(path: Path):
    # a notebook that runs Pellet names it in a code cell; one that only mentions it in its text
    # (02: "reasoner="pellet" gives the same answers") runs in the quick suite too
    nb = nbformat.read(path, as_version=4)
    uses_pellet = any("pellet" in c.source.lower() for c in nb.cells if c.cell_type == "code")
    return pytest.param(path, id=path.stem, marks=[pytest.mark.pellet] if uses_pellet else [])


@pytest.mark.parametrize("path", [_param(p) for p in NOTEBOOKS])
def test_notebook_runs(path):
    nb = nbformat.read(path, as_version=4)
    client = nbclient.NotebookClient(nb, timeout=600, kernel_name=KERNEL, allow_errors=False,
                                     resources={"metadata": {"path": str(NOTEBOOKS_DIR)}})
    try:
        client.execute()
    except nbclient.exceptions.CellExecutionError as exc:
        pytest.fail(f"{path.name}: a cell failed:\n{exc}")
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs if o.output_type == "error"]
    assert not errors, f"{path.name}: {errors[0].ename}: {errors[0].evalue}"
