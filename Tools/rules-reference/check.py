#!/usr/bin/env python3
"""Run Suite's Firestore rules case tables against Google's Firestore emulator.

For every NAME.rules / NAME.yaml pair the emulator is started with --rules NAME.rules,
each case is replayed through the emulator's REST API as the case's user, and the
emulator's decision is compared with the case's `expect`. See README.md.

Standard library only, plus PyYAML for the case files (a JSON case file needs no YAML).
"""

import argparse
import base64
import glob
import json
import math
import os
import queue
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from datetime import date, datetime, timezone

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
DEFAULT_CASES = os.path.join(REPO, "Tests", "SuiteServerTests", "RulesCases")
DEFAULT_EMULATOR = "/usr/lib/google-cloud-sdk/platform/cloud-firestore-emulator/cloud_firestore_emulator"
PROJECT = "suite-rules-ref"
DB = "projects/%s/databases/(default)" % PROJECT
DOCS = DB + "/documents"
OPERATIONS = ("get", "list", "create", "update", "delete")
READY = "Dev App Server is now running"


# ---------------------------------------------------------------------------- loading

def load_cases(path):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    try:
        return json.loads(text)
    except ValueError:
        pass
    try:
        import yaml  # PyYAML
    except ImportError:
        sys.exit("check.py: %s is YAML and PyYAML is not installed (pip install pyyaml)" % path)
    return yaml.safe_load(text)


# ---------------------------------------------------------------------------- values

class NotExpressible(Exception):
    """The case cannot be put to the emulator as written."""


def to_value(v):
    """Suite's tagged case value -> Firestore REST Value JSON."""
    if v is None:
        return {"nullValue": None}
    if isinstance(v, bool):
        return {"booleanValue": v}
    if isinstance(v, int):
        if not -(2 ** 63) <= v < 2 ** 63:
            raise NotExpressible("integer %d is outside 64 bits" % v)
        return {"integerValue": str(v)}
    if isinstance(v, float):
        if math.isnan(v):
            return {"doubleValue": "NaN"}
        if math.isinf(v):
            return {"doubleValue": "Infinity" if v > 0 else "-Infinity"}
        return {"doubleValue": v}
    if isinstance(v, str):
        return {"stringValue": v}
    if isinstance(v, datetime):  # an unquoted YAML timestamp
        if v.tzinfo is None:
            v = v.replace(tzinfo=timezone.utc)
        return {"timestampValue": v.astimezone(timezone.utc).isoformat().replace("+00:00", "Z")}
    if isinstance(v, date):
        return {"stringValue": v.isoformat()}
    if isinstance(v, list):
        return {"arrayValue": {"values": [to_value(x) for x in v]}}
    if isinstance(v, dict):
        if len(v) == 1:
            (k, x), = v.items()
            if k == "$timestamp":
                return {"timestampValue": x}
            if k == "$ref":
                return {"referenceValue": "%s/%s" % (DOCS, str(x).strip("/"))}
            if k == "$bytes":
                return {"bytesValue": x}
            if k == "$geo":
                return {"geoPointValue": {"latitude": float(x[0]), "longitude": float(x[1])}}
        return {"mapValue": {"fields": {str(k): to_value(x) for k, x in v.items()}}}
    raise NotExpressible("no Firestore value for %r" % (v,))


def fields(doc):
    if doc is None:
        return {}
    if not isinstance(doc, dict):
        raise NotExpressible("document data is not a map: %r" % (doc,))
    return {str(k): to_value(x) for k, x in doc.items()}


def field_path(name):
    # Dotted paths as the case tables write them (a.b); quote segments that need it.
    out = []
    for seg in str(name).split("."):
        if seg and (seg[0].isalpha() or seg[0] == "_") and all(c.isalnum() or c == "_" for c in seg):
            out.append(seg)
        else:
            out.append("`" + seg.replace("\\", "\\\\").replace("`", "\\`") + "`")
    return ".".join(out)


# ---------------------------------------------------------------------------- HTTP

def b64url(data):
    return base64.urlsafe_b64encode(json.dumps(data, separators=(",", ":")).encode()).rstrip(b"=").decode()


