#!/usr/bin/env python3
"""Replaces the section of a Markdown file that starts with HEADING (a
"## " line, up to the next "## " line) with the text of SECTION_FILE, or
appends it if the file has no such section.

Usage: scripts/replace-section.py FILE HEADING SECTION_FILE
"""
import re
import sys

path, heading, section = sys.argv[1:]
new = open(section).read().rstrip("\n") + "\n"
text = open(path).read()
pattern = r"^" + re.escape(heading) + r"\n.*?(?=^## |\Z)"
m = re.search(pattern, text, flags=re.S | re.M)
if m:
    text = text[: m.start()] + new + ("\n" if m.end() < len(text) else "") + text[m.end():]
else:
    text = text.rstrip("\n") + "\n\n" + new
open(path, "w").write(text)
