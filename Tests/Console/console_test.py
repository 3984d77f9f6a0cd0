#!/usr/bin/env python3
"""The web console (issue 17) in a real browser: headless Chromium from Debian, driven by Selenium through the
system chromedriver, against a real `suite serve` on loopback with seeded data.

Every check is a function named for what it shows; each failure is reported and the run exits 1. A missing browser
is a failure, never a skip. Screenshots of every page go to the output folder (default .build/console-test).

    python3 Tests/Console/console_test.py --bin .build/debug/suite [--out DIR] [--timing-documents 100000]
"""

import argparse
import datetime
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
import traceback

try:
    from selenium import webdriver
    from selenium.common.exceptions import NoSuchElementException, StaleElementReferenceException, TimeoutException
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys
    from selenium.webdriver.support.ui import WebDriverWait
except ImportError:
    print("console test: selenium is missing (Tools/console-test.sh installs it into .build/console-venv)")
    sys.exit(1)

CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"


class Suite:
    """The `suite` binary on one data directory."""

    def __init__(self, binary, data):
        self.binary = binary
        self.data = data

    def run(self, *args, stdin=None, check=True):
        result = subprocess.run(
            [self.binary, "--data-dir", self.data, *args], input=stdin, capture_output=True, text=True, timeout=120)
        if check and result.returncode != 0:
            raise AssertionError(f"suite {' '.join(args)} failed ({result.returncode}): {result.stderr.strip()}")
        return result

    def json(self, *args):
        return json.loads(self.run(*args, "--json").stdout)

    def serve(self):
        """Starts `suite serve` on a free port; returns (process, url, console link)."""
        process = subprocess.Popen(
            [self.binary, "--data-dir", self.data, "serve", "--port", "0", "--json"],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        line = process.stdout.readline()
        if not line:
            raise AssertionError(f"suite serve did not start: {process.stderr.read()}")
        started = json.loads(line)
        return process, started["url"], started["console"]


def browser(width=1280, height=800):
    if not os.path.exists(CHROMIUM) or not os.path.exists(CHROMEDRIVER):
        raise SystemExit(
            "console test: chromium and chromedriver are required (apt install chromium chromium-driver; "
            "Tools/install-deps.sh does it)")
    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for argument in ["--headless=new", "--no-sandbox", "--disable-gpu", "--disable-dev-shm-usage",
                     f"--window-size={width},{height}"]:
        options.add_argument(argument)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)


class Console:
    """The browser on the console, with waits on the page's `data-ready` flag."""

    def __init__(self, driver, url, out):
        self.driver = driver
        self.url = url
        self.out = out

    def wait(self, condition, timeout=15, what="the condition"):
        # The live view re-renders what it shows when a change arrives: an element read a moment ago may be gone.
        ignored = (NoSuchElementException, StaleElementReferenceException)
        try:
            return WebDriverWait(self.driver, timeout, ignored_exceptions=ignored).until(lambda d: condition())
        except TimeoutException:
            raise AssertionError(f"timed out waiting for {what}")

    def click(self, css):
        """Clicks `css`, again if a re-render replaced the element in between."""
        def attempt():
            self.find(css).click()
            return True
        self.wait(attempt, what=f"{css} to be clickable")

    def text(self, css):
        """The text of `css`, read again if a re-render replaced the element in between."""
        return self.wait(lambda: self.find(css).text + "\u0000", what=f"the text of {css}")[:-1]

    def find(self, css):
        return self.driver.find_element(By.CSS_SELECTOR, css)

    def all(self, css):
        return self.driver.find_elements(By.CSS_SELECTOR, css)

    def present(self, css, timeout=15):
        return self.wait(lambda: self.all(css)[0] if self.all(css) else None, timeout, css)

    def ready(self, page):
        self.wait(
            lambda: self.driver.execute_script(
                "const m = document.querySelector('main#page');"
                "return m && m.dataset.page === arguments[0] && m.dataset.ready === 'true';", page),
            what=f"the {page} page to be ready")

    def go(self, route, page):
        self.driver.execute_script("location.hash = arguments[0]", route)
        self.ready(page)

    def shot(self, name):
        self.driver.save_screenshot(os.path.join(self.out, name + ".png"))

    def error(self):
        """The (code, message, hint) of the first visible API error, or None."""
        for element in self.all(".error[data-code]"):
            if element.is_displayed():
                hint = element.find_elements(By.CSS_SELECTOR, ".error-hint")
                return (element.get_attribute("data-code"), element.find_element(By.CSS_SELECTOR, ".error-message").text,
                        hint[0].text if hint else "")
        return None

    def severe_logs(self):
        return [entry for entry in self.driver.get_log("browser") if entry["level"] == "SEVERE"
                and "401" not in entry["message"] and "403" not in entry["message"]
                and "404" not in entry["message"] and "409" not in entry["message"]]