def user_token(auth):
    uid = str(auth.get("uid"))
    now = int(time.time())
    payload = {
        "sub": uid, "user_id": uid, "iat": now, "auth_time": now, "exp": now + 3600,
        "aud": PROJECT, "iss": "https://securetoken.google.com/" + PROJECT,
        "firebase": {"sign_in_provider": "custom", "identities": {}},
    }
    for k, v in (auth.get("token") or {}).items():
        payload[k] = v
    return b64url({"alg": "none", "typ": "JWT"}) + "." + b64url(payload) + "."


class Emulator:
    def __init__(self, binary, rules, log_lines, timeout):
        self.port = free_port()
        self.base = "http://127.0.0.1:%d" % self.port
        self.lines = log_lines
        self.proc = subprocess.Popen(
            [binary, "--host", "127.0.0.1", "--port", str(self.port), "--rules", rules,
             "--project_id", PROJECT, "--single_project_mode", "true"],
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
            start_new_session=True, text=True, errors="replace")
        ready = queue.Queue()

        def pump():
            for line in self.proc.stdout:
                self.lines.append(line.rstrip("\n"))
                if READY in line:
                    ready.put(True)
            ready.put(False)

        threading.Thread(target=pump, daemon=True).start()
        try:
            ok = ready.get(timeout=timeout)
        except queue.Empty:
            ok = False
        if not ok:
            self.stop()
            raise RuntimeError("emulator did not start:\n" + "\n".join(self.lines[-30:]))

    def stop(self):
        if self.proc.poll() is None:
            try:
                os.killpg(self.proc.pid, signal.SIGTERM)  # the wrapper script and its java child
            except ProcessLookupError:
                pass
            try:
                self.proc.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(self.proc.pid, signal.SIGKILL)
                self.proc.wait()

    def request(self, method, path, body=None, token=None):
        headers = {"Content-Type": "application/json"}
        if token is not None:
            headers["Authorization"] = "Bearer " + token
        data = None if body is None else json.dumps(body).encode()
        req = urllib.request.Request(self.base + path, data=data, method=method, headers=headers)
        try:
            with urllib.request.urlopen(req, timeout=120) as resp:
                return resp.status, resp.read().decode("utf-8", "replace")
        except urllib.error.HTTPError as e:
            return e.code, e.read().decode("utf-8", "replace")

    # admin ("Bearer owner" bypasses rules)
    def reset(self):
        st, body = self.request("DELETE", "/emulator/v1/%s/documents" % DB)
        if st != 200:
            raise RuntimeError("reset failed: %d %s" % (st, body))

    def put_admin(self, docs):
        writes = [{"update": {"name": "%s/%s" % (DOCS, p), "fields": fields(d)}} for p, d in docs.items()]
        for i in range(0, len(writes), 400):
            st, body = self.request("POST", "/v1/%s:commit" % DOCS, {"writes": writes[i:i + 400]}, "owner")
            if st != 200:
                raise NotExpressible("setup documents refused (%d): %s" % (st, message(body)))


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def message(body):
    try:
        j = json.loads(body)
    except ValueError:
        return body.strip()[:300]
    if isinstance(j, list):
        for item in j:
            if isinstance(item, dict) and "error" in item:
                j = item
                break
    if isinstance(j, dict) and "error" in j:
        e = j["error"]
        text = " ".join((e.get("message") or "").split())
        return ("%s: %s" % (e.get("status"), text[:600])).strip()
    return body.strip()[:300]


def status_of(body):
    try:
        j = json.loads(body)
    except ValueError:
        return None
    if isinstance(j, list):
        for item in j:
            if isinstance(item, dict) and "error" in item:
                return item["error"].get("status")
        return None
    if isinstance(j, dict) and "error" in j:
        return j["error"].get("status")
    return None


# ---------------------------------------------------------------------------- cases

def operation(case):
    ops = [op for op in OPERATIONS if op in case]
    if len(ops) != 1:
        raise NotExpressible("a case names exactly one of %s" % ", ".join(OPERATIONS))
    return ops[0], str(case[ops[0]]).strip("/")


