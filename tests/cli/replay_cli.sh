#!/usr/bin/env bash
# replay_cli.sh: verify --dump-failing DIR writes the batch of a contract
# breach and the two batches of a batch-composition failure, and
# `specverify replay FILE` gives the sampler that batch again (issue 39).
# counts_off_by_one reports n = d + 1 whenever every draft passes: on
# zipf:V=200,K=4 some sequence of the first batch does (alpha^4 is far from
# 0), so the dump holds a breach and its replay breaks the contract again
# with the same outputs, while ref on the same batch keeps it (exit 0).
# outputs_swapped swaps neighbours' outputs, so a seeded sequence's tokens
# change with its neighbours: the composition file's replay gives the two
# different token lists again; ref gives one. The same with logits input
# (top_p_from_first). Then the refusals, exit 2: no
# FILE, a file that is no failing batch, a sampler not loaded, a case whose
# rows no longer match, a count past its case's K, a corrupt file (libhdf5
# crashes on it), a cut one, --batches uniform, a DIR that is a file.
# usage: replay_cli.sh SPECVERIFY SCRATCH_DIR
sv=$1
dir=$2
source "$(dirname "$0")/cli_lib.sh"
kept="$(cd "$(dirname "$0")" && pwd)/data/counts_off_by_one.contract.h5"
rm -rf "$dir" && mkdir -p "$dir" && cd "$dir" || exit 1
small=(--case zipf:V=200,K=4 --case onehot:V=100,K=3 --draws 20000 --seed 1 --no-rerun
       --threads 2)
file=dumps/zipf_V_200_K_4.contract.h5

expect 1 "zipf:V=200,K=4: its contract failure's batch again: specverify replay '$file'" \
  verify --sampler counts_off_by_one "${small[@]}" --dump-failing dumps --json report.json
[ -s "$file" ] && pass "$file written" || fail "$file missing"
/usr/bin/python3 - report.json "$file" <<'PY' && pass "the JSON names the file" || fail "report.json: no replay.contract"
import json, sys
cases = json.load(open(sys.argv[1]))["cases"]
sys.exit(0 if cases[0]["replay"]["contract"] == sys.argv[2] else 1)
PY
expect 1 "REPRODUCED: the batch broke the contract again" replay "$file"
expect 1 "outputs: the same as in the run, in all" replay "$file"
expect 1 "the case alone: specverify verify --sampler 'counts_off_by_one' --case 'zipf:V=200,K=4' --seed 1" \
  replay "$file"
expect 0 "NOT REPRODUCED: every sequence of the batch kept the contract" \
  replay --sampler ref "$file"

comp=swapped/zipf_V_200_K_4.composition.h5
expect 1 "its composition failure's batch again: specverify replay '$comp'" \
  verify --sampler outputs_swapped "${small[@]}" --dump-failing swapped
expect 1 "REPRODUCED: the seeded sequence changed its tokens with its neighbours again" \
  replay "$comp"
expect 1 "batch b: 6 sequences, packed layout" replay "$comp"
expect 0 "NOT REPRODUCED: the sequence gave the same tokens in both batches" \
  replay --sampler ref "$comp"

# logits input: top_p_from_first cuts every sequence with sequence 0's top-p,
# so a seeded sequence's tokens follow its neighbours; ref_logits does not
logit=logits/logits_V_1000_K_3_T_1.5_topp_0.9.composition.h5
expect 1 "its composition failure's batch again: specverify replay '$logit'" \
  verify --sampler top_p_from_first --input logits-f32 --suite logits --draws 20000 \
  --no-rerun --threads 2 --dump-failing logits
expect 1 "REPRODUCED: the seeded sequence changed its tokens" replay "$logit"
expect 0 "NOT REPRODUCED" replay --sampler ref_logits "$logit"
expect 2 "sampler ref does not take logits-f32 input" replay --sampler ref "$logit"

expect 0 "0 failed" verify --sampler ref "${small[@]}" --dump-failing clean
[ -d clean ] && [ -z "$(ls clean)" ] && pass "a passing run writes no file" ||
  fail "clean/ holds $(ls clean 2>&1)"

# the committed file (the help's example): its cases still build the rows it
# was written from, and its batch still breaks the contract
expect 1 "REPRODUCED: the batch broke the contract again" replay "$kept"
expect 0 "NOT REPRODUCED" replay --sampler ref "$kept"

# refusals
expect 2 "replay: which FILE?" replay
expect 2 "not an HDF5 file" replay report.json
expect 2 "nothing.h5: not an HDF5 file (or not readable)" replay nothing.h5
expect 2 "sampler 'mine' is not loaded" replay --sampler mine "$file"
expect 2 "the file's batch gave the harness's drafts, and sampler ref_own_drafts draws its own" \
  replay --sampler ref_own_drafts "$file"
expect 2 "nowhere/r.json" replay "$file" --json nowhere/r.json
expect 1 "REPRODUCED" replay "$file" --json r.json
grep -q '"reproduced":	true' r.json && pass "replay --json says reproduced" ||
  fail "r.json: $(head -c 300 r.json)"
expect 2 "--dump-failing writes failing mixed batches; --batches uniform has none" \
  verify --sampler counts_off_by_one "${small[@]}" --batches uniform --dump-failing u
touch afile
expect 2 "--dump-failing afile: not a directory" \
  verify --sampler counts_off_by_one "${small[@]}" --dump-failing afile
/usr/bin/python3 - "$file" <<'PY'
import h5py, shutil, sys
src = sys.argv[1]
shutil.copy(src, "other.h5")
with h5py.File("other.h5", "r+") as f:  # another case's spec: its rows differ
    names = [n.decode() for n in f["cases"][()]]
    del f["cases"]
    f.create_dataset("cases", data=[n.replace("V=200", "V=201").encode() for n in names],
                     dtype=h5py.string_dtype())
shutil.copy(src, "past.h5")
with h5py.File("past.h5", "r+") as f:  # a count past its case's K
    d = f["a_num_drafts"][()]
    d[3] = 99
    f["a_num_drafts"][...] = d
shutil.copy(src, "words.h5")
with h5py.File("words.h5", "r+") as f:  # a file's words: raw ones escaped, escaped ones kept
    f.attrs["finding"] = "raw \x1b[2J here"
    f.attrs["case"] = "stored \\x07 there"
shutil.copy(src, "kind.h5")
with h5py.File("kind.h5", "r+") as f:
    f.attrs["format"] = "something else"
PY
expect 2 "its rows are not those the run gave the sampler" replay other.h5
expect 2 "a_num_drafts" replay past.h5
expect 2 "kind.h5: not a failing batch" replay kind.h5
expect 1 'the run: raw \x1b[2J here' replay words.h5
expect 1 'failure of case stored \x07 there' replay words.h5
# three bytes of its metadata changed: libhdf5 crashes reading it, in the
# child that reads a file first (under ASan the child ends by its report)
expect 2 "corrupt.contract.h5: " replay "$(dirname "$kept")/corrupt.contract.h5"
head -c 3000 "$kept" >cut.h5
expect 2 "cut.h5: " replay cut.h5
finish
