package cores

import (
	"runtime"
	"testing"
)

func TestSeveral(t *testing.T) {
	defer runtime.GOMAXPROCS(runtime.GOMAXPROCS(1))
	if Several() {
		t.Error("GOMAXPROCS 1: several")
	}
	runtime.GOMAXPROCS(2)
	if !Several() {
		t.Error("GOMAXPROCS 2: not several")
	}
}
