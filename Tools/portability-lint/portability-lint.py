#!/usr/bin/env python3
"""Portability lint: library modules must compile for Apple platforms as well as Linux.

Usage:
    portability-lint.py DIR...      lint every .swift file under the directories (exit 1 on a finding)
    portability-lint.py --self-test run the lint on each fixture in fixtures/ and check its verdict

A finding prints as `file:line: rule: explanation (hint: ...)`. Linux-only code is allowed inside an `#if` branch that
cannot be compiled on Apple platforms (`os(Linux)`, `canImport(Glibc)`, `canImport(Musl)`, `os(Android)`, or the
`#else` of `canImport(Darwin)`) when that `#if` also has a branch for Apple platforms; an import of a Linux-only module
only needs the guard. Comments never count; string literals count only for the path rule.

Fixtures: `bad-*.swift` start with `// portability-lint expects: <rule>` and mark each line that must be flagged with
a trailing `// flagged`; `good-*.swift` start with `// portability-lint expects: no finding`. A fixture the Swift
parser rejects (unbalanced #if) is named `*.swift-invalid`, so `swift format lint` does not read it.
"""

import os
import re
import sys
from dataclasses import dataclass

# MARK: - Rules


@dataclass(frozen=True)
class Finding:
    path: str
    line: int
    rule: str
    explanation: str
    hint: str

    def __str__(self):
        return f"{self.path}:{self.line}: {self.rule}: {self.explanation} (hint: {self.hint})"


RULES = {
    "linux-only-identifier": "a Glibc/Linux-only field or function, outside a Linux #if with an Apple #else",
    "glibc-qualified-name": "a name qualified by the Glibc or Musl module, outside a Linux #if with an Apple #else",
    "glibc-enum-raw-value": "`.rawValue` of a constant Glibc imports as an enum (Int32 on Darwin)",
    "linux-path": "a /proc or /sys path (in code or a string literal), outside a Linux #if with an Apple #else",
    "unguarded-import": "an import of a module Apple platforms do not have, outside a Linux #if",
    "directive-nesting": "#elseif/#else/#endif without #if, or #if without #endif (the lint cannot follow the file)",
}

GUARD_HINT = "put it in `#if os(Linux)` / `#if canImport(Glibc)` with an `#else` for Apple platforms"

