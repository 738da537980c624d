"""Backstage descriptor files -> entities and rendered documents (``catalog import --format backstage``).

A descriptor file (``catalog-info.yaml``, Backstage's Software Catalog format) holds one or more
YAML documents, each an entity: ``apiVersion``, ``kind``, ``metadata`` (``name``, ``namespace``,
``title``, ``description``) and ``spec``. ``read_tree(root)`` reads every ``catalog-info.yaml`` /
``catalog-info.yml`` under a folder, and every other YAML file there with an ``apiVersion:
backstage.io/…`` line (or the one file given), and the files that ``Location``
entities point to (``spec.target`` / ``spec.targets``, relative to the Location's file, globs
allowed), never outside ``root`` and never a URL.

Entity references follow Backstage's rules (``[<kind>:][<namespace>/]<name>``; the default kind is
the field's, the default namespace the referencing entity's; kinds, namespaces and names compare
case-insensitively), the defaults being those of Backstage's own ``BuiltinKindsEntityProcessor``
(``FIELDS``). Every entity becomes one chainret entity whose type is its kind, with the ID
``<kind>:<world>:<namespace>.<name>`` (lowercase; a Backstage namespace has no ``.``, so the ID
reads back to the reference), display name ``metadata.title`` (a User's
``spec.profile.displayName``) else ``metadata.name``, aliases the reference forms. Each predicate
has the kinds Backstage allows as its domain and range (``PREDICATES``); a reference to another
kind (``spec.owner: component:x``) is reported and states no relation.

Each descriptor file is rendered as one markdown document: a paragraph per entity (its unit), in
which its ``spec.type`` (what kind of Component, Resource, API or Group it is) is quoted with its line
number and stated in one form (``declared_type`` reads it back: ``chainret.query.kinds``), and every
well-known relation field is quoted, verbatim, with its line number, followed by the
``REL`` clause of each relation it states (both directions). The relation's support is that clause
in the rendered document; the YAML line it was read from stands beside it in the same unit, and
the file's sha256 is in the document's opening paragraph, so an auditor can check the line in the
file at that version. A reference to an entity that is not in the tree is quoted and marked
dangling, with no relation.

Problems are ``Issue``s with file and line: ``errors`` (nothing can be imported: malformed YAML, a
file over the size limit, not UTF-8, two definitions of one entity, a cycle of ``spec.parent``)
and ``warnings`` (the document or reference is skipped, the rest imports: a descriptor without
``kind`` or ``metadata.name``, an invalid name, a dangling reference, a reference of a kind the field
does not allow, a Location that points
outside the tree or to a URL, an unknown kind, which is kept as an entity whose spec is not read, a
``spec.type`` that is not a string, which is kept as no type),
and ``missing_owner`` (a Component, API, Resource, System or Domain with no ``spec.owner``, which
Backstage requires: the entity is imported, declared by its descriptor, and owned by nobody).
"""

from __future__ import annotations

import hashlib
import os
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath
from typing import NamedTuple

import yaml

from chainret.catalog.issues import Issue
from chainret.catalog.models import clause_text
from chainret.core.progress import Progress, no_progress
from chainret.sources.common import EntityRecord, NameRecord, inside_tree
from chainret.sources.common import issue as _issue

DESCRIPTOR_NAMES = ("catalog-info.yaml", "catalog-info.yml")
MAX_DESCRIPTOR_BYTES = int(os.environ.get("CHAINRET_MAX_DESCRIPTOR_BYTES", str(5 * 1024 * 1024)))
# The references one descriptor file may hold (each states two relations; repeats count too, as each
# is a YAML node read and checked): the work per file is bounded by this, not only by its size.
MAX_DESCRIPTOR_REFERENCES = int(os.environ.get("CHAINRET_MAX_DESCRIPTOR_REFERENCES", "10000"))
SOURCE = "backstage"

