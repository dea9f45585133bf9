package parquetout

import (
	"encoding/binary"

	"github.com/parquet-go/parquet-go"
)

// The stack columns are made straight from the frames of each record
// (chunk.stackRecord), read once, without a []frame in between: parsing
// them into a slice and making the values from it took about a quarter
// more (575,000 frames in net.4.5.2.x64.etl).

// stackRecord appends the frames of record b at pos to the stack
// columns: the row's values (null when there are no frames), byte values
// through rg.keep. It returns where the record goes on after the frames,
// ok false when they are malformed (as skipFrames, and the tests'
// parseFrames, find them), after which the chunk's stack columns hold
// part of the row: the table fails.
func (rg *chunk) stackRecord(s stackColumns, b []byte, pos int) (next int, ok bool) {
	nf, pos, ok := frameCount(b, pos)
	if !ok {
		return pos, false
	}
	if rg.defs == nil {
		rg.defs, rg.reps = make([][]byte, len(rg.cols)), make([][]byte, len(rg.cols))
	}
	if nf == 0 {
		for _, c := range s.all() {
			rg.cols[c] = append(rg.cols[c], parquet.Value{})
			rg.defs[c] = append(rg.defs[c], 0)
			rg.reps[c] = append(rg.reps[c], 0)
		}
		return pos, true
	}
	// stack (optional, 1) > list (repeated, 2) > element > optional leaves (3).
	// nf is bounded by the record's length: the values are made in place.
	id, pos, end, ok := frameHeader(b, pos, nf)
	if !ok {
		return pos, false
	}
	n := int(nf)
	rg.values += n
	// Values that point into the records only: copied ones would not
	// count in the arena's size, which bounds the row group.
	if rg.borrow && rg.sameStack(s, id, n) {
		return end, true
	}
	at := len(rg.cols[s.address])
	b = b[:end] // the frames' length bounds them
	var addr, mod, off, meth []parquet.Value
	rg.cols[s.address], addr = growValues(rg.cols[s.address], n)
	rg.cols[s.module], mod = growValues(rg.cols[s.module], n)
	rg.cols[s.offset], off = growValues(rg.cols[s.offset], n)
	rg.cols[s.method], meth = growValues(rg.cols[s.method], n)
	mod, off, meth = mod[:len(addr)], off[:len(addr)], meth[:len(addr)]
	// Their levels: the address's definition level is 2, the module's
	// and offset's the same, as the repetition levels of all four.
	var addrDef, modDef, methDef, reps []byte
	rg.defs[s.address], addrDef = growValues(rg.defs[s.address], n)
	rg.defs[s.module], modDef = growValues(rg.defs[s.module], n)
	rg.defs[s.method], methDef = growValues(rg.defs[s.method], n)
	rg.reps[s.address], reps = growValues(rg.reps[s.address], n)
	modDef, methDef, reps = modDef[:len(addrDef)], methDef[:len(addrDef)], reps[:len(addrDef)]
	rep := 0
	for i := range addr {
		// address, offset, flags, then the module's length.
		if len(b)-pos < 17+4 {
			return pos, false
		}
		f := b[pos : pos+17]
		address, offset, flags := binary.LittleEndian.Uint64(f), binary.LittleEndian.Uint64(f[8:]), f[16]
		module, next, ok := frameStr(b, pos+17)
		if !ok {
			return next, false
		}
		method, next, ok := frameStr(b, next)
		if !ok {
			return next, false
		}
		pos = next
		a := &addr[i]
		*a = parquet.Int64Value(int64(address))
		a.SetRepetitionLevel(rep)
		a.SetDefinitionLevel(2)
		addrDef[i], reps[i] = 2, byte(rep)
		m, o := &mod[i], &off[i]
		if flags&frameHasModule != 0 {
			*m = parquet.ByteArrayValue(rg.keep(module))
			m.SetDefinitionLevel(3)
			*o = parquet.Int64Value(int64(offset))
			o.SetDefinitionLevel(3)
			modDef[i] = 3
		} else {
			*m, *o = parquet.Value{}, parquet.Value{}
			m.SetDefinitionLevel(2)
			o.SetDefinitionLevel(2)
			modDef[i] = 2
		}
		m.SetRepetitionLevel(rep)
		o.SetRepetitionLevel(rep)
		me := &meth[i]
		if flags&frameHasMethod != 0 {
			*me = parquet.ByteArrayValue(rg.keep(method))
			me.SetDefinitionLevel(3)
			methDef[i] = 3
		} else {
			*me = parquet.Value{}
			me.SetDefinitionLevel(2)
			methDef[i] = 2
		}
		me.SetRepetitionLevel(rep)
		rep = 1
	}
	if pos != end {
		return pos, false // the frames do not fill their length
	}
	// The offset's definition levels are the module's, the other
	// columns' repetition levels the address's.
	rg.defs[s.offset] = append(rg.defs[s.offset], modDef...)
	for _, c := range [...]int{s.module, s.offset, s.method} {
		rg.reps[c] = append(rg.reps[c], reps...)
	}
	rg.keepStack(id, at, n)
	return pos, true
}

// The rows of a chunk that have the same stack (its identity in the
// record, analysis.Annotation.StackID) have the same values in the stack
// columns: a row's are copied from the first row of the chunk with its
// stack instead of made from the record's frames again (on
// net.4.5.2.x64.etl, two thirds of the stacks repeat one of the same
// chunk's). A chunk's stacks are direct-mapped by identity.

// chunkStacks is the number of stacks a chunk keeps (a chunk holds at
// most chunkValues stack values: 330 stacks of net.4.5.2's 25 frames).
const chunkStacks = 256

// chunkStack is where the values of a chunk's stack start in its stack
// columns, and how many there are.
type chunkStack struct {
	id    uint64
	at, n int32
}

// keepStack records that the n values of stack id start at index at of
// the chunk's stack columns (nothing for id 0).
func (rg *chunk) keepStack(id uint64, at, n int) {
	if id != 0 {
		rg.stacks[id%chunkStacks] = chunkStack{id, int32(at), int32(n)}
	}
}

// sameStack appends again the values of stack id, n frames, if the
// chunk has them, and reports whether it did.
func (rg *chunk) sameStack(s stackColumns, id uint64, n int) bool {
	k := rg.stacks[id%chunkStacks]
	if id == 0 || k.id != id || int(k.n) != n {
		return false
	}
	at := int(k.at)
	// The four columns have the same length (values are appended to all
	// of them at once): one check before any is appended to.
	if at+n > len(rg.cols[s.address]) {
		return false // not expected: the columns were emptied without the stacks
	}
	for _, c := range s.all() {
		col := rg.cols[c]
		rg.cols[c] = append(col, col[at:at+n]...)
		defs, reps := rg.defs[c], rg.reps[c]
		rg.defs[c], rg.reps[c] = append(defs, defs[at:at+n]...), append(reps, reps[at:at+n]...)
	}
	return true
}

// all returns the four stack columns.
func (s stackColumns) all() [4]int { return [...]int{s.address, s.module, s.offset, s.method} }

// frameStr reads the frame string at pos of b: its bytes (nil when
// absent) and where the next field starts; ok is false when b is too
// short.
func frameStr(b []byte, pos int) (s []byte, next int, ok bool) {
	if len(b)-pos < 4 {
		return nil, pos, false
	}
	l := binary.LittleEndian.Uint32(b[pos:])
	pos += 4
	if l == absent {
		return nil, pos, true
	}
	if uint64(l) > uint64(len(b)-pos) {
		return nil, pos, false
	}
	end := pos + int(l)
	return b[pos:end:end], end, true
}
