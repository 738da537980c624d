"""Records where they live -> a catalog: ``read_snapshot`` and ``import_snapshot`` (``catalog import --format``).

A *snapshot* is what a tree of records says at one version: the entities its formats declare
(Backstage descriptors, CODEOWNERS) and one rendered document per record file, whose ``REL``
clauses each stand beside the verbatim source line they were read from
(``chainret.sources.backstage``, ``chainret.sources.codeowners``). ``import_snapshot`` builds it
with ``chainret.authoring.build`` against the catalog already at ``--out``, so a record file that
did not change keeps its document version, a changed one becomes a new version and the import a
new view: earlier views, and the traces asked on them, stay as they were.

The default header (``default_header``) declares the predicates, their domain and range by kind
(``owned_by``: ``component|api|...`` -> ``group|user``), and one pattern per start kind; an optional source
folder (``--src``, with a ``chainret.yaml``) adds what the records do not say: aliases, patterns,
visibility of the rendered documents (by their path, e.g. ``backstage/org/users.yaml``), and
plain-text records with prose relations beside them. No entity or relation of the records is
typed by hand.

Memory: a 50,000-component tree is about 245,000 relations. ``write_import`` streams a JSON
catalog in chunks of records (``catalog_json``) rather than building the whole text, which used to
be three copies of 200 MB at once; the build shares its records' bookkeeping
(``chainret.authoring.build._relation``), lets the header's entities and each file's drafts go
once the catalog's records are made, and the checks find each relation's defects once
(``chainret.catalog.checks.check_catalog``). ``benchmarks/records_scale.py`` measures it.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
from collections.abc import Collection, Iterator
from typing import Any
from dataclasses import dataclass, field
from pathlib import Path

from pydantic_core import to_json

from chainret.authoring.build import BuildResult, build
from chainret.authoring.header import HEADER_NAME, Header, HeaderEntity, SourceInvalid, header_issues, read_header
from chainret.catalog.issues import Issue
from chainret.catalog.models import CATALOG_FORMAT, Catalog, NameSource, Pattern, Predicate, merge_sources
from chainret.core.errors import UsageError
from chainret.core.progress import EVERY, Progress, no_progress
from chainret.sources import backstage as bs
from chainret.sources import codeowners as co

FORMATS = ("backstage", "codeowners")

# (name, hops, phrasings): the questions people ask of a software catalog, 1 to 3 hops.
PATTERNS: list[tuple[str, list[str], list[str], str]] = [
    ("owner", ["owned_by"], ["who owns {entity}", "who is the owner of {entity}", "which group owns {entity}",
                             "which team owns {entity}", "what team owns {entity}", "who is responsible for {entity}"], ""),
    ("system", ["part_of"], ["which system is {entity} part of", "what system is {entity} part of",
                             "which system does {entity} belong to", "what system does {entity} belong to",
                             "which system is {entity} in"], ""),
    ("system_owner", ["part_of", "owned_by"],
     ["which group owns the system that {entity} belongs to", "which team owns the system that {entity} belongs to",
      "who owns the system that {entity} belongs to", "which group owns the system that {entity} is part of",
      "who owns the system that {entity} is part of", "who owns the system of {entity}"], ""),
    ("system_domain", ["part_of", "in_domain"], ["which domain is the system of {entity} in",
                                                 "which domain does the system of {entity} belong to"], ""),
    ("domain", ["in_domain"], ["which domain is {entity} in", "which domain does {entity} belong to"], ""),
    ("owner_parent", ["owned_by", "child_of"],
     ["what is the parent group of the team that owns {entity}", "which group is the parent of the team that owns {entity}",
      "what is the parent of the group that owns {entity}", "what is the parent group of the group that owns {entity}"], ""),
    ("owner_members", ["owned_by", "has_member"],
     ["who is on the team that owns {entity}", "who are the members of the team that owns {entity}",
      "who is in the group that owns {entity}", "who is on the group that owns {entity}"], ""),
    ("system_owner_members", ["part_of", "owned_by", "has_member"],
     ["who is on the team that owns the system that {entity} belongs to",
      "who is on the team that owns the system of {entity}"], ""),
    ("system_owner_parent", ["part_of", "owned_by", "child_of"],
     ["what is the parent group of the team that owns the system that {entity} belongs to"], ""),
    ("parent", ["child_of"], ["what is the parent group of {entity}", "what is the parent of {entity}",
                              "which group is {entity} under"], ""),
    ("children", ["parent_of"], ["which groups are under {entity}", "what groups are under {entity}",
                                 "which teams are under {entity}", "what are the child groups of {entity}",
                                 "what are the subgroups of {entity}", "which groups does {entity} contain"], ""),
    ("members", ["has_member"], ["who is on {entity}", "who are the members of {entity}", "who is in {entity}",
                                 "who are the users in {entity}", "who belongs to {entity}"], ""),
    ("groups", ["member_of"], ["which team is {entity} on", "which group is {entity} a member of",
                               "which groups is {entity} a member of", "which team is {entity} in",
                               "which teams is {entity} on", "which teams is {entity} in", "which groups is {entity} in",
                               "which groups is {entity} on", "which teams is {entity} a member of",
                               "what teams is {entity} on", "what groups is {entity} in"], ""),
    ("owned", ["owner_of"], ["what does {entity} own", "what is owned by {entity}",
                             "which entities does {entity} own"], ""),
    ("parts", ["has_part"], ["what is part of {entity}", "what belongs to {entity}", "what is in {entity}"], ""),
    ("systems", ["domain_has"], ["which systems are in {entity}", "what systems are in {entity}",
                                "which systems belong to {entity}", "what systems belong to {entity}"], ""),
    ("parent_component", ["subcomponent_of"], ["which component is {entity} a subcomponent of",
                                               "what is {entity} a subcomponent of"], ""),
    ("subcomponents", ["has_subcomponent"], ["what are the subcomponents of {entity}",
                                             "which subcomponents does {entity} have"], ""),
    ("dependencies", ["depends_on"], ["what does {entity} depend on", "which dependencies does {entity} have"], ""),
    ("dependents", ["dependency_of"], ["what depends on {entity}", "who depends on {entity}"], ""),
    ("provided_apis", ["provides_api"], ["which apis does {entity} provide", "what apis does {entity} provide",
                                         "what does {entity} provide"], ""),
    ("api_provider", ["api_provided_by"], ["which component provides {entity}", "who provides {entity}",
                                           "what provides {entity}"], ""),
    ("consumed_apis", ["consumes_api"], ["which apis does {entity} consume", "what apis does {entity} consume",
                                         "what does {entity} consume"], ""),
    ("api_consumers", ["api_consumed_by"], ["which components consume {entity}", "who consumes {entity}",
                                            "what consumes {entity}"], ""),
]
# (name, start type, hops, phrasings, description): CODEOWNERS' questions.
PATH_PATTERNS: list[tuple[str, str, list[str], list[str], str]] = [
    ("path_owner", co.PATH_TYPE, ["governed_by", "code_owned_by"],
     ["who owns {path}", "who is the code owner of {path}", "who are the code owners of {path}", "which team owns {path}"],
     "the code owners of a file: its last matching CODEOWNERS rule, then that rule's owners"),
    ("path_rule", co.PATH_TYPE, ["governed_by"], ["which codeowners rule governs {path}", "which rule governs {path}"], ""),
    ("rule_owners", co.RULE_TYPE, ["code_owned_by"], ["who are the code owners of {rule}", "who is the code owner of {rule}"], ""),
    ("code_owned", co.OWNER_TYPE, ["code_owner_of"],
     ["which codeowners rules name {codeowner}", "what is {codeowner} code owner of"], ""),
    ("rule_paths", co.RULE_TYPE, ["governs"], ["which files does {rule} govern", "which paths does {rule} govern"],
     "the files a CODEOWNERS rule is the last match of"),
    # a code owner's files: those whose last matching rule names them (a change to one asks them for review)
    ("code_owned_paths", co.OWNER_TYPE, ["code_owner_of", "governs"],
     ["which files is {codeowner} a code owner of", "which paths is {codeowner} a code owner of",
      "which files does {codeowner} review"],
     "the files a code owner reviews: each rule that names them, then the files it is the last match of"),
]
CODEOWNERS_PREDICATES: dict[str, tuple[str, tuple[str, ...], tuple[str, ...], str]] = {
    "code_owned_by": ("many", (co.RULE_TYPE,), (co.OWNER_TYPE,), "a CODEOWNERS rule's owners (@user, @org/team, e-mail)"),
    "code_owner_of": ("many", (co.OWNER_TYPE,), (co.RULE_TYPE,), "inverse of code_owned_by"),
    "governed_by": ("many", (co.PATH_TYPE,), (co.RULE_TYPE,), "a file's last matching CODEOWNERS rule (one per GitLab section)"),
    "governs": ("many", (co.RULE_TYPE,), (co.PATH_TYPE,), "inverse of governed_by"),
}

# The words requests may use for the imported predicates (``Predicate.nouns`` / ``verbs``), one home for
# both formats. Where the lexicon's rule inflects a name wrongly (``api_provided_by`` -> "provids",
# ``governed_by`` -> "governer"), the words on the name's stem here stand in for its guesses
# (``chainret.query.lexicon.predicate_words``); ``tests/test_imported_phrasings.py`` spell-checks them all.
WORDS: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {  # predicate -> (nouns, verbs)
    "api_provided_by": (("provider", "api provider"), ("provides", "providing")),
    "api_consumed_by": (("consumer", "api consumer"), ("consumes", "consuming")),
    "governed_by": (("governing rule", "codeowners rule"), ("governs", "governing")),
    "has_member": (("member",), ()),
    "parent_of": (("child group", "subgroup"), ()),
    "child_of": (("parent", "parent group"), ()),
}


def default_header(kinds: set[str], earlier: dict[str, tuple[set[str], set[str]]] | None = None
                   ) -> tuple[list[Predicate], list[Pattern]]:
    """The predicates and patterns for the entity types (Backstage kinds, CODEOWNERS' ``rule``,
    ``codeowner`` and ``path``) that the catalog's entities have.

    A predicate's domain and range are the kinds Backstage allows for its field (``owned_by``:
    ``component|api|resource|system|domain|template`` -> ``group|user``), less the kinds no entity
    has (a catalog without APIs declares no ``api`` type); a predicate left without a domain or a
    range is left out. Each pattern of ``PATTERNS`` becomes one pattern per kind it can start at
    (``component_owner``: "who owns {component}"), kept only if its chain type-checks; a request
    whose entity is of another kind ("who owns group:default/team-a") matches no pattern's slot and
    is refused, naming the kind it is. ``earlier``: per predicate, the subject and object types of
    the relations an earlier catalog at ``--out`` has (``earlier_types``); they stay in the domain
    and range, so its earlier versions stay valid (a catalog imported before entities had their
    kind as type cites ``entity``).
    """
    earlier = earlier or {}
    spec = {**bs.PREDICATES, **CODEOWNERS_PREDICATES}
    preds: list[Predicate] = []
    types: dict[str, tuple[tuple[str, ...], tuple[str, ...]]] = {}
    for name, (card, dom, rng, desc) in spec.items():
        old_d, old_r = earlier.get(name, (set(), set()))
        d = tuple(k for k in dom if k in kinds) + tuple(sorted(old_d - set(dom)))
        r = tuple(k for k in rng if k in kinds) + tuple(sorted(old_r - set(rng)))
        if d and r:
            types[name] = (d, r)
            nouns, verbs = WORDS.get(name, ((), ()))
            preds.append(Predicate(name=name, domain="|".join(d), range="|".join(r), cardinality=card,  # type: ignore[arg-type]
                                   description=desc, nouns=list(nouns), verbs=list(verbs)))
    pats: list[Pattern] = []
    for base, hops, phrasings, desc in PATTERNS:
        if hops[0] not in types:
            continue
        for kind in types[hops[0]][0]:
            if not _chain_ok(kind, hops, types):
                continue
            name = base if base.startswith(kind + "_") else f"{kind}_{base}"
            pats.append(Pattern(name=name, start_type=kind, hops=hops, description=desc or " -> ".join(hops),
                                phrasings=[p.replace("{entity}", "{" + kind + "}") for p in phrasings]))
    for base, start, hops, phrasings, desc in PATH_PATTERNS:
        if start in kinds and _chain_ok(start, hops, types):
            pats.append(Pattern(name=base, start_type=start, hops=hops, phrasings=phrasings, description=desc or " -> ".join(hops)))
    return preds, pats


def _chain_ok(start: str, hops: list[str], types: dict[str, tuple[tuple[str, ...], tuple[str, ...]]]) -> bool:
    """Can a chain of these hops run from an entity of type ``start`` (each hop from a type the last one reaches)?"""
    reach: tuple[str, ...] = (start,)
    for hop in hops:
        if hop not in types or not set(reach) & set(types[hop][0]):
            return False
        reach = types[hop][1]
    return True


def earlier_types(catalog: Catalog | None) -> dict[str, tuple[set[str], set[str]]]:
    """Per predicate, the subject and object types of an earlier catalog's relations: a later import
    keeps them (their document versions stay in the earlier views), so its predicates must still
    allow those types."""
    out: dict[str, tuple[set[str], set[str]]] = {}
    for r in catalog.relations if catalog is not None else ():
        subj, obj = out.setdefault(r.predicate, (set(), set()))
        subj.add(r.subject.partition(":")[0])
        obj.add(r.object.partition(":")[0])
    return out


Labels = tuple[str, str, tuple[str, ...], str]


@dataclass
class Snapshot:
    """The entities and rendered documents of a tree of records at one version, and the problems found."""

    # id -> (name, aliases, description, sources): each source is (path in the source folder, name,
    # aliases, description): the labels that record file gives the entity (``Entity.declared_in``).
    entities: dict[str, tuple[str, tuple[str, ...], str, tuple[Labels, ...]]] = field(default_factory=dict)
    documents: dict[str, str] = field(default_factory=dict)  # path in the source folder -> rendered text
    errors: list[Issue] = field(default_factory=list)
    warnings: list[Issue] = field(default_factory=list)
    records: int = 0  # record files read
    origins: dict[str, str] = field(default_factory=dict)  # path in the source folder -> the record file it renders

    def merge(self, other: Snapshot) -> Snapshot:
        """This snapshot with another's entities, documents and problems added."""
        for eid, ent in other.entities.items():
            self.entities.setdefault(eid, ent)
        self.documents.update(other.documents)
        self.errors += other.errors
        self.warnings += other.warnings
        self.records += other.records
        self.origins.update(other.origins)
        return self

    @property
    def kinds(self) -> set[str]:
        """The entity types of the snapshot's entities (Backstage kinds, ``rule``, ``codeowner``, ``path``)."""
        return {i.partition(":")[0] for i in self.entities}


