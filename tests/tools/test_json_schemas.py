"""Every reporting command's JSON against its schema (docs/schemas/, docs/formats.md).

Runs list, verify --power, mutants, sweep, calibrate, compare and verify
itself (its report, report.schema.json: a chain sampler that breaks the
contract, a tree, a block verifier, a lossy rule measured, a Markov case, a
suite cut below its power) on inputs small enough for a few seconds,
validates what each wrote against docs/schemas/COMMAND.schema.json (Draft
2020-12), and checks that the
schemas are not vacuous: a document with a field missing, an unknown field
or a wrong type is refused. Words from a plugin reach the JSON escaped.

usage: test_json_schemas.py SPECVERIFY TEST_COMPARE FORGED_PLUGIN SOURCE_DIR SCRATCH_DIR
Exit 77 (skipped) without jsonschema (Debian: python3-jsonschema)."""
import copy
import json
import os
import shutil
import subprocess
import sys

try:
    import jsonschema
except ImportError:
    print("SKIPPED: json_schemas: no jsonschema module (apt-get install python3-jsonschema)")
    sys.exit(77)

sv, maker, forged, source, scratch = sys.argv[1:6]
failures = []


def run(args, want=(0,)):
    r = subprocess.run([sv] + args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, errors="replace",
                       text=True, timeout=300)
    if r.returncode not in want:
        failures.append("specverify %s: exit %d: %s" % (" ".join(args), r.returncode,
                                                         r.stderr[-2000:]))
    return r


def schema(command):
    with open(os.path.join(source, "docs", "schemas", command + ".schema.json")) as f:
        s = json.load(f)
    jsonschema.Draft202012Validator.check_schema(s)
    return jsonschema.Draft202012Validator(s)


def errors(command, doc):
    return [e.message for e in schema(command).iter_errors(doc)]


def check(command, path, fmt=1):
    """path's JSON valid against command's schema; its data."""
    try:
        with open(path) as f:
            doc = json.load(f)
    except (OSError, ValueError) as e:
        failures.append("%s: %s" % (command, e))
        return None
    wrong = errors(command, doc)
    if wrong:
        failures.append("%s (%s) disagrees with its schema: %s" % (command, path, wrong[:5]))
    if doc.get(command + "_format") != fmt or not doc.get("specverify_version"):
        failures.append("%s: no %s_format %d or specverify_version" % (command, command, fmt))
    return doc


shutil.rmtree(scratch, ignore_errors=True)
os.makedirs(scratch)
out = lambda name: os.path.join(scratch, name)

docs = {}
run(["list", "--plugin", forged, "--json", out("list.json")])
docs["list"] = check("list", out("list.json"))
run(["list", "--suite", "smoke", "--json", out("list-smoke.json")])
smoke = check("list", out("list-smoke.json"))
run(["verify", "--power", "residual_swapped", "--suite", "smoke", "--json", out("power.json")])
docs["power"] = check("power", out("power.json"))
run(["mutants", "--suite", "smoke", "--variants", "residual_swapped,seed_ignored",
     "--threads", "2", "--out", out("mutants"), "--json", out("mutants.json")])
docs["mutants"] = check("mutants", out("mutants.json"))
check("mutants", out("mutants/mutants-smoke.json") if os.path.exists(
    out("mutants/mutants-smoke.json")) else out("mutants.json"))
run(["sweep", "--case", "logits:V=50,K=2", "--T", "0.5,1", "--draws", "2000", "--threads", "1",
     "--json", out("sweep.json")])
docs["sweep"] = check("sweep", out("sweep.json"))
# two samplers side by side, a lossy rule's distances, and the batched speedup
run(["sweep", "--case", "logits:V=50,K=2", "--K", "1,2", "--draws", "2000", "--threads", "1",
     "--sampler", "ref,ref_typical", "--B", "1,8", "--target-us", "10,1", "--sampler-us",
     "2,0.1", "--json", out("sweep2.json")])
