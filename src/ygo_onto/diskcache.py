"""The disk cache of what is derived from the sources (one helper for every reader that caches).

What is cached, each entry named by a digest of everything it is derived from:

* `cards-<digest>.pickle`: a catalog file read (cards.read_catalog_file);
* `<digest>.pickle`: an ontology file read by `Rules.load` (ontofile);
* `knowledge-<ruleset>-<digest>.pickle`: the knowledge of a ruleset built from the sources
  (knowledge._source_knowledge: the TBox, the vocabulary tables, the cards, the parsed rules,
  checked) with the fast backend's compiled program and its parsed form;
* `fastcode-<ruleset>-<key>.marshal`: the code objects of the fast evaluator's generated rule
  functions, by their source text (reasoning/fast/evaluator.py), added to as runs need new ones.

The last two are made again after each edit of the sources: the 8 newest of each ruleset are kept.

An entry is written whole to a temporary file and renamed (an interrupted or concurrent write
never leaves half an entry under the final name); an entry that cannot be read (truncated,
corrupt, written by another version) is built again.  The folder is $XDG_CACHE_HOME/ygo-onto
(default ~/.cache/ygo-onto); YGO_NO_CACHE=1 turns the whole cache off (nothing read, nothing
written).  Deleting the folder is always safe.
"""
from __future__ import annotations

import hashlib
import os
import pickle
import sys
from pathlib import Path

ENV_OFF = "YGO_NO_CACHE"


def enabled() -> bool:
    """False when YGO_NO_CACHE is set to anything but "" or "0"."""
    return os.environ.get(ENV_OFF, "") in ("", "0")


def cache_dir() -> Path:
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "ygo-onto"


def _path(name: str) -> Path | None:
    """The entry's path; None when there is no cache folder to use (no home directory)."""
    try:
        return cache_dir() / name
    except (RuntimeError, KeyError, OSError):
        return None


def files_digest(files, root: Path | None = None) -> str:
    """sha256 of the files' names (relative to `root`) and contents, in the order given: a file
    edited, added, removed or renamed changes it."""
    h = hashlib.sha256()
    for f in files:
        f = Path(f)
        name = f.relative_to(root).as_posix() if root is not None else str(f)
        data = f.read_bytes()
        h.update(f"{name}\0{len(data)}\0".encode())
        h.update(data)
    return h.hexdigest()


def modules_digest(*names: str) -> str:
    """A short digest of some of the package's own modules (file names under ygo_onto/): a reader's
    cache entry written by other code of those modules is not used, and an edit elsewhere keeps it."""
    here = Path(__file__).resolve().parent
    return files_digest([here / name for name in names], here)[:16]


def package_code() -> str:
    """The package's own code (every .py file of ygo_onto) and the Python version: an entry
    written by other code, or pickled/marshalled by another Python, is not used."""
    here = Path(__file__).resolve().parent
    return files_digest(sorted(here.rglob("*.py")), here)[:24] + "|" + sys.version


def read_bytes(name: str) -> bytes | None:
    """The bytes of an entry, or None (cache off, no such entry, unreadable)."""
    path = _path(name) if enabled() else None
    if path is None:
        return None
    try:
        return path.read_bytes()
    except OSError:
        return None


def load(name: str):
    """The unpickled entry, or None (cache off, missing, or unreadable: built again by the caller)."""
    data = read_bytes(name)
    if data is None:
        return None
    try:
        return pickle.loads(data)
    except Exception:  # a broken or foreign entry is built again
        return None


def write_bytes(name: str, data: bytes) -> None:
    """Write an entry atomically (a temporary file of this process, then a rename); errors are
    ignored (a read-only home only costs the next run the build)."""
    path = _path(name) if enabled() else None
    if path is None:
        return
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_bytes(data)
        tmp.replace(path)
    except OSError:
        try:
            tmp.unlink()
        except OSError:
            pass


def store(name: str, obj) -> None:
    """Pickle `obj` as the entry `name` (see write_bytes)."""
    if enabled():
        write_bytes(name, pickle.dumps(obj, protocol=pickle.HIGHEST_PROTOCOL))


def prune(prefix: str, keep: int = 8) -> None:
    """Delete all but the `keep` newest entries whose names start with `prefix` (each edit of the
    sources makes new ones; several checkouts may share the folder, hence more than one kept)."""
    folder = _path("") if enabled() else None
    if folder is None:
        return
    try:
        found = [(p.stat().st_mtime_ns, p) for p in folder.glob(prefix + "*") if not p.name.endswith(".tmp")]
    except OSError:
        return
    for _, path in sorted(found, reverse=True)[keep:]:
        try:
            path.unlink()
        except OSError:
            pass
