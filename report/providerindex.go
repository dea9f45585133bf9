package report

import "github.com/google/uuid"

// providerIndex numbers the providers in order of first event; the views
// that count per provider (the timeline, the events table) index their
// counts by that number. Events come in runs of one provider, so the
// last provider looked up is kept. The zero value is empty.
type providerIndex struct {
	of    map[uuid.UUID]int32
	list  []uuid.UUID // the providers by number
	last  uuid.UUID
	lastN int32
}

// number returns g's number and whether g is new (numbered by this call).
func (p *providerIndex) number(g uuid.UUID) (n int32, added bool) {
	if len(p.list) > 0 && g == p.last {
		return p.lastN, false
	}
	n, ok := p.of[g]
	if !ok {
		if p.of == nil {
			p.of = map[uuid.UUID]int32{}
		}
		n = int32(len(p.list))
		p.of[g] = n
		p.list = append(p.list, g)
	}
	p.last, p.lastN = g, n
	return n, !ok
}

// lookup returns g's number; false when no event had g.
func (p *providerIndex) lookup(g uuid.UUID) (int32, bool) {
	n, ok := p.of[g]
	return n, ok
}