def document_path(fmt: str, rel: str) -> str:
    """The path in the source folder (``backstage/org/users.yaml``) of the document a record file
    renders to: ``rel`` is the file's path in the records' tree (a CODEOWNERS file's, in the repository's)."""
    return f"{bs.SOURCE if fmt == 'backstage' else fmt}/{rel}"


def read_snapshot(root: str | os.PathLike[str], formats: list[str], world: str,
                  files: list[str] | None = None, progress: Progress = no_progress) -> Snapshot:
    """Read a tree (folder or file) in the given formats. ``files`` lists the tree's files for
    CODEOWNERS matching (default: walk the folder). ``progress``: files read, then files rendered."""
    path = Path(root)
    snap = Snapshot()
    if not path.exists():
        raise UsageError(f"{path}: no such file or folder")
    unknown = [f for f in formats if f not in FORMATS]
    if unknown or not formats:
        raise UsageError(f"unknown --format {', '.join(unknown) or '(none)'}; choose from: {', '.join(FORMATS)} "
                         "(a CSV/JSON Lines table: --format table with --src and --document)")
    if "backstage" in formats:
        tree = bs.read_tree(path, progress)
        snap.errors += tree.errors
        snap.warnings += tree.warnings
        ents = bs.entity_records(tree, world)
        by_file: dict[str, list[bs.Descriptor]] = {}
        for d in tree.descriptors:
            by_file.setdefault(d.file, []).append(d)
        defined = {d.ref for d in tree.descriptors}
        # One path string per record file, however many entities' sources name it (a users file: thousands).
        paths = {rel: document_path("backstage", rel) for rel in tree.files}
        for at, (rel, text) in enumerate(tree.files.items()):
            progress("rendering record files", at, len(tree.files), "files")
            snap.documents[paths[rel]] = bs.render_file(rel, text, by_file.get(rel, []), ents, world,
                                                        snap.warnings, tree.root, defined)
            snap.origins[paths[rel]] = str(tree.root / rel)
            snap.records += 1
        for e in ents.values():
            snap.entities[e.id] = (e.name, e.aliases, e.description,
                                   tuple((paths.get(s.file) or document_path("backstage", s.file), s.name, s.aliases,
                                          s.description) for s in e.sources))
    if "codeowners" in formats:
        if path.is_dir():
            root_dir, found, links_out = path, co.find(path), co.outside(path)
            snap.warnings += links_out
            if not found and "backstage" not in formats:
                raise UsageError(f"{path}: no CODEOWNERS file (looked for {', '.join(co.LOCATIONS)}"
                                 + (", passing over links out of the tree" if links_out else "") + ")")
        else:
            root_dir = path.parent.parent if path.parent.name in (".github", ".gitlab", "docs") else path.parent
            found = [path.relative_to(root_dir).as_posix()]
        for rel in found:
            of, refused = co.read(root_dir, rel)
            snap.errors += refused
            if of is None:
                continue
            snap.warnings += of.warnings
            tree_files = files if files is not None else co.tree_files(root_dir)
            rendered, named = co.render(of, tree_files, world)
            snap.documents[document_path("codeowners", rel)] = rendered
            snap.origins[document_path("codeowners", rel)] = str(root_dir / rel)
            snap.records += 1
            for n in named.values():  # (a file no rule matches is declared by this document: it is known, unowned)
                sources = tuple((document_path("codeowners", rel), s.name, s.aliases, s.description) for s in n.sources
                                if s.file == co.UNMATCHED_SOURCE)
                snap.entities.setdefault(n.id, (n.name, n.aliases, n.description, sources))
    return snap