# Backstage's rules (plugins/catalog-backend BuiltinKindsEntityProcessor and the descriptor format):
# kind -> spec field -> (default kind of its references or None (kind required), relation, inverse).
FIELDS: dict[str, dict[str, tuple[str | None, str, str]]] = {
    "component": {
        "owner": ("group", "owned_by", "owner_of"),
        "system": ("system", "part_of", "has_part"),
        "subcomponentOf": ("component", "subcomponent_of", "has_subcomponent"),
        "providesApis": ("api", "provides_api", "api_provided_by"),
        "consumesApis": ("api", "consumes_api", "api_consumed_by"),
        "dependsOn": (None, "depends_on", "dependency_of"),
    },
    "api": {"owner": ("group", "owned_by", "owner_of"), "system": ("system", "part_of", "has_part")},
    "resource": {
        "owner": ("group", "owned_by", "owner_of"),
        "system": ("system", "part_of", "has_part"),
        "dependsOn": (None, "depends_on", "dependency_of"),
        "dependencyOf": (None, "dependency_of", "depends_on"),
    },
    "system": {"owner": ("group", "owned_by", "owner_of"), "domain": ("domain", "in_domain", "domain_has")},
    "domain": {"owner": ("group", "owned_by", "owner_of")},
    "template": {"owner": ("group", "owned_by", "owner_of")},
    "user": {"memberOf": ("group", "member_of", "has_member")},
    "group": {
        "parent": ("group", "child_of", "parent_of"),
        "children": ("group", "parent_of", "child_of"),
        "members": ("user", "has_member", "member_of"),
    },
    "location": {},
}
# Predicates: name -> (cardinality, domain kinds, range kinds, description). The kinds are those
# Backstage's descriptor format documents for the field (spec.owner: "a Group or a User"; spec.system:
# a System; spec.dependsOn of a Component or Resource: "Component or Resource"); a reference to
# another kind is reported (wrong_kind) and states no relation. Backstage folds spec.system,
# spec.subcomponentOf and spec.domain into partOf/hasPart; chainret keeps them apart (the field
# says which) so that "which system" never answers with a parent component.
OWNABLE = ("component", "api", "resource", "system", "domain", "template")
OWNERS = ("group", "user")
PARTS = ("component", "api", "resource")
DEPENDS = ("component", "resource")
PREDICATES: dict[str, tuple[str, tuple[str, ...], tuple[str, ...], str]] = {
    "owned_by": ("functional", OWNABLE, OWNERS, "spec.owner: the entity's owner (a Group or User); Backstage ownedBy"),
    "owner_of": ("many", OWNERS, OWNABLE, "inverse of owned_by; Backstage ownerOf"),
    "part_of": ("functional", PARTS, ("system",), "spec.system: the System the entity belongs to; Backstage partOf"),
    "has_part": ("many", ("system",), PARTS, "inverse of part_of; Backstage hasPart"),
    "subcomponent_of": ("functional", ("component",), ("component",), "spec.subcomponentOf: the parent Component; Backstage partOf"),
    "has_subcomponent": ("many", ("component",), ("component",), "inverse of subcomponent_of; Backstage hasPart"),
    "in_domain": ("functional", ("system",), ("domain",), "spec.domain of a System; Backstage partOf"),
    "domain_has": ("many", ("domain",), ("system",), "inverse of in_domain; Backstage hasPart"),
    "provides_api": ("many", ("component",), ("api",), "spec.providesApis; Backstage providesApi"),
    "api_provided_by": ("many", ("api",), ("component",), "inverse of provides_api; Backstage apiProvidedBy"),
    "consumes_api": ("many", ("component",), ("api",), "spec.consumesApis; Backstage consumesApi"),
    "api_consumed_by": ("many", ("api",), ("component",), "inverse of consumes_api; Backstage apiConsumedBy"),
    "depends_on": ("many", DEPENDS, DEPENDS, "spec.dependsOn (or a Resource's spec.dependencyOf, inverted); Backstage dependsOn"),
    "dependency_of": ("many", DEPENDS, DEPENDS, "inverse of depends_on; Backstage dependencyOf"),
    "member_of": ("many", ("user",), ("group",), "a User's spec.memberOf (or a Group's spec.members, inverted); Backstage memberOf"),
    "has_member": ("many", ("group",), ("user",), "inverse of member_of; Backstage hasMember"),
    "child_of": ("functional", ("group",), ("group",), "a Group's spec.parent (or its parent's spec.children); Backstage childOf"),
    "parent_of": ("many", ("group",), ("group",), "inverse of child_of; Backstage parentOf"),
}
# The kinds whose spec.owner Backstage's descriptor format marks required: one without it is warned about.
OWNER_REQUIRED = ("component", "api", "resource", "system", "domain")
KINDS = {"component": "Component", "api": "API", "resource": "Resource", "system": "System", "domain": "Domain",
         "template": "Template", "user": "User", "group": "Group", "location": "Location"}
# Backstage's validators (catalog-model's KubernetesValidatorFunctions / DefaultNamespaceValidator).
NAME_RE = re.compile(r"^[A-Za-z0-9]+(?:[-_.][A-Za-z0-9]+)*$")
NAMESPACE_RE = re.compile(r"^[a-z0-9]+(?:-[a-z0-9]+)*$")
KIND_RE = re.compile(r"^[A-Za-z][A-Za-z0-9]*$")


