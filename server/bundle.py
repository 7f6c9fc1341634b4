"""A hosted bot's files as they travel and are kept: a folder packed into a gzipped tar (the
same bytes for the same files), unpacked again only into a folder of our own, within limits.

The content hash (``sha256``) is of the files, not of the archive: SHA-256 over every regular
file's path, executable bit and contents, and every link's path and target, in path order. A
folder, its tar.gz and its zip hash alike, and ``bot submit`` prints the hash the server keeps.
"""
from __future__ import annotations

import hashlib
import io
import os
import stat
import tarfile
import zipfile
from pathlib import Path

#: What one submission may hold (``serve --max-submission-mb`` changes the first).
MAX_ARCHIVE = 50 * 1024 * 1024
MAX_UNPACKED = 200 * 1024 * 1024
MAX_FILES = 20_000


class BundleError(ValueError):
    """A folder or archive that cannot be a hosted bot's files (one line, said to its author)."""


def _walk(root: Path) -> list[Path]:
    out = []
    for dirpath, dirnames, filenames in os.walk(root):
        dirnames.sort()
        for name in sorted(dirnames + filenames):
            p = Path(dirpath) / name
            if p.is_symlink() or not p.is_dir():
                out.append(p)
    return sorted(out, key=lambda p: p.relative_to(root).as_posix())


def content_hash(root: Path) -> tuple[str, int]:
    """(hex SHA-256 of the files under ``root``, their bytes in all): the module docstring."""
    h, size = hashlib.sha256(), 0
    for p in _walk(root):
        rel = p.relative_to(root).as_posix().encode()
        if p.is_symlink():
            h.update(b"L\0" + rel + b"\0" + os.readlink(p).encode() + b"\0")
            continue
        st = p.stat()
        if not stat.S_ISREG(st.st_mode):
            continue
        digest = hashlib.sha256()
        with open(p, "rb") as f:
            for chunk in iter(lambda: f.read(1 << 20), b""):
                digest.update(chunk)
        size += st.st_size
        h.update(b"F\0" + rel + b"\0" + (b"x" if st.st_mode & 0o111 else b"-") + digest.digest())
    return h.hexdigest(), size


def pack(root: Path, limit: int = MAX_ARCHIVE) -> bytes:
    """The files under ``root`` as a gzipped tar: sorted, owner 0, time 0, modes 0644/0755, so
    the same files give the same bytes (an empty folder is not kept). Raises :class:`BundleError` past ``limit`` bytes."""
    root = Path(root)
    if not root.is_dir():
        raise BundleError(f"{root} is not a folder")
    buf = io.BytesIO()
    with tarfile.open(fileobj=buf, mode="w:gz", format=tarfile.PAX_FORMAT, compresslevel=6) as tar:
        count = 0
        for p in _walk(root):
            count += 1
            if count > MAX_FILES:
                raise BundleError(f"{root} holds more than {MAX_FILES:,} files")
            info = tar.gettarinfo(str(p), arcname=p.relative_to(root).as_posix())
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            info.mtime = 0
            if info.isreg():
                info.mode = 0o755 if info.mode & 0o111 else 0o644
                with open(p, "rb") as f:
                    tar.addfile(info, f)
            elif info.issym():
                tar.addfile(info)
            if buf.tell() > limit:
                raise BundleError(f"{root} packs to more than {limit // (1024 * 1024)} MB (the server's limit)")
    data = buf.getvalue()
    if len(data) > limit:
        raise BundleError(f"{root} packs to more than {limit // (1024 * 1024)} MB (the server's limit)")
    return data


def archive_format(path: Path) -> str:
    name = path.name.lower()
    if name.endswith((".tar.gz", ".tgz")):
        return "tar.gz"
    if name.endswith(".zip"):
        return "zip"
    raise BundleError(f"{path}: give a folder, a .tar.gz or a .zip")


def unpack(data: bytes, fmt: str, dest: Path, *, max_unpacked: int = MAX_UNPACKED) -> None:
    """Unpack an archive into the empty folder ``dest``: nothing outside it is written (no
    absolute path, no ``..``, no link out, no device), at most ``max_unpacked`` bytes and
    :data:`MAX_FILES` files; else :class:`BundleError`."""
    dest.mkdir(parents=True, exist_ok=True)
    try:
        if fmt == "tar.gz":
            with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
                members = tar.getmembers()
                _within(len(members), sum(m.size for m in members if m.isreg()), max_unpacked)
                tar.extractall(dest, filter="data")
        elif fmt == "zip":
            with zipfile.ZipFile(io.BytesIO(data)) as z:
                infos = z.infolist()
                _within(len(infos), sum(i.file_size for i in infos), max_unpacked)
                for info in infos:
                    target = (dest / info.filename).resolve()
                    if not target.is_relative_to(dest.resolve()):
                        raise BundleError(f"the zip names {info.filename!r}, outside its folder")
                    z.extract(info, dest)
                    mode = (info.external_attr >> 16) & 0o777
                    if mode & 0o111 and not info.is_dir():
                        os.chmod(target, 0o755)
        else:
            raise BundleError(f"unknown archive format {fmt!r}: tar.gz or zip")
    except (tarfile.TarError, zipfile.BadZipFile, EOFError, OSError) as e:
        raise BundleError(f"the files cannot be unpacked: {e}") from None
    # readable by the sandbox's own user, whoever unpacked them
    for dirpath, dirnames, filenames in os.walk(dest):
        os.chmod(dirpath, 0o755)
        for name in filenames:
            p = Path(dirpath) / name
            if not p.is_symlink():
                os.chmod(p, 0o755 if p.stat().st_mode & 0o111 else 0o644)


def _within(count: int, size: int, max_unpacked: int) -> None:
    if count > MAX_FILES:
        raise BundleError(f"the files are more than {MAX_FILES:,}")
    if size > max_unpacked:
        raise BundleError(f"the files unpack to more than {max_unpacked // (1024 * 1024)} MB")