def merged_header(snap: Snapshot, world: str, src: Path | None, previous: Catalog | None = None) -> tuple[Header, Path]:
    """The default header plus the records' entities plus the user's header (``src/chainret.yaml``), checked.

    ``previous``: the catalog already at ``--out``. The types its relations use stay in each
    predicate's domain and range (``earlier_types``), and its cited entities of a kind the records
    no longer have (a later commit removed every API) stay declared, with their patterns, so the
    earlier views answer as they did."""
    user = read_header(src / HEADER_NAME, check=False) if src is not None else None
    header_file = (src / HEADER_NAME) if src is not None else Path(HEADER_NAME)
    if user is not None and user.world != world:
        raise UsageError(f"{header_file} says world {user.world!r}, but --world is {world!r}; leave --world out or make them agree")
    earlier = earlier_types(previous)
    kinds = snap.kinds | ({e.id.partition(":")[0] for e in user.entities} if user is not None else set())
    gone = {t for pair in earlier.values() for side in pair for t in side} - kinds
    preds, pats = default_header(kinds | gone, earlier)
    settings = {d.path: d for d in user.documents} if user is not None else {}

    doc_ids: dict[str, str] = {}  # path -> document ID: one string per file, not one per entity it names

    def declared(sources: tuple[Labels, ...]) -> list[NameSource]:
        """A record's labels with the ID (``source/document``) of the document its file becomes (as
        ``chainret.authoring.build.scan`` names it: the header's settings, else the path)."""
        out = []
        for path, name, aliases, description in sources:
            doc_id = doc_ids.get(path)
            if doc_id is None:
                conf, (source, _, document) = settings.get(path), path.partition("/")
                doc_id = doc_ids[path] = (f"{conf.source if conf and conf.source else source}/"
                                          f"{conf.document if conf and conf.document else document}")
            out.append(NameSource(document=doc_id, name=name, aliases=list(aliases), description=description))
        return out

    entities = {i: HeaderEntity(id=i, name=n, aliases=list(a), description=d, declared_in=declared(s))
                for i, (n, a, d, s) in snap.entities.items()}  # (a record's labels are merge_sources of its sources)
    if gone and previous is not None:
        cited = {x for r in previous.relations for x in (r.subject, r.object)}
        for e in previous.entities:
            if e.type in gone and e.id in cited:
                entities[e.id] = HeaderEntity(id=e.id, name=e.name, aliases=list(e.aliases), description=e.description,
                                              declared_in=e.declared_in)
    if previous is not None:
        entities = _kept_sources(entities, previous)
    if user is not None:
        for e in user.entities:  # the user's own entities, or more aliases / another name for a record's entity
            base = entities.get(e.id)
            if base is not None and base.declared_in:  # the header's labels come first, and are everyone's
                sources = [NameSource(name=e.name, aliases=list(e.aliases), description=e.description), *base.declared_in]
                name, merged, description = merge_sources(sources)
                e = HeaderEntity(id=e.id, name=name, aliases=merged, description=description, declared_in=sources)
            elif base is not None:
                aliases = list(dict.fromkeys([*base.aliases, *e.aliases]))
                e = HeaderEntity(id=e.id, name=e.name or base.name, aliases=aliases, description=e.description or base.description)
            entities[e.id] = e
        by_name = {p.name: p for p in preds}
        by_name.update({p.name: p for p in user.predicates})
        pat_names = {p.name: p for p in pats}
        pat_names.update({p.name: p for p in user.patterns})
        preds, pats = list(by_name.values()), list(pat_names.values())
    header = Header(world=world, description=(user.description if user else "") or "Imported from records where they live",
                    default_source=user.default_source if user else "docs", entities=list(entities.values()),
                    predicates=preds, patterns=pats, documents=list(user.documents) if user else [],
                    relations=list(user.relations) if user else [], cases=list(user.cases) if user else [])
    from chainret.catalog.load import with_lines

    problems = header_issues(header, str(header_file))
    if problems:
        raise SourceInvalid(with_lines(problems, header_file) if src is not None else problems)
    return header, header_file


