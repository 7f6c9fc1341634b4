"""A submission's archive, unpacked as an attacker would build it: nothing is written outside the
folder it is unpacked into, whatever names, links and counts the archive holds, and a refusal is
one line. The archives are made here, member by member, as `tarfile` lets anyone write them."""
from __future__ import annotations

import io
import os
import tracemalloc
import zipfile
from pathlib import Path

import pytest

from cardarena.server import bundle

from sandboxkit import link_chain, tar_of as _tar


@pytest.fixture
def box(tmp_path):
    """(the folder to unpack into, a file beside it that no archive may reach)"""
    dest = tmp_path / "a" / "b" / "files"
    (tmp_path / "a" / "b").mkdir(parents=True)
    return dest, tmp_path / "a" / "outside.txt"


def _refused(data: bytes, dest: Path, words: str, fmt: str = "tar.gz") -> str:
    with pytest.raises(bundle.BundleError) as e:
        bundle.unpack(data, fmt, dest)
    message = str(e.value)
    assert words in message and "\n" not in message, message
    return message


def _peak_of_refusal(data: bytes, dest: Path, words: str) -> int:
    """The most memory Python held while the archive was refused (:func:`_refused`), in bytes."""
    tracemalloc.start()
    try:
        _refused(data, dest, words)
        return tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()


def test_a_plain_archive_unpacks_with_its_links_inside_and_its_modes(box):
    dest, _ = box
    data = _tar(("bot.py", "file", "print('hi')\n"), ("lib/", "dir", None), ("lib/util.py", "file", "x = 1\n"),
                ("run", "sym", "bot.py"), ("lib/up", "sym", "../bot.py"), ("node_modules/.bin/go", "sym", "../../run"))
    bundle.unpack(data, "tar.gz", dest)
    assert (dest / "bot.py").read_text() == "print('hi')\n" and (dest / "lib" / "util.py").read_text() == "x = 1\n"
    assert os.readlink(dest / "run") == "bot.py" and (dest / "lib" / "up").read_text() == "print('hi')\n"
    assert (dest / "node_modules" / ".bin" / "go").read_text() == "print('hi')\n"
    assert (dest / "bot.py").stat().st_mode & 0o777 == 0o755


@pytest.mark.parametrize("name", ["/etc/cardarena-owned", "../outside.txt", "lib/../../outside.txt", "./../x", ""])
def test_a_name_that_leaves_the_folder_is_refused(box, name):
    dest, outside = box
    _refused(_tar(("bot.py", "file", "x"), (name, "file", "owned")), dest, "not a path inside the folder")
    assert not outside.exists() and not Path("/etc/cardarena-owned").exists()


@pytest.mark.parametrize("target", ["/etc", "../..", "../../outside.txt", "lib/../../..", "a/../../../b"])
def test_a_link_out_of_the_folder_is_refused(box, target):
    dest, _ = box
    _refused(_tar(("lib/", "dir", None), ("lib/out", "sym", target)), dest, "outside the folder")


def test_nothing_is_written_through_a_link(box):
    """A link that stays inside, then a file named through it: refused, as is a link made
    inside another link (whose words alone would look inside)."""
    dest, outside = box
    _refused(_tar(("d/", "dir", None), ("l", "sym", "d"), ("l/x.py", "file", "owned")), dest, "inside the link 'l'")
    # a/b/l -> ../.. is the folder itself; a/b/l/m -> ../x would be a/b/x by its words, but is
    # made in the folder itself, so it would point out of it
    _refused(_tar(("a/b/", "dir", None), ("a/b/l", "sym", "../.."), ("a/b/l/m", "sym", "../outside.txt")),
             dest, "inside the link 'a/b/l'")
    assert not outside.exists()


def test_the_link_chain_of_cve_2025_4517_writes_nothing_outside(box):
    """Python's own `data` filter before 3.11.13 let this chain of links past PATH_MAX write
    outside the folder (the attack as published, sized for this folder's path)."""
    dest, outside = box
    with pytest.raises(bundle.BundleError) as e:
        bundle.unpack(link_chain(len(str(dest)), 2, "outside.txt"), "tar.gz", dest)
    assert "\n" not in str(e.value)
    assert not outside.exists()
    assert not any(p.name == "outside.txt" for p in dest.parent.parent.rglob("*") if p.is_file())