# MARK: - Seeding

def seed(suite, root):
    """Documents, work, storage files and analytics events with known numbers."""
    suite.run("users", "add", "ana")
    suite.run("docs", "set", "users/ana", '{"name": "Ana", "points": 10, "joined": {"$timestamp": "2026-01-05T10:00:00Z"}}')
    suite.run("docs", "set", "users/bob", '{"name": "Bob", "points": 3}')
    suite.run("docs", "set", "users/ana/orders/o1", '{"total": 12.5}')
    lines = "".join(json.dumps({"id": f"p{i:03d}", "data": {"price": i, "name": f"product {i}"}}) + "\n"
                    for i in range(120))
    suite.run("docs", "import", "products", "-", stdin=lines)

    # Ana's work: three days of this month (or of last month early in a month), 8 h with a 30 min break each.
    today = datetime.date.today()
    first = today.replace(day=1) if today.day >= 4 else (today.replace(day=1) - datetime.timedelta(days=1)).replace(day=1)
    days = [first + datetime.timedelta(days=n) for n in range(3)]
    intervals = []
    for day in days:
        stamp = day.strftime("%Y%m%d")
        intervals += [
            {"start": f"{stamp}T080000Z", "end": f"{stamp}T120000Z", "tags": ["work"]},
            {"start": f"{stamp}T120000Z", "end": f"{stamp}T123000Z", "tags": ["break"]},
            {"start": f"{stamp}T123000Z", "end": f"{stamp}T163000Z", "tags": ["work"]},
        ]
    suite.run("work", "import", "--format", "timewarrior", "--user", "ana", "-", stdin=json.dumps(intervals))

    # Storage: two chats with known files.
    files = {"chats/g1/a.jpg": 10_000, "chats/g1/b.mp4": 50_000, "chats/g2/c.txt": 3_000}
    for path, size in files.items():
        os.makedirs(os.path.dirname(os.path.join(root, path)), exist_ok=True)
        with open(os.path.join(root, path), "wb") as handle:
            handle.write(b"x" * size)
    suite.run("storage", "scan", root, "--layout", "chat=chats/{groupId}/**")

    for _ in range(3):
        suite.run("analytics", "log", "screen_view", "screen=home")
    for _ in range(2):
        suite.run("analytics", "log", "login_done")
    return {"month": days[0].strftime("%Y-%m"), "days": [d.isoformat() for d in days], "storage": files}


# MARK: - Checks

def check_sign_in_through_the_printed_link(c, ctx):
    c.driver.get(ctx["console"])
    c.wait(lambda: "admin" in c.text("#whoami") if c.all("#whoami") else False, what="#whoami to show admin")
    assert "#token=" not in c.driver.current_url, f"the token stayed in the address bar: {c.driver.current_url}"
    # The link works once.
    status = c.driver.execute_script(
        "return fetch('/v1/session', {method: 'POST', body: JSON.stringify({signIn: arguments[0]}),"
        " credentials: 'omit'}).then(r => r.status)", ctx["console"].split("#token=")[1])
    assert status == 401, f"a used sign-in link answered {status}"