class Ref(NamedTuple):
    """An entity reference, read (``parse_ref``). A named tuple, not a frozen dataclass: a large tree's
    references are dict keys hundreds of thousands of times, and a tuple hashes and compares in C."""

    kind: str  # lowercase
    namespace: str
    name: str  # lowercase

    @property
    def text(self) -> str:
        return f"{self.kind}:{self.namespace}/{self.name}"

    def entity_id(self, world: str) -> str:
        return f"{self.kind}:{world}:{self.namespace}.{self.name}"


@dataclass
class Mention:
    """A well-known relation field's value: where it is written and what it refers to."""

    field: str
    relation: str
    inverse: str
    line: int  # 1-based line of the value in the file
    target: Ref | None  # None: the reference is malformed or of a kind the field does not allow (reported)
    problem: str = "not a valid reference"  # why target is None, as the rendered document says


@dataclass
class Descriptor:
    """One YAML document of a descriptor file that is an entity."""

    file: str  # relative to the root, '/'-separated
    index: int  # 1-based document number within the file
    first_line: int
    last_line: int
    ref: Ref
    kind_label: str  # as written (Component)
    name: str  # metadata.name as written
    title: str
    description: str
    email: str
    # spec.type as written ("service", "website", "database", "team"): what kind of Component, Resource,
    # API or Group it is; "" where the descriptor gives none (or none that is a string: warned), with
    # the line it is written on (0: none). Rendered in the entity's paragraph (``render_file``).
    spec_type: str = ""
    spec_type_line: int = 0
    mentions: list[Mention] = field(default_factory=list)
    targets: list[tuple[str, int]] = field(default_factory=list)  # a Location's targets with their lines


@dataclass
class TreeRead:
    """What a descriptor tree gave: descriptors, the files read (with their text) and the problems."""

    root: Path
    descriptors: list[Descriptor] = field(default_factory=list)
    files: dict[str, str] = field(default_factory=dict)  # relative path -> text
    errors: list[Issue] = field(default_factory=list)
    warnings: list[Issue] = field(default_factory=list)


def parse_ref(text: str, default_kind: str | None, default_namespace: str) -> Ref | str:
    """A Backstage string reference ``[<kind>:][<namespace>/]<name>`` -> ``Ref``, or why it is not one."""
    kind, sep, rest = text.partition(":")
    if not sep:
        kind, rest = "", text
    namespace, sep, name = rest.partition("/")
    if not sep:
        namespace, name = "", rest
    kind = kind or (default_kind or "")
    namespace = namespace or default_namespace
    if not kind:
        return f"{text!r} names no kind, and this field has no default kind: write it as kind:name (e.g. resource:{text})"
    if not KIND_RE.match(kind):
        return f"{text!r}: the kind {kind!r} is not a Backstage kind name"
    if not NAMESPACE_RE.match(namespace.lower()) or len(namespace) > 63:
        return f"{text!r}: the namespace {namespace!r} is not a valid Backstage namespace ([a-z0-9] separated by '-')"
    if not NAME_RE.match(name) or len(name) > 63:
        return f"{text!r}: the name {name!r} is not a valid Backstage name ([A-Za-z0-9] separated by '-', '_' or '.', at most 63)"
    return Ref(kind.lower(), namespace.lower(), name.lower())


# -- reading YAML nodes -------------------------------------------------------------------------------
_Loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)


def _get(node: yaml.Node, key: str) -> yaml.Node | None:
    if not isinstance(node, yaml.MappingNode):
        return None
    for k, v in node.value:
        if isinstance(k, yaml.ScalarNode) and k.value == key:
            return v
    return None


def _mapping(node: yaml.Node | None) -> tuple[dict[str, yaml.Node], tuple[str, int] | None]:
    """A mapping node's values by key (the first of a repeated key, as ``_get``) and its first repeated
    key with that key's line; ``({}, None)`` for anything else. One pass over a descriptor's mapping,
    where asking ``_get`` for each field walked it a dozen times."""
    out: dict[str, yaml.Node] = {}
    dup: tuple[str, int] | None = None
    if isinstance(node, yaml.MappingNode):
        for k, v in node.value:
            if isinstance(k, yaml.ScalarNode):
                if k.value not in out:
                    out[k.value] = v
                elif dup is None:
                    dup = k.value, k.start_mark.line + 1
    return out, dup


def _scalar(node: yaml.Node | None) -> str | None:
    if isinstance(node, yaml.ScalarNode) and node.tag == "tag:yaml.org,2002:str":
        return node.value
    return None


