#!/bin/sh
# One shard of a class: what each pod of tools/classroom/looplab-grade-job.yaml and each job
# of the matrix in tools/classroom/looplab-grade-class.yml runs.
#
#   JOB_COMPLETION_INDEX  this shard, 0 to SHARDS-1 (Kubernetes sets it in an Indexed Job)
#   SHARDS                how many shards the class is split into
#   CLASS                 the class's submissions, one folder per student
#   PARTS                 where the part is written: PARTS/part-I-of-N.json
#   ROSTER                the roster (optional; every shard must read the same one)
#   GRADE_OPTIONS         more options, the same for every shard (--points, --deadline, ...)
#   LOOPLAB_GRADE         the command (default: looplab-grade)
#
# Then `looplab-grade merge PARTS/*.json --csv ... --lms canvas --lms-csv ...` writes what
# one run on one machine writes.
set -eu
: "${JOB_COMPLETION_INDEX:?set JOB_COMPLETION_INDEX to this shard, 0 to SHARDS-1}"
: "${SHARDS:?set SHARDS to the number of shards}"
: "${CLASS:?set CLASS to the class folder}"
: "${PARTS:?set PARTS to the folder the parts go to}"
mkdir -p "$PARTS"
# GRADE_OPTIONS and LOOPLAB_GRADE are split into words on purpose
# shellcheck disable=SC2086
exec ${LOOPLAB_GRADE:-looplab-grade} "$CLASS" \
    --shard "$JOB_COMPLETION_INDEX/$SHARDS" \
    --part "$PARTS/part-$JOB_COMPLETION_INDEX-of-$SHARDS.json" \
    ${ROSTER:+--roster "$ROSTER"} ${GRADE_OPTIONS:-}
