# Sourced, from the repository root, by the scripts/gpu-*.sh that run on a machine with a CUDA device:
# gpu_start NAME puts nvcc (and ncu) on the PATH, makes the log folder $out ($OUT, or ./NAME-out) and writes the
# device's name, memory and driver to $out/device.txt (and the terminal).
gpu_start() {
  out=${OUT:-$1-out}
  mkdir -p "$out"
  export PATH=/usr/local/cuda/bin:$PATH
  # Nsight Compute (scripts/gpu-profile.sh) where its installer left it off the PATH: the newest.
  if ! command -v ncu >/dev/null; then
    local ncu_dir=""
    for d in /opt/nvidia/nsight-compute/*/; do [ -x "$d/ncu" ] && ncu_dir=${d%/}; done
    [ -n "$ncu_dir" ] && export PATH=$PATH:$ncu_dir
  fi
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$out/device.txt"
}