def _kept_sources(entities: dict[str, HeaderEntity], previous: Catalog) -> dict[str, HeaderEntity]:
    """The entities in the order of the catalog at ``--out`` (new ones after), with the name sources it
    recorded kept, first and unchanged, and only the records' new sources appended (marked with the
    order of the view this import adds).

    Every version of a document stays in the catalog, and so do the labels it gave (a reader of the
    file's older version knows them), and the catalog as it was at an earlier view is this one
    without the later views' sources: ``trace verify`` rebuilds it so (``earlier_catalogs``) and an
    older trace's identity is reproduced. Rewriting the sources from the newest records alone made
    every older trace of a viewer a mismatch as soon as a commit changed which files name an entity."""
    before = {e.id: [s for s in e.declared_in if s.document] for e in previous.entities}  # the header's: merged in later
    since = max((v.order for v in previous.views), default=0) + 1
    rank = {eid: n for n, eid in enumerate(before)}  # the catalog's order, new entities after it, as a writer adds views
    out = dict(sorted(entities.items(), key=lambda item: rank.get(item[0], len(rank))))
    for eid, e in list(out.items()):
        kept = before.get(eid)
        if not kept or not e.declared_in:
            continue
        known = {s.labels() for s in kept}
        added = [s.model_copy(update={"since": since}) for s in e.declared_in if s.labels() not in known]
        sources = [*kept, *added]
        if sources != e.declared_in:
            name, aliases, description = merge_sources(sources)
            out[eid] = HeaderEntity(id=eid, name=name, aliases=aliases, description=description, declared_in=sources)
    return out


