#!/usr/bin/env python3
"""Check that the ListDiffKit folders form layers that read bottom-up.

A file may use types from its own layer and from lower layers only.
The check fails when a file names a type declared in a higher layer.

Usage: Scripts/check-layers.py [--list]
  --list  print each file with its layer, then run the check.
"""
import os
import re
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "Sources", "ListDiffKit")

# The layers, bottom to top. Each entry is a folder (ending in "/") or a
# single file, relative to Sources/ListDiffKit. ARCHITECTURE.md says what
# each layer holds.
LAYERS = [
    ("System", ["System/"]),
    ("Model", ["Model/"]),
    ("Formats", ["Formats/"]),
    ("Comparison", ["Comparison/"]),
    ("Algorithms", ["Algorithms/"]),
    ("Changeset", ["Changeset/"]),
    ("Engine", ["Engine/"]),
    ("Output", ["Renderers/", "Replay/", "Apply/"]),
    ("Front", ["Differ.swift", "Configuration.swift", "ConfigurationFile.swift", "FileDiffer.swift", "TreeDiffer.swift", "GitDiffer.swift", "FileMerger.swift", "ChangesetAlgebra.swift", "Shards.swift", "Spill.swift", "KeyDiscovery.swift", "ListDiffKit.docc/"]),
]

# Swift standard library and Foundation names. A project type with one of
# these names never counts, because the name most often means the library one.
STDLIB = set("""
Any AnyObject Array Bool Character Collection Comparable Data Decoder Dictionary
Double Element Encoder Equatable Error Float Hashable Index Int Int8 Int16 Int32
Int64 Iterator Never Optional Range Result Self Sendable Sequence Set String
Substring Type UInt UInt8 UInt16 UInt32 UInt64 Void
""".split())

TYPE_WORDS = {"struct", "class", "enum", "protocol", "actor"}
# Words that can follow "class" but are not a type name ("class func f()").
NOT_NAMES = {"func", "var", "let", "subscript", "init", "override", "final", "static"}
# Top-level "typealias A = B.C" lines, filled in by main(), so that
# "extension A" is read as "extension B.C".
ALIASES = {}


def strip(text):
    """Blank out comments and string literals, keeping the code inside string
    interpolations. Newlines are kept so line numbers stay right."""
    out, n = [], len(text)

    def blank(a, b):
        out.append(re.sub(r"[^\n]", " ", text[a:b]))

    def code(i, inside):
        # Copy code from i. If inside an interpolation, stop after its closing ")".
        depth = 0
        while i < n:
            if text.startswith("//", i):
                j = text.find("\n", i)
                j = n if j < 0 else j
                blank(i, j)
                i = j
            elif text.startswith("/*", i):
                # Swift block comments can nest.
                level, j = 0, i
                while j < n:
                    if text.startswith("/*", j):
                        level, j = level + 1, j + 2
                    elif text.startswith("*/", j):
                        level, j = level - 1, j + 2
                        if level == 0:
                            break
                    else:
                        j += 1
                blank(i, j)
                i = j
            elif re.match(r'#*"', text[i:i + 8]):
                i = string(i)
            else:
                out.append(text[i])
                depth += {"(": 1, ")": -1}.get(text[i], 0)
                i += 1
                if inside and depth == 0:
                    return i
        return n

    def string(i):
        # A string literal: "..", """..""", #".."# and so on. Returns the index after it.
        j = i
        while text[j] == "#":
            j += 1
        hashes = "#" * (j - i)
        quote = '"""' if text.startswith('"""', j) else '"'
        close, escape = quote + hashes, "\\" + hashes
        j += len(quote)
        blank(i, j)
        while j < n:
            if text.startswith(escape, j):
                k = j + len(escape)
                if text[k:k + 1] == "(":
                    blank(j, k)
                    j = code(k, True)  # an interpolation: keep its code
                else:
                    blank(j, k + 1)
                    j = k + 1
            elif text.startswith(close, j):
                blank(j, j + len(close))
                return j + len(close)
            else:
                blank(j, j + 1)
                j += 1
        return n

    code(0, False)
    return "".join(out)


TOKEN = re.compile(r"`?([A-Za-z_][A-Za-z0-9_]*)`?|(\n)|([{}().<>])")


def tokens(text):
    """Yield (line, token) for identifiers and the few marks we need."""
    line = 1
    for m in TOKEN.finditer(strip(text)):
        if m.group(2):
            line += 1
        else:
            yield line, m.group(1) or m.group(3)


def walk(toks):
    """Yield (index, scope stack) for every token, following braces.

    Each scope is (kind, name): kind "type" for a type or extension body
    (name is the full dotted name), "other" for any other braces.
    """
    stack, pending = [], None
    for i, (line, tok) in enumerate(toks):
        yield i, stack
        prev = toks[i - 1][1] if i else ""
        if prev in TYPE_WORDS | {"extension"} and re.match(r"[A-Za-z_]", tok) and tok not in NOT_NAMES:
            # Read a dotted name such as Value.Object after "extension".
            name, j = tok, i + 1
            while prev == "extension" and j + 1 < len(toks) and toks[j][1] == "." and re.match(r"\w", toks[j + 1][1]):
                name, j = name + "." + toks[j + 1][1], j + 2
            pending = real(name) if prev == "extension" else qualify(stack, name)
        if tok == "{":
            stack = stack + [("type", pending) if pending else ("other", None)]
            pending = None
        elif tok == "}" and stack:
            stack = stack[:-1]


