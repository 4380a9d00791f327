"""The static web client, "the site" (issue 41): ``truc-p2p site build DIR`` writes it,
``truc-p2p site check URL|DIR`` compares a deployed copy with this build.

The site is HTML, CSS and JS, Pyodide from its npm package, the noble curves, this
package's own wheel and msgpack's pure-Python modules: every download pinned in
``pins.json`` and checked against its hash, nothing fetched from a CDN at run time.
"""

from __future__ import annotations

from truc_p2p.site._build import (
    CONTENT_TYPES,
    CSP,
    MANIFEST,
    SiteBuild,
    build_site,
    check_target,
    site_files,
    write_site,
)
from truc_p2p.site._check import CheckReport, check_site, reader_for
from truc_p2p.site._fetch import Pin, SiteError, cache_dir, fetch, load_pins

__all__ = [
    "CONTENT_TYPES",
    "CSP",
    "MANIFEST",
    "CheckReport",
    "Pin",
    "SiteBuild",
    "SiteError",
    "build_site",
    "cache_dir",
    "check_site",
    "check_target",
    "fetch",
    "load_pins",
    "reader_for",
    "site_files",
    "write_site",
]