# Linux-only names, each with what to use on Apple platforms.
LINUX_ONLY_IDENTIFIERS = {
    "st_mtim": "Darwin's is `st_mtimespec`: `#if canImport(Darwin) st.st_mtimespec #else st.st_mtim #endif`",
    "st_atim": "Darwin's is `st_atimespec`: `#if canImport(Darwin) st.st_atimespec #else st.st_atim #endif`",
    "st_ctim": "Darwin's is `st_ctimespec`: `#if canImport(Darwin) st.st_ctimespec #else st.st_ctim #endif`",
    "d_off": "Darwin's `dirent` has `d_seekoff`; better, use `telldir`",
    "statx": "use `fstatat` (birth time: Darwin's `st_birthtimespec`)",
    "sysinfo": "use `ProcessInfo.processInfo.physicalMemory`, `systemUptime`, or `getloadavg`",
    "get_nprocs": "use `ProcessInfo.processInfo.activeProcessorCount`",
    "get_nprocs_conf": "use `ProcessInfo.processInfo.processorCount`",
    "get_phys_pages": "use `ProcessInfo.processInfo.physicalMemory`",
    "get_avphys_pages": "use `ProcessInfo.processInfo.physicalMemory` (Darwin has no free-page count in libc)",
    "sched_getaffinity": "use `ProcessInfo.processInfo.activeProcessorCount`",
    "sched_setaffinity": "Darwin has no CPU affinity; drop it on Apple platforms",
    "O_TMPFILE": "create a named file with `mkstemp` and `unlink` it",
    "O_PATH": "open with `O_RDONLY` (or `O_SEARCH` on Darwin)",
    "O_NOATIME": "Darwin has no `O_NOATIME`; leave the flag out on Apple platforms",
    "O_DIRECT": "Darwin uses `fcntl(fd, F_NOCACHE, 1)`",
    "O_LARGEFILE": "not needed: `off_t` is 64-bit everywhere Swift runs",
    "SOCK_NONBLOCK": "set `O_NONBLOCK` with `fcntl` after `socket`",
    "SOCK_CLOEXEC": "set `FD_CLOEXEC` with `fcntl` after `socket`",
    "MSG_NOSIGNAL": "Darwin uses the socket option `SO_NOSIGPIPE`",
    "CLOCK_BOOTTIME": "use `ContinuousClock` (or `CLOCK_MONOTONIC` on Darwin)",
    "pipe2": "use `pipe` then `fcntl(FD_CLOEXEC)`",
    "accept4": "use `accept` then `fcntl`",
    "dup3": "use `dup2` then `fcntl(FD_CLOEXEC)`",
    "fdatasync": "use `fsync` (or `fcntl(fd, F_FULLFSYNC)` on Darwin)",
    "fallocate": "use `ftruncate` (or `fcntl(fd, F_PREALLOCATE, ...)` on Darwin)",
    "posix_fadvise": "Darwin has `fcntl(fd, F_RDADVISE, ...)`; or leave the advice out",
    "sendfile": "Darwin's `sendfile` takes other arguments; copy with `read`/`write` or guard both",
    "splice": "copy with `read`/`write`",
    "memfd_create": "use `mkstemp` and `unlink`, or `shm_open`",
    "eventfd": "use a pipe or `DispatchSource`",
    "signalfd": "use `DispatchSource.makeSignalSource`",
    "getrandom": "use `getentropy` or `SystemRandomNumberGenerator`",
    "gettid": "use `pthread_threadid_np` on Darwin, or avoid thread ids",
    "prctl": "Darwin has no `prctl`; `pthread_setname_np` names a thread",
    "mremap": "allocate anew and copy",
    "malloc_usable_size": "Darwin's is `malloc_size`",
    "mallinfo": "Darwin has `malloc_zone_statistics`; or leave the numbers out",
    "__errno_location": "use `errno`",
    "program_invocation_name": "use `CommandLine.arguments[0]` or `ProcessInfo.processInfo.processName`",
    "stat64": "use `stat` (64-bit on every platform Swift runs on)",
    "lstat64": "use `lstat`",
    "fstat64": "use `fstat`",
    "fstatat64": "use `fstatat`",
    "open64": "use `open`",
    "readdir64": "use `readdir`",
    "dirent64": "use `dirent`",
    "off64_t": "use `off_t`",
}
LINUX_ONLY_PREFIXES = {
    "epoll_": "use `kqueue` or `DispatchSource` on Apple platforms",
    "EPOLL": "use `kqueue` or `DispatchSource` on Apple platforms",
    "inotify_": "use `DispatchSource.makeFileSystemObjectSource` (or FSEvents) on Apple platforms",
    "timerfd_": "use `DispatchSource.makeTimerSource` or a `Task.sleep` loop",
    "STATX_": "use `fstatat` (birth time: Darwin's `st_birthtimespec`)",
}
# Constants Glibc imports as members of a C enum (so they need `.rawValue`) and Darwin as plain Int32 macros.
GLIBC_ENUM_CONSTANT = re.compile(r"\b(SOCK_[A-Z]+|IPPROTO_[A-Z0-9]+|SHUT_(?:RD|WR|RDWR))\.rawValue\b")
LINUX_ONLY_MODULES = {
    "Glibc": "#if canImport(Glibc) import Glibc #elseif canImport(Musl) import Musl "
    "#elseif canImport(Darwin) import Darwin #endif",
    "SwiftGlibc": "#if canImport(Glibc) import Glibc #elseif canImport(Darwin) import Darwin #endif",
    "Musl": "#if canImport(Glibc) import Glibc #elseif canImport(Musl) import Musl "
    "#elseif canImport(Darwin) import Darwin #endif",
    "Bionic": "#if canImport(Bionic) import Bionic #elseif canImport(Darwin) import Darwin #endif",
    "Android": "#if canImport(Android) import Android #elseif canImport(Darwin) import Darwin #endif",
    "FoundationNetworking": "#if canImport(FoundationNetworking) import FoundationNetworking #endif "
    "(URLSession is in Foundation on Apple platforms)",
    "FoundationXML": "#if canImport(FoundationXML) import FoundationXML #endif (XMLParser is in Foundation on Apple "
    "platforms)",
}

IDENTIFIER = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
QUALIFIED = re.compile(r"(?<![\w.])(Glibc|SwiftGlibc|Musl)\s*\.\s*([A-Za-z_]\w*)")
IMPORT = re.compile(
    r"^\s*(?:@\w+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|private|fileprivate)\s+)?import\s+"
    r"(?:(?:typealias|struct|class|enum|protocol|let|var|func)\s+)?([A-Za-z_]\w*)"
)
# `/proc` or `/sys` starting a path (not `https://host/sys/...`, not `/process`).
LINUX_PATH = re.compile(r"(?<![\w.\-~])/(proc|sys)(?![\w\-.])")
DIRECTIVE = re.compile(r"^\s*#(if|elseif|else|endif)\b(.*)$")