def structured_query(path, case):
    q = case.get("query") or {}
    segs = path.split("/")
    if case.get("group"):
        if len(segs) != 1:
            raise NotExpressible("a collection group is one collection id, not %s" % path)
        parent, coll = "", segs[0]
    else:
        if len(segs) % 2 != 1:
            raise NotExpressible("list of %s: not a collection path" % path)
        parent, coll = "/".join(segs[:-1]), segs[-1]
    sq = {"from": [{"collectionId": coll, "allDescendants": bool(case.get("group"))}]}
    filters = []
    for k, v in (q.get("where") or {}).items():
        filters.append({"fieldFilter": {"field": {"fieldPath": field_path(k)}, "op": "EQUAL", "value": to_value(v)}})
    for k, vs in (q.get("in") or {}).items():
        if not isinstance(vs, list):
            raise NotExpressible("in: %s is not a list" % k)
        filters.append({"fieldFilter": {"field": {"fieldPath": field_path(k)}, "op": "IN",
                                        "value": {"arrayValue": {"values": [to_value(x) for x in vs]}}}})
    unknown = set(q) - {"where", "in", "limit", "offset", "orderBy"}
    if unknown:
        raise NotExpressible("query keys not mapped: %s" % ", ".join(sorted(unknown)))
    if len(filters) == 1:
        sq["where"] = filters[0]
    elif filters:
        sq["where"] = {"compositeFilter": {"op": "AND", "filters": filters}}
    order = q.get("orderBy")
    if order is not None:
        if isinstance(order, str):
            order = [order]
        obs = []
        for o in order:
            parts = str(o).split()
            direction = "DESCENDING" if len(parts) > 1 and parts[1].lower().startswith("desc") else "ASCENDING"
            obs.append({"field": {"fieldPath": field_path(parts[0])}, "direction": direction})
        sq["orderBy"] = obs
    if "limit" in q:
        sq["limit"] = int(q["limit"])
    if "offset" in q:
        sq["offset"] = int(q["offset"])
    return parent, sq


def decide(st, body, allowed_codes):
    """-> ('allow'|'deny'|'error', message)"""
    s = status_of(body)
    if st == 403 or s == "PERMISSION_DENIED":
        return "deny", message(body)
    if st in allowed_codes and s in (None, "NOT_FOUND"):
        return "allow", "" if st == 200 else "HTTP %d" % st
    return "error", "HTTP %d %s" % (st, message(body))


def run_case(emu, case, file_docs):
    op, path = operation(case)
    if op != "list" and len(path.split("/")) % 2:
        raise NotExpressible("%s names a collection (odd number of segments), not a document" % path)
    token = user_token(case["auth"]) if case.get("auth") else None
    docs = dict(file_docs or {})
    docs.update(case.get("documents") or {})
    docs = {str(p).strip("/"): d for p, d in docs.items()}
    if op in ("get", "update", "delete") and "resource" in case and case["resource"] is not None:
        docs[path] = case["resource"]
    emu.reset()
    if docs:
        emu.put_admin(docs)
    name = "%s/%s" % (DOCS, path)
    url = "/v1/" + urllib.parse.quote(name, safe="/()")

    if op == "get":
        st, body = emu.request("GET", url, token=token)
        return decide(st, body, (200, 404))
    if op == "delete":
        st, body = emu.request("DELETE", url, token=token)
        return decide(st, body, (200,))
    if op in ("create", "update"):
        if "data" not in case:
            raise NotExpressible("%s without data" % op)
        write = {"update": {"name": name, "fields": fields(case["data"])}}
        if op == "create":
            write["currentDocument"] = {"exists": False}
        elif path not in docs:
            raise NotExpressible("update of a document the case does not store (no resource)")
        st, body = emu.request("POST", "/v1/%s:commit" % DOCS, {"writes": [write]}, token)
        verdict, msg = decide(st, body, (200,))
        if verdict == "error" and status_of(body) == "ALREADY_EXISTS":
            # The precondition is checked before the rules; a client's set() of an existing
            # document is judged as an update instead: report what that gives.
            emu.reset()
            emu.put_admin(docs)
            del write["currentDocument"]
            st2, body2 = emu.request("POST", "/v1/%s:commit" % DOCS, {"writes": [write]}, token)
            v2, m2 = decide(st2, body2, (200,))
            raise NotExpressible("create with exists=false over an existing document answers %s before any rule; "
                                 "a plain set() of it is judged as an update: %s %s" % (msg, v2, m2))
        if verdict == "error" and st == 400:
            raise NotExpressible("the emulator refuses the document before rules: " + msg)
        return verdict, msg
    if op == "list":
        parent, sq = structured_query(path, case)
        p = DOCS + ("/" + parent if parent else "")
        st, body = emu.request("POST", "/v1/" + urllib.parse.quote(p, safe="/()") + ":runQuery",
                               {"structuredQuery": sq}, token)
        verdict, msg = decide(st, body, (200,))
        if verdict == "error" and st == 400:
            raise NotExpressible("the emulator refuses the query before rules: " + msg)
        return verdict, msg
    raise NotExpressible("unknown operation " + op)