sweep2 = check("sweep", out("sweep2.json"))
run(["calibrate", "--runs", "2", "--threads", "2", "--json", out("calibrate.json")])
docs["calibrate"] = check("calibrate", out("calibrate.json"))
os.makedirs(out("bench"))
subprocess.run([maker, out("bench")], check=True, stdout=subprocess.DEVNULL)
run(["compare", out("bench/base.h5"), out("bench/slow.h5"), out("bench/other.h5"),
     "--json", out("compare.json")])
docs["compare"] = check("compare", out("compare.json"))
run(["compare", out("bench/base.h5"), out("bench/forged.h5"), "--json", out("forged.json")])
forged_compare = check("compare", out("forged.json"))

# verify's report, in the shapes a run can give it (report_format 2)
reports = {}
for name, args, want in [
        ("contract", ["--sampler", "counts_off_by_one", "--suite", "smoke", "--draws", "20000",
                      "--dump-failing", out("dumps")], 1),
        ("tree", ["--sampler", "ref_tree", "--case", "seedlab:V=100,K=3", "--tree", "2x2x1",
                  "--draws", "20000"], 0),
        ("block", ["--sampler", "ref_block", "--case", "seedlab:V=100,K=3", "--draws", "20000"], 0),
        ("measured", ["--sampler", "ref_typical", "--measure", "--case", "seedlab:V=100,K=3",
                      "--draws", "20000"], 0),
        ("markov", ["--case", "markov:V=50,K=3", "--draws", "20000"], 0),
        ("short", ["--suite", "ci", "--draws-scale", "0.005"], 0),
        ("plugin", ["--plugin", forged, "--sampler", "forged_verify", "--case", "binary",
                    "--draws", "2000"], 1)]:
    run(["verify", "--threads", "2"] + args + ["--json", out("report-%s.json" % name)], want=(want,))
    reports[name] = check("report", out("report-%s.json" % name), fmt=2)
docs["report"] = reports["contract"]


def raw(text):
    """what sv_escape never leaves: a control character, U+2028 or U+2029"""
    return any(ord(ch) < 0x20 or 0x7f <= ord(ch) <= 0x9f or ch in "\u2028\u2029" for ch in text)

# the values, not only the shapes
if docs["list"]:
    names = [s["name"] for s in docs["list"]["samplers"]]
    if "ref" not in names or "forged_verify" not in names:
        failures.append("list: samplers lack ref or the plugin's: %s" % names[:5])
    desc = [s["description"] for s in docs["list"]["samplers"] if s["name"] == "forged_verify"]
    if not desc or "\\n1 cases" not in desc[0] or raw(desc[0]):
        failures.append("list: the plugin's description is not escaped: %r" % desc)
if smoke and [s["name"] for s in smoke["suites"]] != ["smoke"]:
    failures.append("list --suite smoke: suites %s" % smoke["suites"])
if smoke and smoke["suites"][0]["cases"][0]["spec"] != "seedlab:V=100,K=3":
    failures.append("list --suite smoke: first case %s" % smoke["suites"][0]["cases"][0])
if docs["mutants"]:
    got = {v["variant"]: v["result"] for v in docs["mutants"]["variants"]}
    if got != {"residual_swapped": "CAUGHT", "seed_ignored": "CAUGHT"}:
        failures.append("mutants: results %s" % got)
if docs["sweep"]:
    pts = docs["sweep"]["samplers"][0]["points"]
    if [p["T"] for p in pts] != [0.5, 1] or any(sum(p["accepted_lengths"]) != 2000 for p in pts):
        failures.append("sweep: points %s" % [(p["T"], p["accepted_lengths"]) for p in pts])
if sweep2:
    if [s["sampler"] for s in sweep2["samplers"]] != ["ref", "ref_typical"]:
        failures.append("sweep of two samplers: %s" % sweep2["samplers"])
    elif not sweep2["samplers"][1]["points"][0]["distance"]:
        failures.append("sweep: ref_typical's distances missing")
