"""vectors/resume_v2.json."""

from resume import resume_v2 as build

FILE = "resume_v2.json"
INDENT = 1
__all__ = ["FILE", "INDENT", "build"]
