"""vectors/resume_clock_v1.json."""

from resume import resume_clock as build

FILE = "resume_clock_v1.json"
INDENT = 1
__all__ = ["FILE", "INDENT", "build"]