def _items(node: yaml.Node) -> list[yaml.Node]:
    return list(node.value) if isinstance(node, yaml.SequenceNode) else [node]


def _read_file(root: Path, rel: str, out: TreeRead) -> list[yaml.Node] | None:
    file = root / rel
    try:
        size = file.stat().st_size
    except OSError as exc:
        out.errors.append(_issue("unreadable_file", file, None, f"cannot read the descriptor file: {exc.strerror}"))
        return None
    if not file.is_file():
        out.errors.append(_issue("not_a_regular_file", file, None, "a descriptor must be a regular file"))
        return None
    if size > MAX_DESCRIPTOR_BYTES:
        out.errors.append(_issue("file_too_large", file, None, f"expected at most {MAX_DESCRIPTOR_BYTES} bytes "
                                 f"(CHAINRET_MAX_DESCRIPTOR_BYTES), found {size}; nothing was read from it"))
        return None
    raw = file.read_bytes()
    try:
        text = raw.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        line = raw.count(b"\n", 0, exc.start) + 1
        out.errors.append(_issue("not_utf8", file, line, f"the descriptor is not UTF-8 text (byte {raw[exc.start]:#04x})"))
        return None
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    try:
        nodes = list(yaml.compose_all(text, Loader=_Loader))
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        out.errors.append(_issue("syntax_error", file, mark.line + 1 if mark else None, f"invalid YAML: {problem}"))
        return None
    out.files[rel] = text
    return [n for n in nodes if n is not None]


def _descriptor(rel: str, index: int, node: yaml.Node, out: TreeRead) -> Descriptor | None:
    line = node.start_mark.line + 1

    def root_file() -> Path:  # (made for a warning only: most descriptors have none)
        return out.root / rel

    def warn(code: str, at: int, message: str) -> None:
        out.warnings.append(_issue(code, root_file(), at, f"document {index}: {message}; the document is skipped", "warning"))

    if not isinstance(node, yaml.MappingNode):
        warn("wrong_type", line, "a descriptor must be a mapping (apiVersion, kind, metadata, spec)")
        return None
    top, top_dup = _mapping(node)
    meta, spec = top.get("metadata"), top.get("spec")
    (meta_keys, meta_dup), (spec_keys, spec_dup) = _mapping(meta), _mapping(spec)
    for dup in (top_dup, meta_dup, spec_dup):
        if dup:
            warn("duplicate_key", dup[1], f"key {dup[0]!r} appears twice in one mapping")
            return None
    api, kind = _scalar(top.get("apiVersion")), _scalar(top.get("kind"))
    if not kind:
        warn("missing_field", line, "no kind (expected e.g. kind: Component)")
        return None
    if not api or "/" not in api:
        warn("missing_field", line, "no apiVersion (expected e.g. apiVersion: backstage.io/v1alpha1)")
        return None
    name = _scalar(meta_keys.get("name"))
    if not name:
        warn("missing_field", (meta.start_mark.line + 1) if meta is not None else line, "no metadata.name")
        return None
    ns_node = meta_keys.get("namespace")
    namespace = _scalar(ns_node) or "default"
    if not KIND_RE.match(kind):
        warn("invalid_value", line, f"the kind {kind!r} is not a Backstage kind name")
        return None
    name_line = meta_keys["name"].start_mark.line + 1
    if not NAME_RE.match(name) or len(name) > 63:
        warn("invalid_value", name_line, f"metadata.name {name!r} is not a valid Backstage name "
                                         "([A-Za-z0-9] separated by '-', '_' or '.', at most 63 characters)")
        return None
    if not NAMESPACE_RE.match(namespace) or len(namespace) > 63:
        warn("invalid_value", ns_node.start_mark.line + 1 if ns_node is not None else line,
             f"metadata.namespace {namespace!r} is not a valid Backstage namespace")
        return None
    ref = Ref(kind.lower(), namespace, name.lower())
    title = _scalar(meta_keys.get("title")) or ""
    email = ""
    if ref.kind in ("user", "group"):
        profile = spec_keys.get("profile")
        title = title or (_scalar(_get(profile, "displayName")) or "").strip() if profile is not None else title
        email = (_scalar(_get(profile, "email")) or "").strip() if profile is not None else ""
    d = Descriptor(file=rel, index=index, first_line=line, last_line=node.end_mark.line + (0 if node.end_mark.column == 0 else 1),
                   ref=ref, kind_label=kind, name=name, title=title.strip(), email=email,
                   description=(_scalar(meta_keys.get("description")) or "").strip())
    _read_spec_type(d, spec_keys.get("type"), index, root_file, out)
    fields = FIELDS.get(ref.kind)
    if fields is None:
        from chainret.catalog.suggest import did_you_mean

        kind_line = top["kind"].start_mark.line + 1  # (checked above: kind is set)
        out.warnings.append(_issue("unknown_kind", root_file(), kind_line, f"document {index}: kind {kind!r} is not a Backstage "
                                   f"built-in kind{did_you_mean(kind, KINDS.values())} ({', '.join(KINDS.values())}): "
                                   "kept as an entity, its spec is not read", "warning"))
        return d
    for fname, (default_kind, relation, inverse) in fields.items():
        value = spec_keys.get(fname)
        if value is None:
            continue
        for item in _items(value):
            at = item.start_mark.line + 1
            text = _scalar(item)
            if text is None:
                out.warnings.append(_issue("invalid_reference", root_file(), at, f"document {index}: spec.{fname} must be "
                                           "an entity reference string (or a list of them); skipped", "warning"))
                continue
            parsed = parse_ref(text.strip(), default_kind, namespace)
            if isinstance(parsed, str):
                out.warnings.append(_issue("invalid_reference", root_file(), at, f"document {index}: spec.{fname}: {parsed}; skipped",
                                           "warning"))
                d.mentions.append(Mention(fname, relation, inverse, at, None))
                continue
            allowed = PREDICATES[relation][2]
            if parsed.kind not in allowed:
                names = " or ".join(KINDS[k] for k in allowed)
                found = _a(KINDS.get(parsed.kind, parsed.kind))
                out.warnings.append(_issue("wrong_kind", root_file(), at, f"document {index}: spec.{fname} names {parsed.text}, "
                                           f"{found}, but it must be {_a(names)}; skipped", "warning"))
                d.mentions.append(Mention(fname, relation, inverse, at, None, f"{found}, not {_a(names)}"))
                continue
            d.mentions.append(Mention(fname, relation, inverse, at, parsed))
    if ref.kind in OWNER_REQUIRED and spec_keys.get("owner") is None:
        out.warnings.append(_issue("missing_owner", root_file(), name_line, f"document {index}: {kind} {ref.text} has no "
                                   "spec.owner (Backstage requires one): imported with no owner", "warning"))
    if ref.kind == "location" and spec is not None:
        for key in ("target", "targets"):
            value = spec_keys.get(key)
            for item in _items(value) if value is not None else []:
                text = _scalar(item)
                if text:
                    d.targets.append((text.strip(), item.start_mark.line + 1))
        loc_type = _scalar(spec_keys.get("type")) or "file"
        if loc_type != "file":
            for target, at in d.targets:
                out.warnings.append(_issue("remote_location", root_file(), at, f"document {index}: a Location of type "
                                           f"{loc_type!r} ({target!r}) is not read: only local files inside the tree are", "warning"))
            d.targets = []
    return d


