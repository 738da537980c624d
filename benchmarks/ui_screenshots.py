"""Screenshots for the README: `chainret serve`'s /ui and a standalone `trace show --html` page.

    python -m benchmarks.ui_screenshots          # writes docs/img/ui-auditor.png, ui-public.png, trace-standalone.png

Needs Chromium (Debian: apt-get install chromium; or CHAINRET_CHROMIUM=/path) and the playwright
package (the `test` extra). The server runs the seed world with its contact registry auditor-only
(the restricted-second-hop case's overlay), with throw-away tokens, on a free loopback port; the
same question is asked with an auditor token and with none (public), and verified. The standalone
page is traces/supply/backtrack.json (a backtracking chain) opened from disk with JavaScript off.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from benchmarks.harness.local_server import LocalServer

ROOT = Path(__file__).resolve().parents[1]

from chainret.catalog.load import apply_overlay, load_world  # noqa: E402
from chainret.server.auth import hash_token, new_token  # noqa: E402

OUT = ROOT / "docs" / "img"
CHROMIUM = os.environ.get("CHAINRET_CHROMIUM", "/usr/bin/chromium")
REQUEST = "Which contact serves project PR-84?"
WIDTH = 1100


def main(argv: list[str]) -> None:
    import argparse

    argparse.ArgumentParser(prog="python -m benchmarks.ui_screenshots", description=__doc__,
                            formatter_class=argparse.RawDescriptionHelpFormatter).parse_args(argv)
    from playwright.sync_api import sync_playwright

    OUT.mkdir(parents=True, exist_ok=True)
    auditor = new_token()
    with tempfile.TemporaryDirectory() as tmp_name:
        tmp = Path(tmp_name)
        world = load_world(ROOT / "fixtures" / "seed")
        case = next(c for c in world.cases if c.id == "restricted-second-hop")
        catalog = tmp / "seed.json"
        catalog.write_text(json.dumps(apply_overlay(world.catalog, case.overlay, label=case.id).model_dump(mode="json")))
        tokens = tmp / "tokens.json"
        tokens.write_text(json.dumps({"format": "chainret-tokens/1", "tokens": [
            {"name": "audit", "sha256": hash_token(auditor), "principal": "auditor", "viewers": ["public"]}]}))
        trace_html = tmp / "backtrack.html"
        subprocess.run([sys.executable, "-m", "chainret", "trace", "show", str(ROOT / "traces" / "supply" / "backtrack.json"),
                        "--html", str(trace_html)], check=True, cwd=ROOT, stdout=subprocess.DEVNULL)
        with LocalServer(["--catalog", str(catalog), "--tokens", str(tokens), "--rate", "0"], log=tmp / "serve.log") as srv, \
                sync_playwright() as p:
            browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox", "--disable-gpu"])
            for name, token in (("ui-auditor", auditor), ("ui-public", None)):
                page = browser.new_page(viewport={"width": WIDTH, "height": 1300})
                page.goto(srv.url + "/ui")
                page.wait_for_function("() => document.getElementById('patterns').dataset.loads === '1'")
                if token:  # the patterns and views load again, for the token's principal
                    page.fill("#token", token)
                    page.dispatch_event("#token", "change")
                    page.wait_for_function("() => document.getElementById('patterns').dataset.loads === '2'")
                page.fill("#request", REQUEST)
                page.select_option("#view", "final")
                page.click("#ask")
                page.wait_for_selector("#answer")
                page.click("#verify")
                page.wait_for_selector("#verify-status")
                page.evaluate("window.scrollTo(0, 0)")
                page.screenshot(path=str(OUT / f"{name}.png"), clip={"x": 0, "y": 0, "width": WIDTH, "height": 1150})
                page.close()
            ctx = browser.new_context(java_script_enabled=False, offline=True, viewport={"width": WIDTH, "height": 1300})
            page = ctx.new_page()
            page.goto(trace_html.as_uri())
            page.screenshot(path=str(OUT / "trace-standalone.png"), clip={"x": 0, "y": 0, "width": WIDTH, "height": 1300})
            browser.close()
    for name in ("ui-auditor", "ui-public", "trace-standalone"):
        print(f"wrote {(OUT / f'{name}.png').relative_to(ROOT)}")


if __name__ == "__main__":
    main(sys.argv[1:])
