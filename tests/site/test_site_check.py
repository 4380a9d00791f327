"""``truc-p2p site check URL|DIR``: a deployed site compared with this build, one line
per difference, exit status 0 only when identical; a bad target is one line."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest
from helpers.site import serve_folder

from truc_p2p.cli import main
from truc_p2p.site import SiteBuild, SiteError, check_site, reader_for, site_files, write_site


@pytest.fixture
def copy(site_dir: Path, tmp_path: Path) -> Path:
    """A copy of the built site to tamper with."""
    return Path(shutil.copytree(site_dir, tmp_path / "deployed"))


def test_an_identical_site_is_identical(site: SiteBuild, site_dir: Path) -> None:
    report = check_site(reader_for(str(site_dir)), site)
    assert report.identical and report.differences == ()
    assert report.checked == len(site.files) - 1  # every file but the manifest itself


def test_every_kind_of_difference_is_one_line(site: SiteBuild, copy: Path) -> None:
    boot = copy / "boot.js"
    boot.write_bytes(boot.read_bytes().replace(b"Python ready", b"Python 0wned"))
    (copy / "vendor" / "pyodide" / "pyodide.asm.wasm").unlink()
    report = check_site(reader_for(str(copy)), site)
    assert not report.identical
    assert [line.split(":")[0] for line in report.differences] == [
        "boot.js",
        "boot.js",
        "vendor/pyodide/pyodide.asm.wasm",
    ]
    assert report.differences[0].startswith("boot.js: differs from this build (")
    assert report.differences[1] == "boot.js: its manifest gives another hash than the file served"
    assert report.differences[2] == "vendor/pyodide/pyodide.asm.wasm: missing"


def test_a_site_with_its_own_consistent_manifest_is_still_another_build(
    site: SiteBuild, copy: Path
) -> None:
    """A tamperer who also rewrites the manifest: the build and the file still differ."""
    (copy / "app.js").write_text("// evil\n")
    manifest = json.loads((copy / "manifest.json").read_text())
    manifest["build"] = "0" * 64
    manifest["files"]["app.js"] = {"sha256": "x", "size": 8}
    manifest["files"]["extra.js"] = {"sha256": "y", "size": 1}
    (copy / "manifest.json").write_text(json.dumps(manifest))
    lines = check_site(reader_for(str(copy)), site).differences
    assert lines[0] == f"manifest.json: build '{'0' * 64}', this build's is '{site.build}'"
    assert "extra.js: in its manifest, not in this build" in lines
    assert any(line.startswith("app.js: differs from this build") for line in lines)


def test_a_site_served_over_http(site: SiteBuild, site_dir: Path, copy: Path) -> None:
    with serve_folder(site_dir) as url:
        assert check_site(reader_for(url), site).identical
        assert check_site(reader_for(url.rstrip("/")), site).identical
    (copy / "site.json").write_text("{}")
    with serve_folder(copy) as url:
        differs, listed = check_site(reader_for(url), site).differences
        assert differs.startswith("site.json: differs from this build (2 bytes, ")
        assert listed == "site.json: its manifest gives another hash than the file served"


def test_a_target_that_is_no_site_is_one_error(tmp_path: Path, site: SiteBuild) -> None:
    with pytest.raises(SiteError, match="no such folder"):
        reader_for(str(tmp_path / "nowhere"))
    with pytest.raises(SiteError, match="not an http"):
        reader_for("ftp://example.org/site/")
    with pytest.raises(SiteError, match=r"no manifest\.json there"):
        check_site(reader_for(str(tmp_path)), site)
    (tmp_path / "manifest.json").write_text("[1, 2]")
    with pytest.raises(SiteError, match="not a site manifest"):
        check_site(reader_for(str(tmp_path)), site)
    with pytest.raises(SiteError, match=r"^http://127.0.0.1:9/manifest.json: unreachable"):
        check_site(reader_for("http://127.0.0.1:9/"), site)


@pytest.mark.slow  # three builds
def test_the_command(site: SiteBuild, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """The command compares with the build the command makes (this package's files;
    ``site`` has filled the download cache)."""
    folder = tmp_path / "site"
    write_site(site_files(offline=True), folder)
    assert main(["site", "check", "--offline", str(folder)]) == 0
    out = capsys.readouterr().out
    assert out.startswith("identical to this build: ") and out.count("\n") == 1
    (folder / "table.css").write_text("body { display: none }")
    assert main(["site", "check", "--offline", str(folder)]) == 1
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("table.css: differs from this build")
    assert lines[-1].startswith("2 differences from this build (")
    assert main(["site", "check", "--offline", "http://127.0.0.1:9/"]) == 1
    (line,) = capsys.readouterr().out.splitlines()
    assert line.startswith("truc-p2p site: http://127.0.0.1:9/manifest.json: unreachable")