# MARK: - Masking comments and strings


def mask(text):
    """Returns `(code, code_and_strings)`: `text` with comments blanked, and also with string contents blanked.

    Newlines are kept, so line numbers stay. Handles nested block comments, multi-line and raw (`#"..."#`) strings,
    and interpolations (`\\(...)`, `\\#(...)`), whose contents are code.
    """
    n = len(text)
    code = list(text)
    strings = list(text)

    def blank(buffers, start, end):
        for buffer in buffers:
            for k in range(start, end):
                if buffer[k] != "\n":
                    buffer[k] = " "

    string_start = re.compile(r'(#*)("""|")')
    # Each context: ("code", open parentheses) — an interpolation when not the bottom one — or
    # ("string", hashes, multiline).
    stack = [("code", 0)]
    i = 0
    while i < n:
        top = stack[-1]
        if top[0] == "code":
            if text.startswith("//", i):
                end = text.find("\n", i)
                end = n if end < 0 else end
                blank((code, strings), i, end)
                i = end
                continue
            if text.startswith("/*", i):
                depth, end = 1, i + 2
                while end < n and depth:
                    if text.startswith("/*", end):
                        depth, end = depth + 1, end + 2
                    elif text.startswith("*/", end):
                        depth, end = depth - 1, end + 2
                    else:
                        end += 1
                blank((code, strings), i, end)
                i = end
                continue
            if text[i] in '#"':
                match = string_start.match(text, i)
                if match:
                    stack.append(("string", len(match.group(1)), match.group(2) == '"""'))
                    i = match.end()
                    continue
            if len(stack) > 1:
                if text[i] == "(":
                    stack[-1] = ("code", top[1] + 1)
                elif text[i] == ")":
                    if top[1] == 0:
                        stack.pop()  # the interpolation ends; back in its string
                        i += 1
                        continue
                    stack[-1] = ("code", top[1] - 1)
            i += 1
            continue
        _, hashes, multiline = top
        escape = "\\" + "#" * hashes
        close = ('"""' if multiline else '"') + "#" * hashes
        if text.startswith(escape, i):
            after = i + len(escape)
            if after < n and text[after] == "(":
                blank((code,), i, after + 1)
                stack.append(("code", 0))
                i = after + 1
            else:
                blank((code,), i, min(after + 1, n))
                i = after + 1
            continue
        if text.startswith(close, i):
            stack.pop()
            i += len(close)
            continue
        if text[i] == "\n" and not multiline:
            stack.pop()  # an unterminated string: the compiler will say so
            continue
        blank((code,), i, i + 1)
        i += 1
    return "".join(code), "".join(strings)


# MARK: - Conditions under Apple platforms

APPLE_FALSE = {
    "os": {"Linux", "Android", "Windows", "FreeBSD", "OpenBSD", "WASI", "Cygwin", "PS4", "Haiku"},
    "canImport": {
        "Glibc", "SwiftGlibc", "Musl", "Bionic", "Android", "FoundationNetworking", "FoundationXML", "WinSDK",
        "ucrt", "CRT", "WASILibc", "wasi_pthread",
    },
    "_runtime": {"_Native"},
}
APPLE_TRUE = {
    "canImport": {"Darwin", "ObjectiveC", "Foundation", "Dispatch", "CoreFoundation", "Security"},
    "_runtime": {"_ObjC"},
}
CONDITION_TOKEN = re.compile(r"\s*(&&|\|\||!|\(|\)|[A-Za-z_]\w*\s*\([^()]*\)|[A-Za-z_]\w*|\S)")


def apple_value(condition):
    """What a `#if` condition is on Apple platforms: True, False, or None (depends: os(iOS), DEBUG, unparsed)."""
    tokens = [token for token in CONDITION_TOKEN.findall(condition) if token]
    position = 0

    def peek():
        return tokens[position] if position < len(tokens) else None

    def take():
        nonlocal position
        position += 1
        return tokens[position - 1]

    def atom(token):
        call = re.fullmatch(r"([A-Za-z_]\w*)\s*\(\s*([^,()]*?)\s*(?:,[^()]*)?\)", token)
        if call:
            name, argument = call.groups()
            if argument in APPLE_FALSE.get(name, ()):
                return False
            if argument in APPLE_TRUE.get(name, ()):
                return True
            return None
        return {"true": True, "false": False}.get(token)

    def unary():
        token = take() if peek() is not None else None
        if token == "!":
            value = unary()
            return None if value is None else not value
        if token == "(":
            value = disjunction()
            if peek() == ")":
                take()
            return value
        return atom(token) if token else None

    def conjunction():
        values = [unary()]
        while peek() == "&&":
            take()
            values.append(unary())
        return both(values)

    def disjunction():
        values = [conjunction()]
        while peek() == "||":
            take()
            values.append(conjunction())
        return either(values)

    value = disjunction()
    return value if position == len(tokens) else None