def check_documents_browse_and_page_through(c, ctx):
    c.go("#/documents", "documents")
    c.present("ul#collections a")
    names = [a.text for a in c.all("ul#collections a")]
    assert any("users" in n for n in names) and any("products" in n for n in names), names
    c.shot("documents")
    c.go("#/documents/products", "documents")
    c.present("table#doc-list tr[data-path]")
    assert len(c.all("table#doc-list tr[data-path]")) == 50, len(c.all("table#doc-list tr[data-path]"))
    c.click("#doc-more")
    c.wait(lambda: len(c.all("table#doc-list tr[data-path]")) == 100, what="the second page (100 rows)")
    c.click("#doc-more")
    c.wait(lambda: len(c.all("table#doc-list tr[data-path]")) == 120, what="the last page (120 rows)")
    c.wait(lambda: not c.find("#doc-more").is_displayed(), what="#doc-more to hide after the last page")
    c.shot("documents-collection")


def check_document_fields_with_types(c, ctx):
    c.go("#/doc/users/ana", "documents")
    c.present("table#doc-fields tr[data-field='points']")
    row = c.find("table#doc-fields tr[data-field='points']")
    assert row.find_element(By.CSS_SELECTOR, ".field-value").text.strip() == "10", row.text
    assert "integer" in row.find_element(By.CSS_SELECTOR, ".field-type").text.lower(), row.text
    joined = c.text("table#doc-fields tr[data-field='joined'] .field-type").lower()
    assert "timestamp" in joined, joined
    c.present("ul#subcollections a")
    assert any("orders" in a.text for a in c.all("ul#subcollections a"))
    c.shot("document")


def check_edit_in_the_console_shows_in_the_cli(c, ctx):
    c.go("#/doc/users/ana", "documents")
    c.present("#doc-edit")
    c.click("#doc-edit")
    area = c.present("#doc-json")
    area.clear()
    area.send_keys('{"name": "Ana", "points": 42}')
    c.click("#doc-save")
    deadline = time.time() + 10
    while time.time() < deadline:
        data = ctx["suite"].json("docs", "get", "users/ana").get("data", {})
        if data.get("points") == 42:
            break
        time.sleep(0.2)
    assert data.get("points") == 42, f"suite docs get shows {data}"
    c.wait(lambda: c.text("table#doc-fields tr[data-field='points'] .field-value").strip() == "42",
           what="the field table to show 42")
    # Bad JSON is refused in the page, not sent.
    c.click("#doc-edit")
    area = c.present("#doc-json")
    area.clear()
    area.send_keys('{"points": ')
    c.click("#doc-save")
    c.wait(lambda: c.error() is not None, what="an error for invalid JSON")
    assert ctx["suite"].json("docs", "get", "users/ana")["data"]["points"] == 42


def check_live_view_updates_without_reload(c, ctx):
    c.go("#/documents/users", "documents")
    c.present("table#doc-list tr[data-path='users/ana']")
    c.driver.execute_script("window.__noReload = 'still here'")
    c.wait(lambda: "live" in c.text("#live-status").lower(), what="#live-status to say live")
    ctx["suite"].run("docs", "set", "users/carol", '{"name": "Carol", "points": 7}')
    c.present("table#doc-list tr[data-path='users/carol']", timeout=10)
    c.present("ol#live-log li[data-path='users/carol']", timeout=5)
    assert c.driver.execute_script("return window.__noReload") == "still here", "the page reloaded"
    c.shot("documents-live")


def check_delete_asks_first(c, ctx):
    c.go("#/doc/users/carol", "documents")
    c.present("#doc-delete")
    c.click("#doc-delete")
    c.wait(lambda: c.find("#confirm-dialog").is_displayed(), what="the confirmation dialog")
    c.click("#confirm-no")
    assert ctx["suite"].run("docs", "get", "users/carol", check=False).returncode == 0, "deleted without a yes"
    c.click("#doc-delete")
    c.wait(lambda: c.find("#confirm-dialog").is_displayed(), what="the confirmation dialog")
    c.click("#confirm-yes")
    deadline = time.time() + 10
    while ctx["suite"].run("docs", "get", "users/carol", check=False).returncode == 0 and time.time() < deadline:
        time.sleep(0.2)
    assert ctx["suite"].run("docs", "get", "users/carol", check=False).returncode != 0, "users/carol still exists"


