#!/usr/bin/env python3
# usage: python3 scripts/check-doc-links.py [REPOSITORY_ROOT]   (exit 1 when a link is broken)
"""Every relative link in README.md and docs/*.md points to a file that exists (and, for #anchors
into Markdown files, to a heading that exists)."""
import os, re, sys, glob
root = sys.argv[1] if len(sys.argv) > 1 else "."
files = [os.path.join(root, "README.md")] + sorted(glob.glob(os.path.join(root, "docs", "*.md")))
link = re.compile(r"\[[^\]]*\]\(([^)\s]+)\)")
def anchors(path):
    out = set()
    for line in open(path, encoding="utf-8"):
        m = re.match(r"#+\s+(.*)", line)
        if m:
            h = m.group(1).strip().lower()
            h = re.sub(r"[^\w\- ]", "", h)   # GitHub: drop punctuation, keep word chars, - and spaces
            out.add(h.replace(" ", "-"))
    return out
bad = 0; n = 0
for f in files:
    text = open(f, encoding="utf-8").read()
    text = re.sub(r"```.*?```", "", text, flags=re.S)   # code blocks hold no links
    for target in link.findall(text):
        if re.match(r"[a-z]+:", target): continue   # URLs (https:, mailto:) are not files
        n += 1
        path, _, frag = target.partition("#")
        full = os.path.normpath(os.path.join(os.path.dirname(f), path)) if path else f
        if not os.path.exists(full):
            print(f"{f}: {target}: no such file"); bad += 1; continue
        if frag and full.endswith(".md") and frag not in anchors(full):
            print(f"{f}: {target}: no heading #{frag}"); bad += 1
print(f"{n} relative links checked in {len(files)} files, {bad} broken")
sys.exit(1 if bad else 0)