def both(values):
    if any(value is False for value in values):
        return False
    return True if all(value is True for value in values) else None


def either(values):
    if any(value is True for value in values):
        return True
    return False if all(value is False for value in values) else None


# MARK: - Directives


@dataclass
class Chain:
    """One `#if` … `#endif`: its branches' conditions (`None` for `#else`) and where they start."""

    conditions: list
    lines: list

    def apple_values(self):
        """Each branch's value on Apple platforms, given that the earlier branches were not taken."""
        values, earlier = [], []
        for condition in self.conditions:
            own = True if condition is None else apple_value(condition)
            values.append(both([own] + [None if value is None else not value for value in earlier]))
            earlier.append(own)
        return values


def directive_contexts(path, code_lines):
    """For each line, the open `(chain, branch)` pairs around it, innermost last; plus nesting findings."""
    chains, stack, contexts, findings = [], [], [], []
    for number, line in enumerate(code_lines, start=1):
        match = DIRECTIVE.match(line)
        if match:
            keyword, rest = match.group(1), match.group(2).strip()
            if keyword == "if":
                chains.append(Chain([rest], [number]))
                stack.append((len(chains) - 1, 0))
            elif not stack:
                findings.append(
                    Finding(path, number, "directive-nesting", f"#{keyword} without an open #if", "balance the #if"))
            elif keyword == "endif":
                stack.pop()
            else:
                chain_index, _ = stack[-1]
                chain = chains[chain_index]
                chain.conditions.append(rest if keyword == "elseif" else None)
                chain.lines.append(number)
                stack[-1] = (chain_index, len(chain.conditions) - 1)
            contexts.append(None)
            continue
        contexts.append(tuple(stack))
    for chain_index, _ in stack:
        findings.append(
            Finding(path, chains[chain_index].lines[0], "directive-nesting", "#if without #endif", "close the #if"))
    return chains, contexts, findings


class Guards:
    """Answers whether a line is in a branch Apple platforms cannot take, and whether that #if has an Apple path."""

    def __init__(self, chains):
        self.chains = chains
        self.values = [chain.apple_values() for chain in chains]

    def linux_branch(self, context):
        """The innermost enclosing branch that Apple platforms never compile, as `(chain, has Apple path)`."""
        found = None
        for chain_index, branch in context:
            values = self.values[chain_index]
            if values[branch] is False:
                has_apple_path = any(value is not False for value in values)
                if found is None or has_apple_path:
                    found = (self.chains[chain_index], has_apple_path)
        return found

    def unguarded(self, context):
        """`None` when Linux-only code may stand here, else why not."""
        found = self.linux_branch(context)
        if found is None:
            return "outside any #if that excludes Apple platforms"
        chain, has_apple_path = found
        if not has_apple_path:
            return f"in the Linux-only #if of line {chain.lines[0]}, which has no #else/#elseif for Apple platforms"
        return None


# MARK: - Linting


def lint_text(path, text):
    code, code_and_strings = mask(text)
    code_lines = code.split("\n")
    string_lines = code_and_strings.split("\n")
    chains, contexts, findings = directive_contexts(path, code_lines)
    guards = Guards(chains)
    for index, line in enumerate(code_lines):
        context = contexts[index]
        if context is None:
            continue  # a directive line: its condition names Glibc and Linux on purpose
        number = index + 1
        reason = guards.unguarded(context)

        match = IMPORT.match(line)
        if match and match.group(1) in LINUX_ONLY_MODULES and guards.linux_branch(context) is None:
            module = match.group(1)
            findings.append(
                Finding(
                    path, number, "unguarded-import", f"`import {module}` outside an #if that excludes Apple platforms",
                    LINUX_ONLY_MODULES[module]))
            continue
        if match:
            continue
        if reason is None:
            continue

        for found in QUALIFIED.finditer(line):
            findings.append(
                Finding(
                    path, number, "glibc-qualified-name", f"`{found.group(1)}.{found.group(2)}` {reason}",
                    f"write `{found.group(2)}` unqualified (Darwin has it too), or {GUARD_HINT}"))
        for found in GLIBC_ENUM_CONSTANT.finditer(line):
            findings.append(
                Finding(
                    path, number, "glibc-enum-raw-value",
                    f"`{found.group(0)}`: Glibc imports {found.group(1)} as an enum case, Darwin as an Int32 constant",
                    f"`#if canImport(Glibc) Int32({found.group(1)}.rawValue) #else {found.group(1)} #endif`"))
        for found in IDENTIFIER.finditer(line):
            name = found.group(0)
            advice = LINUX_ONLY_IDENTIFIERS.get(name)
            if advice is None:
                advice = next((hint for prefix, hint in LINUX_ONLY_PREFIXES.items() if name.startswith(prefix)), None)
            if advice is not None:
                findings.append(
                    Finding(
                        path, number, "linux-only-identifier", f"`{name}` is Linux-only and is {reason}",
                        f"{advice}; or {GUARD_HINT}"))
        for found in LINUX_PATH.finditer(string_lines[index]):
            findings.append(
                Finding(
                    path, number, "linux-path", f"`/{found.group(1)}` exists only on Linux; this use is {reason}",
                    "use a portable call (getloadavg, sysconf, ProcessInfo) or " + GUARD_HINT))
    return sorted(set(findings), key=lambda finding: (finding.line, finding.rule, finding.explanation))


