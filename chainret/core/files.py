"""Writing files: the one home of chainret's atomic write (temporary file, fsync, ``os.replace``).

``check_output_path`` refuses targets that must not be replaced; ``atomic_write_text`` writes one
file so readers see the old file or the new one, never half; ``write_files`` writes several so that
none is half-written (all temporaries first, then the renames). Imports nothing from chainret but
the errors.

Who may read what is written here: an output the user asked for (a trace to attach to a ticket, an
HTML page, a catalog) is ``"shared"`` by default: created with the user's umask, as ``open`` and
other tools create files. ``"private"`` (mode 0600, as ``tempfile.mkstemp``) is for what chainret
keeps for itself.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Literal

from chainret.core.errors import OutputError

Mode = Literal["shared", "private"]
# The permissions a new file is created with (the kernel then clears the umask's bits from them).
_PERMISSIONS: dict[str, int] = {"shared": 0o666, "private": 0o600}


def _new_temp(target: Path, mode: Mode = "shared") -> tuple[int, str]:
    """A new file beside ``target``, created exclusively as ``tempfile.mkstemp`` does, with ``mode``'s permissions.

    Written here because ``tempfile`` imports ``shutil``, ``bz2``, ``lzma`` and ``random`` (several ms
    of a cold ``chainret ask``, which writes its trace file this way)."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        tmp = str(target.parent / f".{target.name[:100]}.{os.urandom(8).hex()}.tmp")
        try:
            return os.open(tmp, flags, _PERMISSIONS[mode]), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"{target.parent}: no free temporary file name beside {target.name}")


def _temp_copy(target: Path, text: str, mode: Mode = "shared") -> str:
    """``text`` in a new temporary file beside ``target`` (flushed to disk); its path."""
    fd, tmp = _new_temp(target, mode)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.write(text)
            fh.flush()
            os.fsync(fh.fileno())
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return tmp


def check_output_path(path: str | os.PathLike[str], *, create_parent: bool = True) -> Path:
    """Refuse, with a clear ``OutputError``, a target that must not be written or replaced.

    A directory, a symlink, a FIFO, a device or a socket is never replaced; the parent must be a
    writable directory (created first when ``create_parent``, else it must exist).
    """
    import stat

    target = Path(path)
    try:
        st = os.lstat(target)
    except FileNotFoundError:
        st = None
    except OSError as exc:
        raise OutputError(f"{target}: cannot write here: {exc.strerror}") from None
    if st is not None and not stat.S_ISREG(st.st_mode):
        kind = ("a directory (give a file name)" if stat.S_ISDIR(st.st_mode) else
                "a symbolic link (chainret never replaces a link; name the file itself)" if stat.S_ISLNK(st.st_mode) else
                "a named pipe" if stat.S_ISFIFO(st.st_mode) else "a device" if stat.S_ISCHR(st.st_mode) or stat.S_ISBLK(st.st_mode)
                else "a special file")
        raise OutputError(f"{target} is {kind}; chainret writes only regular files")
    parent = target.parent
    if not parent.exists() and create_parent:
        try:
            parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise OutputError(f"{target}: cannot create the directory {parent}: {exc.strerror}") from None
    if not parent.exists():
        raise OutputError(f"{target}: the directory {parent} does not exist")
    if not parent.is_dir():
        raise OutputError(f"{target}: {parent} is not a directory")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise OutputError(f"{target}: the directory {parent} is not writable")
    return target


def atomic_write_text(path: str | os.PathLike[str], text: str, *, exclusive: bool = False, mode: Mode = "shared") -> Path:
    """Write ``text`` to ``path`` atomically: readers see the old file or the new one, never half.

    ``check_output_path`` runs first. ``exclusive``: the name must be new (``FileExistsError``
    otherwise), so concurrent writers of generated names never overwrite each other. ``mode``: who
    may read the file (see the module docstring).
    """
    target = check_output_path(path)
    try:
        tmp = _temp_copy(target, text, mode)
    except OSError as exc:
        raise OutputError(f"{target}: cannot write in {target.parent}: {exc.strerror}") from None
    claimed = False
    try:
        if exclusive:  # claim the name first: O_EXCL fails if another writer has it
            os.close(os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
            claimed = True
        os.replace(tmp, target)
    except FileExistsError:
        Path(tmp).unlink(missing_ok=True)
        raise
    except BaseException as exc:  # (Ctrl-C included: the empty file that claimed the name goes too)
        Path(tmp).unlink(missing_ok=True)
        if claimed:
            target.unlink(missing_ok=True)
        if isinstance(exc, OSError):
            raise OutputError(f"{target}: cannot write: {exc.strerror or exc}") from None
        raise
    return target


def write_files(texts: dict[Path, str], *, mode: Mode = "shared") -> None:
    """Write several files so that none is half-written: all temporaries first, then the renames."""
    temps: list[tuple[str, Path]] = []
    try:
        for target, text in texts.items():
            target.parent.mkdir(parents=True, exist_ok=True)
            temps.append((_temp_copy(target, text, mode), target))
        for tmp, target in temps:
            os.replace(tmp, target)
    finally:
        for tmp, _ in temps:
            Path(tmp).unlink(missing_ok=True)