def check_query_with_explain(c, ctx):
    c.go("#/documents", "documents")
    c.present("#query-collection").send_keys("products")
    c.find("#query-where").send_keys("price >= 50")
    c.find("#query-order").send_keys("price desc")
    limit = c.find("#query-limit")
    limit.clear()
    limit.send_keys("5")
    c.click("#query-run")
    c.wait(lambda: len(c.all("table#query-results tr[data-path]")) == 5, what="5 query results")
    paths = [r.get_attribute("data-path") for r in c.all("table#query-results tr[data-path]")]
    assert paths == [f"products/p{i:03d}" for i in (119, 118, 117, 116, 115)], paths
    explain = c.text("pre#query-explain")
    assert "index" in explain and "products" in explain, explain
    c.shot("query")


def check_usage_matches_the_cli(c, ctx):
    expected = {line["collection"]: line for line in ctx["suite"].json("analytics", "cost")["collections"]}
    c.go("#/usage", "usage")
    c.present("table#usage-table tr[data-collection='products']")
    shown = float(c.text("table#usage-table tr[data-collection='products'] .writes").replace(",", ""))
    assert shown >= 120, f"products writes shown {shown}"
    # The server keeps counting while the test runs; the CLI's figure was read just before the page.
    assert shown >= expected["products"]["writes"], (shown, expected["products"])
    assert c.all("#usage-chart svg"), "no usage chart"
    assert c.all("#usage-collections-chart svg"), "no per-collection chart"
    # The quotas card (GET /v1/quotas): this server has none configured.
    c.present("#usage-quotas-slot p")
    assert "No quotas are configured" in c.text("#usage-quotas-slot p"), c.text("#usage-quotas-slot p")
    c.shot("usage")


def check_storage_totals_groups_and_cleanup(c, ctx):
    c.go("#/storage", "storage")
    total = c.present("#storage-total")
    assert total.get_attribute("data-items") == "3", total.get_attribute("data-items")
    groups = [r.get_attribute("data-group") for r in c.all("table#storage-groups tr[data-group]")]
    assert "g1" in groups and "g2" in groups, groups
    assert c.all("#storage-categories svg"), "no category chart"
    c.shot("storage")
    c.go("#/storage/group/g1", "storage")
    c.present("#group-detail")
    assert "b.mp4" in c.text("#group-detail")
    c.shot("storage-group")
    c.go("#/storage", "storage")
    c.present("#cleanup-category")
    c.driver.execute_script(
        "const s = document.querySelector('#cleanup-category'); s.value = 'video';"
        "s.dispatchEvent(new Event('change', {bubbles: true}));")
    c.click("#cleanup-preview")
    c.wait(lambda: c.all("#cleanup-result[data-items]")
           and c.find("#cleanup-result").get_attribute("data-items") == "1", what="the dry run (1 item)")
    assert os.path.exists(os.path.join(ctx["root"], "chats/g1/b.mp4")), "the dry run deleted the file"
    c.present("#cleanup-confirm")
    c.click("#cleanup-confirm")
    c.wait(lambda: c.find("#confirm-dialog").is_displayed(), what="the confirmation dialog")
    c.click("#confirm-yes")
    c.wait(lambda: c.all("#cleanup-result[data-deleted]")
           and c.find("#cleanup-result").get_attribute("data-deleted") == "1", what="1 deleted")
    assert not os.path.exists(os.path.join(ctx["root"], "chats/g1/b.mp4")), "the file is still on disk"
    c.wait(lambda: c.find("#storage-total").get_attribute("data-items") == "2", what="the total to drop to 2")


def check_analytics_per_name_and_queue(c, ctx):
    queue = ctx["suite"].json("analytics", "queue")
    c.go("#/analytics", "analytics")
    c.present("table#analytics-names tr[data-name='screen_view']")
    count = c.text("table#analytics-names tr[data-name='screen_view'] .count").strip()
    assert count == "3", count
    assert c.text("table#analytics-names tr[data-name='login_done'] .count").strip() == "2"
    assert c.find("#analytics-queue").get_attribute("data-pending") == str(queue["pending"]), queue
    assert c.all("#analytics-per-day svg"), "no per-day chart"
    c.shot("analytics")


