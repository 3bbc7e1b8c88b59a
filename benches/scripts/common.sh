# What the thread-scaling scripts (cores.sh, bevy_cores.sh) share; source it.

# The machine: its CPU model and core count, as the first line of a run.
print_cpu() {
    echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//'), $(nproc) cores"
}

# The lines of an example's output whose keys are the arguments, on one line.
figures() {
    local keys
    keys=$(IFS='|'; echo "$*")
    grep -E "^($keys):" | tr '\n' ' '
    echo
}
