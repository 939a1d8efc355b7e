#!/bin/bash
# A Slurm job array of four shards of one reach-native search. Slurm sets
# SLURM_ARRAY_TASK_ID to 0..3 (the array must start at 0: --array=0-3).
# Submit, then merge once every task has finished:
#   jobid=$(sbatch --parsable slurm-array.sh)
#   sbatch --dependency=afterany:$jobid --wrap 'reach-native merge reports/shard-*.json'
#SBATCH --job-name=reach-native
#SBATCH --array=0-3
#SBATCH --cpus-per-task=1
#SBATCH --time=01:00:00
#SBATCH --output=reports/shard-%a.log

set -u
mkdir -p reports
# --max-time leaves the report a few minutes before Slurm's limit; SIGTERM
# (scancel, or Slurm's own time limit) also writes it, marked interrupted.
reach-native --shard auto/4 --max-time 3300 --json "reports/shard-${SLURM_ARRAY_TASK_ID}.json" ./prog
status=$?
# 1 (bug) and 3 (stopped by a limit) are results for the merge to combine.
if [ "$status" -eq 2 ]; then
  exit 2
fi
exit 0
