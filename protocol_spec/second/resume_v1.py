"""vectors/resume_v1.json."""

from resume import resume_v1 as build

FILE = "resume_v1.json"
INDENT = 1
__all__ = ["FILE", "INDENT", "build"]
