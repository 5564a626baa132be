#!/bin/bash
# mpi_cli.sh SPECVERIFY OUTDIR: `mpirun -np 2 --oversubscribe specverify
# verify` against one process (issue 28): on the smoke suite (mixed batches
# with their probes, a Markov pair), on a tree sampler and on a broken
# variant (exit 1), the same report line for line and the same JSON field
# for field but for the seconds; a SIGINT on either rank stops both, with
# rank 0's partial report, and rank 0's progress counts both ranks' draws.
# Skipped (77), saying why, where mpirun is missing or specverify was built
# without MPI. Deterministic: fixed seeds.
set -u
sv=$1 out=$2
. "$(dirname "$0")/cli_lib.sh"
command -v mpirun >/dev/null || { echo "SKIPPED: no mpirun (ci/setup installs Open MPI)"; exit 77; }
rm -rf "$out" && mkdir -p "$out" && cd "$out" || exit 2
# root in a CI container; a rank per core or not, two ranks on any machine
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
# under ci/sanitize: Open MPI keeps allocations past MPI_Finalize in plugins it
# has unloaded by then, whose frames no suppression can name; ASan and UBSan
# still check every access, only the leak check is off, for this test alone
[ -n "${ASAN_OPTIONS:-}" ] && export ASAN_OPTIONS="$ASAN_OPTIONS:detect_leaks=0"

# ranks NAME WANT_EXIT ARGS...: one process, then two ranks
ranks() {
  local name=$1 want=$2
  shift 2
  "$sv" verify "$@" --threads 1 --json "$name-one.json" >"$name-one.txt" 2>/dev/null
  local rc=$?
  [ "$rc" -eq "$want" ] || fail "$name: one process exited $rc, wanted $want"
  timeout 600 mpirun -np 2 --oversubscribe "$sv" verify "$@" --threads 1 \
    --json "$name-mpi.json" >"$name-mpi.txt" 2>"$name-mpi.err"
  rc=$?
  [ "$rc" -eq "$want" ] || fail "$name: mpirun -np 2 exited $rc, wanted $want: $(tail -3 "$name-mpi.err")"
  if ! grep -q "cases:" "$name-mpi.txt"; then
    echo "SKIPPED: the ranks ran alone (specverify built without MPI?): $(tail -2 "$name-mpi.err")"
    exit 77
  fi
  if diff <(untimed "$name-one.txt" | batchless /dev/stdin) \
    <(untimed "$name-mpi.txt" | batchless /dev/stdin) >"$name.diff"; then
    pass "$name: two ranks print one process's report"
  else
    fail "$name: the reports differ: $(head -8 "$name.diff")"
  fi
  if same_json <(batchless "$name-one.json") <(batchless "$name-mpi.json"); then
    pass "$name: two ranks write one process's JSON"
  else
    fail "$name: the JSON reports differ"
  fi
}
ranks smoke 0 --suite smoke --seed 3
ranks tree 0 --suite smoke --sampler ref_tree --draws 40000
ranks broken 1 --suite smoke --sampler residual_swapped --no-rerun
# a signal on either rank stops both: exit 130, rank 0's report of what ran
# marked partial, written to FILE.partial; its progress line counted both
# ranks' draws (2e9 of them: 1e9 per case, the two cases mixed)
for which in 1 2; do
  rm -f sig.json.partial
  SV_PROGRESS_SECONDS=1 mpirun -np 2 --oversubscribe "$sv" verify --case seedlab:V=1000,K=5 \
    --case zipf:V=1000,K=8 --draws 1000000000 --threads 1 --json sig.json >sig.out 2>sig.err &
  mp=$!
  ranks=""
  for _ in $(seq 1 100); do # the ranks are mpirun's children; wait for both
    ranks=$(pgrep -P "$mp" | sort -n)
    [ "$(wc -w <<<"$ranks")" -eq 2 ] && grep -q "draws (" sig.err && break
    sleep 0.2
  done
  kill -INT "$(cut -d' ' -f"$which" <<<"$(echo $ranks)")"
  timeout 120 tail --pid="$mp" -f /dev/null
  wait "$mp"
  rc=$?
  [ "$rc" -eq 130 ] || fail "SIGINT on rank pid $which of 2: exit $rc, want 130: $(tail -3 sig.err)"
  if grep -q "^PARTIAL: interrupted by SIGINT: 1 of 2 cases ran" sig.out &&
    grep -Eq '"partial":[[:space:]]*true' sig.json.partial; then
    pass "SIGINT on one of the ranks (pid $which of 2): every rank stopped, the partial report written"
  else
    fail "SIGINT on one rank (pid $which of 2): no partial report: $(tail -3 sig.out) $(tail -3 sig.err)"
  fi
  if grep -q "/2000000000 draws" sig.err; then
    pass "rank 0's progress counts both ranks' draws"
  else
    fail "rank 0's progress does not count both ranks: $(grep -m1 'draws (' sig.err)"
  fi
done
out2=$(mpirun -np 2 --oversubscribe "$sv" verify --suite smoke --shard 1/2 2>&1)
rc=$?
if [ "$rc" -eq 2 ] && grep -qF "each of the 2 ranks is a shard already" <<<"$out2"; then
  pass "mpirun with --shard: exit 2, saying why"
else
  fail "mpirun with --shard: exit $rc: ${out2:0:300}"
fi
finish
