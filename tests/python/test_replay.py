"""verify(dump_failing=DIR) and replay(FILE) from Python (issue 39): a numpy
sampler that writes a token into the padded slot past its own last one, for
the even-indexed sequences with fewer drafts than K, breaks the contract in
the first batch of every case with ragged drafts (a quarter of the slots):
the run writes that batch, its replay breaks the contract again with the
same outputs, and the fixed sampler (numpy_chain) keeps it on the same
batch. A call that fails is dumped and replayed the same way."""

import shlex
import subprocess

import specverify
from numpy_chain import chain_over, numpy_chain


@specverify.sampler(layouts=("padded",), max_batch=2048, name="past_its_slots")
def past_its_slots(batch):
    """numpy_chain, writing past an even sequence's own slots"""
    out = chain_over(batch)
    for b in range(batch.B):
        d = int(batch.num_drafts[b])
        if d < batch.K and int(batch.indices[b]) % 2 == 0:
            out[b, d + 1] = 0  # BUG: a slot past d + 1
    return out


def test_dump_and_replay(tmp_path):
    r = specverify.verify(past_its_slots, cases=["zipf:V=200,K=4"], draws=4000,
                          dump_failing=tmp_path / "dumps", rerun=False, echo=False)
    assert not r.passed
    files = r.cases[0].replay_files
    assert set(files) == {"contract"}
    again = specverify.replay(files["contract"], past_its_slots)
    assert again.reproduced and again.exit_code == 1
    assert "REPRODUCED: the batch broke the contract again" in again.text
    assert "outputs: the same as in the run, in all" in again.text
    batch = again.batches[0]
    assert batch["same_as_run"] == batch["size"] and again.json["contract_broken"]
    fixed = specverify.replay(files["contract"], numpy_chain)
    assert not fixed.reproduced and fixed.exit_code == 0
    assert "NOT REPRODUCED" in fixed.text
    # the report's replay line, run as printed, loads the sampler as the run
    # did (it once named the file alone, and the replay then refused it:
    # "sampler 'past_its_slots' is not loaded")
    line = [l for l in r.text.splitlines() if "failure's batch again: " in l][0]
    cmd = shlex.split(line.split("failure's batch again: ", 1)[1])
    assert cmd[:2] == ["specverify", "replay"] and cmd[-1] == str(files["contract"]), cmd
    assert cmd[cmd.index("--python") + 1].endswith("test_replay.py:past_its_slots"), cmd
    env = specverify._run.python_env()
    env.pop("SPECVERIFY_PYTHON")
    printed = subprocess.run([specverify.executable()] + cmd[1:], env=env, capture_output=True,
                             text=True, timeout=300)
    assert printed.returncode == 1, printed.stdout + printed.stderr
    assert "REPRODUCED: the batch broke the contract again" in printed.stdout, printed.stdout


def test_replay_of_no_dump(tmp_path):
    bad = tmp_path / "x.h5"
    bad.write_text("not hdf5")
    try:
        specverify.replay(bad, numpy_chain)
    except specverify.SpecverifyError as e:
        assert e.exit_code == 2 and "not an HDF5 file" in str(e)
    else:
        raise AssertionError("replay of a text file did not fail")


def test_a_failed_call_is_dumped(tmp_path):
    """A call that fails (here: the sampler raises) is a contract failure
    too: its batch is written, and its replay fails the same way."""
    from bad_samplers import raises
    r = specverify.verify(raises, cases=["zipf:V=200,K=4"], draws=1000,
                          dump_failing=tmp_path / "dumps", rerun=False, echo=False)
    assert not r.passed
    again = specverify.replay(r.cases[0].replay_files["contract"], raises)
    assert again.reproduced and again.json["sampler_failed"]
    assert "REPRODUCED: the sampler failed on the batch again" in again.text
    assert any("the rows do not sum to one" in n for n in again.json["notes"])
    assert not specverify.replay(r.cases[0].replay_files["contract"], numpy_chain).reproduced
