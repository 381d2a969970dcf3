#!/usr/bin/env bash
# Runs a command under mpirun for CTest: mpirun.sh MPIEXEC RANKS COMMAND [ARGS...]. Exits 77
# (CTest: skipped) when no mpirun exists, so a machine without MPI never reports a pass.
set -uo pipefail
mpiexec=${1:?usage: mpirun.sh MPIEXEC RANKS COMMAND...}
ranks=${2:?}
shift 2
if ! command -v "$mpiexec" >/dev/null 2>&1; then
  echo "SKIPPED: no mpirun ($mpiexec)"
  exit 77
fi
# Open MPI refuses root without both variables (CI runs as root); more ranks than the 2 cores need
# --oversubscribe; single-copy transfers (CMA) are often barred in containers.
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
export OMPI_MCA_btl_vader_single_copy_mechanism=none
exec "$mpiexec" --oversubscribe --bind-to none -np "$ranks" "$@"