# ---------------------------------------------------------------------------- driver

def pairs_from_args(args):
    names = args.pairs or sorted(glob.glob(os.path.join(DEFAULT_CASES, "*.rules")))
    out = []
    for n in names:
        base = n[:-6] if n.endswith(".rules") else (n[:-5] if n.endswith(".yaml") else n)
        if not os.path.exists(base + ".rules") and not os.path.sep in base:
            base = os.path.join(DEFAULT_CASES, base)
        rules, cases = base + ".rules", None
        for ext in (".yaml", ".yml", ".json"):
            if os.path.exists(base + ext):
                cases = base + ext
                break
        if not os.path.exists(rules) or cases is None:
            sys.exit("check.py: no %s.rules with a .yaml/.json case file" % base)
        out.append((rules, cases))
    return out


def compile_errors(emu):
    """The emulator compiles the rules on the first request; a refused file answers every
    request with 400 'Error compiling rules'. Probe once with an anonymous get."""
    st, body = emu.request("GET", "/v1/%s/rulesReferenceProbe/x" % DOCS)
    msg = message(body)
    return msg if st == 400 and "compiling rules" in msg else None


def load_patches():
    p = os.path.join(HERE, "patches.json")
    if not os.path.exists(p):
        return {}
    with open(p, encoding="utf-8") as f:
        return json.load(f)


def patched_copy(rules, patches, tmpdir):
    with open(rules, encoding="utf-8") as f:
        text = f.read()
    for p in patches:
        if p["old"] not in text:
            raise RuntimeError("patch for %s no longer applies: %r" % (rules, p["old"]))
        text = text.replace(p["old"], p["new"])
    out = os.path.join(tmpdir, os.path.basename(rules))
    with open(out, "w", encoding="utf-8") as f:
        f.write(text)
    return out


def check_pair(args, rules, cases_path):
    table = load_cases(cases_path)
    cases = table.get("cases") or []
    result = {"file": os.path.basename(rules)[:-6], "cases": len(cases), "agree": 0,
              "disagree": [], "skipped": [], "not_expressible": [], "errors": [], "emulator_log": []}
    selected = [c for c in cases if not args.filter or args.filter in str(c.get("name"))]
    result["refused"] = None
    result["patches"] = []
    log = []
    emu = Emulator(args.emulator, rules, log, args.start_timeout)
    refused = compile_errors(emu)
    if refused:
        result["refused"] = refused
        patches = [] if args.no_patches else load_patches().get(result["file"], [])
        if patches:
            emu.stop()
            import tempfile
            tmp = tempfile.mkdtemp(prefix="rules-reference-")
            log = []
            emu = Emulator(args.emulator, patched_copy(rules, patches, tmp), log, args.start_timeout)
            result["patches"] = patches
            still = compile_errors(emu)
            if still:
                result["refused_after_patches"] = still
    try:
        for case in selected:
            name = str(case.get("name"))
            expect = str(case.get("expect"))
            if "time" in case:
                result["skipped"].append({"name": name, "reason": "request.time %s cannot be set on the emulator" % case["time"]})
                continue
            if result.get("refused") and (not result["patches"] or result.get("refused_after_patches")):
                result["not_expressible"].append({"name": name, "expect": expect,
                                                  "reason": "the emulator refuses the rules file"})
                continue
            try:
                verdict, msg = run_case(emu, case, table.get("documents"))
            except NotExpressible as e:
                result["not_expressible"].append({"name": name, "expect": expect, "reason": str(e)})
                continue
            if verdict == "error":
                result["errors"].append({"name": name, "expect": expect, "message": msg})
            elif verdict == expect:
                result["agree"] += 1
                if args.verbose:
                    print("  ok   %-5s %s%s" % (verdict, name, ("  [" + msg + "]") if msg else ""))
            else:
                result["disagree"].append({"name": name, "expect": expect, "emulator": verdict, "message": msg})
    finally:
        emu.stop()
    # Rules the emulator could not load show up in its log.
    startup = log[:next((i for i, l in enumerate(log) if READY in l), len(log))]
    result["emulator_log"] = [l for l in startup if "rror" in l or "WARN" in l or "SEVERE" in l][:20]
    result["selected"] = len(selected)
    return result