def test_hard_links_and_devices_are_refused(box):
    dest, _ = box
    _refused(_tar(("bot.py", "file", "x"), ("again.py", "hard", "bot.py")), dest, "hard link")
    _refused(_tar(("pipe", "fifo", None),), dest, "no file, folder or link")


def test_a_flood_of_members_is_refused_at_the_limit_without_reading_them_all(box, monkeypatch):
    dest, _ = box
    monkeypatch.setattr(bundle, "MAX_FILES", 100)
    flood = _tar(*[(f"f{i}", "dir", None) for i in range(20_000)])
    peak = _peak_of_refusal(flood, dest, "more than 100")
    # 20,000 members read at once would hold 20,000 TarInfo objects (several MB); 101 do not
    assert peak < 2_000_000, peak


def test_past_the_bytes_limit_is_refused(box):
    dest, _ = box
    with pytest.raises(bundle.BundleError, match="more than 1 MB"):
        bundle.unpack(_tar(("a", "file", "x" * 700_000), ("b", "file", "y" * 700_000)), "tar.gz", dest,
                      max_unpacked=1024 * 1024)


@pytest.mark.parametrize("entries, said", [(101, None), (300, 1)])
def test_a_zip_of_too_many_entries_is_refused_before_zipfile_reads_its_directory(box, monkeypatch, entries, said):
    """Counted in its central directory: an end record that says "1 entry" does not hide them
    (zipfile would read them all anyway, by the directory's size)."""
    dest, _ = box
    monkeypatch.setattr(bundle, "MAX_FILES", 100)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for i in range(entries):
            z.writestr(f"f{i}", "")
    data = bytearray(buf.getvalue())
    if said is not None:
        at = data.rfind(b"PK\x05\x06")
        data[at + 8:at + 12] = said.to_bytes(2, "little") * 2
    assert bundle._zip_entries(bytes(data)) == 101  # counted up to one past the limit
    read = []
    monkeypatch.setattr(zipfile.ZipFile, "_RealGetContents", lambda self: read.append(1))
    _refused(bytes(data), dest, "more than 100", fmt="zip")
    assert read == []


def test_a_zip_unpacks_and_one_naming_a_path_out_is_refused(box):
    dest, outside = box
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        z.writestr("bot.py", "print('hi')\n")
    bundle.unpack(buf.getvalue(), "zip", dest)
    assert (dest / "bot.py").read_text() == "print('hi')\n"
    assert bundle._zip_entries(buf.getvalue()) == 1
    _refused(b"PK\x03\x04 not a zip", dest.parent / "other", "not a zip", fmt="zip")
    assert not outside.exists()


def test_a_folder_with_a_file_of_two_names_packs_both_as_files(tmp_path):
    folder = tmp_path / "bot"
    folder.mkdir()
    (folder / "bot.py").write_text("print('hi')\n")
    os.link(folder / "bot.py", folder / "same.py")
    data = bundle.pack(folder)
    out = tmp_path / "out"
    bundle.unpack(data, "tar.gz", out)
    assert (out / "same.py").read_text() == (out / "bot.py").read_text() == "print('hi')\n"
    assert bundle.content_hash(out) == bundle.content_hash(folder)


def test_unpacking_a_packed_folder_gives_the_same_files(tmp_path):
    folder = tmp_path / "bot"
    (folder / "lib").mkdir(parents=True)
    (folder / "bot.py").write_text("print('hi')\n")
    (folder / "bot.py").chmod(0o755)
    (folder / "lib" / "x.txt").write_text("x" * 10_000)
    os.symlink("../bot.py", folder / "lib" / "run")
    out = tmp_path / "out"
    bundle.unpack(bundle.pack(folder), "tar.gz", out)
    assert bundle.content_hash(out) == bundle.content_hash(folder)