def default_world(formats: list[str], src: Path | None) -> str:
    if src is not None and (src / HEADER_NAME).is_file():
        return read_header(src / HEADER_NAME, check=False).world
    return "backstage" if "backstage" in formats else "codeowners"


def import_snapshot(snap: Snapshot, out: str | os.PathLike[str], *, world: str, src: Path | None = None,
                    view: str | None = None, strict: bool = False, previous: Catalog | None = None,
                    view_description: str = "", check: bool = True, progress: Progress = no_progress,
                    elsewhere: Collection[str] = ()) -> BuildResult:
    """Build a snapshot into the catalog at ``out`` (new versions and a new view when anything changed).

    Errors raise ``SourceInvalid`` and nothing is written (the caller writes); with ``strict`` the
    warnings are errors too. ``check=False`` leaves the whole-catalog checks to the caller
    (``chainret.authoring.build.catalog_errors``). ``progress`` hears when the build starts (it has no count).
    ``elsewhere``: the rendered-document paths other snapshots of these records hold (a history's
    other commits): a header document among them that this snapshot lacks is absent, never a typo.
    """
    problems = snap.errors + (snap.warnings if strict else [])
    if problems:
        raise SourceInvalid([Issue(i.code, "error", i.file, i.location, i.field, i.message, i.line) for i in problems])
    if src is not None and not src.is_dir():
        raise UsageError(f"--src {src}: not a folder")
    if previous is None:  # the catalog already at --out: its cited kinds stay declared (else build reports it)
        previous = _previous_catalog(out)
    _refuse_untyped(previous, out)
    header = [merged_header(snap, world, src, previous)[0]]  # (handed on to the build below, not kept here)
    if src is not None:
        clash = [p for p in snap.documents if (src / p).exists()]
        if clash:
            raise UsageError(f"{src / clash[0]} is in the source folder and is also a rendered record document; rename or move it")
    progress("building the catalog", 0, None, "")
    with tempfile.TemporaryDirectory(prefix="chainret-import-") as empty:
        base = src if src is not None else Path(empty)
        try:  # the build lets the header's entities go once they are the catalog's: this frame holds no reference
            result = build(base, out, view=view, overrides=snap.documents, parsed=header.pop(), previous=previous,
                           check=check, elsewhere=elsewhere)
        except SourceInvalid as exc:  # a rendered document is named after the record file it renders, not the build's folder
            raise SourceInvalid([_origin(i, base, snap.origins) for i in exc.issues]) from None
    return described(result, view_description)


