#!/usr/bin/env python3
"""Module boundaries: the includes of every library module are exactly its declarations.

usage: check_modules.py REPOSITORY_ROOT
       check_modules.py --self-test     (the check finds planted violations, passes a clean tree)

The build already refuses an include of a module that is not among a module's dependencies
(transitively): each module target exposes only its own include root (cmake/RoutelabModule.cmake).
This check states the rest, naming file and line:

  1. every folder src/NAME is declared once in CMakeLists.txt as
     `routelab_module(NAME [DEPS module...] [LIBS target...])`, and every declared module has
     its folder;
  2. every `#include "X/..."` in src/NAME/** names a declared module X, X == NAME or X in
     NAME's DEPS (direct dependencies are declared, not inherited: the declaration reads
     as the module's real include list);
  3. every module in DEPS is included by some file of the module (no stale declaration);
  4. the dependency graph is acyclic;
  5. the table between `<!-- modules:begin -->` and `<!-- modules:end -->` in
     docs/ARCHITECTURE.md lists every module with exactly its DEPS, so the documented
     diagram is the built one.

Exit 0 when clean, 1 with one line per finding.
"""
import os
import re
import shutil
import sys
import tempfile

DECLARATION = re.compile(r"^\s*routelab_module\(\s*([A-Za-z0-9_]+)([^)]*)\)", re.MULTILINE)
INCLUDE = re.compile(r'^\s*#\s*include\s+"([A-Za-z0-9_]+)/[^"]*"')
DOC_ROW = re.compile(r"^\|\s*`([A-Za-z0-9_]+)`\s*\|([^|]*)\|")
SOURCE_SUFFIXES = (".h", ".hpp", ".cpp", ".cc")


def declarations(root):
    """{module: set of DEPS} from CMakeLists.txt, plus findings for duplicates."""
    with open(os.path.join(root, "CMakeLists.txt"), encoding="utf-8") as handle:
        text = handle.read()
    modules, findings = {}, []
    for match in DECLARATION.finditer(text):
        name, words = match.group(1), match.group(2).split()
        deps, section = set(), None
        for word in words:
            if word in ("DEPS", "LIBS"):
                section = word
            elif section == "DEPS":
                deps.add(word)
        if name in modules:
            findings.append(f"CMakeLists.txt: module '{name}' declared twice")
        modules[name] = deps
    return modules, findings


def includes(root, module):
    """(file, line number, included module) for every quoted module include of src/module."""
    found = []
    base = os.path.join(root, "src", module)
    for directory, subdirs, files in os.walk(base):
        subdirs.sort()
        for name in sorted(files):
            if not name.endswith(SOURCE_SUFFIXES):
                continue
            path = os.path.join(directory, name)
            with open(path, encoding="utf-8") as handle:
                for number, line in enumerate(handle, 1):
                    match = INCLUDE.match(line)
                    if match:
                        found.append((os.path.relpath(path, root), number, match.group(1)))
    return found


def cycle(modules):
    """One dependency cycle as a list of modules, or None."""
    state = {}

    def visit(module, stack):
        state[module] = "open"
        for dep in sorted(modules.get(module, ())):
            if state.get(dep) == "open":
                return stack[stack.index(dep):] + [dep]
            if dep not in state:
                found = visit(dep, stack + [dep])
                if found:
                    return found
        state[module] = "done"
        return None

    for module in sorted(modules):
        if module not in state:
            found = visit(module, [module])
            if found:
                return found
    return None


def documented(root):
    """{module: set of deps} from the marked table of docs/ARCHITECTURE.md, or None."""
    path = os.path.join(root, "docs", "ARCHITECTURE.md")
    if not os.path.exists(path):
        return None
    with open(path, encoding="utf-8") as handle:
        text = handle.read()
    if "<!-- modules:begin -->" not in text:
        return None
    table = text.split("<!-- modules:begin -->", 1)[1].split("<!-- modules:end -->", 1)[0]
    rows = {}
    for line in table.splitlines():
        match = DOC_ROW.match(line.strip())
        if match:
            rows[match.group(1)] = set(re.findall(r"`([A-Za-z0-9_]+)`", match.group(2)))
    return rows