def _read_spec_type(d: Descriptor, node: yaml.Node | None, index: int, root_file: Callable[[], Path], out: TreeRead) -> None:
    """Keep a descriptor's ``spec.type`` (a Location's is how to read its targets, not what it is: not kept).

    A value that is no string (a list, a mapping, a number) is warned about at its line and kept as no
    type: the entity imports, and a question about a kind of it ("which services ...") then refuses
    rather than guess. A value with line breaks or runs of spaces is kept with single spaces, so that its
    rendered statement is one line."""
    if node is None or d.ref.kind == "location":
        return
    text = _scalar(node)
    at = node.start_mark.line + 1
    if text is None or not text.strip():
        out.warnings.append(_issue("invalid_value", root_file(), at, f"document {index}: spec.type must be a "
                                   "string (e.g. service, website, library); no type is recorded for "
                                   f"{d.ref.text}", "warning"))
        return
    d.spec_type, d.spec_type_line = " ".join(text.split()), at


def _a(label: str) -> str:
    return ("an " if label[:1] in "AEIOUaeiou" else "a ") + label


def _location_files(root: Path, rel: str, target: str, line: int, out: TreeRead) -> list[str]:
    """The files a Location target names, relative to the root; escapes and URLs are reported."""
    where = root / rel
    if re.match(r"^[A-Za-z][A-Za-z0-9+.-]*://", target):
        out.warnings.append(_issue("remote_location", where, line, f"Location target {target!r} is a URL: not fetched "
                                   "(chainret reads local files inside the tree only)", "warning"))
        return []
    if target.startswith("/") or PurePosixPath(target).is_absolute():
        out.warnings.append(_issue("location_outside_tree", where, line, f"Location target {target!r} is an absolute path: "
                                   "only paths relative to the Location's file, inside the tree, are read", "warning"))
        return []
    base = PurePosixPath(rel).parent
    joined = os.path.normpath(str(base / target)).replace(os.sep, "/")
    if joined == ".." or joined.startswith("../"):
        out.warnings.append(_issue("location_outside_tree", where, line, f"Location target {target!r} points outside the "
                                   f"tree {root}: not read", "warning"))
        return []
    if any(c in joined for c in "*?["):
        hits = sorted(p for p in root.glob(joined) if p.is_file())
    else:
        hits = [root / joined]
    found: list[str] = []
    for hit in hits:
        if not inside_tree(root, hit):  # a symlink out of the tree
            out.warnings.append(_issue("location_outside_tree", where, line, f"Location target {target!r} resolves "
                                       "outside the tree (through a link): not read", "warning"))
            continue
        if not hit.is_file():
            out.warnings.append(_issue("dangling_location", where, line, f"Location target {target!r}: no such file in the tree",
                                       "warning"))
            continue
        found.append(hit.relative_to(root).as_posix())
    return found