def report(r):
    print("== %s: %d cases, %d agree, %d DISAGREE, %d skipped (explicit time:), %d not expressible, %d errors"
          % (r["file"], r["selected"], r["agree"], len(r["disagree"]), len(r["skipped"]),
             len(r["not_expressible"]), len(r["errors"])))
    if r.get("refused"):
        print("  DISAGREE  the rules file itself: the emulator refuses to load it (Suite loads it): %s" % r["refused"])
        for p in r["patches"]:
            print("  patched for the cases below (Tools/rules-reference/patches.json): %r -> %r  (%s)"
                  % (p["old"], p["new"], p.get("why", "")))
        if r.get("refused_after_patches"):
            print("  still refused after the patches: %s" % r["refused_after_patches"])
    for d in r["disagree"]:
        print("  DISAGREE  %s\n            expect %s, emulator %s: %s" % (d["name"], d["expect"], d["emulator"], d["message"]))
    for e in r["errors"]:
        print("  ERROR     %s (expect %s): %s" % (e["name"], e["expect"], e["message"]))
    for n in r["not_expressible"]:
        print("  NOT EXPRESSIBLE  %s (expect %s): %s" % (n["name"], n["expect"], n["reason"]))
    for s in r["skipped"]:
        print("  skipped   %s: %s" % (s["name"], s["reason"]))
    for l in r["emulator_log"]:
        print("  emulator log: %s" % l)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("pairs", nargs="*", help="NAME, NAME.rules or NAME.yaml (default: every pair in %s)" % DEFAULT_CASES)
    ap.add_argument("--emulator", default=os.environ.get("FIRESTORE_EMULATOR_BIN", DEFAULT_EMULATOR))
    ap.add_argument("--filter", help="only cases whose name contains this text")
    ap.add_argument("--json", help="also write the results as JSON to this file")
    ap.add_argument("--start-timeout", type=float, default=120, help="give up if the emulator is not ready (s)")
    ap.add_argument("--no-patches", action="store_true",
                    help="do not apply patches.json to rules files the emulator refuses")
    ap.add_argument("-v", "--verbose", action="store_true", help="print agreeing cases too")
    args = ap.parse_args()

    results = []
    for rules, cases in pairs_from_args(args):
        r = check_pair(args, rules, cases)
        report(r)
        results.append(r)
        sys.stdout.flush()
    tot = lambda k: sum(len(r[k]) for r in results)
    print("== total: %d cases, %d agree, %d DISAGREE, %d skipped (explicit time: cannot be set on the emulator), "
          "%d not expressible, %d errors"
          % (sum(r["selected"] for r in results), sum(r["agree"] for r in results), tot("disagree"),
             tot("skipped"), tot("not_expressible"), tot("errors")))
    if args.json:
        with open(args.json, "w") as f:
            json.dump(results, f, indent=1)
    refused = sum(1 for r in results if r.get("refused"))
    if refused:
        print("== %d rules file(s) refused by the emulator (counted as disagreements)" % refused)
    sys.exit(1 if tot("disagree") or tot("errors") or refused else 0)


if __name__ == "__main__":
    main()
