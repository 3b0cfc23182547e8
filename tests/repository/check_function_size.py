#!/usr/bin/env python3
"""Readable size: no C++ function in src/ or apps/ longer than LIMIT lines without a reason.

usage: check_function_size.py REPOSITORY_ROOT
       check_function_size.py --self-test    (plants a long function and a marked one)

Finds every function definition (free functions, member functions, constructors; not
lambdas, which count towards the function that holds them) in the .cpp/.h files under src/
and apps/, and fails, naming file, line and length, on every one longer than LIMIT lines
(from the line of its name to its closing brace) unless

  1. the comment just above it (the contiguous comment lines before its first line,
     template line included) contains "Long function:" followed by a reason, or
  2. tests/repository/long_functions_allowed.txt lists it as `path:function` (a temporary
     list of functions being split elsewhere; an entry that no longer names a long function
     is a finding too, so the list only shrinks).

The parser is a brace matcher over the text with comments, strings and preprocessor lines
blanked: a '{' opens a function when the text before it (back to the previous ';', '{' or
'}') is `name(...)` followed only by qualifiers (const, noexcept, override, -> type, a
constructor's initializer list), and `name` is not a keyword (if, for, while, switch,
catch) nor a lambda's ']'. Nested blocks of a function are not searched again.

Exit 0 when clean, 1 with one line per finding.
"""
import os
import re
import subprocess
import sys
import tempfile

LIMIT = 80
MARKER = re.compile(r"Long function:\s*\S")
ALLOWLIST = os.path.join("tests", "repository", "long_functions_allowed.txt")
ROOTS = ("src", "apps")
SUFFIXES = (".cpp", ".h", ".hpp", ".cc")
KEYWORDS = {"if", "for", "while", "switch", "catch", "return", "sizeof", "alignof", "decltype", "static_assert",
            "requires", "noexcept", "throw", "co_return", "co_await", "defined"}
QUALIFIERS = re.compile(r"^(\s*(const|noexcept|override|final|mutable|volatile|&&|&|->\s*[\w:<>,\s*&]+))*\s*$")


def blank(text):
    """The text with comments, string/char literals and preprocessor lines replaced by
    spaces (newlines kept, so offsets and line numbers stay)."""
    out = list(text)
    i, n = 0, len(text)
    line_start = True
    while i < n:
        c = text[i]
        if line_start and c == "#":
            # A preprocessor line, with its continuations.
            j = i
            while j < n and text[j] != "\n":
                if text[j] == "\\" and j + 1 < n and text[j + 1] == "\n":
                    j += 1
                j += 1
            for k in range(i, j):
                if out[k] != "\n":
                    out[k] = " "
            i = j
            continue
        if c == "\n":
            line_start = True
            i += 1
            continue
        if not c.isspace():
            line_start = False
        if text.startswith("//", i):
            j = text.find("\n", i)
            j = n if j < 0 else j
            for k in range(i, j):
                out[k] = " "
            i = j
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            j = n if j < 0 else j + 2
            for k in range(i, j):
                if out[k] != "\n":
                    out[k] = " "
            i = j
        elif c == 'R' and text.startswith('R"', i) and (i == 0 or not (text[i - 1].isalnum() or text[i - 1] == "_")):
            m = re.match(r'R"([^(\s]*)\(', text[i:])
            if not m:
                i += 1
                continue
            end = text.find(")" + m.group(1) + '"', i)
            j = n if end < 0 else end + len(m.group(1)) + 2
            for k in range(i, j):
                if out[k] != "\n":
                    out[k] = " "
            i = j
        elif c in "\"'":
            if c == "'" and i > 0 and text[i - 1].isalnum():  # digit separator 1'000
                i += 1
                continue
            j = i + 1
            while j < n and text[j] != c and text[j] != "\n":
                j += 2 if text[j] == "\\" else 1
            for k in range(i + 1, min(j, n)):
                out[k] = " "
            i = j + 1
        else:
            i += 1
    return "".join(out)


def function_name(header):
    """The name of the function whose definition header this is, or None."""
    header = header.strip()
    if not header:
        return None
    # The first '(' at depth 0 of <> is the parameter list (a constructor's initializer list
    # and trailing qualifiers follow its ')').
    depth = 0
    for index, c in enumerate(header):
        if c == "<":
            depth += 1
        elif c == ">" and depth > 0:
            depth -= 1
        elif c == "(" and depth == 0:
            break
    else:
        return None
    before = header[:index].rstrip()
    if before.endswith("]"):  # a lambda
        return None
    m = re.search(r"((?:[A-Za-z_]\w*(?:<[^()]*>)?::)*~?(?:operator\s*[^\s\w(]+|operator\s+\w+|operator\(\)|[A-Za-z_]\w*))$",
                  before)
    if not m:
        return None
    name = m.group(1)
    if name.split("::")[-1] in KEYWORDS or "=" in before.replace("operator=", "").replace("==", "").replace("<=", "") \
            .replace(">=", "").replace("!=", ""):
        return None
    # The parameter list must close and be followed only by qualifiers or an initializer list.
    depth = 0
    for close in range(index, len(header)):
        if header[close] == "(":
            depth += 1
        elif header[close] == ")":
            depth -= 1
            if depth == 0:
                break
    else:
        return None
    rest = header[close + 1:]
    if QUALIFIERS.match(rest) or re.match(r"^\s*(noexcept\s*)?:\s*[\w:]", rest):
        return name
    return None


