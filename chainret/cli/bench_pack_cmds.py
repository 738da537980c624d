"""Placeholder: registers its commands on bench_app when filled in."""

from chainret.cli.bench_cmds import bench_app  # noqa: F401
