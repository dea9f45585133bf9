package analysis

// Every event looks up its process and often its thread, by id, in the
// model's maps (learnThread, processFor, orThreadPID; the enricher's
// attribution): about 400,000 map lookups for net.4.5.2's 180,000 events
// in the model pass. An idCache is a direct-mapped cache in front of
// them, for one goroutine: the builder's while it builds (Model.build,
// which newProcess and addThread keep current) or an enricher's once the
// model is built.

// idCacheBits sizes an idCache: 2^idCacheBits slots per map (a trace's
// events name a few hundred processes and threads at most at a time).
const idCacheBits = 8

type idCache struct {
	procs   [1 << idCacheBits]idSlot[*Process]
	threads [1 << idCacheBits]idSlot[*Thread]
}

type idSlot[T any] struct {
	id   uint32
	set  bool
	recs []T
}

func idSlotOf(id uint32) uint32 { return (id * 0x9E3779B1) >> (32 - idCacheBits) }

// lookup returns the records of id in m (a map that only this goroutine
// changes, through store, or that no longer changes).
func lookup[T any](slots *[1 << idCacheBits]idSlot[T], m map[uint32][]T, id uint32) []T {
	s := &slots[idSlotOf(id)]
	if s.set && s.id == id {
		return s.recs
	}
	recs := m[id]
	*s = idSlot[T]{id: id, set: true, recs: recs}
	return recs
}

// store records that the records of id are now recs.
func store[T any](slots *[1 << idCacheBits]idSlot[T], id uint32, recs []T) {
	slots[idSlotOf(id)] = idSlot[T]{id: id, set: true, recs: recs}
}

// pidRecs returns the records of pid, through c when not nil.
func (m *Model) pidRecs(c *idCache, pid uint32) []*Process {
	if c == nil {
		return m.byPID[pid]
	}
	return lookup(&c.procs, m.byPID, pid)
}

// tidRecs returns the records of tid, through c when not nil.
func (m *Model) tidRecs(c *idCache, tid uint32) []*Thread {
	if c == nil {
		return m.byTID[tid]
	}
	return lookup(&c.threads, m.byTID, tid)
}

// idCache returns the cache Push looks processes and threads up through:
// the builder's while the model is being built (it keeps it current),
// else the enricher's own.
func (e *Enricher) idCache() *idCache {
	if e.m.build != nil {
		return e.m.build
	}
	if e.ids == nil {
		e.ids = new(idCache)
	}
	return e.ids
}