def functions_in(text):
    """(name, first line, last line) of every function definition in C++ source `text`."""
    clean = blank(text)
    found = []
    boundary = 0  # index just after the previous ';', '{' or '}'
    depth_stack = []
    i, n = 0, len(clean)
    while i < n:
        c = clean[i]
        if c == ";" or c == "}":
            boundary = i + 1
        elif c == "{":
            header = clean[boundary:i]
            name = function_name(header)
            if name is not None:
                # Skip to the matching brace.
                depth, j = 1, i + 1
                while j < n and depth:
                    if clean[j] == "{":
                        depth += 1
                    elif clean[j] == "}":
                        depth -= 1
                    j += 1
                offset = boundary + (len(header) - len(header.lstrip()))
                first = clean.count("\n", 0, offset) + 1
                last = clean.count("\n", 0, j - 1) + 1
                found.append((name, first, last))
                i = j
                boundary = j
                continue
            boundary = i + 1
        i += 1
    return found


def comment_above(lines, first):
    """The contiguous comment lines just above line `first` (1-based), as one string."""
    collected = []
    k = first - 2
    while k >= 0:
        stripped = lines[k].strip()
        if stripped.startswith(("//", "/*", "*")) or stripped.endswith("*/"):
            collected.append(stripped)
            k -= 1
        elif stripped.startswith("template") and not collected:
            k -= 1
        else:
            break
    return "\n".join(reversed(collected))


def source_files(root):
    names = []
    for top in ROOTS:
        for directory, _, files in os.walk(os.path.join(root, top)):
            for f in files:
                if f.endswith(SUFFIXES):
                    names.append(os.path.relpath(os.path.join(directory, f), root))
    return sorted(names)


def read_allowlist(root):
    allowed = {}
    path = os.path.join(root, ALLOWLIST)
    if not os.path.exists(path):
        return allowed
    with open(path, encoding="utf-8") as handle:
        for number, line in enumerate(handle, 1):
            entry = line.split("#", 1)[0].strip()
            if entry:
                allowed[entry] = number
    return allowed


def check(root):
    findings = []
    allowed = read_allowlist(root)
    used = set()
    for name in source_files(root):
        with open(os.path.join(root, name), encoding="utf-8") as handle:
            text = handle.read()
        lines = text.splitlines()
        for function, first, last in functions_in(text):
            length = last - first + 1
            if length <= LIMIT:
                continue
            key = f"{name}:{function}"
            if key in allowed:
                used.add(key)
                continue
            if MARKER.search(comment_above(lines, first)):
                continue
            findings.append(f"{name}:{first}: {function} is {length} lines (limit {LIMIT}); split it, or say why "
                            f"it must stay long in a comment just above it starting 'Long function: <reason>'")
    for key, number in sorted(allowed.items()):
        if key not in used:
            findings.append(f"{ALLOWLIST}:{number}: {key} is no longer a function over {LIMIT} lines: remove the entry")
    return findings


def self_test():
    long_body = "\n".join(f"  total += {i};" for i in range(LIMIT))
    planted = {
        "src/a/long.cpp": f"int tooLong(int total) {{\n{long_body}\n  return total;\n}}\n",
        "src/a/marked.cpp": f"// Long function: a fused kernel, measured 2x faster than the split one.\n"
                            f"int marked(int total) {{\n{long_body}\n  return total;\n}}\n",
        "src/a/short.cpp": "namespace x {\nstruct S {\n  int f() const { return 1; }\n};\n"
                           "int g(int a) {\n  auto l = [&](int b) {\n    return a + b;\n  };\n"
                           "  if (a) {\n    return l(1);\n  }\n  return 0;\n}\n}  // namespace x\n",
        "src/a/allowed.cpp": f"Foo::Foo(int total) : total_(total) {{\n{long_body}\n}}\n",
        "apps/b/lambda.cpp": f"int outer() {{\n  auto f = [](int total) {{\n{long_body}\n    return total;\n  }};\n"
                             f"  return f(1);\n}}\n",
    }
    with tempfile.TemporaryDirectory() as root:
        for name, text in planted.items():
            os.makedirs(os.path.dirname(os.path.join(root, name)), exist_ok=True)
            with open(os.path.join(root, name), "w", encoding="utf-8") as handle:
                handle.write(text)
        os.makedirs(os.path.join(root, "tests", "repository"))
        with open(os.path.join(root, ALLOWLIST), "w", encoding="utf-8") as handle:
            handle.write("# planted\nsrc/a/allowed.cpp:Foo::Foo  # split elsewhere\nsrc/a/gone.cpp:gone\n")
        findings = check(root)
    expected = ["src/a/long.cpp:1: tooLong", "apps/b/lambda.cpp:1: outer", "src/a/gone.cpp:gone is no longer"]
    problems = [f"expected a finding '{e}'" for e in expected if not any(e in f for f in findings)]
    for quiet in ("marked", "short.cpp", "Foo::Foo"):
        problems += [f"unexpected finding: {f}" for f in findings if quiet in f]
    if len(findings) != len(expected):
        problems.append(f"expected {len(expected)} findings, got {len(findings)}: {findings}")
    sizes = {name: last - first + 1 for name, first, last in functions_in(planted["src/a/short.cpp"])}
    if sizes != {"f": 1, "g": 9}:
        problems.append(f"functions of short.cpp: {sizes}")
    for problem in problems:
        print(problem)
    return 1 if problems else 0


def main(argv):
    if len(argv) == 2 and argv[1] == "--self-test":
        return self_test()
    if len(argv) != 2:
        print(__doc__)
        return 2
    findings = check(argv[1])
    for finding in findings:
        print(finding)
    return 1 if findings else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
