"""What scripts/fetch_tourapi_*.py share: reading a pinned source (from GitHub, or a copy given with
--from), walking a code tree depth first into `level`, `code`, `name`, `parent` rows, and writing
those rows as the tab-separated tables of data/ (provenance: data/README.md).

A table is a header line `level code name parent`, then one line per code, each code followed by the
codes under it, in the order given. NearbyKit's `TourCodeTable` reads it.
"""
import argparse
import urllib.request

HEADER = ("level", "code", "name", "parent")


def raw_url(repo, commit, path):
    """The address of one file of a public GitHub repository at a pinned commit."""
    return f"https://raw.githubusercontent.com/{repo}/{commit}/{path}"


def read_text(url, copy=None):
    """The text of `copy` when given (a local file), else of `url`, as UTF-8."""
    if copy:
        with open(copy, encoding="utf-8") as f:
            return f.read()
    with urllib.request.urlopen(url, timeout=60) as response:
        return response.read().decode("utf-8")


def walk(nodes, name, children, order=None, nested=False):
    """The rows of a code tree, depth first: each node as (level, code, name, parent), then the nodes
    under it. `name(node)` is its name, or None to leave the node and everything under it out;
    `children` the key of the nodes under it; `order(node)`, when given, sorts each level; `nested`
    requires each code to start with its parent's."""

    def rows(level_nodes, level, parent):
        for node in sorted(level_nodes, key=order) if order else level_nodes:
            code = node["code"].strip()
            text = name(node)
            if text is None:
                continue
            text = text.strip()
            if not code or not text or "\t" in text or "\n" in text or (nested and not code.startswith(parent)):
                raise SystemExit(f"unexpected entry at level {level}: {node!r}")
            yield (str(level), code, text, parent)
            yield from rows(node.get(children, []), level + 1, code)

    return list(rows(nodes, 1, ""))


def write_table(path, rows, unique=True):
    """Writes `rows` under the header; with `unique`, refuses a code that appears twice."""
    codes = [r[1] for r in rows]
    if unique and len(codes) != len(set(codes)):
        raise SystemExit("a code appears twice")
    with open(path, "w", encoding="utf-8", newline="\n") as out:
        out.write("\t".join(HEADER) + "\n")
        for r in rows:
            out.write("\t".join(r) + "\n")
    counts = [sum(1 for r in rows if r[0] == str(n)) for n in (1, 2, 3)]
    by_level = " / ".join(str(c) for c in counts if c)
    print(f"{path}: {len(rows)} codes ({by_level} by level)")


def arguments(doc, source_help, default_out, extra=None):
    """The command line every fetch script takes: --from (a local copy of the source) and --out;
    `extra(parser)` adds a script's own."""
    parser = argparse.ArgumentParser(description=doc.split("\n\n")[0])
    parser.add_argument("--from", dest="source", help=source_help)
    parser.add_argument("--out", default=default_out)
    if extra:
        extra(parser)
    return parser.parse_args()
