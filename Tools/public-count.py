#!/usr/bin/env python3
"""Counts each module's `public` declarations: those an app sees, and those behind `@_spi(…)` for engines and plugins.

A declaration is a line starting with `public` after any attributes (`public import` lines are not declarations). It is
behind SPI when its line says `@_spi`, or it sits inside a type or extension whose declaration does, or inside an
extension of a type declared `@_spi` in the same module.

Usage: Tools/public-count.py [module…]   (default: SuiteHost, SuitePluginKit and the libraries an app imports)
"""
import os
import re
import subprocess
import sys

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..")
DEFAULT = ["SuiteHost", "SuitePluginKit", "Documents", "DocumentsPluginSupport", "Cache", "CachePluginSupport",
           "StorageAccounting", "Analytics", "AnalyticsPluginSupport", "Sync", "WorkTracking", "SuiteHTTP", "SuiteCore"]
DECLARATION = re.compile(r"^\s*(?:@[^ ]+ )*public (?!import )")
TYPE = re.compile(r"^\s*(?:@[^ ]+ )*(?:public |package )?(?:final )?(?:indirect )?"
                  r"(?:struct|class|enum|protocol|actor|typealias) (\w+)")
EXTENSION = re.compile(r"^\s*(?:@[^ ]+ )*(?:public |package )?extension ([\w.]+)")


def sources(module):
    listed = subprocess.run(["git", "ls-files", f"Modules/{module}/*.swift"], cwd=ROOT, capture_output=True, text=True)
    return [os.path.join(ROOT, path) for path in listed.stdout.split()]


def strip(line):
    """The line without its string literals and `//` comment, so that braces in them are not counted."""
    line = re.sub(r'"(?:\\.|[^"\\])*"', '""', line)
    return line.split("//", 1)[0]


def count(module):
    files = [open(path, encoding="utf-8").read().split("\n") for path in sources(module)]
    spi_types = {m.group(1) for lines in files for line in lines
                 if "@_spi" in line and (m := TYPE.match(line))}
    app = spi = 0
    for lines in files:
        depth, stack = 0, []  # stack: depths at which an SPI context opened
        for line in lines:
            code = strip(line)
            inside_spi = bool(stack)
            if DECLARATION.match(line):
                if inside_spi or "@_spi" in line:
                    spi += 1
                else:
                    app += 1
            opens_spi = "@_spi" in line and (TYPE.match(line) or EXTENSION.match(line))
            extension = EXTENSION.match(line)
            if extension and extension.group(1).split(".")[0] in spi_types:
                opens_spi = True
            opened = code.count("{") - code.count("}")
            if opens_spi and "{" in code and not inside_spi:
                stack.append(depth)
            depth += opened
            while stack and depth <= stack[-1]:
                stack.pop()
    return app, spi


def main():
    modules = sys.argv[1:] or DEFAULT
    print(f"{'module':24} {'app':>6} {'@_spi':>6} {'all':>6}")
    for module in modules:
        app, spi = count(module)
        print(f"{module:24} {app:6} {spi:6} {app + spi:6}")


if __name__ == "__main__":
    main()
