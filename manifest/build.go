package manifest

// Index builds the event lookup of [Provider.Event] from p.Events (the
// first event of each id and version wins, as for a parsed manifest).
// Code that builds a Provider outside this package — package wevt, which
// reads compiled binary manifests — calls it once the events are in place,
// and again after changing them.
func (p *Provider) Index() {
	p.byKey = make(map[eventKey]*Event, len(p.Events))
	for _, e := range p.Events {
		k := eventKey{e.ID, e.Version}
		if _, dup := p.byKey[k]; !dup {
			p.byKey[k] = e
		}
	}
}