def check_work_month_week_and_team(c, ctx):
    c.go("#/work", "work")
    user = c.present("#work-user")
    user.clear()
    user.send_keys("ana")
    c.driver.execute_script(
        "const m = document.querySelector('#work-month'); m.value = arguments[0];"
        "m.dispatchEvent(new Event('change', {bubbles: true}));", ctx["seed"]["month"])
    c.click("#work-show")
    day = ctx["seed"]["days"][0]
    c.present(f"table#work-calendar td[data-date='{day}']")
    c.ready("work")
    for day in ctx["seed"]["days"]:
        worked = c.find(f"table#work-calendar td[data-date='{day}']").get_attribute("data-worked")
        assert worked == str(8 * 3600), (day, worked)
    assert c.find("#work-month-totals").get_attribute("data-worked") == str(3 * 8 * 3600)
    rows = c.all("table#work-team tr[data-uid='ana']")
    assert rows, "ana is not in the team view"
    assert rows[0].find_element(By.CSS_SELECTOR, ".worked").get_attribute("data-seconds") == str(3 * 8 * 3600)
    assert c.all("#work-week[data-worked]"), "no week totals"
    c.shot("work")


def check_system_shows_status(c, ctx):
    status = ctx["suite"].json("status")
    c.go("#/system", "system")
    c.present("table#system-modules tr[data-module='Documents']")
    names = {r.get_attribute("data-module") for r in c.all("table#system-modules tr[data-module]")}
    assert names == {m["name"] for m in status["modules"]}, names
    assert c.find("#system-bus").get_attribute("data-dropped") == "0"
    c.shot("system")


def check_phone_width(c, ctx):
    c.driver.set_window_size(390, 844)
    try:
        for route, page in [("#/work", "work"), ("#/storage", "storage"), ("#/documents/users", "documents")]:
            c.go(route, page)
            width = c.driver.execute_script("return document.documentElement.scrollWidth")
            assert width <= 400, f"{page} is {width} px wide at a 390 px window"
            c.shot(f"phone-{page}")
    finally:
        c.driver.set_window_size(1280, 800)


def check_keyboard_reaches_every_page(c, ctx):
    c.go("#/documents", "documents")
    c.driver.find_element(By.TAG_NAME, "body").click()
    seen = set()
    for _ in range(40):
        c.driver.switch_to.active_element.send_keys(Keys.TAB)
        page = c.driver.switch_to.active_element.get_attribute("data-page")
        if page:
            seen.add(page)
    assert {"documents", "usage", "storage", "analytics", "work", "system"} <= seen, seen
    c.driver.execute_script("document.querySelector('nav a[data-page=system]').focus()")
    c.driver.switch_to.active_element.send_keys(Keys.ENTER)
    c.ready("system")


def check_a_user_without_rights_sees_403(c, ctx):
    c.driver.execute_script("return fetch('/v1/session', {method: 'DELETE', credentials: 'same-origin'})")
    link = ctx["suite"].json("users", "signin", "ana", "--url", ctx["url"])["link"]
    c.driver.get("about:blank")
    c.driver.get(link)
    c.wait(lambda: c.all("#whoami") and "ana" in c.text("#whoami"), what="#whoami to show ana")
    c.go("#/system", "system")
    error = c.wait(lambda: c.error(), what="a 403 message")
    assert error[0] == "forbidden" and error[1], error
    assert not c.all("table#system-modules tr[data-module]"), "system data shown to a non-admin"
    c.shot("forbidden-system")
    c.go("#/doc/users/bob", "documents")
    error = c.wait(lambda: c.error(), what="a 403 message on another user's document")
    assert error[0] == "forbidden", error
    assert not c.all("table#doc-fields tr[data-field]"), "bob's fields shown to ana"
    c.go("#/doc/users/ana", "documents")
    c.present("table#doc-fields tr[data-field='points']")


