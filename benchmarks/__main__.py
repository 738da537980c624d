"""``python -m benchmarks``: regenerate results pages or check their aims, from ``benchmarks/manifest.yaml``.

    python -m benchmarks list                    # every page, its commands and aims
    python -m benchmarks run store cold_cli      # run the pages' commands (rewrites the pages)
    python -m benchmarks run store --cheap       # the cheapest run of each command (a size or --help): a try-out
    python -m benchmarks run --dry-run           # print what would run
    python -m benchmarks check                   # each aim: met / not met / no figures / manual, from saved JSON

``run`` with no page runs every page that is not marked heavy (``--heavy`` adds those: hours of CPU, the
benchmark data folder or a model). ``check`` runs nothing: it reads each page's saved figures
(``results`` in the manifest) and exits 1 when an aim it can check is not met.
"""

from __future__ import annotations

import argparse
import os
import shlex
import subprocess
import sys

from benchmarks.harness.manifest import REPO, Manifest, judge, load, machine_text, saved_results


def argv_of(command: str) -> tuple[list[str], dict[str, str]]:
    """A manifest command as (argv, environment): leading ``VAR=value`` words go to the environment and
    ``python`` is this interpreter, so the page is written by the same Python that runs this command."""
    words = shlex.split(command)
    env = dict(os.environ)
    while words and "=" in words[0] and not words[0].startswith("-"):
        name, _, value = words.pop(0).partition("=")
        env[name] = value
    return [sys.executable if w == "python" else w for w in words], env


def _pages(manifest: Manifest, names: list[str]) -> list[str]:
    unknown = [n for n in names if n not in manifest.pages]
    if unknown:
        raise SystemExit(f"not in benchmarks/manifest.yaml: {', '.join(unknown)} (pages: {', '.join(manifest.pages)})")
    return names or list(manifest.pages)


def run(manifest: Manifest, names: list[str], *, cheap: bool, heavy: bool, dry_run: bool) -> int:
    status = 0
    for name in _pages(manifest, names):
        page = manifest.pages[name]
        if page.heavy and not heavy and not cheap and not names:
            print(f"{name}: heavy, left out (name it, or pass --heavy)")
            continue
        if cheap and not page.cheap:
            print(f"{name}: no cheap run in the manifest, left out")
            continue
        commands = [page.cheap] if cheap else page.commands
        for command in commands:
            print(f"{name}: {command}", flush=True)
            if dry_run:
                continue
            argv, env = argv_of(command)
            done = subprocess.run(argv, cwd=REPO, env=env)
            if done.returncode != 0:
                print(f"{name}: `{command}` exited {done.returncode}", file=sys.stderr)
                status = 1
                break
    return status


def check(manifest: Manifest, names: list[str]) -> int:
    missed = 0
    for name in _pages(manifest, names):
        page = manifest.pages[name]
        results = saved_results(page)
        if not page.aims:
            print(f"{name} ({page.page}): no aim stated")
            continue
        machine = machine_text(results) if results is not None else ""
        where = (page.results + (f"; {machine}" if machine else "")) if results is not None else "no saved figures: " + (
            f"{page.results} is written by `{page.commands[-1]}`" if page.results else "the command saves none yet")
        print(f"{name} ({page.page}; {where})")
        for aim in page.aims:
            verdict, detail = judge(aim, results)
            missed += verdict == "not met"
            print(f"  {verdict:>12}  {aim.aim}" + (f"  [{detail}]" if detail else ""))
    return 1 if missed else 0


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__,
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = ap.add_subparsers(dest="what", required=True)
    sub.add_parser("list", help="every page, its commands and aims")
    r = sub.add_parser("run", help="run pages' commands (rewrites the pages)")
    r.add_argument("pages", nargs="*")
    r.add_argument("--cheap", action="store_true", help="the cheapest run of each page's command (a size or --help)")
    r.add_argument("--heavy", action="store_true", help="with no page named, include the heavy pages")
    r.add_argument("--dry-run", action="store_true", help="print the commands, run nothing")
    c = sub.add_parser("check", help="each page's aims against its saved figures (runs nothing)")
    c.add_argument("pages", nargs="*")
    args = ap.parse_args(argv)
    manifest = load()
    if args.what == "list":
        for name, page in manifest.pages.items():
            print(f"{name}: {page.page}{' (heavy)' if page.heavy else ''}")
            for command in page.commands:
                print(f"  $ {command}")
            for aim in page.aims:
                print(f"  aim: {aim.aim} ({aim.source}; {'manual' if aim.check == 'manual' else 'checked'})")
        return 0
    if args.what == "run":
        return run(manifest, args.pages, cheap=args.cheap, heavy=args.heavy, dry_run=args.dry_run)
    return check(manifest, args.pages)


if __name__ == "__main__":
    sys.exit(main())