_API_LINE = re.compile(rb"^apiVersion:[ \t]*['\"]?backstage\.io/", re.MULTILINE)


def _is_descriptor(p: Path) -> bool:
    """A ``catalog-info.yaml`` / ``.yml``, or another YAML file with an ``apiVersion: backstage.io/...`` line."""
    if not p.is_file() or p.suffix not in (".yaml", ".yml"):
        return False
    if p.name in DESCRIPTOR_NAMES:
        return True
    try:
        if p.stat().st_size > MAX_DESCRIPTOR_BYTES:
            return False
        return _API_LINE.search(p.read_bytes()) is not None
    except OSError:
        return False


def read_tree(path: str | os.PathLike[str], progress: Progress = no_progress) -> TreeRead:
    """Read a descriptor tree: a folder (its ``catalog-info.yaml`` files and every other YAML file with
    an ``apiVersion: backstage.io/…`` line) or one descriptor file, and the files Locations point to.
    ``progress`` hears of each file read (the total grows as Locations name more files)."""
    given = Path(path)
    if given.is_dir():
        root = given
        start = [p.relative_to(root).as_posix() for p in sorted(root.rglob("*"))
                 if not any(part.startswith(".") for part in p.relative_to(root).parts)
                 and inside_tree(root, p) and _is_descriptor(p)]  # never a link out of the tree
    else:
        root, start = given.parent, [given.name]
    out = TreeRead(root=root)
    if given.is_dir():  # a large YAML file is not opened to see whether it is a descriptor: say so
        for p in sorted(root.rglob("*.y*ml")):
            if p.suffix in (".yaml", ".yml") and p.name not in DESCRIPTOR_NAMES and p.is_file() \
                    and p.stat().st_size > MAX_DESCRIPTOR_BYTES:
                out.warnings.append(_issue("file_too_large", p, None, f"over {MAX_DESCRIPTOR_BYTES} bytes "
                                           "(CHAINRET_MAX_DESCRIPTOR_BYTES): not inspected for descriptors", "warning"))
    if not given.exists():
        out.errors.append(_issue("file_not_found", given, None, "no such file or folder"))
        return out
    queue, seen = list(start), set(start)
    while queue:
        progress("reading descriptor files", len(seen) - len(queue), len(seen), "files")
        rel = queue.pop(0)
        nodes = _read_file(root, rel, out)
        distinct: set[tuple[Ref, str, Ref]] = set()
        for i, node in enumerate(nodes or [], 1):
            d = _descriptor(rel, i, node, out)
            if d is None:
                continue
            over = _count_references(d, distinct)
            if over is not None:
                out.errors.append(_issue("too_many_references", root / rel, over, f"document {i}: the file refers to more "
                                         f"than {MAX_DESCRIPTOR_REFERENCES} distinct (entity, field, target) relations "
                                         "(CHAINRET_MAX_DESCRIPTOR_REFERENCES); nothing is imported: split the file or raise the limit"))
                break
            out.descriptors.append(d)
            for target, line in d.targets:
                for found in _location_files(root, rel, target, line, out):
                    if found not in seen:
                        seen.add(found)
                        queue.append(found)
    _check_entities(out)
    return out


