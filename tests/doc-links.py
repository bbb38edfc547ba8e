#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""doc-links.py [selftest]: every relative link of the tracked Markdown files resolves.

A link `[text](path#anchor)` (or an image) that is not a URL must name a file or folder of the
tree, and its anchor a heading of that file as GitHub spells it; `(#anchor)` names one in the
same file. Links inside code are not links. Prints one line per broken link and a count; exits
1 if any is broken. Run from the repository's top folder (make check does)."""

import os
import re
import subprocess
import sys

LINK = re.compile(r"!?\[(?:[^\]\\]|\\.)*\]\(([^()\s]+)(?:\s+\"[^\"]*\")?\)")
HEADING = re.compile(r"^(#{1,6})\s+(.*?)\s*#*\s*$")
FENCE = re.compile(r"^\s*(```|~~~)")


def slug(text):
    """GitHub's anchor of a heading: markup gone, lower case, punctuation dropped, spaces to -.
    Emphasis is markup only at word boundaries (`rtt_variation` keeps its underscores), and
    never inside code."""
    parts = re.split(r"(`[^`]*`)", text)
    for i, part in enumerate(parts):
        if part.startswith("`") and part.endswith("`") and len(part) > 1:
            parts[i] = part[1:-1]
            continue
        part = re.sub(r"!?\[([^\]]*)\]\([^)]*\)", r"\1", part)
        parts[i] = re.sub(r"(?<!\w)([*_]{1,2})(.+?)\1(?!\w)", r"\2", part)
    text = "".join(parts).strip().lower()
    text = "".join(c for c in text if c.isalnum() or c in " -_")
    return text.replace(" ", "-")


def prose_lines(text, code=False):
    """The lines outside fenced code, with inline code blanked out unless `code`."""
    fenced = False
    for n, line in enumerate(text.splitlines(), 1):
        if FENCE.match(line):
            fenced = not fenced
            continue
        if not fenced:
            yield n, line if code else re.sub(r"`[^`]*`", "``", line)


def anchors(text):
    """Every heading's anchor, duplicates numbered as GitHub numbers them (-1, -2, ...)."""
    seen, out = {}, set()
    for _, line in prose_lines(text, code=True):
        m = HEADING.match(line)
        if not m:
            continue
        base = slug(m.group(2))
        k = seen.get(base, 0)
        seen[base] = k + 1
        out.add(base if k == 0 else f"{base}-{k}")
    # Explicit HTML anchors (<a id="..."> or name=) count too.
    out.update(re.findall(r"<a\s+(?:id|name)=\"([^\"]+)\"", text))
    return out


def broken_links(path, text, read):
    """(line, target, why) for each link of `path` that does not resolve; `read(p)` gives a
    file's text (None for a folder, KeyError if it does not exist)."""
    out = []
    for n, line in prose_lines(text):
        for target in LINK.findall(line):
            if re.match(r"^[a-z][a-z0-9+.-]*:", target):  # http:, https:, mailto:
                continue
            file, _, anchor = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(path), file)) if file else path
            try:
                dest_text = read(dest)
            except KeyError:
                out.append((n, target, "no such file"))
                continue
            if anchor and dest_text is not None and anchor not in anchors(dest_text):
                out.append((n, target, "no such heading"))
    return out


def selftest():
    files = {"a.md": "# Top\n## Cost per packet\n## `make check`\n## Dup\n## Dup\n"
                     "## rtt_variation_host and `ins_target`, **bold** _it_\n",
             "d/b.md": "see [a](../a.md#cost-per-packet) and [c](../a.md#make-check)\n"
                       "[u](../a.md#rtt_variation_host-and-ins_target-bold-it)\n"
                       "[dup](../a.md#dup-1) ![f](fig.svg) [web](https://x.org/y)\n"
                       "`[not](a link)`\n```\n[not](either)\n```\n",
             "d/fig.svg": "<svg/>"}
    bad = {"d/c.md": ("[x](../a.md#nope)", "no such heading"),
           "d/e.md": ("[x](missing.md)", "no such file"),
           "d/f.md": ("[x](#here)", "no such heading"),
           "d/g.md": ("[x](../a.md#dup-2)", "no such heading")}

    def read(p):
        if p == "d":
            return None
        return {**files, **{k: v[0] for k, v in bad.items()}}[p]
    ok = True
    got = broken_links("d/b.md", files["d/b.md"], read)
    ok &= got == []
    print(("ok" if got == [] else "not ok") + " - links to files, headings, images, URLs; code skipped")
    for path, (text, why) in bad.items():
        got = broken_links(path, text, read)
        good = [g[2] for g in got] == [why]
        ok &= good
        print(("ok" if good else "not ok") + f" - {text} is '{why}' ({got})")
    return 0 if ok else 1


def main():
    if sys.argv[1:] == ["selftest"]:
        return selftest()
    tracked = subprocess.run(["git", "ls-files"], capture_output=True, text=True,
                             check=True).stdout.split("\n")
    tracked = [p for p in tracked if p]
    folders = set()
    for p in tracked:
        while (p := os.path.dirname(p)) and p not in folders:
            folders.add(p)

    files = set(tracked)

    def read(p):
        # What GitHub serves: tracked files and their folders, not what lies in this checkout.
        if p in folders or p == ".":
            return None
        if p not in files:
            raise KeyError(p)
        with open(p, encoding="utf-8") as f:
            return f.read() if p.endswith(".md") else ""

    broken = 0
    pages = [p for p in tracked if p.endswith(".md")]
    for path in pages:
        with open(path, encoding="utf-8") as f:
            text = f.read()
        for n, target, why in broken_links(path, text, read):
            print(f"{path}:{n}: {target}: {why}")
            broken += 1
    print(f"doc-links: {len(pages)} pages, {broken} broken links")
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
