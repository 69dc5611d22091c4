#!/usr/bin/env python3
"""Harness for `make bench-scale --heaptrack` (not product code): splits the
heap at its peak into phases, from heaptrack_print's flamegraph output
(--flamegraph-cost-type peak: one "frame;frame;... bytes" line per stack).

    heap_breakdown.py FLAMEGRAPH.txt
"""
import sys

# First match wins: the innermost meaning of a stack.
PHASES = [
    ("cache: stored object text, keys, indexes", ("object_cache::admit", "object_cache::index", "object_cache::apply")),
    ("list pages in flight (SAX decoder, one item tree)", ("list_decoder", "list_stream", "read_streamed")),
    ("watch events in flight (line buffer, one event tree)", ("decode_watch_line", "watch_line_splitter", "do_watch")),
    ("discovery probes (OpenAPI, /api/v1, node probe)", ("discovery", "probe_openapi", "probe_nodes", "probe_all")),
    ("TLS and sockets", ("SSL", "ssl", "OPENSSL", "CRYPTO", "tls_context", "basic_stream")),
    ("metrics registry", ("prometheus",)),
    ("logging", ("spdlog",)),
    ("static init and the rest", ("",)),
]


def main(path):
    totals = {name: 0 for name, _ in PHASES}
    with open(path, errors="replace") as f:
        for line in f:
            stack, _, cost = line.rstrip("\n").rpartition(" ")
            try:
                n = int(cost)
            except ValueError:
                continue
            for name, keys in PHASES:
                if any(k in stack for k in keys):
                    totals[name] += n
                    break
    total = sum(totals.values())
    print(f"heap at its peak: {total / 2**20:.1f} MiB")
    for name, _ in PHASES:
        print(f"  {totals[name] / 2**20:6.1f} MiB  {name}")


if __name__ == "__main__":
    main(sys.argv[1])