def _origin(i: Issue, base: Path, origins: dict[str, str]) -> Issue:
    """An issue about a rendered document (``base/<path>``, a folder the user never saw), named by its record file."""
    key = Path(i.file).relative_to(base).as_posix() if Path(i.file).is_relative_to(base) else None
    if key is None or key not in origins:
        return i
    return Issue(i.code, i.severity, origins[key], i.location, i.field, i.message, i.line)


def _refuse_untyped(previous: Catalog | None, out: str | os.PathLike[str]) -> None:
    """A catalog imported before Backstage entities were typed by kind (one type ``entity``) takes no
    new versions: its requests would name two entities (``entity:w:component.default.x`` and
    ``component:w:default.x``) and its traces would no longer replay. Said, not half-done."""
    if previous is None:
        return
    owned = previous.predicates_by_name.get("owned_by")
    if owned is not None and owned.domain == "entity" and any(e.id.startswith("entity:") and e.id.split(":")[2].split(".")[0]
                                                              in bs.KINDS for e in previous.entities):
        raise UsageError(f"{out}: this catalog was imported before Backstage entities were typed by kind (its owned_by "
                         "runs entity -> entity); its views stay readable and its traces verify, but new versions "
                         "cannot be added to it: import into a new --out")


def _previous_catalog(out: str | os.PathLike[str]) -> Catalog | None:
    from chainret.authoring.build import output_paths
    from chainret.catalog.issues import CatalogFileInvalid
    from chainret.catalog.load import load_catalog

    catalog_file, _ = output_paths(out)
    if not catalog_file.is_file():
        return None
    try:
        return load_catalog(catalog_file)
    except CatalogFileInvalid:
        return None  # the build reports it, naming the file