def real(name):
    """Follow a top-level typealias at the start of a dotted name."""
    first, dot, rest = name.partition(".")
    return ALIASES.get(first, first) + dot + rest


def qualify(stack, name):
    """Full dotted name of a type declared inside the given scopes."""
    if any(kind == "other" for kind, _ in stack):
        return None  # a local type inside a function; never visible elsewhere
    return stack[-1][1] + "." + name if stack else name


def layer_of(rel):
    """The layer index for a file, or None. The longest matching entry wins."""
    best = None
    for index, (_, entries) in enumerate(LAYERS):
        for e in entries:
            if rel == e or (e.endswith("/") and rel.startswith(e)):
                if best is None or len(e) > best[1]:
                    best = (index, len(e))
    return best and best[0]


def main():
    files = sorted(os.path.relpath(os.path.join(d, f), ROOT)
                   for d, _, fs in os.walk(ROOT) for f in fs if f.endswith(".swift"))
    errors = 0
    layer = {}
    for rel in files:
        layer[rel] = layer_of(rel)
        if layer[rel] is None:
            print(f"error: {rel} is in no layer; add it to LAYERS in {sys.argv[0]}")
            errors += 1
    for _, entries in LAYERS:
        for e in entries:
            if not os.path.exists(os.path.join(ROOT, e)):
                print(f"error: LAYERS names {e}, which does not exist")
                errors += 1
    if errors:
        return 1
    if "--list" in sys.argv:
        for rel in files:
            print(f"{LAYERS[layer[rel]][0]:<24} {rel}")

    toks = {}
    for rel in files:
        with open(os.path.join(ROOT, rel), encoding="utf-8") as f:
            toks[rel] = list(tokens(f.read()))
        # Note top-level typealiases that just rename a nested type.
        t = toks[rel]
        for i, stack in walk(t):
            if not stack and t[i - 1][1] == "typealias" and i + 2 < len(t) and t[i + 1][1] == "=":
                j, rhs = i + 2, []
                while j < len(t) and (re.match(r"\w", t[j][1]) or t[j][1] == "."):
                    rhs.append(t[j][1])
                    j += 1
                if "." in rhs:
                    ALIASES[t[i][1]] = "".join(rhs)

    # Pass 1: find every type declared, keyed by its full dotted name.
    declared, local = {}, {}  # declared: name -> layer; local: file -> names of local types
    for rel in files:
        t = toks[rel]
        local[rel] = set()
        for i, stack in walk(t):
            prev = t[i - 1][1] if i else ""
            tok = t[i][1]
            if prev not in TYPE_WORDS | {"typealias"} or not re.match(r"[A-Za-z_]", tok) or tok in NOT_NAMES:
                continue
            full = qualify(stack, tok)
            if full is None:
                local[rel].add(tok)
                continue
            if full in STDLIB:
                continue  # a top-level name that the standard library also uses
            if full in declared and declared[full] != layer[rel]:
                print(f"warning: {full} is declared in {LAYERS[declared[full]][0]} and {LAYERS[layer[rel]][0]}; using the lower")
                declared[full] = min(declared[full], layer[rel])
            else:
                declared.setdefault(full, layer[rel])
        if sum(tok == "{" for _, tok in t) != sum(tok == "}" for _, tok in t):
            print(f"warning: {rel}: braces do not balance; scopes may be wrong")

    # Pass 2: look at every identifier and report types from higher layers.
    found = 0
    for rel in files:
        t, mine = toks[rel], layer[rel]
        for i, stack in walk(t):
            line, tok = t[i]
            if not re.match(r"[A-Z_]", tok) or (i and t[i - 1][1] == "."):
                continue  # members start lower case; a name after "." is handled with its prefix
            if i and t[i - 1][1] in ("func", "var", "let"):
                continue  # the name of a member being declared, not a type
            if i and t[i - 1][1] == "case" and stack and stack[-1][0] == "type":
                continue  # an enum case declared in a type body, not a type
            # Collect the dotted chain A.B.C starting here.
            chain, j = [tok], i + 1
            while j + 1 < len(t) and t[j][1] == "." and re.match(r"[A-Z_]", t[j + 1][1]):
                chain.append(t[j + 1][1])
                j += 2
            # Swift looks a name up in the enclosing types first (innermost
            # first, and for A.B also in A), then at top level.
            bases = []
            for kind, n in reversed(stack):
                parts = (n or "").split(".") if kind == "type" else []
                bases += [".".join(parts[:k]) + "." for k in range(len(parts), 0, -1)]
            target = next((b + tok for b in bases + [""] if b + tok in declared), None)
            if target == tok and tok in local[rel]:
                continue  # a type declared inside a function of this file
            if target is None:
                continue  # not a project type (standard library, Foundation, generic parameter)
            # Use the longest declared dotted name, e.g. Changeset.Change.Operation.
            for part in chain[1:]:
                if target + "." + part in declared:
                    target += "." + part
                else:
                    break
            if declared[target] > mine:
                print(f"Sources/ListDiffKit/{rel}:{line}: {LAYERS[mine][0]} uses {target} from {LAYERS[declared[target]][0]}")
                found += 1
    if found:
        print(f"{found} layer violation(s)")
        return 1
    print(f"OK: {len(files)} files in {len(LAYERS)} layers, no layer uses a higher one")
    return 0


if __name__ == "__main__":
    sys.exit(main())
