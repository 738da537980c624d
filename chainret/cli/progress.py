"""The CLI's side of ``chainret.core.progress``: rich's progress bar on a terminal, nothing elsewhere.

``progress_bar()`` yields the callback to pass to an import or a compile. On a terminal (stderr, where
the bar is drawn, so stdout stays the command's result) each stage is one line of the bar: a spinner
when its total is unknown, else a bar with done/total, the rate and the time left. In a pipe, a
redirect, on a dumb terminal, or when the caller asks for none (``--json``-style output), it yields
``no_progress``: not one byte of progress is written. The bar is transient: once the work is done the
lines are cleared and only the command's own summary stays.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

from rich.console import Console
from rich.progress import (
    TaskID,
    BarColumn,
    DownloadColumn,
    MofNCompleteColumn,
    Progress,
    ProgressColumn,
    SpinnerColumn,
    Task,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
    TransferSpeedColumn,
)
from rich.text import Text

from chainret.cli.render import err_console
from chainret.core.progress import Progress as ProgressCallback
from chainret.core.progress import no_progress


class _Count(ProgressColumn):
    """done/total in the task's unit: bytes as MB, anything else as a count."""

    def __init__(self) -> None:
        super().__init__()
        self.download, self.count = DownloadColumn(), MofNCompleteColumn()

    def render(self, task: Task) -> Text:
        if task.total is None:
            shown = f"{int(task.completed)} {task.fields.get('unit', '')}".rstrip() if task.completed else ""
            return Text(shown, style="progress.download")
        if task.fields.get("unit") == "bytes":
            return self.download.render(task)
        return Text(f"{self.count.render(task)} {task.fields.get('unit', '')}".rstrip(), style="progress.download")


class _Rate(ProgressColumn):
    """Units per second (bytes as MB/s)."""

    def __init__(self) -> None:
        super().__init__()
        self.transfer = TransferSpeedColumn()

    def render(self, task: Task) -> Text:
        if task.fields.get("unit") == "bytes":
            return self.transfer.render(task)
        speed = task.finished_speed or task.speed
        if speed is None or task.total is None and not task.completed:
            return Text("")
        return Text(f"{speed:,.0f} {task.fields.get('unit', '')}/s", style="progress.data.speed")


class _Eta(ProgressColumn):
    """The time left, where the total is known."""

    def __init__(self) -> None:
        super().__init__()
        self.remaining = TimeRemainingColumn()

    def render(self, task: Task) -> Text:
        if task.total is None:
            return Text("")
        return Text("eta ") + self.remaining.render(task)


@contextmanager
def progress_bar(console: Console | None = None, *, enabled: bool = True) -> Iterator[ProgressCallback]:
    """The progress callback for one command: a rich bar on a terminal, ``no_progress`` otherwise."""
    con = console or err_console
    if not enabled or not con.is_terminal or con.is_dumb_terminal:
        yield no_progress
        return
    bar = Progress(SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), _Count(), _Rate(),
                   TimeElapsedColumn(), _Eta(), console=con, transient=True)
    tasks: dict[str, TaskID] = {}
    last: list[str] = []

    def report(stage: str, done: int, total: int | None = None, unit: str = "") -> None:
        if stage not in tasks:
            if last:  # a new stage: the previous one is over (one line: the stage under way)
                bar.remove_task(tasks[last[0]])
            tasks[stage] = bar.add_task(stage, total=total, unit=unit)
            last[:] = [stage]
        bar.update(tasks[stage], completed=done, total=total)

    with bar:
        yield report