def described(result: BuildResult, view_description: str = "") -> BuildResult:
    """The build with its new view described (a history's commit), handed on without the lookups the
    build's checks cached on the catalog (a large import's indexes would stay in memory while it is written)."""
    cat = result.catalog
    views = [v.model_copy(update={"description": view_description}) if v.name == result.new_view and view_description else v
             for v in cat.views]
    result.catalog = Catalog.model_construct(**{**{name: getattr(cat, name) for name in Catalog.model_fields}, "views": views})
    return result


def _banner(label: str) -> str:
    return (f"# Built by `chainret catalog {label}`: re-run it after the records change (earlier views stay);\n"
            "# entities, relations, digests, spans, versions and views are read from the records, never typed.\n")


def output_texts(result: BuildResult, label: str, *, catalog: bool = True) -> dict[Path, str]:
    """The catalog (and cases) files of an import, with a banner naming the command (``catalog=False``:
    the cases file only; ``write_import`` streams a JSON catalog instead)."""
    from chainret.authoring.output import catalog_data, render

    texts: dict[Path, str] = {}
    if catalog:
        if result.catalog_file.suffix == ".json":
            texts[result.catalog_file] = "".join(catalog_json(result.catalog))
        else:
            texts[result.catalog_file] = render(catalog_data(result.catalog), result.catalog_file.suffix, _banner(label))
    if result.cases is not None:
        data = {"format": "chainret-cases/1", **result.cases.model_dump(mode="json", exclude_defaults=True)}
        texts[result.cases_file] = render(data, result.cases_file.suffix, _banner(label))
    return texts


