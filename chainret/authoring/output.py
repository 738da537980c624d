"""Writing a build: deterministic YAML/JSON, several files replaced together (no half-written output)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from chainret.catalog.models import CATALOG_FORMAT, Catalog
from chainret.core.files import write_files

if TYPE_CHECKING:
    from chainret.authoring.build import BuildResult


def render(data: dict[str, Any], suffix: str, banner: str) -> str:
    """YAML (block scalars for multi-line text) or JSON, deterministic."""
    if suffix == ".json":
        return json.dumps(data, indent=1, ensure_ascii=False) + "\n"
    import yaml

    class Dumper(yaml.SafeDumper):
        pass

    def _str(dumper: yaml.SafeDumper, value: str) -> yaml.Node:
        if any(c in "\x85\u2028\u2029\r" or (c not in "\n\t" and not c.isprintable()) for c in value):
            style: str | None = '"'  # YAML reads NEL/LS/PS as line breaks: escape them (and other controls)
        else:
            style = "|" if "\n" in value and "\t" not in value and value == value.rstrip(" ") else None
        return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)

    Dumper.add_representer(str, _str)
    return banner + yaml.dump(data, Dumper=Dumper, sort_keys=False, allow_unicode=True, width=120)


def catalog_data(catalog: Catalog) -> dict[str, Any]:
    """The catalog as file data: defaults left out (they load back to the same records and digest)."""
    return {"format": CATALOG_FORMAT, **catalog.model_dump(mode="json", exclude_defaults=True)}


def output_texts(result: BuildResult, src: str | os.PathLike[str]) -> dict[Path, str]:
    banner = (f"# Built by `chainret catalog build` from the source folder {Path(src).name!r}: edit the source files and rebuild;\n"
              "# digests, spans, relation IDs, versions and views are computed, never typed.\n")
    texts = {result.catalog_file: render(catalog_data(result.catalog), result.catalog_file.suffix, banner)}
    if result.cases is not None:
        data = {"format": "chainret-cases/1", **result.cases.model_dump(mode="json", exclude_defaults=True)}
        texts[result.cases_file] = render(data, result.cases_file.suffix, banner)
    return texts


def sync(texts: dict[Path, str], *, check: bool = False) -> list[Path]:
    """The files whose content differs from ``texts``; written (replaced together) unless ``check``."""
    stale = {p: t for p, t in texts.items() if not p.is_file() or p.read_text(encoding="utf-8") != t}
    if stale and not check:
        write_files(stale)
    return list(stale)


def sync_command(texts: dict[Path, str], root: Path, argv: list[str]) -> int:
    """A generator script's ``main``: write the stale files (``--check``: only list them, exit 1 if any)."""
    check = "--check" in argv
    stale = sync(texts, check=check)
    for path in stale:
        print(("stale: " if check else "wrote ") + str(path.relative_to(root)))
    return 1 if stale and check else 0


def write_build(result: BuildResult, src: str | os.PathLike[str]) -> list[Path]:
    """Write the catalog (and cases) of a build; returns the files whose content changed."""
    return sync(output_texts(result, src))


def refreshed_header(header_file: Path, quotes: dict[int, str]) -> str:
    """The header's text with ``relations[i].quote`` set to ``quotes[i]``, every other byte kept
    (comments, order, layout): each quote's scalar is replaced where the YAML parser found it."""
    import yaml

    text = header_file.read_text(encoding="utf-8")
    root = yaml.compose(text)
    rels = next((v for k, v in getattr(root, "value", []) if getattr(k, "value", None) == "relations"), None)
    edits: list[tuple[int, int, str]] = []
    for i, node in enumerate(getattr(rels, "value", [])):
        quote = next((v for k, v in getattr(node, "value", []) if getattr(k, "value", None) == "quote"), None)
        if i in quotes and isinstance(quote, yaml.ScalarNode):
            edits.append((quote.start_mark.index, quote.end_mark.index, json.dumps(quotes[i], ensure_ascii=False)))
    for start, end, new in sorted(edits, reverse=True):
        text = text[:start] + new + text[end:]
    return text