def _count_references(d: Descriptor, distinct: set[tuple[Ref, str, Ref]]) -> int | None:
    """Add a descriptor's distinct references to its file's; the line past the limit, else None.
    Repeats cost nothing more: they state no relation (``render_file``), and their YAML is bounded
    by the file's size."""
    for m in d.mentions:
        if m.target is not None:
            distinct.add((d.ref, m.relation, m.target))
            if len(distinct) > MAX_DESCRIPTOR_REFERENCES:
                return m.line
    return None


def _check_entities(out: TreeRead) -> None:
    """Two definitions of one entity are an error (Backstage refuses the second too); so is a parent cycle."""
    first: dict[Ref, Descriptor] = {}
    for d in out.descriptors:
        other = first.get(d.ref)
        if other is not None:
            out.errors.append(_issue("duplicate_entity", out.root / d.file, d.first_line,
                                     f"document {d.index}: {d.ref.text} is defined twice: also {other.file} document "
                                     f"{other.index} (line {other.first_line}); names compare case-insensitively"))
        else:
            first[d.ref] = d
    parent = {d.ref: m.target for d in first.values() if d.ref.kind == "group"
              for m in d.mentions if m.field == "parent" and m.target is not None}
    reported: set[Ref] = set()
    for start in parent:
        path, node = [start], parent.get(start)
        while node is not None and node not in path and node in parent:
            path.append(node)
            node = parent.get(node)
        if node is not None and node in path and not reported & set(path):
            cycle = path[path.index(node):]
            reported.update(cycle)
            d = first[node]
            line = next(m.line for m in d.mentions if m.field == "parent")
            out.errors.append(_issue("parent_cycle", out.root / d.file, line, "spec.parent forms a cycle: "
                                     + " -> ".join(r.text for r in [*cycle, node])))


# -- rendering -----------------------------------------------------------------------------------------
# The first line of an entity's paragraph in a rendered descriptor document (``render_file``):
# ``Entity <Kind> <kind:namespace/name> (<display name>): <file> document <n>, lines <a>-<b>.``
ENTITY_HEAD = re.compile(r"^Entity \S+ ([a-z0-9]+:[a-z0-9-]+/\S+) \(")
# The line of an entity's paragraph that states its spec.type, after the quoted ``type:`` line: one line of
# chainret's own wording (a quoted YAML line starts ``line N:``, a clause ``REL``, the head ``Entity``), so that
# what a descriptor says its entity is can be read back from the unit that says it (``declared_type``).
TYPE_STATEMENT = "Its type (spec.type) is {}."
_TYPE_LINE = re.compile(r"^Its type \(spec\.type\) is (.+)\.$", re.MULTILINE)


def declared_ref(unit_text: str) -> str | None:
    """The reference (``component:default/x``) of the entity whose paragraph this unit of a rendered
    descriptor document is, else None: how a declaration is cited by its unit (``chainret.query.declared``)."""
    m = ENTITY_HEAD.match(unit_text)
    return m.group(1) if m else None


def declared_type(unit_text: str) -> tuple[str, str] | None:
    """The spec.type an entity paragraph of a rendered descriptor document states, with its quoted YAML line
    (``("website", "line 7: `type: website`")``), else None (no type declared, or not such a paragraph).

    Read from the unit, not kept as a field of the catalog's entity: the unit is what a reader may read (or
    not), in the version of their view (``as of`` a date reads that date's version), and it is the anchor
    that proves the type; a field would need its own record of which document, and which version, says it."""
    if declared_ref(unit_text) is None:
        return None
    m = _TYPE_LINE.search(unit_text)
    if m is None:
        return None
    lines = unit_text[: m.start()].rstrip("\n").rsplit("\n", 1)
    return m.group(1), lines[-1]


def _labels(file: str, r: Ref, name: str, title: str = "", email: str = "", description: str = "") -> NameRecord:
    forms = [r.text, f"{r.kind}:{name}" if r.namespace == "default" else "", f"{r.namespace}/{name}", name, email]
    display = " ".join((title or name).split())
    return NameRecord(file, display, tuple(a for a in dict.fromkeys(forms) if a and a != display), description)


