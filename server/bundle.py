"""A hosted bot's files as they travel and are kept: a folder packed into a gzipped tar (the
same bytes for the same files), unpacked again only into a folder of our own, within limits.

The content hash (``sha256``) is of the files, not of the archive: SHA-256 over every regular
file's path, executable bit and contents, and every link's path and target, in path order. A
folder, its tar.gz and its zip hash alike, and ``bot submit`` prints the hash the server keeps.
"""
from __future__ import annotations

import gzip
import hashlib
import io
import os
import posixpath
import shutil
import stat
import tarfile
import zipfile
import zlib
from pathlib import Path, PurePosixPath

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
            if info.islnk():  # a file with several names: each packed as the file itself
                info.type, info.linkname, info.size = tarfile.REGTYPE, "", p.stat().st_size
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
    absolute path, no ``..``, no link out, no path through a link, no hard link, no device), at
    most ``max_unpacked`` bytes and :data:`MAX_FILES` files; else :class:`BundleError`.

    A tar is read member by member and written by hand, not by ``tarfile``'s extraction and
    its ``data`` filter (which Python versions before 3.11.13 let a link chain past, CVE-2025-4517):
    every name and link target is judged by its words alone, regular files are written before
    any link exists, and the links last, none of them inside another. A zip's entries are
    counted from its end record before its directory is read."""
    dest.mkdir(parents=True, exist_ok=True)
    try:
        if fmt == "tar.gz":
            _unpack_tar(data, dest, max_unpacked)
        elif fmt == "zip":
            _within(_zip_entries(data), 0, max_unpacked)
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
        # readable by the sandbox's own user, whoever unpacked them
        for dirpath, dirnames, filenames in os.walk(dest):
            os.chmod(dirpath, 0o755)
            for name in filenames:
                p = Path(dirpath) / name
                if not p.is_symlink():
                    os.chmod(p, 0o755 if p.stat().st_mode & 0o111 else 0o644)
    except (tarfile.TarError, zipfile.BadZipFile, EOFError, OSError, zlib.error) as e:
        raise BundleError(f"the files cannot be unpacked: {e}") from None


def _member_path(name: str) -> PurePosixPath:
    """A member's path inside the folder, from its name alone; a name that could leave the
    folder, or is no path at all, is refused."""
    if len(name.encode()) > _MAX_PATH or any(len(p.encode()) > 255 for p in name.split("/")):
        raise BundleError(f"the archive names a path of {len(name.encode()):,} bytes, or a part of one longer than "
                          f"255 (at most {_MAX_PATH:,} and 255): {name[:60]!r}…")
    parts = [p for p in name.split("/") if p not in ("", ".")]
    if "\0" in name or name.startswith("/") or not parts or ".." in parts:
        raise BundleError(f"the archive names {name[:200]!r}: not a path inside the folder")
    return PurePosixPath(*parts)


_MAX_PATH = 1024  # bytes of a member's name; far below the system's PATH_MAX


class _Capped:
    """The tar stream, decompressed as tarfile reads it, refusing what no bot's files need:
    a read of more than :data:`_MOST_READ` bytes at once (tarfile reads a pax or GNU long-name
    header whole, whatever size it declares: a 1.5 MB archive once cost 1.7 GB), or a stream
    longer than the files' limit and their headers' room."""

    def __init__(self, data: bytes, most: int):
        self._gz = gzip.GzipFile(fileobj=io.BytesIO(data), mode="rb")
        self._most = most

    def read(self, n: int = -1) -> bytes:
        if n is None or n < 0 or n > _MOST_READ:
            size = "unbounded" if n is None or n < 0 else f"{n:,}"
            raise BundleError(f"the archive holds a header or block of {size} bytes (at most {_MOST_READ:,})")
        out = self._gz.read(n)
        self._check()
        return out

    def seek(self, offset: int, whence: int = 0) -> int:
        where = self._gz.seek(offset, whence)
        self._check()
        return where

    def tell(self) -> int:
        return self._gz.tell()

    def _check(self) -> None:
        if self._gz.tell() > self._most:
            raise BundleError(f"the files unpack to more than {self._most // (1024 * 1024)} MB with their headers")


_MOST_READ = 1 << 20  # a header, or a block of a file's bytes as they are copied (64 KB)


def _unpack_tar(data: bytes, dest: Path, max_unpacked: int) -> None:
    links: dict[PurePosixPath, str] = {}
    count = size = 0
    stream = _Capped(data, max_unpacked + (MAX_FILES + 2) * 4096)  # each member's headers and padding
    with tarfile.open(fileobj=stream, mode="r:") as tar:
        while (m := tar.next()) is not None:  # one member at a time: the count stops a flood of them
            count += 1
            if count > MAX_FILES:
                raise BundleError(f"the files are more than {MAX_FILES:,}")
            rel = _member_path(m.name)
            if any(parent in links for parent in rel.parents):
                raise BundleError(f"the archive names {m.name[:200]!r} inside the link {_first_link(rel, links)}")
            if m.isdir():
                (dest / rel).mkdir(parents=True, exist_ok=True)
            elif m.isreg():
                size += m.size
                if size > max_unpacked:
                    raise BundleError(f"the files unpack to more than {max_unpacked // (1024 * 1024)} MB")
                (dest / rel).parent.mkdir(parents=True, exist_ok=True)
                fd = os.open(dest / rel, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_NOFOLLOW,
                             0o755 if m.mode & 0o111 else 0o644)
                with os.fdopen(fd, "wb") as out, tar.extractfile(m) as src:
                    shutil.copyfileobj(src, out)
            elif m.issym():
                target = m.linkname
                if not target or target.startswith("/") or "\0" in target or len(target) > _MAX_PATH:
                    raise BundleError(f"the link {m.name[:200]!r} points to {target[:200]!r}, outside the folder")
                where = posixpath.normpath(posixpath.join(rel.parent.as_posix(), target))
                if where == ".." or where.startswith("../"):
                    raise BundleError(f"the link {m.name[:200]!r} points to {target[:200]!r}, outside the folder")
                links[rel] = target
            elif m.islnk():
                raise BundleError(f"the archive holds a hard link ({m.name[:200]!r}); pack the file itself")
            else:
                raise BundleError(f"the archive holds {m.name[:200]!r}, which is no file, folder or link")
    for rel, target in links.items():
        _no_climb_through_links(rel, target, links)
    made = set()
    for rel, target in links.items():  # last: no file was written through a link
        if any(parent in made for parent in rel.parents):  # a link within a link, made earlier
            raise BundleError(f"the archive names {rel.as_posix()[:200]!r} inside the link {_first_link(rel, made)}")
        path = dest / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.is_symlink() or path.exists():
            raise BundleError(f"the archive names {rel.as_posix()[:200]!r} twice")
        os.symlink(target, path)
        made.add(rel)


def _no_climb_through_links(rel: PurePosixPath, target: str, links) -> None:
    """A target's words hold only where no ``..`` follows a link: ``esc -> d/s/..`` with
    ``d/s -> ..`` is ``d`` by its words and the folder's parent in fact. Going on down through a
    link (``node_modules/.bin/x -> ../pkg/cli.js``, ``pkg`` a link) stays inside."""
    at: list[str] = list(rel.parent.parts)
    through = False
    for part in target.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if through:
                raise BundleError(f"the link {rel.as_posix()[:200]!r} points to {target[:200]!r}: up again "
                                  "after passing through a link, which could leave the folder")
            at = at[:-1]
        else:
            at.append(part)
            through = through or PurePosixPath(*at) in links


def _first_link(rel: PurePosixPath, links) -> str:
    return next((repr(p.as_posix()) for p in reversed(rel.parents) if p in links), "?")


def _zip_entries(data: bytes) -> int:
    """The entries of a zip, counted in its central directory without ``zipfile`` (which builds
    an object for every entry before any can be counted), up to one past :data:`MAX_FILES`, or
    what its end record says if that is more."""
    at = data.rfind(b"PK\x05\x06", max(0, len(data) - 65_557))
    if at < 0 or len(data) < at + 22:
        raise BundleError("the files cannot be unpacked: not a zip file")
    said = int.from_bytes(data[at + 10:at + 12], "little")
    size = int.from_bytes(data[at + 12:at + 16], "little")
    end = at  # the central directory ends where the end records begin
    record = at - 20 - 56  # a zip64 end record, where zipfile reads it: just before its locator
    if record >= 0 and data[at - 20:at - 16] == b"PK\x06\x07" and data[record:record + 4] == b"PK\x06\x06":
        said = int.from_bytes(data[record + 32:record + 40], "little")
        size = int.from_bytes(data[record + 40:record + 48], "little")
        end = record
    count, pos = 0, end - size
    while 0 <= pos and pos + 46 <= end and data[pos:pos + 4] == b"PK\x01\x02" and count <= MAX_FILES:
        count += 1
        pos += 46 + sum(int.from_bytes(data[pos + i:pos + i + 2], "little") for i in (28, 30, 32))
    return max(count, said)


def _within(count: int, size: int, max_unpacked: int) -> None:
    if count > MAX_FILES:
        raise BundleError(f"the files are more than {MAX_FILES:,}")
    if size > max_unpacked:
        raise BundleError(f"the files unpack to more than {max_unpacked // (1024 * 1024)} MB")
