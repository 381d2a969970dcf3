# Sourced, from the repository root, by the scripts/gpu-*.sh that run on a machine with a CUDA device:
# gpu_start NAME puts nvcc on the PATH, makes the log folder $out ($OUT, or ./NAME-out) and writes the
# device's name, memory and driver to $out/device.txt (and the terminal).
gpu_start() {
  out=${OUT:-$1-out}
  mkdir -p "$out"
  export PATH=/usr/local/cuda/bin:$PATH
  nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$out/device.txt"
}