def entity_records(tree: TreeRead, world: str) -> dict[Ref, EntityRecord]:
    """The chainret entity of every descriptor and of every entity a reference names.

    Each label carries the file that says it (``EntityRecord.sources``): the defining descriptor's
    file gives the title, display name, e-mail and reference forms; every file that refers to the
    entity gives the reference forms it writes. So a reader who may read only a file that names
    ``user:jane`` knows her as ``jane``, never by the display name or e-mail of a users file they
    may not read, and the entity of a reference exists whether or not its definition is in the tree
    (as in Backstage, which keeps a relation to an entity it has not read): what a file says does
    not depend on other files. First definition wins (duplicates are errors)."""
    defined: dict[Ref, NameRecord] = {}
    for d in tree.descriptors:
        if d.ref not in defined:
            desc = f"Backstage {d.kind_label} {d.ref.text}" + (f": {d.description}" if d.description else "")
            defined[d.ref] = _labels(d.file, d.ref, d.name, d.title, d.email, desc)
    referred: dict[Ref, dict[str, NameRecord]] = {}
    for d in sorted(tree.descriptors, key=lambda d: d.file):
        for m in d.mentions:
            t = m.target
            if t is not None and not (t in defined and defined[t].file == d.file):
                referred.setdefault(t, {}).setdefault(
                    d.file, _labels(d.file, t, t.name, description=f"Backstage {KINDS.get(t.kind, t.kind)} {t.text}"))
    out: dict[Ref, EntityRecord] = {}
    for r in sorted({*defined, *referred}, key=lambda r: r.entity_id(world)):  # by ID: not by which files exist
        sources = ((defined[r],) if r in defined else ()) + tuple(referred.get(r, {}).values())
        first = sources[0]
        aliases = dict.fromkeys(a for s in sources for a in (s.name, *s.aliases))
        out[r] = EntityRecord(r.entity_id(world), first.name, tuple(a for a in aliases if a != first.name),
                              first.description, sources)
    return out


def render_file(rel: str, text: str, descriptors: list[Descriptor], entities: dict[Ref, EntityRecord],
                world: str, warnings: list[Issue], root: Path, defined: set[Ref] | None = None) -> str:
    """The document a descriptor file becomes: a paragraph per entity, each relation line quoted, then its clauses.

    The text depends on this file alone (and the world): a reference to an entity the tree does not
    define states its relation as any other does (``defined``, the refs the tree defines, only decides
    the ``dangling_reference`` warning the importer is told), so deleting a file another reader may
    not read changes no other document. A relation the file states twice (a reference repeated, in
    one entity or by the inverse of another's) is stated once: the repeats are counted, not quoted."""
    lines = text.split("\n")
    digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
    head = [f"# Backstage descriptors: {rel}", "",
            f"Imported by chainret catalog import --format backstage from {rel} (sha256:{digest}, {len(lines)} lines): "
            "one paragraph per entity; its spec.type line and each relation field's YAML line are quoted with their "
            "line numbers, then the type it states and the clause of each relation it states.", ""]
    body: list[str] = []
    stated: set[tuple[str, str, str]] = set()  # (subject, predicate, object) of each clause written
    for d in descriptors:
        ent = entities.get(d.ref)
        if ent is None or ent.id != d.ref.entity_id(world):
            continue
        para = [f"Entity {d.kind_label} {d.ref.text} ({ent.name}): {rel} document {d.index}, lines {d.first_line}-{d.last_line}."]
        if d.spec_type:  # the line that says what kind of entity it is, quoted, then said in one form
            quoted = lines[d.spec_type_line - 1].strip() if 0 < d.spec_type_line <= len(lines) else ""
            para += [f"line {d.spec_type_line}: `{quoted}`", TYPE_STATEMENT.format(d.spec_type)]
        quoted_at = 0
        repeats = 0
        for m in d.mentions:
            target = entities.get(m.target) if m.target is not None else None
            pair = ((ent.id, m.relation, target.id), (target.id, m.inverse, ent.id)) if target is not None else None
            if pair is not None and set(pair) <= stated:
                repeats += 1
                continue
            if m.line != quoted_at:  # a flow list states several relations on one line: quoted once
                quoted = lines[m.line - 1].strip() if 0 < m.line <= len(lines) else ""
                para.append(f"line {m.line}: `{quoted}`")
                quoted_at = m.line
            if m.target is None or pair is None:
                para.append(f"({m.problem}: no relation)")
                continue
            if defined is not None and m.target not in defined:
                warnings.append(_issue("dangling_reference", root / rel, m.line,
                                       f"document {d.index}: spec.{m.field} names {m.target.text}, which no descriptor in the "
                                       "tree defines: the relation is stated, and the entity is known by its reference only",
                                       "warning"))
            for triple in pair:
                if triple not in stated:
                    stated.add(triple)
                    para.append(clause_text(*triple))
        if repeats:
            para.append(f"({repeats} more reference{'s' if repeats > 1 else ''} to relations stated above: not repeated)")
        body.extend([*para, ""])
    if not body:
        body = ["(no entity in this file)", ""]
    return "\n".join(head + body)
