#!/usr/bin/env bash
# Turns `go test -bench` output (stdin) into a short table.
awk '
/^Benchmark/ {
  name=$1; sub(/-[0-9]+$/, "", name); sub(/^Benchmark/, "", name)
  ns=""; mbs=""; bop=""; allocs=""; peak=""
  for (i=2; i<=NF; i++) {
    if ($(i+1)=="ns/op") ns=$i
    if ($(i+1)=="MB/s") mbs=$i
    if ($(i+1)=="B/op") bop=$i
    if ($(i+1)=="allocs/op") allocs=$i
    if ($(i+1)=="peak-MB") peak=$i
  }
  rows[++n]=sprintf("| %-30s | %9.1f | %6s | %11.1f | %9s | %7s |", name, ns/1e6, mbs, bop/1048576, allocs, peak)
}
END {
  printf "| %-30s | %9s | %6s | %11s | %9s | %7s |\n", "benchmark", "ms/op", "MB/s", "alloc MB/op", "allocs/op", "peak MB"
  print "|--------------------------------|-----------|--------|-------------|-----------|---------|"
  for (i=1; i<=n; i++) print rows[i]
}'