def _gz_of_header(kind: bytes, size: int) -> bytes:
    """A tar.gz whose first member is a pax (``x``) or GNU long-name (``L``) header declaring
    ``size`` bytes, and holding them (a small archive: they compress to almost nothing)."""
    import tarfile
    import zlib
    info = tarfile.TarInfo("././@LongLink")
    info.type, info.size = kind, size
    z, out = zlib.compressobj(6, zlib.DEFLATED, 31), io.BytesIO()
    out.write(z.compress(info.tobuf(tarfile.USTAR_FORMAT, "utf-8", "surrogateescape")))
    chunk = (b"a" if kind == tarfile.XHDTYPE else b"\0") * (1 << 20)
    for _ in range(size // len(chunk)):
        out.write(z.compress(chunk))
    bot = tarfile.TarInfo("bot.py")
    bot.size = 3
    out.write(z.compress(bot.tobuf(tarfile.USTAR_FORMAT, "utf-8", "surrogateescape") + b"x=1".ljust(512, b"\0")))
    out.write(z.compress(b"\0" * 1024) + z.flush())
    return out.getvalue()


@pytest.mark.parametrize("kind", [b"x", b"L"], ids=["pax", "gnu-long-name"])
def test_a_header_declaring_megabytes_is_refused_before_it_is_read(box, kind):
    """tarfile reads a pax or GNU long-name header whole, whatever size it declares: a 1.5 MB
    archive declaring 1.5 GB once took 1.7 GB of the server's memory and its GIL for seconds."""
    dest, _ = box
    data = _gz_of_header(kind, 64 << 20)
    assert len(data) < 1 << 20
    assert _peak_of_refusal(data, dest, "header or block of 67,108,864 bytes") < 16 << 20


def test_a_zip64_end_record_where_zipfile_reads_it_is_the_one_counted(box, monkeypatch):
    """zipfile takes the zip64 end record just before its locator, whatever offset the locator
    gives; so does the count (a locator pointing elsewhere hid 980,000 entries)."""
    dest, _ = box
    monkeypatch.setattr(bundle, "MAX_FILES", 100)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as z:
        for i in range(300):
            z.writestr(f"f{i}", "")
    data = bytearray(buf.getvalue())
    at = data.rfind(b"PK\x05\x06")
    size, offset = int.from_bytes(data[at + 12:at + 16], "little"), int.from_bytes(data[at + 16:at + 20], "little")
    record = (b"PK\x06\x06" + (44).to_bytes(8, "little") + (45).to_bytes(2, "little") * 2 + bytes(8)
              + (300).to_bytes(8, "little") * 2 + size.to_bytes(8, "little") + offset.to_bytes(8, "little"))
    locator = b"PK\x06\x07" + bytes(4) + (0).to_bytes(8, "little") + (1).to_bytes(4, "little")  # offset 0: a lie
    end = bytearray(data[at:])
    end[8:12] = bytes(4)  # the end record: "0 entries", as a zip64's may say 0xFFFF
    data = bytes(data[:at]) + record + locator + bytes(end)
    assert len(zipfile.ZipFile(io.BytesIO(data)).infolist()) == 300  # zipfile reads them all
    assert bundle._zip_entries(data) == 300
    _refused(data, dest, "more than 100", fmt="zip")


def test_a_link_that_climbs_after_passing_through_a_link_is_refused(box):
    """esc -> d/s/.. is d by its words, but with d/s -> .. it is the folder's parent; going on
    down through a link stays inside and is kept (node_modules/.bin's links do so)."""
    dest, outside = box
    _refused(_tar(("d/", "dir", None), ("d/s", "sym", ".."), ("esc", "sym", "d/s/..")), dest,
             "up again after passing through a link")
    bundle.unpack(_tar(("pkg-1/cli.js", "file", "x"), ("pkg", "sym", "pkg-1"), ("bin/cli", "sym", "../pkg/cli.js")),
                  "tar.gz", dest.parent / "ok")
    assert (dest.parent / "ok" / "bin" / "cli").read_text() == "x"
