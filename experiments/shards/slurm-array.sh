#!/bin/bash
# slurm-array.sh: a sampler verified by a Slurm job array, one shard a task,
# and merged by a job that waits for them all (docs/shards.md):
#   bash experiments/shards/slurm-array.sh [SHARDS] [SAMPLER] [SUITE]
# submits both. Each task runs the same command but for --shard and
# --shard-file; the merge job prints the verdict into merge-JOBID.out and
# writes report.json, exactly as one process running the whole suite would.
# For a CUDA sampler, ask each task for a GPU (--gres=gpu:1). Not run by
# this repository's CI (it has no cluster).
set -euo pipefail
shards=${1:-16}
sampler=${2:-ref}
suite=${3:-full}
sv=${SPECVERIFY:-$PWD/build/specverify}
dir=${SHARD_DIR:-$PWD/shards}
mkdir -p "$dir"
array=$(sbatch --parsable --array=1-"$shards" --cpus-per-task="${CPUS:-8}" \
  --job-name=specverify-shard --output="$dir/shard-%a.out" --wrap \
  "\"$sv\" verify --suite \"$suite\" --sampler \"$sampler\" --json \"$dir/report.json\" \
   --shard \$SLURM_ARRAY_TASK_ID/$shards --shard-file \"$dir/shard-\$SLURM_ARRAY_TASK_ID.h5\"")
sbatch --dependency=afterok:"$array" --job-name=specverify-merge \
  --output="$dir/merge-%j.out" --wrap "\"$sv\" merge \"$dir\"/shard-*.h5"
echo "submitted $shards shards (job $array) and their merge; results in $dir"
