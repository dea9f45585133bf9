package driver

import "testing"

// TestModelOptions: the dump's model pass returns before the .NET
// methods are all added (LateMethods) only when the dump annotates (its
// stacks then wait for them) and the model is AnnotationsOnly (which
// shares their decoding); without annotations there are no methods.
func TestModelOptions(t *testing.T) {
	for _, c := range []struct {
		annotate  bool
		processes []string
		late, ann bool
	}{
		{true, nil, true, true},
		{true, []string{"a.exe"}, true, true},
		{true, []string{""}, false, false},
		{false, []string{"a.exe"}, false, true},
	} {
		o := modelOptions(&Options{Processes: c.processes}, c.annotate)
		if o.LateMethods != c.late || o.AnnotationsOnly != c.ann || o.NoMethods == c.annotate {
			t.Errorf("annotate %v, processes %q: LateMethods %v, AnnotationsOnly %v, NoMethods %v; want %v, %v, %v",
				c.annotate, c.processes, o.LateMethods, o.AnnotationsOnly, o.NoMethods, c.late, c.ann, !c.annotate)
		}
	}
}