def check(root):
    modules, findings = declarations(root)
    folders = sorted(d for d in os.listdir(os.path.join(root, "src")) if os.path.isdir(os.path.join(root, "src", d)))
    for folder in folders:
        if folder not in modules:
            findings.append(f"src/{folder}: folder is not declared with routelab_module() in CMakeLists.txt")
    for module in sorted(modules):
        if module not in folders:
            findings.append(f"CMakeLists.txt: module '{module}' has no folder src/{module}")
            continue
        used = set()
        for path, number, target in includes(root, module):
            if target == module:
                continue
            if target not in modules:
                continue  # not a module (a third-party header such as "fmt/...")
            used.add(target)
            if target not in modules[module]:
                findings.append(f"{path}:{number}: includes module '{target}', which '{module}' does not declare "
                                f"(CMakeLists.txt: routelab_module({module} DEPS ...))")
        for dep in sorted(modules[module] - used):
            if dep in modules:
                findings.append(f"CMakeLists.txt: module '{module}' declares '{dep}' but includes none of its headers")
            else:
                findings.append(f"CMakeLists.txt: module '{module}' declares unknown module '{dep}'")
    loop = cycle(modules)
    if loop:
        findings.append("CMakeLists.txt: dependency cycle " + " -> ".join(loop))
    docs = documented(root)
    if docs is None:
        findings.append("docs/ARCHITECTURE.md: no module table between <!-- modules:begin --> and <!-- modules:end -->")
    else:
        for module in sorted(set(docs) | set(modules)):
            if module not in docs:
                findings.append(f"docs/ARCHITECTURE.md: module '{module}' missing from the module table")
            elif module not in modules:
                findings.append(f"docs/ARCHITECTURE.md: documents module '{module}', which CMakeLists.txt does not declare")
            elif docs[module] != modules[module]:
                findings.append(f"docs/ARCHITECTURE.md: module '{module}' documented with "
                                f"{sorted(docs[module])}, declared with {sorted(modules[module])}")
    return findings


CLEAN = {
    "CMakeLists.txt": "routelab_module(core LIBS fmt::fmt)\nroutelab_module(graph DEPS core)\n"
                      "routelab_module(routing DEPS core graph)\n",
    "src/core/ids.h": "#pragma once\n#include <fmt/format.h>\n",
    "src/graph/network.h": '#pragma once\n#include "core/ids.h"\n#include "graph/other.h"\n',
    "src/graph/other.h": "#pragma once\n",
    "src/routing/table.cpp": '#include "graph/network.h"\n#include "core/ids.h"\n#include "fmt/format.h"\n',
    "docs/ARCHITECTURE.md": "<!-- modules:begin -->\n| module | depends on |\n|---|---|\n| `core` | — |\n"
                            "| `graph` | `core` |\n| `routing` | `core`, `graph` |\n<!-- modules:end -->\n",
}

# (what is planted, files replaced, text every expected finding contains)
PLANTS = [
    ("undeclared include", {"src/graph/bad.cpp": '#include "routing/table.h"\n'},
     "src/graph/bad.cpp:1: includes module 'routing', which 'graph' does not declare"),
    ("stale declaration", {"src/routing/table.cpp": '#include "graph/network.h"\n'},
     "module 'routing' declares 'core' but includes none of its headers"),
    ("undeclared folder", {"src/extra/x.h": "#pragma once\n"}, "src/extra: folder is not declared"),
    ("cycle", {"CMakeLists.txt": CLEAN["CMakeLists.txt"].replace("graph DEPS core", "graph DEPS core routing"),
               "src/graph/other.h": '#pragma once\n#include "routing/table.h"\n',
               "docs/ARCHITECTURE.md": CLEAN["docs/ARCHITECTURE.md"].replace("| `graph` | `core` |",
                                                                             "| `graph` | `core`, `routing` |")},
     "dependency cycle"),
    ("documentation drift", {"docs/ARCHITECTURE.md": CLEAN["docs/ARCHITECTURE.md"].replace("`core`, `graph` |",
                                                                                          "`graph` |")},
     "module 'routing' documented with ['graph'], declared with ['core', 'graph']"),
]


def write_tree(root, files):
    for name, text in files.items():
        path = os.path.join(root, name)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)


def self_test():
    failures = []
    with tempfile.TemporaryDirectory() as scratch:
        clean = os.path.join(scratch, "clean")
        write_tree(clean, CLEAN)
        if check(clean):
            failures.append(f"clean tree reported: {check(clean)}")
        for what, files, expected in PLANTS:
            planted = os.path.join(scratch, what.replace(" ", "_"))
            shutil.copytree(clean, planted)
            write_tree(planted, files)
            found = check(planted)
            if not any(expected in line for line in found):
                failures.append(f"{what}: expected a finding containing {expected!r}, got {found}")
    for line in failures:
        print(line)
    print("self-test " + ("failed" if failures else f"passed ({len(PLANTS)} planted violations caught)"))
    return 1 if failures else 0


def main(argv):
    if argv[1:] == ["--self-test"]:
        return self_test()
    if len(argv) != 2:
        print(__doc__.split("\n\n")[1])
        return 2
    findings = check(argv[1])
    for line in findings:
        print(line)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