if docs["calibrate"] and (docs["calibrate"]["runs"] != 2 or
                          sum(docs["calibrate"]["chi2_bins"]["counts"]) !=
                          docs["calibrate"]["p_values"]):
    failures.append("calibrate: runs or bins: %s" % docs["calibrate"])
if docs["compare"]:
    slow = [p for p in docs["compare"]["others"][0]["points"] if p["verdict"] == "SLOWER"]
    if not slow or docs["compare"]["slower"] < 1:
        failures.append("compare: the planted slowdown is not SLOWER")
if forged_compare:
    device = forged_compare["others"][0]["device"]
    if "\\n1 cases" not in device or raw(device):
        failures.append("compare: a bench file's device is not escaped: %r" % device)
r = reports
if r["contract"]:
    bad = [c for c in r["contract"]["cases"] if c["verdict"] == "FAIL"]
    if not bad or not bad[0].get("reproduce", "").startswith("specverify verify") or \
            bad[0]["runs"][0]["contract"] != "FAIL" or bad[0]["runs"][0]["violations"] < 1:
        failures.append("report: the contract breach is not a FAIL with its command: %s" %
                        [(c["name"], c["verdict"]) for c in r["contract"]["cases"]])
    # --dump-failing: each mixed case's batch, named in the report
    dumped = [c["replay"]["contract"] for c in bad if "replay" in c]
    if not dumped or not all(os.path.isfile(f) for f in dumped):
        failures.append("report: the contract breaches' batches are not named: %s" % dumped)
else:
    dumped = []
if r["tree"] and (r["tree"]["rule"] != "tree" or not r["tree"].get("tree", "").startswith("2x2x1")):
    failures.append("report of a tree: rule %s, tree %s" % (r["tree"]["rule"], r["tree"].get("tree")))
if r["block"] and "chain_mean" not in r["block"]["cases"][0]["runs"][0]["accepted_length"]:
    failures.append("report of a block verifier: no chain_mean")
if r["measured"] and (r["measured"]["judged"] or not r["measured"]["measure"] or "distance" not in
                      r["measured"]["cases"][0]["runs"][0]["positions"][0]):
    failures.append("report of a lossy rule measured: judged or no distance")
if r["markov"] and "sequence" not in r["markov"]["cases"][0]["runs"][0]:
    failures.append("report of a Markov case: no sequence test")
if r["short"] and not any("below_power" in c for c in r["short"]["cases"]):
    failures.append("report of ci at 0.005 of its draws: no case below power")
if r["plugin"]:
    words = [f for c in r["plugin"]["cases"] for run_ in c["runs"] for f in run_["findings"]]
    if any(raw(w) for w in words + [r["plugin"]["sampler_description"]]):
        failures.append("report: a plugin's words reach it raw: %r" % words[:3])

# replay's: the contract run's first dumped batch given to its sampler again
if dumped:
    run(["replay", dumped[0], "--json", out("replay.json")], want=(1,))
    docs["replay"] = check("replay", out("replay.json"))
    if docs["replay"] and not (docs["replay"]["reproduced"] and
                               docs["replay"]["batches"][0]["same_as_run"] ==
                               docs["replay"]["batches"][0]["size"]):
        failures.append("replay: the contract breach did not come back with the run's outputs")

# the schemas refuse what drifts: a field gone, a field unknown, a wrong type
for command, doc in docs.items():
    if not doc:
        continue
    for what, change in [("without specverify_version", lambda d: d.pop("specverify_version")),
                         ("with an unknown field", lambda d: d.update(surprise=1)),
                         ("with its format a string", lambda d: d.update(
                             {command + "_format": str(d[command + "_format"])}))]:
        bad = copy.deepcopy(doc)
        change(bad)
        if not errors(command, bad):
            failures.append("%s's schema accepts its JSON %s" % (command, what))

for f in failures:
    print("FAIL:", f)
print("%d failures" % len(failures))
sys.exit(1 if failures else 0)
