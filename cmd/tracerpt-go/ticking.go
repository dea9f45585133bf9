package main

import "time"

// ticking calls f every interval on a goroutine of its own until the
// returned stop is called; stop returns once f has made its last call.
// Call stop once.
func ticking(interval time.Duration, f func()) (stop func()) {
	quit, done := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(done)
		t := time.NewTicker(interval)
		defer t.Stop()
		for {
			select {
			case <-quit:
				return
			case <-t.C:
			}
			f()
		}
	}()
	return func() {
		close(quit)
		<-done
	}
}