CHECKS = [
    check_sign_in_through_the_printed_link, check_documents_browse_and_page_through,
    check_document_fields_with_types, check_edit_in_the_console_shows_in_the_cli,
    check_live_view_updates_without_reload, check_delete_asks_first, check_query_with_explain,
    check_usage_matches_the_cli, check_storage_totals_groups_and_cleanup, check_analytics_per_name_and_queue,
    check_work_month_week_and_team, check_system_shows_status, check_phone_width,
    check_keyboard_reaches_every_page, check_a_user_without_rights_sees_403,
]


def first_page_timing(binary, documents, out):
    """Time to an interactive first page (Navigation Timing's domInteractive and the page's own ready mark) with
    `documents` documents in one collection, and to the first page of that collection."""
    data = tempfile.mkdtemp(prefix="suite-console-timing-")
    try:
        suite = Suite(binary, data)
        lines = "".join(json.dumps({"id": f"d{i:07d}", "data": {"n": i, "name": f"doc {i}"}}) + "\n"
                        for i in range(documents))
        suite.run("docs", "import", "items", "-", stdin=lines)
        server, url, link = suite.serve()
        driver = browser()
        try:
            c = Console(driver, url, out)
            driver.get(link)
            c.ready("documents")
            driver.get("about:blank")
            driver.get(url + "/console#/documents/items")  # a fresh load, on the large collection
            c.ready("documents")
            c.present("table#doc-list tr[data-path]")
            timing = driver.execute_script(
                "const n = performance.getEntriesByType('navigation')[0];"
                "return {interactive: n.domInteractive, loaded: n.loadEventEnd, ready: window.suiteConsoleReady};")
            c.shot("timing-items")
            return timing
        finally:
            driver.quit()
            server.terminate()
            server.wait(timeout=30)
    finally:
        shutil.rmtree(data, ignore_errors=True)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--bin", default=os.path.join(os.environ.get("SUITE_BIN_DIR", ".build/debug"), "suite"))
    parser.add_argument("--out", default=".build/console-test")
    parser.add_argument("--timing-documents", type=int, default=100_000)
    parser.add_argument("--timing-only", action="store_true", help="only measure the first page (make bench)")
    arguments = parser.parse_args()
    os.makedirs(arguments.out, exist_ok=True)
    binary = os.path.abspath(arguments.bin)

    if not arguments.timing_only:
        data = tempfile.mkdtemp(prefix="suite-console-")
        server = None
        driver = None
        failures = []
        try:
            suite = Suite(binary, data)
            root = os.path.join(data, "appdata")
            seeded = seed(suite, root)
            server, url, link = suite.serve()
            driver = browser()
            console = Console(driver, url, arguments.out)
            context = {"suite": suite, "url": url, "console": link, "seed": seeded, "root": root}
            for check in CHECKS:
                name = check.__name__[len("check_"):].replace("_", " ")
                try:
                    check(console, context)
                    print(f"✔ {name}")
                except Exception as error:  # a failed check is reported, the others still run
                    failures.append(name)
                    print(f"✘ {name}: {error}")
                    traceback.print_exc(limit=2)
                    console.shot("failed-" + check.__name__)
            logs = console.severe_logs()
            if logs:
                failures.append("browser console errors")
                print("✘ the browser logged errors:", *[entry["message"] for entry in logs], sep="\n  ")
        finally:
            if driver:
                driver.quit()
            if server:
                server.terminate()
                server.wait(timeout=30)
            shutil.rmtree(data, ignore_errors=True)
        print(f"screenshots: {os.path.abspath(arguments.out)}")
        if failures:
            print(f"console test: {len(failures)} of {len(CHECKS)} checks failed")
            sys.exit(1)
        print(f"console test: all {len(CHECKS)} checks passed")

    timing = first_page_timing(binary, arguments.timing_documents, arguments.out)
    ready = timing["ready"]
    print(
        f"first page with {arguments.timing_documents} documents: interactive {timing['interactive']:.0f} ms, "
        f"ready (data shown) {ready:.0f} ms; limit 1000 ms, ratio {1000 / max(ready, 1):.2f}x")
    with open(os.path.join(arguments.out, "timing.json"), "w") as handle:
        json.dump({"documents": arguments.timing_documents, **timing}, handle)


if __name__ == "__main__":
    main()
