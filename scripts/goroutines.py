#!/usr/bin/env python3
# goroutines.py TRACE: what each goroutine of a run did, from an execution
# trace (TRACERPT_GO_TRACE=TRACE tracerpt-go ...; docs/cli.md): per
# goroutine function, its running time, how many goroutines ran it and the
# window from its first run to its last, in ms from the trace's start,
# busiest first. The busiest goroutine's window is the run's critical path;
# the render workers' first start is where an annotated dump's model pass
# ends. Goroutines are named by the first function outside the runtime
# where they were created; main/N is one that was running when the trace
# began. Needs Go's `go tool trace` (its -d=parsed dump).
import sys, subprocess, re, collections, signal
signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # quiet when piped to head
out = subprocess.run(["go","tool","trace","-d=parsed",sys.argv[1]],capture_output=True,text=True).stdout
lines = out.split("\n")
name = {}; run = collections.defaultdict(int); start = {}; first = {}; last = {}
t0 = None
i = 0
ev = re.compile(r'^M=\S+ P=\S+ G=(\S+) StateTransition Time=(\d+) GoID=(\d+) (\S+)->(\S+)')
while i < len(lines):
    l = lines[i]; m = ev.match(l)
    if m:
        t = int(m.group(2)); g = m.group(3); a, b = m.group(4), m.group(5)
        if t0 is None: t0 = t
        if a == "NotExist":
            # creation: read TransitionStack
            j = i+1; fn = None
            while j < len(lines) and not lines[j].startswith("M="):
                s = lines[j].strip()
                if s and "@" in s and not s.startswith("runtime.") and fn is None:
                    fn = s.split(" @")[0]
                j += 1
            name[g] = fn or "?"
        if b == "Running": start[g] = t; first.setdefault(g, t)
        if a == "Running" and g in start:
            run[g] += t - start.pop(g); last[g] = t
    i += 1
end = max(last.values())
print(f"span {(end-t0)/1e6:.1f} ms (running time, goroutines, window, function)")
agg = collections.defaultdict(lambda: [0,0,None,None])
for g, r in run.items():
    n = name.get(g, "main/" + g)
    a = agg[n]; a[0] += r; a[1] += 1
    a[2] = first[g] if a[2] is None else min(a[2], first[g]); a[3] = last[g] if a[3] is None else max(a[3], last[g])
for n, (r, c, f, l) in sorted(agg.items(), key=lambda x: -x[1][0])[:25]:
    print(f"{r/1e6:8.1f} ms  x{c:<3d} {(f-t0)/1e6:7.1f}-{(l-t0)/1e6:7.1f} ms  {n}")
