# Numbers as a person reads them, in jq, for the demo and as the e2e tests'
# own oracle of the CLI's text output (docs/cli.md#numbers-in-text-output):
# a fraction as a percentage with two significant figures, CPU in
# millicores (rounded up), memory in Ki/Mi/Gi to three significant figures
# (a whole number keeps every digit), and the history's from/to words alike.
# Use: jq "$(cat hack/readable.jq) ..."
def qty_value: (capture("^(?<n>[+-]?[0-9.]+(?:[eE][+-]?[0-9]+)?)(?<s>[a-zA-Z]*)$") // error("not a quantity: \(.)"))
  | (.n | tonumber) * ({"n": 1e-9, "u": 1e-6, "m": 1e-3, "": 1, "k": 1e3, "M": 1e6, "G": 1e9, "T": 1e12,
                         "Ki": 1024, "Mi": 1048576, "Gi": 1073741824, "Ti": 1099511627776}[.s]);
def sig3: if . >= 100 then round elif . >= 10 then (. * 10 | round) / 10 else (. * 100 | round) / 100 end | tostring;
def readable_cpu: if . == null then "" else ((qty_value * 1000 - 1e-6) | ceil | tostring) + "m" end;
def readable_memory: if . == null then "" else qty_value as $b
  | if $b >= 1073741824 then ($b / 1073741824 | sig3) + "Gi" elif $b >= 1048576 then ($b / 1048576 | sig3) + "Mi"
    elif $b >= 1024 then ($b / 1024 | sig3) + "Ki" else ($b | sig3) end end;
def readable_percent: (. * 100) as $p | if $p == 0 then "0%" else
  ($p | fabs | log10 | floor) as $e | (if $e >= 1 then ($p | round) else pow(10; 1 - $e) as $d | ($p * $d | round) / $d end)
  | tostring + "%" end;
# status.resizeHistory's from/to words ("500m/1", "cpu 1, memory 245354614/512Mi",
# a template's "app: cpu ..., memory ...; ...") with each quantity readable;
# "-" (no request) stays. The argument is the entry's resource.
def readable_side(f): split("/") | map(if . == "-" then . else f end) | join("/");
def readable_history(resource):
  if resource == "cpu" then readable_side(readable_cpu) elif resource == "memory" then readable_side(readable_memory)
  else gsub("(?<![^ ])(?<r>cpu|memory) (?<v>[^ ,;]+)";
            "\(.r) \(.r as $r | .v | readable_side(if $r == "cpu" then readable_cpu else readable_memory end))") end;