def swift_files(directory):
    for base, directories, files in os.walk(directory):
        directories.sort()
        for name in sorted(files):
            if name.endswith(".swift"):
                yield os.path.join(base, name)


def lint_paths(paths):
    findings = []
    for path in paths:
        if not os.path.isdir(path):
            print(f"portability-lint: {path}: no such directory", file=sys.stderr)
            sys.exit(2)
        for file in swift_files(path):
            with open(file, encoding="utf-8") as handle:
                findings += lint_text(file, handle.read())
    return findings


# MARK: - Self-test

FIXTURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "fixtures")
EXPECTS = re.compile(r"^//\s*portability-lint expects:\s*(.+?)\s*$")
FLAGGED = re.compile(r"//\s*flagged\s*$")


def self_test():
    failures, covered, count = [], set(), 0
    for name in sorted(os.listdir(FIXTURES)):
        if not name.endswith((".swift", ".swift-invalid")):
            continue
        count += 1
        path = os.path.join(FIXTURES, name)
        with open(path, encoding="utf-8") as handle:
            text = handle.read()
        lines = text.split("\n")
        expects = EXPECTS.match(lines[0])
        if not expects:
            failures.append(f"{path}:1: the first line must be `// portability-lint expects: <rule | no finding>`")
            continue
        expected = expects.group(1)
        findings = lint_text(path, text)
        flagged = {number for number, line in enumerate(lines, start=1) if FLAGGED.search(line)}
        if name.startswith("good-"):
            if expected != "no finding":
                failures.append(f"{path}:1: a good fixture expects `no finding`")
            failures += [f"{path}: a good fixture was flagged: {finding}" for finding in findings]
            continue
        if not name.startswith("bad-"):
            failures.append(f"{path}: a fixture is named good-* or bad-*")
            continue
        if expected not in RULES:
            failures.append(f"{path}:1: unknown rule `{expected}` (rules: {', '.join(RULES)})")
            continue
        covered.add(expected)
        if not flagged:
            failures.append(f"{path}: a bad fixture marks the lines it expects flagged with a trailing `// flagged`")
        if not findings:
            failures.append(f"{path}: a bad fixture passed (expected {expected})")
        for finding in findings:
            if finding.rule != expected:
                failures.append(f"{path}: flagged by the wrong rule (expected {expected}): {finding}")
            elif finding.line not in flagged:
                failures.append(f"{path}: flagged a line not marked `// flagged`: {finding}")
        for number in sorted(flagged - {finding.line for finding in findings}):
            failures.append(f"{path}:{number}: a line marked `// flagged` was not flagged by {expected}")
    failures += [f"{FIXTURES}: no bad-*.swift fixture for the rule {rule}" for rule in RULES if rule not in covered]
    for failure in failures:
        print(failure, file=sys.stderr)
    if failures:
        print(f"portability-lint self-test: {len(failures)} failure(s) over {count} fixtures", file=sys.stderr)
        return 1
    print(f"portability-lint self-test: {count} fixtures, {len(RULES)} rules, all as expected")
    return 0


def main(arguments):
    if arguments == ["--self-test"]:
        return self_test()
    if not arguments or any(argument.startswith("-") for argument in arguments):
        print(__doc__.strip(), file=sys.stderr)
        return 2
    findings = lint_paths(arguments)
    for finding in findings:
        print(finding)
    if findings:
        print(f"portability-lint: {len(findings)} finding(s); rules: {', '.join(RULES)}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
