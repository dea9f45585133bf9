package analysis_test

import (
	"fmt"
	"log"
	"os"

	"github.com/etwkit/etw/analysis"
	"github.com/etwkit/etw/decode"
	"github.com/etwkit/etw/etl"
)

// List the processes of a trace with their command lines and CPU samples.
// On a real file: files from etl.Open, dec from decode.New.
func Example_processes() {
	files, dec := exampleTrace()
	m, err := analysis.Build(files, dec, nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range m.Processes() {
		fmt.Printf("%d %s %q: %d events, %d CPU samples\n", p.PID, p.Name, p.CommandLine, p.Events, p.CPUSamples)
	}
	// Output:
	// 0 Idle "": 5 events, 1 CPU samples
	// 4 System "": 2 events, 0 CPU samples
	// 100 app "app.exe --work": 32 events, 4 CPU samples
}

// GC pauses of the .NET processes, as TraceEvent's GCStats defines them.
func Example_gcPauses() {
	files, dec := exampleTrace()
	m, err := analysis.Build(files, dec, nil)
	if err != nil {
		log.Fatal(err)
	}
	for _, p := range m.Processes() {
		if g := p.GC; g != nil {
			fmt.Printf("%s: %d GCs, %v paused in all, %v at most\n", p.Name, g.Count, g.PauseTotal, g.PauseMax)
			for _, gc := range g.GCs {
				fmt.Printf("  GC %d gen %d: paused %v, ran %v\n", gc.Number, gc.Generation, gc.Pause, gc.Duration)
			}
		}
	}
	// Output:
	// app: 2 GCs, 250µs paused in all, 130µs at most
	//   GC 1 gen 0: paused 130µs, ran 80µs
	//   GC 2 gen 0: paused 120µs, ran 90µs
}

// Give each event its process and call stack: stacks logged after their
// event (stack keys, StackWalk events, CLR stack walks) are attached as
// the enricher's window passes.
func ExampleEnricher() {
	files, dec := exampleTrace()
	m, err := analysis.Build(files, dec, nil)
	if err != nil {
		log.Fatal(err)
	}
	e := m.NewEnricher(nil)
	show := func() {
		for a, ok := e.Next(); ok; a, ok = e.Next() {
			if a.Stack == nil {
				continue
			}
			fmt.Printf("event %d, %s:", a.Seq, a.Process)
			for _, f := range a.Stack {
				fmt.Printf(" %s+%#x", f.Name(), f.Offset)
			}
			fmt.Println()
		}
	}
	r := etl.NewReader(files, nil)
	defer r.Close()
	for r.Next() {
		e.Push(r.Event(), dec.Decode(r.Event()))
		show()
	}
	e.Flush()
	show()
	// Output:
	// event 10, app (100): app.exe+0x100 ntdll.dll+0x1000
	// event 12, app (100): ntoskrnl.exe+0x1000 ntoskrnl.exe+0x2000 app.exe+0x100 ntdll.dll+0x1000
	// event 16, app (100): app.exe+0x300 ntdll.dll+0x2000
	// event 19, app (100): App.Program.Work+0x0 app.exe+0x100 ntdll.dll+0x1000
	// event 35, app (100): App.Program.Work+0x0 app.exe+0x200
}

// Aggregate the stacks of the CPU samples as folded stacks, the input of
// FlameGraph, inferno and speedscope.
func ExampleModel_Collect() {
	files, dec := exampleTrace()
	m, err := analysis.Build(files, dec, nil)
	if err != nil {
		log.Fatal(err)
	}
	prof, st, err := m.Collect(files, dec, nil) // CPU samples; CollectOptions select others
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(st.Selected, "samples,", st.WithStack, "with a stack")
	prof.WriteFolded(os.Stdout)
	// Output:
	// 4 samples, 4 with a stack
	// app (100);ntdll.dll;app.exe 2
	// app (100);ntdll.dll;app.exe;App.Program.Work 1
	// app (100);ntdll.dll;app.exe;ntoskrnl.exe 1
}

// Walk the CPU samples with their final stacks, and every event as it is
// read: here the innermost frame of each sample, and the number of events.
func ExampleModel_EachSelected() {
	files, dec := exampleTrace()
	m, err := analysis.Build(files, dec, nil)
	if err != nil {
		log.Fatal(err)
	}
	events := 0
	opts := &analysis.CollectOptions{ // CPU samples, as Select is nil
		Observe: func(ev *etl.Event, res *decode.Result) { events++ },
	}
	st, err := m.EachSelected(files, dec, opts, func(a *analysis.Annotation) error {
		leaf := "no stack"
		if len(a.Stack) > 0 {
			leaf = a.Stack[0].Name()
		}
		fmt.Printf("event %d at %v: %s, %s\n", a.Seq, a.Time().Sub(m.Start()), a.Process, leaf)
		return nil
	})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(events, "events,", st.WithStack, "with a stack")
	// Output:
	// event 10 at 10µs: app (100), app.exe
	// event 12 at 20µs: app (100), ntoskrnl.exe
	// event 16 at 40µs: app (100), app.exe
	// event 19 at 60µs: app (100), App.Program.Work
	// 39 events, 5 with a stack
}