def catalog_json(catalog: Catalog) -> Iterator[str]:
    """The catalog as ``model_dump_json(exclude_defaults=True, indent=1)`` writes it, with ``format``
    first, in pieces: ``CHUNK`` records at a time, so a 200 MB catalog is never one string (nor three:
    the serialiser's bytes, their decoding and the ``format`` splice)."""
    for _, piece in _catalog_pieces(catalog):
        yield piece


# Records serialised per call: one call per record cost a third of writing a large catalog. Records
# differ in size by a thousand times (a group's entity names every file that refers to it; a
# document carries its text), so each call's count follows the size of the last one's output.
CHUNK = 100
CHUNK_CHARS = 1 << 18


def _catalog_pieces(catalog: Catalog) -> Iterator[tuple[int, str]]:
    """``catalog_json``'s pieces, each with the number of records written before it.

    A chunk of a list field is dumped by the catalog's own serialiser, as a catalog holding that
    chunk alone (``include``: that field only), and cut to its records: they are laid out and
    indented as in the whole catalog's dump, and no other serialiser is built."""
    yield 0, '{\n "format": "' + CATALOG_FORMAT + '"'
    done = 0
    for name, info in Catalog.model_fields.items():
        if name == "format":
            continue
        value = getattr(catalog, name)
        if isinstance(value, list):
            if not value:
                continue
            yield done, f',\n "{name}": ['
            head, tail = len(f'{{\n "{name}": ['), len("\n ]\n}")
            start, size = 0, 16
            while start < len(value):
                chunk = value[start:start + size]
                fields: dict[str, Any] = {"world": catalog.world, name: chunk}
                part = Catalog.model_construct(**fields)
                dumped = part.model_dump_json(include={name}, exclude_defaults=True, indent=1)[head:-tail]
                if start:
                    yield done, ","  # (each chunk starts "\n  {")
                yield done, dumped
                start += len(chunk)
                done += len(chunk)
                size = max(1, min(CHUNK, size * CHUNK_CHARS // len(dumped)))
            yield done, "\n ]"
        elif value != info.default:
            yield done, f',\n "{name}": ' + to_json(value).decode("utf-8")
    yield done, "\n}\n"


def write_import(result: BuildResult, label: str, progress: Progress = no_progress) -> list[Path]:
    """Write an import's files (replaced together: every temporary first, then the renames); the
    files whose content changed. A JSON catalog is streamed to its temporary file and compared with
    the file already there by sha256, never held as one string. ``progress``: records written."""
    from chainret.authoring.output import sync
    from chainret.core.files import write_files

    target = result.catalog_file
    if target.suffix != ".json":
        progress("writing the catalog", 0, None, "")
        return sync(output_texts(result, label))
    small = {p: t for p, t in output_texts(result, label, catalog=False).items()
             if not p.is_file() or p.read_text(encoding="utf-8") != t}
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{target.name[:100]}.", suffix=".tmp", dir=target.parent)
    try:
        digest = hashlib.sha256()
        cat = result.catalog
        total = sum(len(v) for name in Catalog.model_fields if isinstance(v := getattr(cat, name), list))
        reported = -EVERY
        with os.fdopen(fd, "wb") as fh:
            for n, piece in _catalog_pieces(cat):
                if n - reported >= EVERY:
                    progress("writing the catalog", n, total, "records")
                    reported = n
                data = piece.encode("utf-8")
                fh.write(data)
                digest.update(data)
            fh.flush()
            os.fsync(fh.fileno())
        changed = not target.is_file() or _file_sha256(target) != digest.hexdigest()
        if changed or small:
            write_files(small)
        if changed:
            os.replace(tmp, target)
    finally:
        Path(tmp).unlink(missing_ok=True)
    return ([target] if changed else []) + list(small)


def _file_sha256(path: Path) -> str:
    h = hashlib.sha256()
    with path.open("rb") as fh:
        for block in iter(lambda: fh.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()
